#pragma once

#include "engine/run/collectiveop.h"

#include <optional>
#include <string>
#include <string_view>

namespace clusterscope::importers {

/// What an NCCL kernel's name says (NVIDIA/nccl src/device/generate.py names the kernels).
struct NcclKernelName {
    engine::CollectiveOp op = engine::CollectiveOp::Unknown; ///< Unknown for ncclDevKernel_Generic
    bool newScheme = false; ///< ncclDevKernel_* (NCCL >= 2.19)
    std::string algorithm; ///< RING, TREE, ... from old-scheme names only; "" for the new scheme,
                           ///< whose suffix does not tell which algorithm ran
    std::string protocol; ///< LL, LL128, SIMPLE (old scheme only)
    std::string dtype; ///< float, int8_t, f32, bf16, ... ("" if absent)
};

/// Reads `ncclKernel_AllReduce_RING_LL_Sum_float(...)` (up to NCCL 2.18),
/// `ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)`, `ncclDevKernel_SendRecv`, `ncclDevKernel_Generic`
/// (2.19+) and the pre-2.8 `ncclAllReduceRingLLKernel_sum_f32`. Nothing when the name is not an NCCL
/// kernel.
std::optional<NcclKernelName> parseNcclKernelName(std::string_view name);

} // namespace clusterscope::importers
