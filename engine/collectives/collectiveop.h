#pragma once

// The one enum for a collective operation: the cost model, traced runs (Kineto, Nsight Systems,
// stored runs) and nccl-tests logs all use it, with one bus-bandwidth factor.

#include <cstdint>
#include <optional>
#include <string_view>

namespace clusterscope::engine {

/// A collective operation as NCCL and nccl-tests name them. The first kCollectiveOpCount values are
/// the ones the cost model prices (isCostModelled); the others occur in traces and nccl-tests logs.
enum class CollectiveOp : std::uint8_t {
    AllReduce,
    ReduceScatter,
    AllGather,
    Broadcast,
    Reduce,
    AllToAll,
    SendRecv, ///< point-to-point (ncclSend/ncclRecv, PyTorch send/recv/batch_isend_irecv)
    Gather,
    Scatter,
    HyperCube, ///< nccl-tests hypercube_perf: an AllGather made of ncclSend/ncclRecv along hypercube edges
    Barrier,
    Unknown,
};

/// Operations the cost model prices: AllReduce .. SendRecv.
inline constexpr int kCollectiveOpCount = 7;

/// True for the operations the cost model prices (CollectiveModel::estimate).
constexpr bool isCostModelled(CollectiveOp op) { return static_cast<int>(op) < kCollectiveOpCount; }

/// Stable lower-case name, the CLI's --op spelling: "allreduce", "reducescatter", "allgather",
/// "broadcast", "reduce", "alltoall", "sendrecv", "gather", "scatter", "hypercube", "barrier", "unknown".
const char* toString(CollectiveOp op);

/// Parses the names of the cost-modelled operations above (case-insensitive); none for the others.
std::optional<CollectiveOp> parseCollectiveOp(std::string_view text);

/// The one busbw / algbw factor for n ranks (nccl-tests' definitions: NVIDIA/nccl-tests
/// doc/PERFORMANCE.md "Bus bandwidth" and the *GetBw functions of src/*.cu):
/// AllReduce 2(n-1)/n; ReduceScatter, AllGather, AlltoAll, Gather, Scatter (n-1)/n; Broadcast, Reduce,
/// SendRecv 1; HyperCube 1 (hypercube.cu: busbw = algbw); Barrier and Unknown 1 (busbw = algbw);
/// 0 when n < 1 (no bandwidth is defined without ranks).
double busBandwidthFactor(CollectiveOp op, int ranks);

} // namespace clusterscope::engine
