#include "app/gui/fabricpresenter.h"

#include "engine/analysis/contendedranking.h"
#include "engine/analysis/fabriccontention.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/fabriclayout.h"
#include "engine/scenario/scenario.h"
#include "engine/training/computecalibration.h"
#include "engine/training/trainingevaluator.h"
#include "views/bom/bomview.h"
#include "views/charts/breakdownchart.h"
#include "views/fabric/fabricview.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include "views/models/strategytablemodel.h"
#include "views/presentation/fabricscenebuilder.h"
#include "views/presentation/tiernames.h"
#include "views/strategies/strategiesview.h"

#include <QCoreApplication>

#include <algorithm>
#include <optional>

namespace clusterscope::app {

namespace {
    QString tr(const char* text) { return QCoreApplication::translate("FabricPresenter", text); }
}

namespace {

    double unitPrice(const engine::FabricBom& bom, const std::string& category, const std::string& item, double length)
    {
        for (const engine::BomLine& line : bom.lines)
            if (line.category == category && line.item == item && (length <= 0 || line.lengthMetres == length))
                return line.unitPriceUsd;
        return -1;
    }

    QString linkDetails(const engine::ScenarioAnalysis& a, const engine::Catalog& catalog,
        const views::FabricSceneData& scene, const views::SceneLink& line)
    {
        using namespace engine;
        const FabricGraph& g = a.fabric->graph;
        const LinkId id = LinkId(line.graphLink);
        const FabricLink& link = g.link(id);
        const auto name = [&](int sceneNode) {
            return QString::fromStdString(scene.nodes[std::size_t(sceneNode)].label).toHtmlEscaped();
        };
        const QString level = views::capitalised(views::linkLevelLabel(g.level(id)));
        QString text = tr("<b>%1</b> link: %2 – %3").arg(level, name(line.from), name(line.to));
        if (line.members > 1)
            text += tr("<br>%1 parallel cables (the busiest shown)").arg(line.members);
        text += tr("<br>rate %1 Gb/s per direction, %2 lanes").arg(double(link.gbps)).arg(int(link.lanes));
        text += tr("<br>medium %1, length %2 m")
                    .arg(QString::fromLatin1(toString(link.medium)))
                    .arg(double(link.lengthMetres), 0, 'f', 1);
        if (id < a.load.linkUtilisation.size())
            text += tr("<br>utilisation: %1 averaged over one iteration")
                        .arg(QString::fromStdString(describeUtilisation(double(a.load.linkUtilisation[id]))));
        if (link.flags & kLinkMissing)
            text += tr("<br><font color='#c00'>missing</font>");
        else if (link.flags & kLinkDegraded)
            text += tr("<br><font color='#c00'>degraded</font>");
        if (a.bom && link.lengthMetres > 0) {
            if (const CableModel* cable = cableFor(link, catalog)) {
                const double cablePrice = unitPrice(*a.bom, "cable", cable->id, cableLengthBin(link.lengthMetres));
                double optics = 0;
                if (cable->needsTransceivers)
                    optics = 2 * std::max(0.0, unitPrice(*a.bom, "transceiver", cable->transceiver, 0));
                if (cablePrice >= 0)
                    text += tr("<br>cost $%1 (%2%3)")
                                .arg(cablePrice + optics, 0, 'f', 0)
                                .arg(QString::fromStdString(cable->name).toHtmlEscaped())
                                .arg(optics > 0 ? tr(" + 2 x %1 optics").arg(QString::fromStdString(cable->transceiver))
                                                : QString());
            }
        }
        return text;
    }

    QString nodeDetails(const engine::ScenarioAnalysis& a, const views::FabricSceneData& scene, int index)
    {
        using namespace engine;
        const views::SceneNode& n = scene.nodes[std::size_t(index)];
        QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(n.label).toHtmlEscaped());
        const FabricDesign& d = *a.fabric;
        if (n.kind == views::SceneNodeKind::Node) {
            text += tr("<br>%1 server(s) x %2 GPUs (%3), %4 NICs of %5 Gb/s each")
                        .arg(n.members)
                        .arg(d.gpusPerNode)
                        .arg(QString::fromStdString(d.gpuModel))
                        .arg(d.nicsPerNode)
                        .arg(d.nicGbps);
        } else if (n.graphNode >= 0) {
            const FabricNode& node = d.graph.node(NodeId(n.graphNode));
            text += tr("<br>%1 switch, %2 ports (%3)")
                        .arg(QString::fromStdString(tierName(node.tier)))
                        .arg(node.ports)
                        .arg(QString::fromStdString(d.switchModel));
            float busiest = 0;
            int links = 0;
            for (LinkId l : d.graph.linksOf(NodeId(n.graphNode))) {
                ++links;
                if (l < a.load.linkUtilisation.size())
                    busiest = std::max(busiest, a.load.linkUtilisation[l]);
            }
            text += tr("<br>%1 links, the busiest %2 over an iteration")
                        .arg(links)
                        .arg(QString::fromStdString(describeUtilisation(double(busiest))));
        }
        return text;
    }

} // namespace

void presentFabric(views::FabricView& view, views::BomView& bomView, const engine::Scenario& scenario,
    std::shared_ptr<const engine::ScenarioAnalysis> shared, const engine::Catalog& catalog, bool showScene)
{
    const engine::ScenarioAnalysis& analysis = *shared;
    if (!analysis.issues.empty() && !analysis.fabric) {
        const QString message = tr("The scenario has problems to fix first:\n%1")
                                    .arg(QString::fromStdString(engine::issuesText(analysis.issues, true)));
        if (showScene)
            view.setEmptyState(message);
        bomView.setEmptyState(message);
        return;
    }
    if (!analysis.fabric) {
        const QString message
            = tr("This scenario's fabric cannot be built:\n%1").arg(QString::fromStdString(analysis.fabricError));
        if (showScene)
            view.setEmptyState(message);
        bomView.setEmptyState(message);
        return;
    }
    // Without `showScene` Fabric 3D keeps what it shows (an imported fabric); the BOM is still the scenario's.
    if (showScene) {
        const engine::FabricDesign& design = *analysis.fabric;
        const auto perTier = design.graph.switchesPerTier();
        std::string title = scenario.name + " — " + std::to_string(design.hosts) + " servers";
        static const char* names[] = { " leaf", " spine", " core" };
        for (std::size_t t = 0; t < perTier.size() && t < 3; ++t)
            title += ", " + std::to_string(perTier[t]) + names[t];
        // The same busiest-link figure as the CLI and the report (engine::busiestLink).
        if (const auto busiest = engine::busiestLink(design.graph, analysis.load.linkUtilisation)) {
            title += "\nbusiest link over an iteration: " + engine::describeUtilisation(busiest->utilisation);
            // Inside a server: the network's own busiest link below it (as the report says it).
            if (busiest->level == engine::LinkLevel::Internal)
                if (const auto network = engine::busiestNetworkLink(design.graph, analysis.load.linkUtilisation))
                    title += " (" + views::linkLevelLabel(busiest->level).toStdString()
                        + ")\nbusiest network link: " + engine::describeUtilisation(network->utilisation) + " ("
                        + views::linkLevelLabel(network->level).toStdString() + ")";
        }
        view.setSceneFactory([shared, title](views::SceneLayout layout) {
            return views::sceneFromGraph(shared->fabric->graph, layout, shared->load.linkUtilisation, title);
        });
        view.setDetailsProvider([shared, &catalog](const views::FabricSceneData& scene, const views::ScenePick& pick) {
            return pick.isLink ? linkDetails(*shared, catalog, scene, scene.links[std::size_t(pick.index)])
                               : nodeDetails(*shared, scene, pick.index);
        });
    }

    if (analysis.bom)
        bomView.setBom(*analysis.bom, QString::fromStdString(scenario.name));
    else
        bomView.setEmptyState(tr("No bill of materials:\n%1").arg(QString::fromStdString(analysis.bomError)));
}

namespace {

    /// The breakdown chart: the current (or best valid) strategy beside the search's fastest, those
    /// with the contention of their traffic once computed.
    void presentBreakdown(views::BreakdownChart& chart, const engine::ScenarioAnalysis& analysis,
        const std::vector<engine::TrainingEstimate>& rankedWithContention, bool contendedPending)
    {
        const bool fallback = !analysis.invalidStrategy.empty();
        // The chart's ranked bars with the contention their traffic meets, as the current one, when
        // they were computed (the first AnalysisRunner::kContendedRanked strategies).
        std::optional<engine::SearchResult> contended;
        if (analysis.search && !rankedWithContention.empty()) {
            contended = *analysis.search;
            const std::size_t n = std::min(rankedWithContention.size(), contended->ranked.size());
            std::copy_n(rankedWithContention.begin(), n, contended->ranked.begin());
            contended->ranked.resize(n);
        }
        // While they are computed the chart shows the current strategy alone: a ranked bar never
        // changes its time in front of the user.
        const engine::SearchResult* ranked = contended ? &*contended
            : analysis.search && !contendedPending     ? &*analysis.search
                                                       : nullptr;
        chart.setBreakdowns(views::BreakdownChart::fromEstimates(
            *analysis.estimate, ranked, 4, fallback ? tr("Best valid") : QString()));
        // Calibrated or not is said beside the iteration time, as the CLI and the report say it.
        const std::string from = analysis.evaluator
            ? engine::computeCalibrationSource(analysis.evaluator->scenario().computeCalibration)
            : std::string();
        // The source's first words fit a chart title ("run "x"" of "run "x" (median compute time ...)");
        // the chart's tooltip has the whole source.
        const QString source = QString::fromStdString(from);
        const QString calibrated = from.empty()
            ? QString()
            : tr(" — compute calibrated from %1").arg(source.section(QStringLiteral(" ("), 0, 0));
        chart.setToolTip(from.empty() ? QString() : tr("Compute model calibrated from %1").arg(source));
        // The current bar includes the contention of its traffic routed on the fabric; the ranked
        // bars are the search's times without it (as the Strategies table's header says).
        const bool anyRanked = analysis.search && !analysis.search->ranked.empty();
        const QString withContention = contended ? tr("<br>every bar with the fabric contention of its traffic")
            : contendedPending                   ? tr("<br>the fastest strategies with fabric contention: computing")
            : anyRanked && analysis.load.routed && analysis.load.uncontendedIterationSeconds > 0
            ? tr("<br>%1 with fabric contention, ranked strategies (#) without it")
                  .arg(fallback ? tr("Best valid") : tr("Current"))
            : QString();
        chart.setTitle(fallback
                ? tr("Iteration breakdown: the scenario's strategy cannot run, the best valid one is shown")
                    + calibrated + withContention
                : calibrated.isEmpty() && withContention.isEmpty()
                ? QString()
                : tr("Iteration breakdown") + calibrated + withContention);
    }

    std::vector<double> iterationSeconds(const std::vector<engine::TrainingEstimate>& estimates)
    {
        std::vector<double> seconds;
        for (const engine::TrainingEstimate& e : estimates)
            seconds.push_back(e.iterationSeconds);
        return seconds;
    }

} // namespace

void presentTraining(views::BreakdownChart& chart, views::StrategiesView& strategies, const engine::Scenario& scenario,
    const engine::ScenarioAnalysis& analysis, const std::vector<engine::TrainingEstimate>& rankedWithContention,
    bool contendedPending)
{
    QString why;
    if (!analysis.issues.empty())
        why = tr("The scenario has problems to fix first:\n%1")
                  .arg(QString::fromStdString(engine::issuesText(analysis.issues, true)));
    else if (!analysis.trainingError.empty())
        why = tr("No training estimate:\n%1").arg(QString::fromStdString(analysis.trainingError));
    // The scenario's own strategy cannot run: show the search's best instead of nothing, and say so.
    const bool fallback = !analysis.invalidStrategy.empty();
    // The search ranks strategies on the model alone; the shown strategy is then routed on the
    // fabric and slowed by the contention its traffic meets. Both are said where they meet.
    QString contention;
    if (analysis.estimate && analysis.load.uncontendedIterationSeconds > 0
        && analysis.estimate->iterationSeconds > analysis.load.uncontendedIterationSeconds * 1.005)
        contention
            = tr("%1 includes fabric contention: %2 s per iteration, %3 s without (ranked times are without it).")
                  .arg(fallback ? tr("\"Best valid\"") : tr("\"Current\""))
                  .arg(analysis.estimate->iterationSeconds, 0, 'f', 3)
                  .arg(analysis.load.uncontendedIterationSeconds, 0, 'f', 3);
    if (analysis.estimate)
        presentBreakdown(chart, analysis, rankedWithContention, contendedPending);
    else
        chart.setEmptyState(why);
    if (analysis.search) {
        strategies.setResult(*analysis.search, QString::fromStdString(scenario.name));
        if (contendedPending && rankedWithContention.empty())
            strategies.model()->setContendedPending(
                int(std::min(engine::kContendedRankedCount, analysis.search->ranked.size())));
        else
            strategies.model()->setContendedSeconds(iterationSeconds(rankedWithContention));
        QString notice;
        if (fallback)
            notice = tr("The scenario's strategy cannot run (%1). The other tabs show the best valid strategy below.")
                         .arg(QString::fromStdString(analysis.invalidStrategy));
        if (!contention.isEmpty())
            notice += (notice.isEmpty() ? QString() : QStringLiteral(" "))
                + tr("Times are ranked without fabric contention (the fastest rows' times with it are in the "
                     "\"With contention\" column); ")
                + contention;
        strategies.setNotice(notice, fallback && !analysis.search->ranked.empty());
    } else {
        strategies.setEmptyState(why.isEmpty() ? tr("No search was run.") : why);
        strategies.setNotice({});
    }
}

void presentRankedWithContention(views::BreakdownChart& chart, views::StrategiesView& strategies,
    const engine::ScenarioAnalysis& analysis, const std::vector<engine::TrainingEstimate>& rankedWithContention)
{
    if (analysis.estimate)
        presentBreakdown(chart, analysis, rankedWithContention, false);
    if (analysis.search)
        strategies.model()->setContendedSeconds(iterationSeconds(rankedWithContention));
}

void presentTraffic(
    views::TrafficHeatmapWidget& heatmap, const engine::Scenario& scenario, const engine::ScenarioAnalysis& analysis)
{
    if (!analysis.trafficSource) {
        heatmap.setEmptyState(analysis.issues.empty()
                ? tr("No traffic to show:\n%1").arg(QString::fromStdString(analysis.trainingError))
                : tr("The scenario has problems to fix first:\n%1")
                      .arg(QString::fromStdString(engine::issuesText(analysis.issues, true))));
        return;
    }
    heatmap.setTitle(tr("%1 — bytes per iteration between GPUs (%2)")
                         .arg(QString::fromStdString(scenario.name),
                             QString::fromStdString(analysis.estimateSource == engine::EstimateSource::Search
                                     ? "best strategy found"
                                     : "scenario strategy")));
    heatmap.setSource(analysis.trafficSource, views::heatmapGeometryFor(scenario, analysis.geometry));
}

} // namespace clusterscope::app
