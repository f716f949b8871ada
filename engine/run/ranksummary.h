#pragma once

// The per-rank half of a run's analysis. Each rank's trace is reduced on its own to a compact
// summary (its step breakdowns, its collective calls with arrival and exit times, the traffic it
// sent as sparse pairs, its diagnostics); the cross-rank analyses (clock alignment, collective
// matching, stragglers, busbw, traffic aggregation) then run on the summaries of all ranks. The
// single-process import and the distributed one (each process reduces its own rank files) share
// this code, so they give the same result bit for bit.

#include "engine/run/measuredtraffic.h"
#include "engine/run/runanalysis.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::engine {

/// One collective call as the cross-rank analyses see it (the kernel's arrival and exit).
struct RankCollectiveArrival {
    CollectiveOp op = CollectiveOp::Unknown;
    std::string processGroup;
    std::int64_t sequence = 0; ///< the trace's Seq, else the call's number within its group on this rank
    std::int64_t startNs = 0; ///< kernel start, this rank's clock (ns)
    std::int64_t endNs = 0; ///< kernel end (ns)
    std::int64_t bytes = -1; ///< S of the nccl-tests definitions, -1 unknown
    std::int32_t groupSize = 0;
    std::int64_t step = -1; ///< ProfilerStep holding the launch (else the start), -1 outside every step
    bool operator==(const RankCollectiveArrival&) const = default;
};

/// One rank's breakdown of one step.
struct RankStepSummary {
    std::int64_t step = 0;
    RankStepBreakdown breakdown;
};

/// Everything the cross-rank analyses need from one rank, without its events.
struct RankSummary {
    /// The rank's identity and metadata (rank, world size, file, GPU, NCCL): events left empty.
    RankTrace info;
    std::vector<RankStepSummary> steps;
    std::vector<RankCollectiveArrival> collectives; ///< in the trace's call order
    /// Bytes this rank sent, one entry per destination, sorted (exact for p2p and all-to-all,
    /// ring-modelled otherwise: trafficmatrix.cpp).
    std::vector<RankTrafficPair> sends;
    /// Point-to-point receives (src = the peer): counted only when the peer's own trace is absent.
    std::vector<RankTrafficPair> receives;
    std::int32_t trafficRanks = 0; ///< 1 + the highest global rank this rank's traffic refers to
    std::int64_t trafficUnknownBytes = 0; ///< calls left out of the traffic: no message size
    std::int64_t trafficUnknownPeers = 0; ///< calls left out of the traffic: group or peer unknown
    Diagnostics diagnostics; ///< of the step breakdown
};

/// Reduces one rank's trace. Depends only on that trace (its rank and world size included).
RankSummary summarizeRank(const RankTrace& rank);

// The per-rank parts, usable alone.
std::vector<RankStepSummary> rankStepBreakdowns(const RankTrace& rank, Diagnostics& diagnostics);
std::vector<RankCollectiveArrival> rankCollectiveArrivals(const RankTrace& rank);
void rankTraffic(const RankTrace& rank, RankSummary& into);

/// The cross-rank analyses on the summaries of all ranks (in Run::ranks order: sorted by rank).
/// analyseRun(run) == analyseRankSummaries(summaries of run.ranks).
RunAnalysis analyseRankSummaries(const std::vector<RankSummary>& ranks);

// The cross-rank parts, usable alone.
std::vector<StepBreakdown> mergeStepBreakdowns(const std::vector<RankSummary>& ranks, Diagnostics& diagnostics);
void matchCollectives(const std::vector<RankSummary>& ranks, RunAnalysis& analysis);
MeasuredTraffic mergeTraffic(const std::vector<RankSummary>& ranks, Diagnostics& diagnostics);

} // namespace clusterscope::engine
