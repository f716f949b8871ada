#pragma once

// Raw records the Kineto JSON walker collects before they are linked into a RankTrace
// (kinetoassembler.cpp). Internal to importers/kineto.

#include "engine/run/runmodel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::importers::kineto {

/// Collective arguments PyTorch attaches to NCCL kernels and record_param_comms (newer versions).
struct CollectiveArgs {
    bool present = false;
    std::string name; ///< "Collective name"
    std::int64_t inNelems = -1; ///< "In msg nelems"
    std::int64_t outNelems = -1;
    std::int32_t groupSize = 0; ///< "Group size"
    std::string dtype;
    std::string inSplit; ///< "In split size", text like "[1, 2]"
    std::string pgName, pgDescription, pgRanks;
    std::int32_t srcRank = -1, dstRank = -1;
    std::int64_t seq = -1;
};

struct RawGpuEvent {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t correlation = -1;
    std::int32_t stream = 0;
    std::int32_t device = -1;
    engine::GpuActivityKind kind = engine::GpuActivityKind::Compute;
    std::int32_t ncclIndex = -1; ///< index into RawTrace::ncclKernels
};

struct RawNcclKernel {
    std::string name;
    CollectiveArgs args;
};

/// A host range that may describe a collective: record_param_comms or a nccl:* annotation.
struct RawHostRange {
    std::int64_t tid = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    bool annotation = false; ///< nccl:* user_annotation (names the op) vs record_param_comms
    std::string opName;
    std::int64_t inputElements = -1; ///< product of the first "Input Dims" entry
    std::string inputType;
    CollectiveArgs args;
};

struct RawLaunch {
    std::int64_t correlation = 0;
    std::int64_t tid = 0;
    std::int64_t tsNs = 0;
    bool operator<(const RawLaunch& o) const { return correlation < o.correlation; }
};

struct DeviceInfo {
    std::int64_t id = -1;
    std::string name;
    std::int64_t totalGlobalMem = 0;
};

struct ProcessGroupConfig {
    std::string name, description;
    std::int32_t size = 0;
    std::vector<std::int32_t> ranks;
};

struct RawTrace {
    std::int32_t rank = -1;
    std::int32_t worldSize = 0;
    std::string ncclVersion;
    std::int64_t baseTimeNs = 0;
    std::vector<DeviceInfo> devices;
    std::vector<ProcessGroupConfig> processGroups;
    std::vector<RawGpuEvent> gpu;
    std::vector<RawNcclKernel> ncclKernels;
    std::vector<RawHostRange> hostRanges;
    std::vector<RawLaunch> launches;
    std::vector<engine::ProfilerStepRange> steps;
    std::vector<std::int64_t> stepTids; ///< the thread of each steps[i] (ProfilerStep#N may be on several)
};

/// Links launches, host ranges and kernels into a RankTrace (sizes, groups, steps, absolute times).
engine::RankTrace assembleRankTrace(RawTrace raw, const std::string& name, engine::Diagnostics& diagnostics);

/// Parses "[0, 1, 2]" (or "0,1") into integers; nothing parsed yields an empty list.
std::vector<std::int64_t> parseIntegerList(const std::string& text);

} // namespace clusterscope::importers::kineto
