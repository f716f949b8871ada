#pragma once

// The collectives nccl-tests benchmarks, with the size and bandwidth conventions of each binary.

#include "engine/collectives/collectiveop.h"

#include <optional>
#include <string_view>

namespace clusterscope::importers {

/// The operation an nccl-tests benchmark binary (src/<name>.cu in NVIDIA/nccl-tests) runs. Accepts the
/// --op spelling of engine::toString(CollectiveOp) ("allreduce", ..., "scatter", "gather", "hypercube")
/// and the binary names ("all_reduce_perf", "all_reduce", "./build/all_reduce_perf",
/// "all_reduce_perf_mpi"): case-insensitive, path and "_perf*" suffix ignored.
std::optional<engine::CollectiveOp> ncclTestsCollectiveFromName(std::string_view name);

/// True for alltoallv_perf (NVIDIA/nccl-tests src/alltoallv.cu, nccl-tests 2.19 on), any spelling
/// ncclTestsCollectiveFromName accepts: an all-to-all whose per-peer sizes are irregular (a
/// distance-weighted pattern by default, or a traffic matrix file), timed on its busiest rank.
bool ncclTestsIsAlltoallv(std::string_view name);

/// NCCL_TESTS_ALLTOALLV_SPREAD as alltoallv_perf reads it (src/alltoallv.cu AlltoAllvParseEnv: strtod of
/// the whole value, clamped to [0, 1]; anything else keeps the default 1).
double ncclTestsAlltoallvSpread(std::string_view value);

/// algbw / (size / time) for the collective: 1 except HyperCube, whose algbw counts only (n-1)/n of
/// the printed size (hypercube.cu: baseBw = count x size x (n-1) / t); its busbw equals its algbw.
double algorithmBandwidthShare(engine::CollectiveOp collective, int ranks);

/// Printed size / (count x type size): nccl-tests prints max(send, recv) bytes and the per-rank
/// count, so this is n for AllGather, ReduceScatter, AlltoAll, Scatter, Gather and HyperCube, 1 otherwise.
int sizeToCountRatio(engine::CollectiveOp collective, int ranks);

/// True for the collectives whose binaries print a meaningful root (Broadcast, Reduce, Scatter, Gather).
bool hasRoot(engine::CollectiveOp collective);

/// True for the reductions (AllReduce, ReduceScatter, Reduce): the redop column holds an operation.
bool isReduction(engine::CollectiveOp collective);

/// Bytes per element of an nccl-tests type name ("float", "bfloat16", "int8", "half", "f8e4m3", ...),
/// none when unknown.
std::optional<int> ncclTestsTypeSize(std::string_view typeName);

} // namespace clusterscope::importers
