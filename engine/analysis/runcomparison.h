#pragma once

// Measured versus modelled: a run imported from traces beside the model of the cluster it ran on
// (a scenario the user names). Two views: every measured collective's bus bandwidth against what
// the collective model predicts for the same operation, size and group on that cluster; and the
// measured per-step time split against the model's iteration breakdown of the scenario, with the
// differences named in words.

#include "engine/analysis/scenarioanalysis.h"
#include "engine/run/latencystats.h"
#include "engine/run/runanalysis.h"

#include <string>
#include <vector>

namespace clusterscope::engine {

class Catalog;
struct Scenario;

struct CollectiveComparison {
    std::string op; ///< "allreduce", ...
    std::string processGroup;
    std::int64_t bytes = 0; ///< nccl-tests S
    int ranks = 0;
    int calls = 0; ///< measured calls folded into this row (same op, group, size, ranks)
    double measuredBusbwGbps = 0; ///< the fold's measured busbw (engine/run/collectivefold.h), GB/s
    LatencyStats measuredDurationUs; ///< the calls' durations: mean, p50, p99, max (us)
    double modelledBusbwGbps = 0; ///< the collective model on the scenario's cluster (GB/s)
    std::string algorithm; ///< what the model chose
    double ratio = 0; ///< measured / modelled
};

/// Seconds per step of one rank, mean over ranks and steps (measured) or the model's iteration.
struct TimeSplit {
    double total = 0;
    double compute = 0; ///< measured: compute kernels; modelled: compute + recompute + optimizer
    double exposedComm = 0; ///< communication not hidden by compute
    double overlappedComm = 0; ///< measured only: communication under compute
    double other = 0; ///< measured: memcpy + idle; modelled: bubble + other
};

struct RunComparison {
    std::vector<CollectiveComparison> collectives;
    TimeSplit measured;
    std::optional<TimeSplit> modelled; ///< when the scenario's model estimate exists
    std::vector<std::string> findings; ///< the differences, in words, largest first
    std::vector<std::string> notes; ///< what could not be compared, and why
};

/// Compares `run` with the model of `scenario` (its cluster for the collectives; its model and
/// strategy for the iteration when the run's ranks match the scenario's GPUs). Collectives whose
/// size or group is unknown are skipped with a note. Groups are placed as nccl-tests does: ranks
/// spread evenly over the fewest nodes that hold them.
RunComparison compareRunWithScenario(const RunAnalysis& run, const Scenario& scenario, const Catalog& catalog,
    const ScenarioAnalysis* scenarioAnalysis = nullptr);

} // namespace clusterscope::engine
