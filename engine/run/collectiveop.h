#pragma once

// How traces spell collective operations and data types (the enum: engine/collectives/collectiveop.h).

#include "engine/collectives/collectiveop.h"

#include <string_view>

namespace clusterscope::engine {

/// Reads an operation name as PyTorch, Kineto args, NCCL kernels and NVTX spell it, ignoring case
/// and underscores: "allreduce", "all_reduce", "nccl:all_reduce", "_allgather_base",
/// "allgather_into_tensor_coalesced", "reduce_scatter_tensor", "all_to_all", "alltoall_base",
/// "send", "recv", "AllReduce", "ncclAllReduce", "SendRecv"... Unknown for anything else.
CollectiveOp parseRunCollectiveOp(std::string_view name);

/// Bytes per element of a data type as PyTorch ("Float", "c10::BFloat16", "long int") or NCCL
/// kernel names ("float", "__nv_bfloat16", "int8_t", "f32", "bf16", "u8") spell it; 0 if unknown.
int dtypeSizeBytes(std::string_view dtype);

} // namespace clusterscope::engine
