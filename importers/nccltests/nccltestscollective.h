#pragma once

// The collectives nccl-tests benchmarks, with the size and bandwidth conventions of each binary.

#include <optional>
#include <string_view>

namespace clusterscope::importers {

/// One nccl-tests benchmark binary (src/<name>.cu in NVIDIA/nccl-tests).
enum class NcclTestsCollective {
    AllReduce, ///< all_reduce_perf
    AllGather, ///< all_gather_perf
    ReduceScatter, ///< reduce_scatter_perf
    Broadcast, ///< broadcast_perf
    Reduce, ///< reduce_perf
    AllToAll, ///< alltoall_perf
    SendRecv, ///< sendrecv_perf
    Scatter, ///< scatter_perf
    Gather, ///< gather_perf
    HyperCube, ///< hypercube_perf (an AllGather made of ncclSend/ncclRecv along hypercube edges)
};

/// "allreduce", "allgather", ... (the CLI's --op spelling; "scatter", "gather",
/// "hypercube" for the three binaries the collective model has no counterpart for).
const char* toString(NcclTestsCollective collective);

/// Accepts the --op spelling above and the binary names ("all_reduce_perf", "all_reduce",
/// "./build/all_reduce_perf", "all_reduce_perf_mpi"): case-insensitive, path and "_perf*" suffix ignored.
std::optional<NcclTestsCollective> ncclTestsCollectiveFromName(std::string_view name);

/// nccl-tests' busbw / algbw factor for `ranks` ranks (the *GetBw functions of NVIDIA/nccl-tests
/// src/*.cu), mapped onto the engine's one formula (collectivemodel.h): AllReduce 2(n-1)/n; AllGather, ReduceScatter,
/// AlltoAll, Scatter, Gather (n-1)/n; Broadcast, Reduce, SendRecv 1. HyperCube: 1, but its algbw
/// already counts only (n-1)/n of the printed size (hypercube.cu: baseBw = count x size x (n-1) / t).
double busBandwidthFactor(NcclTestsCollective collective, int ranks);

/// algbw / (size / time) for the collective: 1 except HyperCube ((n-1)/n, see above).
double algorithmBandwidthShare(NcclTestsCollective collective, int ranks);

/// Printed size / (count x type size): nccl-tests prints max(send, recv) bytes and the per-rank
/// count, so this is n for AllGather, ReduceScatter, AlltoAll, Scatter, Gather and HyperCube, 1 otherwise.
int sizeToCountRatio(NcclTestsCollective collective, int ranks);

/// True for the collectives whose binaries print a meaningful root (Broadcast, Reduce, Scatter, Gather).
bool hasRoot(NcclTestsCollective collective);

/// True for the reductions (AllReduce, ReduceScatter, Reduce): the redop column holds an operation.
bool isReduction(NcclTestsCollective collective);

/// Bytes per element of an nccl-tests type name ("float", "bfloat16", "int8", "half", "f8e4m3", ...),
/// none when unknown.
std::optional<int> ncclTestsTypeSize(std::string_view typeName);

} // namespace clusterscope::importers
