#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace clusterscope::engine {

enum class CollectiveOp; // engine/collectives/collectivemodel.h

/// Collective operations as nccl-tests and NCCL name them.
enum class RunCollectiveOp : std::uint8_t {
    Unknown,
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Broadcast,
    Reduce,
    Gather,
    Scatter,
    SendRecv, ///< point-to-point (ncclSend/ncclRecv, PyTorch send/recv/batch_isend_irecv)
    Barrier,
};

/// Stable lower-case name: "allreduce", "allgather", "reducescatter", "alltoall", "broadcast",
/// "reduce", "gather", "scatter", "sendrecv", "barrier", "unknown" (the CLI's --op spelling).
const char* toString(RunCollectiveOp op);

/// Reads an operation name as PyTorch, Kineto args, NCCL kernels and NVTX spell it, ignoring case
/// and underscores: "allreduce", "all_reduce", "nccl:all_reduce", "_allgather_base",
/// "allgather_into_tensor_coalesced", "reduce_scatter_tensor", "all_to_all", "alltoall_base",
/// "send", "recv", "AllReduce", "ncclAllReduce", "SendRecv"... Unknown for anything else.
RunCollectiveOp parseRunCollectiveOp(std::string_view name);

/// busbw / algbw factor for n ranks: the model's busBandwidthFactor(CollectiveOp, n) (nccl-tests'
/// definitions, NVIDIA/nccl-tests src/*.cu GetBw; 0 when n < 1), with Gather and Scatter as
/// AllGather ((n-1)/n) and 1 for a barrier or an unknown operation.
double busBandwidthFactor(RunCollectiveOp op, int ranks);

/// The collective model's operation for a traced one (none for Gather, Scatter, Barrier, Unknown).
std::optional<CollectiveOp> modelOpOf(RunCollectiveOp op);

/// Bytes per element of a data type as PyTorch ("Float", "c10::BFloat16", "long int") or NCCL
/// kernel names ("float", "__nv_bfloat16", "int8_t", "f32", "bf16", "u8") spell it; 0 if unknown.
int dtypeSizeBytes(std::string_view dtype);

} // namespace clusterscope::engine
