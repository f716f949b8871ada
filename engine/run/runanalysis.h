#pragma once

// Analyses of an imported run: per-step, per-rank time breakdown; collectives matched across ranks
// with bytes, time, algbw/busbw; cross-rank clock alignment; stragglers; GPU-pair traffic matrix.

#include "engine/run/latencystats.h"
#include "engine/run/measuredtraffic.h"
#include "engine/run/runmodel.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace clusterscope::engine {

/// Where one rank's GPU time went in one step. All in seconds; duration = compute + commExposed
/// + memcpy + idle (commOverlapped is the part of communication hidden under compute).
struct RankStepBreakdown {
    std::int32_t rank = 0;
    double durationSeconds = 0;
    double computeSeconds = 0; ///< union of compute kernels
    double commExposedSeconds = 0; ///< communication kernels not overlapped by compute
    double commOverlappedSeconds = 0; ///< communication kernels running under compute
    double memcpySeconds = 0; ///< memcpy/memset not hidden under compute or communication
    double idleSeconds = 0; ///< no GPU activity at all
    /// The idle time split by its cause, from the kernels' launch times: idle while no work was
    /// queued (the host had not launched the next kernel yet: host-bound) ...
    double idleHostWaitSeconds = 0;
    /// ... and idle while launched work was already queued but not started (waiting on events,
    /// other streams or collectives: kernel-bound). Both 0 when the trace has no launch times.
    double idleKernelWaitSeconds = 0;
};

struct StepBreakdown {
    std::int64_t step = 0;
    std::vector<RankStepBreakdown> ranks;
};

/// One collective matched across the ranks that took part.
struct CollectiveSummary {
    CollectiveOp op = CollectiveOp::Unknown;
    std::string processGroup;
    std::int64_t sequence = 0; ///< per-group call number (from the trace, else the order of calls)
    std::int64_t step = -1; ///< ProfilerStep of the first rank's call, -1 outside any step
    std::int64_t bytes = -1; ///< S of the nccl-tests definitions, -1 unknown
    std::int32_t groupSize = 0; ///< ranks in the collective's group
    std::int32_t ranksSeen = 0; ///< ranks whose trace holds this call
    /// Time from the last arrival to the end: the last-arriving rank's kernel duration (it waits for
    /// nobody), in microseconds. With one rank seen, that rank's kernel duration.
    double durationUs = 0;
    double algbwGbps = 0; ///< bytes / duration, GB/s (1e9 B/s); 0 when bytes are unknown
    double busbwGbps = 0; ///< algbw x busBandwidthFactor(op, groupSize)
    std::int32_t lastArrivalRank = -1; ///< -1 when fewer than two ranks were seen
    double waitUs = 0; ///< longest wait it caused: last minus first aligned start (us)
    double totalWaitUs = 0; ///< sum over ranks of (last start - own start) (us)
    std::int64_t firstStartNs = 0; ///< aligned start of the first arrival (ns, reference clock)
};

/// A rank that others waited for.
struct Straggler {
    std::int32_t rank = 0;
    std::int32_t lastArrivals = 0; ///< collectives it arrived last at
    double waitCausedUs = 0; ///< sum of the totalWaitUs of those collectives
    /// The waits it caused (each collective's waitUs: last minus first arrival, us): mean, p50,
    /// p99, max. Stragglers are ranked by this tail (p99, then max, then waitCausedUs).
    LatencyStats waitTailUs {};
};

struct RunAnalysis {
    /// Per rank (index as in Run::ranks): estimated clock offset in ns; aligned = own - offset.
    std::vector<std::int64_t> clockOffsetNs;
    std::vector<StepBreakdown> steps;
    std::vector<CollectiveSummary> collectives; ///< in order of aligned first start
    std::vector<Straggler> stragglers; ///< by the tail of the waits they cause, largest first
    MeasuredTraffic traffic; ///< bytes sent between global ranks (sparse pairs)
    Diagnostics diagnostics;
};

/// Runs every analysis. Deterministic; never fails (problems become diagnostics). Reduces each rank
/// to a RankSummary and runs the cross-rank analyses on those (ranksummary.h).
RunAnalysis analyseRun(const Run& run);

// The parts, usable alone.
std::vector<StepBreakdown> computeStepBreakdowns(const Run& run, Diagnostics& diagnostics);
/// Matches the calls of all ranks, estimates clock offsets, fills collectives and stragglers.
void matchCollectives(const Run& run, RunAnalysis& analysis);
/// The ranks the others waited for, from matched collectives (lastArrivalRank, waitUs,
/// totalWaitUs), ranked by the tail of the waits they caused (Straggler::waitTailUs).
std::vector<Straggler> rankStragglers(const std::vector<CollectiveSummary>& collectives);
/// Exact for point-to-point and all-to-all (split sizes or even split); ring-modelled otherwise.
MeasuredTraffic computeMeasuredTraffic(const Run& run, Diagnostics& diagnostics);

} // namespace clusterscope::engine
