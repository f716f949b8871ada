#include "engine/analysis/scenarioanalysis.h"

#include "engine/analysis/fabriccontention.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/fabriclayout.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/trainingevaluator.h"

#include <algorithm>
#include <chrono>

namespace clusterscope::engine {

std::vector<Flow> flowsOfTraffic(const TrafficMatrix& traffic)
{
    std::vector<Flow> flows;
    traffic.visitSends([&flows](long long src, long long dst, int, double bytes) {
        if (src != dst && bytes > 0) // a group of one sends nothing
            flows.push_back({ std::uint32_t(src), std::uint32_t(dst), bytes });
    });
    return flows;
}

namespace {

    void report(const AnalysisOptions& options, double fraction)
    {
        if (options.progress)
            options.progress(fraction);
    }

    void analyseFabric(
        ScenarioAnalysis& out, const Scenario& scenario, const Catalog& catalog, const PriceBook& prices, bool price)
    {
        auto design = buildFabric(scenario, catalog);
        if (!design) {
            out.fabricError = design.message();
            return;
        }
        if (!price) {
            out.fabric = std::make_shared<const FabricDesign>(std::move(*design));
            return;
        }
        const LayoutSpec layout = scenario.layout ? *scenario.layout : defaultLayout(*design);
        if (auto laidOut = layOutFabric(*design, layout, catalog); !laidOut) {
            out.bomError = laidOut.message();
        } else if (auto bom = computeBom(*design, catalog, prices); !bom) {
            out.bomError = bom.message();
        } else {
            out.bom = std::move(*bom);
        }
        out.fabric = std::make_shared<const FabricDesign>(std::move(*design));
    }

} // namespace

const char* toString(EstimateSource source)
{
    switch (source) {
    case EstimateSource::Scenario:
        return "scenario";
    case EstimateSource::Search:
        return "search";
    case EstimateSource::None:
        break;
    }
    return "none";
}

std::string issuesText(const std::vector<ValidationIssue>& issues, bool firstOnly)
{
    std::string text;
    for (const ValidationIssue& issue : issues) {
        if (!text.empty())
            text += '\n';
        text += issue.pointer + ": " + issue.message;
        if (firstOnly)
            break;
    }
    return text;
}

FabricLoad loadFabric(const FabricDesign& fabric, const Scenario& scenario, const TrafficMatrix& traffic,
    TrainingEvaluator& evaluator, TrainingEstimate& estimate, bool timeContention)
{
    FabricLoad load;
    load.uncontendedIterationSeconds = estimate.iterationSeconds;
    const std::vector<Flow> flows = flowsOfTraffic(traffic);
    if (flows.empty()) {
        load.routed = true; // nothing crosses the fabric
        load.linkUtilisation.assign(fabric.graph.linkCount(), 0.0f);
        return load;
    }
    const FlowModel model(fabric);
    auto placement = model.route(flows, flowOptionsFor(scenario));
    if (!placement) {
        load.error = placement.message();
        return load;
    }
    load.routed = true;
    const std::vector<double> bytes = model.linkBytes(*placement);
    std::vector<double> largestFlow(bytes.size(), 0.0);
    const FlowPlacement& p = *placement;
    for (std::size_t sf = 0; sf < p.bytes.size(); ++sf)
        for (std::uint32_t e = p.start[sf]; e < p.start[sf] + p.length[sf]; ++e)
            largestFlow[p.dlinks[e]] = std::max(largestFlow[p.dlinks[e]], p.bytes[sf] * p.weights[e]);
    // Feed contention back: re-time the estimate with spine/core collectives slowed down. The bytes
    // each GPU sends do not depend on time, so the traffic matrix stays the one routed here.
    const TierContention contention = contentionFromLinkLoads(fabric.graph, bytes, largestFlow);
    load.spineSlowdown = contention.spineSlowdown;
    load.coreSlowdown = contention.coreSlowdown;
    if (contention.spineSlowdown > 1.0 || contention.coreSlowdown > 1.0) {
        evaluator.setFabricContention(contention.spineSlowdown, contention.coreSlowdown);
        estimate = evaluator.evaluate(estimate.strategy);
    }
    // Average utilisation over the (contended) iteration.
    const double seconds = estimate.iterationSeconds;
    const FabricGraph& g = fabric.graph;
    load.linkUtilisation.assign(g.linkCount(), 0.0f);
    for (LinkId l = 0; l < g.linkCount(); ++l) {
        const double capacityBytes = double(g.link(l).gbps) * 1e9 / 8.0 * seconds;
        if (capacityBytes > 0)
            load.linkUtilisation[l]
                = float(std::max(bytes[2 * std::size_t(l)], bytes[2 * std::size_t(l) + 1]) / capacityBytes);
    }
    if (timeContention)
        load.timing = model.timing(p);
    return load;
}

ScenarioAnalysis analyseScenario(
    const Scenario& scenario, const Catalog& catalog, const PriceBook& prices, const AnalysisOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    ScenarioAnalysis out;
    const auto finish = [&]() -> ScenarioAnalysis {
        out.elapsedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return std::move(out);
    };
    // The fabric depends on the cluster section only: a strategy that does not fit the GPU count
    // must not hide the fabric the architect is sizing.
    out.issues = options.knownIssues ? *options.knownIssues : findScenarioIssues(scenario, catalog);
    const bool clusterProblem = std::any_of(out.issues.begin(), out.issues.end(),
        [](const ValidationIssue& issue) { return issue.pointer.rfind("/cluster", 0) == 0; });
    // Beyond the fixed strategy: the model or training cannot be evaluated.
    const bool otherProblem = std::any_of(out.issues.begin(), out.issues.end(),
        [](const ValidationIssue& issue) { return issue.pointer.rfind("/parallelism", 0) != 0; });
    report(options, 0.0);
    if (clusterProblem)
        return finish();
    if (options.buildFabric)
        analyseFabric(out, scenario, catalog, prices, options.priceFabric);
    // A strategy that does not fit (say after changing the GPU count) must not hide the search
    // that finds one that does.
    if (otherProblem)
        return finish();
    if (options.stop.stop_requested()) {
        out.cancelled = true;
        return finish();
    }
    report(options, 0.15);

    auto created = TrainingEvaluator::create(scenario, catalog);
    if (!created) {
        out.trainingError = created.message();
        return finish();
    }
    auto evaluator = std::make_shared<TrainingEvaluator>(std::move(*created));
    if (options.calibration)
        evaluator->setCollectiveCalibration(*options.calibration);
    if (options.runSearch || !scenario.parallelism) {
        SearchOptions search;
        search.topK = std::max(1, options.runSearch ? options.searchTopK : 1);
        search.stop = options.stop;
        search.progress = [&options](double f) { report(options, 0.15 + 0.7 * f); };
        out.search = StrategySearch::run(*evaluator, search);
        if (out.search->cancelled) {
            out.cancelled = true;
            return finish();
        }
    }
    if (scenario.parallelism) {
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(scenario);
        const char* reason = evaluator->invalidReason(strategy);
        if (reason || !out.issues.empty()) {
            out.invalidStrategy = out.issues.empty() ? std::string(reason)
                                                     : out.issues.front().pointer + ": " + out.issues.front().message;
            out.trainingError = out.invalidStrategy;
            if (out.search && !out.search->ranked.empty()) {
                out.estimate = out.search->ranked.front();
                out.estimateSource = EstimateSource::Search;
            }
        } else {
            out.estimate = evaluator->evaluate(strategy);
            out.estimateSource = EstimateSource::Scenario;
        }
    } else if (!out.search->ranked.empty()) {
        out.estimate = out.search->ranked.front();
        out.estimateSource = EstimateSource::Search;
    } else {
        out.trainingError = "/parallelism: absent, and none of the " + std::to_string(out.search->valid)
            + " valid strategies fits in GPU memory";
    }
    report(options, 0.9);
    if (out.estimate) {
        out.load.uncontendedIterationSeconds = out.estimate->iterationSeconds;
        out.traffic
            = std::make_shared<const TrafficMatrix>(TrafficMatrix::fromEstimate(*out.estimate, evaluator->placer()));
        if (options.routeTraffic && out.fabric && !options.stop.stop_requested())
            out.load
                = loadFabric(*out.fabric, scenario, *out.traffic, *evaluator, *out.estimate, options.timeContention);
        out.trafficSource = std::make_shared<const ModelTrafficSource>(*out.traffic, evaluator->placer());
        out.geometry = evaluator->placer().geometry();
    }
    out.evaluator = std::move(evaluator);
    out.cancelled = options.stop.stop_requested();
    report(options, 1.0);
    return finish();
}

} // namespace clusterscope::engine
