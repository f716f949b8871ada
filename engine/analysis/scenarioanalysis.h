#pragma once

// Everything the planning views show about one scenario, computed in one call on a worker thread:
// the fabric (built, laid out, priced), the training estimate (the scenario's strategy, or the
// best one the search finds), the ranked strategies, the GPU-pair traffic of one iteration and the
// per-link load that traffic puts on the fabric. Each part fails on its own with its message, so
// a scenario whose fabric cannot be built still gets its training estimate and vice versa.

#include "engine/collectives/collectivecalibration.h"
#include "engine/fabric/fabricbom.h"
#include "engine/fabric/fabricdesign.h"
#include "engine/fabric/flowmodel.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trafficblocks.h"
#include "engine/training/trafficmatrix.h"
#include "engine/training/trainingestimate.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace clusterscope::engine {

class Catalog;
class PriceBook;
class TrainingEvaluator;
struct Scenario;

struct AnalysisOptions {
    int searchTopK = 30; ///< ranked strategies kept by the search (30 fills the Pareto chart)
    /// Also search all strategies (the Strategies tab). Without it the search still runs when the
    /// scenario states no parallelism (its best strategy is the estimate).
    bool runSearch = true;
    bool buildFabric = true; ///< build the fabric (off: no fabric, BOM or routing)
    bool priceFabric = true; ///< lay the fabric out in racks and price it (the bill of materials)
    bool routeTraffic = true; ///< place the iteration's traffic on the fabric (link utilisation)
    /// Also share the links max-min fairly to time the traffic (FabricLoad::timing). Costs ~5x the
    /// routing (0.3 s for 16,384 GPUs): interactive views that only colour links by load turn it off.
    bool timeContention = true;
    /// The validation issues the caller already found for this very scenario (findScenarioIssues),
    /// so that one edit is validated once; absent: the analysis validates.
    std::optional<std::vector<ValidationIssue>> knownIssues;
    std::stop_token stop; ///< cancellation: returns early with `cancelled`
    /// Fraction done (0..1), called on the analysing thread.
    std::function<void(double fraction)> progress;
    /// Collective-model calibration fitted from the user's nccl-tests logs (none: NCCL's defaults).
    const CollectiveCalibration* calibration = nullptr;
};

/// Where the estimate's strategy came from.
enum class EstimateSource {
    None, ///< no estimate
    Scenario, ///< the scenario's parallelism section
    Search, ///< the scenario states none (or an invalid one): the fastest strategy the search found
};
/// "none", "scenario", "search" (the `strategy_source` key of `clusterscope-cli evaluate --json`).
const char* toString(EstimateSource source);

/// The iteration's traffic routed on a fabric and its contention fed back into the estimate.
struct FabricLoad {
    bool routed = false; ///< the traffic was placed on the fabric
    /// Average utilisation (0..1) of each fabric link over one (contended) iteration, indexed by
    /// LinkId; both directions of a link: the busier one. Empty when not routed.
    std::vector<float> linkUtilisation;
    /// Contention of the iteration's traffic on the fabric (routing from the scenario): collectives
    /// through the spines / core run this much slower, and the estimate already includes it.
    double spineSlowdown = 1.0;
    double coreSlowdown = 1.0;
    double uncontendedIterationSeconds = 0; ///< the estimate's iteration time before contention
    std::optional<CollectiveTiming> timing; ///< max-min sharing of the traffic, when asked for
    std::string error; ///< routing failed (the estimate is unchanged)
};

struct ScenarioAnalysis {
    /// Validation issues (JSON pointer + message, for the editor to highlight the field). Any
    /// issue stops the training analysis; issues in /cluster also stop the fabric.
    std::vector<ValidationIssue> issues;

    std::shared_ptr<const FabricDesign> fabric; ///< laid out; null when it cannot be built
    std::string fabricError;
    std::optional<FabricBom> bom;
    std::string bomError;

    std::optional<TrainingEstimate> estimate; ///< null when no strategy can run
    EstimateSource estimateSource = EstimateSource::None;
    std::string trainingError;
    /// Why the scenario's own strategy cannot run, when it fixes one and every problem is under
    /// /parallelism: the search still runs and `estimate` is its best strategy ("search"), so the
    /// views can show and offer a valid strategy instead of nothing. Empty otherwise.
    std::string invalidStrategy;
    /// The evaluator of the estimate (calibration and the fabric contention applied): for JSON
    /// export and re-evaluating variants of the estimate's strategy.
    std::shared_ptr<const TrainingEvaluator> evaluator;
    std::optional<SearchResult> search;
    std::shared_ptr<const TrafficMatrix> traffic;
    std::shared_ptr<const TrafficSource> trafficSource; ///< the same traffic, for block/window queries (heatmap)
    ClusterGeometry geometry; ///< how GPUs group into nodes, leaves, pods

    /// The traffic on the fabric; `load.uncontendedIterationSeconds` is set whenever `estimate` is.
    FabricLoad load;

    bool cancelled = false;
    double elapsedSeconds = 0;
};

/// "pointer: message" of every issue, one a line (the first only with `firstOnly`).
std::string issuesText(const std::vector<ValidationIssue>& issues, bool firstOnly = false);

/// Routes `traffic` (the iteration traffic of `estimate`) on `fabric` with the scenario's routing,
/// measures the per-tier contention (fabriccontention.h), sets it on `evaluator` and re-evaluates
/// `estimate` with it. `timeContention` also runs max-min sharing (costly on large fabrics).
FabricLoad loadFabric(const FabricDesign& fabric, const Scenario& scenario, const TrafficMatrix& traffic,
    TrainingEvaluator& evaluator, TrainingEstimate& estimate, bool timeContention);

/// The one orchestration of a scenario's analysis (GUI, CLI evaluate, report, import-trace
/// --compare): validate, build/lay out/price the fabric, take the scenario's strategy or search for
/// one, evaluate it, build its traffic once, route it and feed contention back. Runs synchronously;
/// thread-safe for distinct calls (no shared state).
ScenarioAnalysis analyseScenario(
    const Scenario& scenario, const Catalog& catalog, const PriceBook& prices, const AnalysisOptions& options = {});

/// The point-to-point transfers of an iteration's traffic matrix, one Flow per (source GPU,
/// partner) of every pattern, with that pattern's bytes per pair. Ranks index GPUs as the fabric
/// builder numbers them (host x gpus_per_node + local index).
std::vector<Flow> flowsOfTraffic(const TrafficMatrix& traffic);

} // namespace clusterscope::engine
