#include "app/gui/fabricpresenter.h"

#include "engine/analysis/scenarioanalysis.h"
#include "engine/scenario/scenario.h"
#include "views/bom/bomview.h"
#include "views/charts/breakdownchart.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include "views/strategies/strategiesview.h"
#include "views/fabric/fabricscenebuilder.h"
#include "views/fabric/fabricview.h"

#include <QCoreApplication>

#include <algorithm>

namespace clusterscope::app {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("FabricPresenter", text); }
}

void presentFabric(views::FabricView& view, views::BomView& bomView, const engine::Scenario& scenario,
    const engine::ScenarioAnalysis& analysis)
{
    if (!analysis.problems.empty() && !analysis.fabric) {
        const QString message = tr("The scenario has problems to fix first:\n%1")
                                    .arg(QString::fromStdString(analysis.problems.front()));
        view.setEmptyState(message);
        bomView.setEmptyState(message);
        return;
    }
    if (!analysis.fabric) {
        const QString message = tr("This scenario's fabric cannot be built:\n%1").arg(QString::fromStdString(analysis.fabricError));
        view.setEmptyState(message);
        bomView.setEmptyState(message);
        return;
    }
    const engine::FabricDesign& design = *analysis.fabric;
    const auto perTier = design.graph.switchesPerTier();
    std::string title = scenario.name + " — " + std::to_string(design.hosts) + " servers";
    static const char* names[] = { " leaf", " spine", " core" };
    for (std::size_t t = 0; t < perTier.size() && t < 3; ++t)
        title += ", " + std::to_string(perTier[t]) + names[t];
    if (!analysis.linkUtilisation.empty()) {
        const float busiest = *std::max_element(analysis.linkUtilisation.begin(), analysis.linkUtilisation.end());
        char text[96];
        std::snprintf(text, sizeof text, "; busiest link %.0f%% busy over an iteration", busiest * 100.0);
        title += text;
    }
    view.setScene(views::sceneFromGraph(design.graph, views::SceneLayout::Tiers, analysis.linkUtilisation, title));

    if (analysis.bom)
        bomView.setBom(*analysis.bom, QString::fromStdString(scenario.name));
    else
        bomView.setEmptyState(tr("No bill of materials:\n%1").arg(QString::fromStdString(analysis.bomError)));
}

void presentTraining(views::BreakdownChart& chart, views::StrategiesView& strategies, const engine::Scenario& scenario,
    const engine::ScenarioAnalysis& analysis)
{
    QString why;
    if (!analysis.problems.empty())
        why = tr("The scenario has problems to fix first:\n%1").arg(QString::fromStdString(analysis.problems.front()));
    else if (!analysis.trainingError.empty())
        why = tr("No training estimate:\n%1").arg(QString::fromStdString(analysis.trainingError));
    if (analysis.estimate)
        chart.setBreakdowns(views::BreakdownChart::fromEstimates(*analysis.estimate, analysis.search ? &*analysis.search : nullptr, 4));
    else
        chart.setEmptyState(why);
    if (analysis.search)
        strategies.setResult(*analysis.search, QString::fromStdString(scenario.name));
    else
        strategies.setEmptyState(why.isEmpty() ? tr("No search was run.") : why);
}

void presentTraffic(views::TrafficHeatmapWidget& heatmap, const engine::Scenario& scenario,
    const engine::ScenarioAnalysis& analysis)
{
    if (!analysis.trafficSource) {
        heatmap.setEmptyState(analysis.problems.empty()
                ? tr("No traffic to show:\n%1").arg(QString::fromStdString(analysis.trainingError))
                : tr("The scenario has problems to fix first:\n%1").arg(QString::fromStdString(analysis.problems.front())));
        return;
    }
    heatmap.setTitle(tr("%1 — bytes per iteration between GPUs (%2)")
                         .arg(QString::fromStdString(scenario.name),
                             QString::fromStdString(analysis.estimateSource == "search" ? "best strategy found" : "scenario strategy")));
    heatmap.setSource(analysis.trafficSource, views::heatmapGeometryFor(scenario, analysis.geometry));
}

} // namespace clusterscope::app
