#include "app/report/sensitivity.h"

#include "app/report/reportformat.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariovalidator.h"

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
        return { grown, QStringLiteral("best strategy found by the search") };
    }

} // namespace

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
    first.note = base.estimateSource == engine::EstimateSource::Search
        ? QStringLiteral("best strategy found by the search")
        : QStringLiteral("strategy from the scenario");
    rows.push_back(first);

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
        SensitivityRow row = sensitivityRow(QStringLiteral("Oversubscription ") + formatRatio(ratio), variant,
            analyse(variant, catalog, prices, stop, calibration));
        row.note = first.note + equivalent;
        rows.push_back(row);
    }
    if (!stop.stop_requested()) {
        Scenario variant = scenario;
        variant.cluster.transport = c.transport == Transport::InfiniBand ? Transport::RoCE : Transport::InfiniBand;
        SensitivityRow row = sensitivityRow(
            transportName(variant.cluster.transport) + QStringLiteral(" instead of ") + transportName(c.transport),
            variant, analyse(variant, catalog, prices, stop, calibration));
        row.note = first.note;
        rows.push_back(row);
    }
    if (!stop.stop_requested()) {
        auto [variant, note] = nextGpuCount(scenario, catalog);
        SensitivityRow row = sensitivityRow(QStringLiteral("Next GPU count up: ") + formatCount(variant.cluster.gpus),
            variant, analyse(variant, catalog, prices, stop, calibration));
        row.note = note;
        rows.push_back(row);
    }
    return rows;
}

} // namespace clusterscope::app
