#pragma once

// The neutral run model: what one profiled training run looked like on each rank's GPU, independent
// of the format it came from (Kineto JSON, Nsight Systems SQLite). Plain structs so that the project
// store can persist them row by row (see the note at the end of this file).

#include "engine/run/collectiveop.h"
#include "engine/run/diagnostics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::engine {

/// What a GPU activity was doing.
enum class GpuActivityKind : std::uint8_t { Compute, Communication, Memcpy, Memset };

/// One GPU activity (kernel, copy, fill) on one rank. Times are int64 nanoseconds on the rank's own
/// clock (the clock of the host that recorded it: not aligned with other ranks).
struct GpuActivity {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int32_t stream = 0;
    GpuActivityKind kind = GpuActivityKind::Compute;
    std::int32_t collectiveIndex = -1; ///< index into RankTrace::collectives for Communication, else -1
    std::int64_t launchNs = -1; ///< host time of the launching API call, -1 when unknown
};

/// One collective or point-to-point call as seen by one rank (one NCCL kernel).
struct CollectiveCall {
    CollectiveOp op = CollectiveOp::Unknown;
    std::int64_t startNs = 0; ///< kernel start on this rank's clock (ns)
    std::int64_t endNs = 0; ///< kernel end (ns)
    std::int64_t launchNs = -1;
    /// Data size S of the nccl-tests definitions (collectives.md: AllReduce count x size, AllGather
    /// sendcount x size x n, ...), in bytes; -1 when the trace does not say.
    std::int64_t bytes = -1;
    std::int32_t groupSize = 0; ///< ranks taking part (0 when unknown)
    std::string processGroup; ///< process-group name ("" = default/world group)
    std::string processGroupDescription;
    std::vector<std::int32_t> groupRanks; ///< global ranks of the group, when the trace lists them
    std::int64_t sequence = -1; ///< per-group sequence number from the trace, -1 if absent
    std::int32_t peerRank = -1; ///< p2p: the other side (global rank), -1 if unknown
    std::int8_t p2pDirection = 0; ///< p2p: +1 this rank sends to peerRank, -1 receives, 0 unknown
    std::vector<std::int64_t> splitBytes; ///< all-to-all: bytes sent to each group member (empty = even)
    std::string dtype;
    std::string algorithm; ///< from an old-scheme kernel name only (never from ncclDevKernel names)
    std::string kernelName;
};

/// One ProfilerStep (iteration) on one rank, host clock (ns).
struct ProfilerStepRange {
    std::int64_t step = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

/// Everything recorded for one rank.
struct RankTrace {
    std::int32_t rank = -1; ///< global rank (-1: not stated; the loader assigns one)
    std::int32_t worldSize = 0; ///< 0 when unknown
    std::string sourceFile;
    std::string gpuName;
    std::int64_t gpuMemoryBytes = 0;
    std::string ncclVersion;
    std::int64_t baseTimeNs = 0; ///< Kineto baseTimeNanoseconds (0 if absent), informational
    std::vector<GpuActivity> activities; ///< sorted by startNs
    std::vector<CollectiveCall> collectives; ///< in kernel start order
    std::vector<ProfilerStepRange> steps; ///< sorted by start
};

/// A whole run: one RankTrace per rank file (sorted by rank) and what went wrong while importing.
struct Run {
    std::vector<RankTrace> ranks;
    Diagnostics diagnostics;
};

// Storage: engine/store/runstore.h keeps an imported run in the project's tables runs (name,
// sources, summary), run_ranks, run_rank_steps, run_collectives, run_stragglers, run_traffic
// (non-zero pairs) and run_diagnostics (schema in engine/store/projectschema.cpp). The GPU events
// themselves (RankTrace::activities) are not stored: the timeline needs the trace files. The
// analysis (runanalysis.h) is stored with the run, so reopening a project needs no re-parse.

} // namespace clusterscope::engine
