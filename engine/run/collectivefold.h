#pragma once

// The calls of one kind of collective folded into one row: the Runs tab, Compare Run with Scenario
// and `clusterscope-cli import-trace` all show these rows, with one definition of measured busbw.
//
// Measured bus bandwidth (one definition everywhere): nccl-tests' own. nccl-tests times `iters`
// calls of one operation and size and divides by their count (src/common.cu, the average time
// per iteration); algbw = S / that mean time and busbw = algbw x the operation's bus factor
// (the *GetBw functions of src/*.cu, engine/collectives/collectivemodel.h busBandwidthFactor).
// A fold's busbw is the same: S x factor / mean call duration. It is therefore directly comparable
// with nccl-tests logs and with the collective model calibrated from them. The per-call busbw
// (CollectiveSummary::busbwGbps) uses the same formula with the call's own duration; the tail of
// the durations (p50 / p99 / max) is reported beside the mean.

#include "engine/run/latencystats.h"
#include "engine/run/runanalysis.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::engine {

/// Calls with the same operation, process group, size and group size.
struct CollectiveFold {
    CollectiveOp op = CollectiveOp::Unknown;
    std::string processGroup;
    std::int64_t bytes = -1; ///< S of the nccl-tests definitions, -1 unknown
    std::int32_t groupSize = 0; ///< ranks in the group
    int calls = 0;
    LatencyStats durationUs; ///< per-call duration (CollectiveSummary::durationUs), microseconds
    double algbwGbps = 0; ///< S / mean duration, GB/s (1e9 B/s); 0 when S is unknown
    double busbwGbps = 0; ///< algbw x busBandwidthFactor(op, groupSize): the measured busbw
    double totalWaitUs = 0; ///< sum of the calls' totalWaitUs
};

/// algbw in GB/s of `bytes` moved in `durationUs` microseconds (0 when either is not positive).
double measuredAlgbwGbps(std::int64_t bytes, double durationUs);
/// The measured busbw in GB/s of `bytes` of `op` on `groupSize` ranks taking `durationUs`.
double measuredBusbwGbps(CollectiveOp op, std::int64_t bytes, std::int32_t groupSize, double durationUs);

/// Folds `collectives` (in the order each kind first appears).
std::vector<CollectiveFold> foldCollectives(const std::vector<CollectiveSummary>& collectives);

/// Per-step durations of a run in seconds: each step lasts as long as its slowest rank (a
/// synchronous step ends when the last rank does); their mean and tail.
LatencyStats stepDurationStats(const RunAnalysis& analysis);

} // namespace clusterscope::engine
