#include "app/report/sensitivity.h"

#include "app/report/reportformat.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/trainingevaluator.h"
#include "views/presentation/breakdownpalette.h"
#include "views/presentation/strategylabel.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::app {

using namespace clusterscope::engine;

namespace {

    QString transportName(Transport t)
    {
        return t == Transport::InfiniBand ? QStringLiteral("InfiniBand") : QStringLiteral("RoCE");
    }

    ScenarioAnalysis analyse(const Scenario& s, const Catalog& catalog, const PriceBook& prices, std::stop_token stop,
        const CollectiveCalibration* calibration)
    {
        AnalysisOptions options;
        options.calibration = calibration;
        options.runSearch = false; // the scenario's strategy (the search still runs when it states none)
        options.routeTraffic = true; // the contention of the iteration's traffic on the variant's fabric
        options.stop = stop;
        return analyseScenario(s, catalog, prices, options);
    }

    /// The scenario grown to the next GPU count (see computeSensitivity) and how its strategy was chosen.
    std::pair<Scenario, QString> nextGpuCount(const Scenario& scenario, const Catalog& catalog)
    {
        if (scenario.parallelism) {
            const ParallelismSpec& p = *scenario.parallelism;
            const int modelParallel = p.tp * p.pp * p.cp;
            for (int dp = p.dp + 1; dp <= 2 * p.dp; ++dp) {
                Scenario grown = scenario;
                grown.cluster.gpus = modelParallel * dp;
                grown.parallelism->dp = dp;
                if (grown.cluster.gpus % grown.cluster.gpusPerNode != 0)
                    continue;
                if (findScenarioIssues(grown, catalog).empty())
                    return { grown, QStringLiteral("same strategy, DP ") + QString::number(dp) };
            }
        }
        Scenario grown = scenario;
        grown.cluster.gpus = 2 * scenario.cluster.gpus;
        grown.parallelism.reset();
        return { grown, QStringLiteral("best found by the search") };
    }

    // Where a group's traffic goes (GroupPlacement::spanTier, engine/core/linkclass.h).
    QString spanText(int spanTier)
    {
        switch (spanTier) {
        case 0:
            return QStringLiteral("inside a server");
        case 1:
            return QStringLiteral("under one leaf");
        case 2:
            return QStringLiteral("through the spines");
        default:
            return QStringLiteral("through the core");
        }
    }

    QString contentionOf(const ScenarioAnalysis& a)
    {
        if (!a.estimate || a.load.uncontendedIterationSeconds <= 0)
            return {};
        return QStringLiteral("×")
            + QString::number(a.estimate->iterationSeconds / a.load.uncontendedIterationSeconds, 'f', 3);
    }

} // namespace

QString sameStrategyDifference(const ScenarioAnalysis& base, const ScenarioAnalysis& variant)
{
    if (!base.estimate || !variant.estimate || !base.evaluator || !variant.evaluator)
        return {};
    const double before = base.estimate->iterationSeconds, after = variant.estimate->iterationSeconds;
    if (std::fabs(after - before) <= 1e-4 * before)
        return {};
    QStringList why;
    // The same ranks placed on the other fabric: a group that now spans other switches.
    const ParallelismSpec& p = base.estimate->strategy.parallelism;
    const StrategyGroups g0 = base.evaluator->groups(p), g1 = variant.evaluator->groups(p);
    const std::pair<const char*, const GroupPlacement StrategyGroups::*> dims[]
        = { { "TP groups", &StrategyGroups::tp }, { "CP groups", &StrategyGroups::cp },
              { "DP groups", &StrategyGroups::dp }, { "EP groups", &StrategyGroups::ep },
              { "pipeline neighbours", &StrategyGroups::ppPair } };
    for (const auto& [name, member] : dims) {
        const GroupPlacement& a = g0.*member;
        const GroupPlacement& b = g1.*member;
        if (a.ranks > 1 && a.spanTier != b.spanTier)
            why << QLatin1String(name) + QLatin1Char(' ') + spanText(b.spanTier) + QStringLiteral(" instead of ")
                    + spanText(a.spanTier);
    }
    // The two parts of the iteration that moved most.
    std::vector<std::pair<double, views::BreakdownComponent>> moved;
    for (const views::BreakdownComponent c : views::BreakdownPalette::components()) {
        const double d = views::BreakdownPalette::seconds(variant.estimate->breakdown, c)
            - views::BreakdownPalette::seconds(base.estimate->breakdown, c);
        if (std::fabs(d) >= 1e-4)
            moved.emplace_back(std::fabs(d), c);
    }
    std::sort(moved.begin(), moved.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (std::size_t i = 0; i < moved.size() && i < 2; ++i) {
        const views::BreakdownComponent c = moved[i].second;
        why << views::BreakdownPalette::name(c) + QLatin1Char(' ')
                + formatSeconds(views::BreakdownPalette::seconds(variant.estimate->breakdown, c))
                + QStringLiteral(" instead of ")
                + formatSeconds(views::BreakdownPalette::seconds(base.estimate->breakdown, c));
    }
    const QString c0 = contentionOf(base), c1 = contentionOf(variant);
    if (!c0.isEmpty() && !c1.isEmpty() && c0 != c1)
        why << QStringLiteral("contention ") + c1 + QStringLiteral(" instead of ") + c0;
    return why.join(QStringLiteral("; "));
}

SensitivityRow sensitivityRow(const QString& variant, const Scenario& scenario, const ScenarioAnalysis& analysis)
{
    SensitivityRow row;
    row.variant = variant;
    row.gpus = scenario.cluster.gpus;
    QStringList errors;
    if (!analysis.issues.empty())
        errors << QString::fromStdString(engine::issuesText(analysis.issues, true));
    if (!analysis.fabricError.empty())
        errors << QString::fromStdString(analysis.fabricError);
    if (!analysis.bomError.empty())
        errors << QString::fromStdString(analysis.bomError);
    if (!analysis.trainingError.empty())
        errors << QString::fromStdString(analysis.trainingError);
    if (analysis.bom) {
        row.networkCostPerGpuUsd = analysis.bom->networkCostPerGpuUsd();
        row.clusterCostUsd = analysis.bom->clusterCostUsd;
    }
    if (analysis.estimate) {
        row.strategy = views::strategyLabel(analysis.estimate->strategy);
        row.sameStrategySeconds = analysis.estimate->iterationSeconds;
        row.iterationSeconds = analysis.estimate->iterationSeconds;
        row.tokensPerSecond = analysis.estimate->tokensPerSecond;
    }
    // The contention the iteration time includes (the same figure as the analysis feeds back).
    if (analysis.estimate && analysis.load.uncontendedIterationSeconds > 0 && !analysis.load.linkUtilisation.empty())
        row.contentionSlowdown = analysis.estimate->iterationSeconds / analysis.load.uncontendedIterationSeconds;
    if (!analysis.bom || !analysis.estimate)
        row.error = errors.isEmpty() ? QStringLiteral("not computed") : errors.join(QStringLiteral("; "));
    return row;
}

std::vector<SensitivityRow> computeSensitivity(const Scenario& scenario, const ScenarioAnalysis& base,
    const Catalog& catalog, const PriceBook& prices, std::stop_token stop, const CollectiveCalibration* calibration)
{
    std::vector<SensitivityRow> rows;
    const ClusterSpec& c = scenario.cluster;
    SensitivityRow first = sensitivityRow(QStringLiteral("As specified (") + formatRatio(c.fabric.oversubscription)
            + QStringLiteral(", ") + transportName(c.transport) + QStringLiteral(", ") + formatCount(c.gpus)
            + QStringLiteral(" GPUs)"),
        scenario, base);
    first.base = true;
    first.note = base.estimateSource == engine::EstimateSource::Search ? QStringLiteral("best found by the search")
                                                                       : QStringLiteral("from the scenario");
    rows.push_back(first);

    // Each variant also with the base's strategy, so that the fabric's own effect shows apart from
    // a strategy the variant's search may pick. A scenario that states its strategy runs it on
    // every variant already: then the variant's own analysis is the same-strategy one.
    const auto withBaseStrategy
        = [&](SensitivityRow& row, const Scenario& variant, const ScenarioAnalysis& ownAnalysis) {
              row.sameStrategySeconds = 0;
              if (!base.estimate)
                  return;
              Scenario same = variant;
              base.estimate->strategy.applyTo(same);
              const bool own = ownAnalysis.estimate
                  && ownAnalysis.estimate->strategy == engine::TrainingStrategy::fromScenario(same);
              const ScenarioAnalysis sameAnalysis
                  = own ? ScenarioAnalysis {} : analyse(same, catalog, prices, stop, calibration);
              const ScenarioAnalysis& a = own ? ownAnalysis : sameAnalysis;
              if (a.estimate) {
                  row.sameStrategySeconds = a.estimate->iterationSeconds;
                  row.sameStrategyWhy = sameStrategyDifference(base, a);
              }
          };

    for (const double ratio : { 1.0, 2.0, 3.0 }) {
        if (std::fabs(ratio - c.fabric.oversubscription) < 1e-9 || stop.stop_requested())
            continue;
        Scenario variant = scenario;
        variant.cluster.fabric.oversubscription = ratio;
        // A fat-tree is non-blocking by definition: the oversubscribed equivalent is a leaf-spine
        // of the same switches (radix, tiers, planes), as Clos fabrics are tapered in practice.
        QString equivalent;
        if (ratio > 1.0 && variant.cluster.fabric.type == FabricType::FatTree) {
            variant.cluster.fabric.type = FabricType::LeafSpine;
            equivalent = QStringLiteral("; as a leaf-spine of the same radix-") + QString::number(c.fabric.switchRadix)
                + QStringLiteral(" switches");
        } else if (ratio == 1.0 && variant.cluster.fabric.type == FabricType::LeafSpine) {
            equivalent = QStringLiteral("; a non-blocking leaf-spine");
        }
        const ScenarioAnalysis analysis = analyse(variant, catalog, prices, stop, calibration);
        SensitivityRow row
            = sensitivityRow(QStringLiteral("Oversubscription ") + formatRatio(ratio), variant, analysis);
        row.note = first.note + equivalent;
        withBaseStrategy(row, variant, analysis);
        rows.push_back(row);
    }
    if (!stop.stop_requested()) {
        Scenario variant = scenario;
        variant.cluster.transport = c.transport == Transport::InfiniBand ? Transport::RoCE : Transport::InfiniBand;
        const ScenarioAnalysis analysis = analyse(variant, catalog, prices, stop, calibration);
        SensitivityRow row = sensitivityRow(
            transportName(variant.cluster.transport) + QStringLiteral(" instead of ") + transportName(c.transport),
            variant, analysis);
        row.note = first.note;
        withBaseStrategy(row, variant, analysis);
        rows.push_back(row);
    }
    if (!stop.stop_requested()) {
        auto [variant, note] = nextGpuCount(scenario, catalog);
        SensitivityRow row = sensitivityRow(QStringLiteral("Next GPU count up: ") + formatCount(variant.cluster.gpus),
            variant, analyse(variant, catalog, prices, stop, calibration));
        row.note = note;
        // The base's strategy does not cover another GPU count: no same-strategy time.
        row.sameStrategySeconds = 0;
        rows.push_back(row);
    }
    return rows;
}

} // namespace clusterscope::app
