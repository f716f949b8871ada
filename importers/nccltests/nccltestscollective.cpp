#include "importers/nccltests/nccltestscollective.h"

#include "engine/collectives/collectivemodel.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace clusterscope::importers {

const char* toString(NcclTestsCollective collective)
{
    switch (collective) {
    case NcclTestsCollective::AllReduce:
        return "allreduce";
    case NcclTestsCollective::AllGather:
        return "allgather";
    case NcclTestsCollective::ReduceScatter:
        return "reducescatter";
    case NcclTestsCollective::Broadcast:
        return "broadcast";
    case NcclTestsCollective::Reduce:
        return "reduce";
    case NcclTestsCollective::AllToAll:
        return "alltoall";
    case NcclTestsCollective::SendRecv:
        return "sendrecv";
    case NcclTestsCollective::Scatter:
        return "scatter";
    case NcclTestsCollective::Gather:
        return "gather";
    case NcclTestsCollective::HyperCube:
        return "hypercube";
    }
    return "?";
}

std::optional<NcclTestsCollective> ncclTestsCollectiveFromName(std::string_view name)
{
    // Strip a directory ("./build/all_reduce_perf") and the "_perf", "_perf_mpi" suffixes.
    if (const auto slash = name.find_last_of('/'); slash != std::string_view::npos)
        name.remove_prefix(slash + 1);
    if (const auto perf = name.find("_perf"); perf != std::string_view::npos)
        name = name.substr(0, perf);
    std::string key;
    for (char c : name) {
        if (c != '_' && c != '-')
            key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    static const struct {
        const char* key;
        NcclTestsCollective collective;
    } kNames[] = {
        { "allreduce", NcclTestsCollective::AllReduce },
        { "allgather", NcclTestsCollective::AllGather },
        { "reducescatter", NcclTestsCollective::ReduceScatter },
        { "broadcast", NcclTestsCollective::Broadcast },
        { "reduce", NcclTestsCollective::Reduce },
        { "alltoall", NcclTestsCollective::AllToAll },
        { "sendrecv", NcclTestsCollective::SendRecv },
        { "scatter", NcclTestsCollective::Scatter },
        { "gather", NcclTestsCollective::Gather },
        { "hypercube", NcclTestsCollective::HyperCube },
    };
    for (const auto& n : kNames) {
        if (key == n.key)
            return n.collective;
    }
    return std::nullopt;
}

double busBandwidthFactor(NcclTestsCollective collective, int ranks)
{
    // The engine's one formula (collectivemodel.h); Scatter and Gather move data like AllGather
    // (scatter.cu, gather.cu), HyperCube's busbw equals its algbw (hypercube.cu).
    const int n = std::max(ranks, 1);
    switch (collective) {
    case NcclTestsCollective::AllReduce:
        return engine::busBandwidthFactor(engine::CollectiveOp::AllReduce, n);
    case NcclTestsCollective::AllGather:
    case NcclTestsCollective::Scatter:
    case NcclTestsCollective::Gather:
        return engine::busBandwidthFactor(engine::CollectiveOp::AllGather, n);
    case NcclTestsCollective::ReduceScatter:
        return engine::busBandwidthFactor(engine::CollectiveOp::ReduceScatter, n);
    case NcclTestsCollective::AllToAll:
        return engine::busBandwidthFactor(engine::CollectiveOp::AllToAll, n);
    case NcclTestsCollective::Broadcast:
        return engine::busBandwidthFactor(engine::CollectiveOp::Broadcast, n);
    case NcclTestsCollective::Reduce:
        return engine::busBandwidthFactor(engine::CollectiveOp::Reduce, n);
    case NcclTestsCollective::SendRecv:
    case NcclTestsCollective::HyperCube:
        return engine::busBandwidthFactor(engine::CollectiveOp::SendRecv, n);
    }
    return 1.0;
}

double algorithmBandwidthShare(NcclTestsCollective collective, int ranks)
{
    const double n = std::max(ranks, 1);
    return collective == NcclTestsCollective::HyperCube ? (n - 1.0) / n : 1.0;
}

int sizeToCountRatio(NcclTestsCollective collective, int ranks)
{
    switch (collective) {
    case NcclTestsCollective::AllGather:
    case NcclTestsCollective::ReduceScatter:
    case NcclTestsCollective::AllToAll:
    case NcclTestsCollective::Scatter:
    case NcclTestsCollective::Gather:
    case NcclTestsCollective::HyperCube:
        return std::max(ranks, 1);
    default:
        return 1;
    }
}

bool hasRoot(NcclTestsCollective collective)
{
    return collective == NcclTestsCollective::Broadcast || collective == NcclTestsCollective::Reduce
        || collective == NcclTestsCollective::Scatter || collective == NcclTestsCollective::Gather;
}

bool isReduction(NcclTestsCollective collective)
{
    return collective == NcclTestsCollective::AllReduce || collective == NcclTestsCollective::ReduceScatter
        || collective == NcclTestsCollective::Reduce;
}

std::optional<int> ncclTestsTypeSize(std::string_view typeName)
{
    // Type names of NVIDIA/nccl-tests src/common.cu test_typenames (and NCCL 1's "char", "int").
    static const struct {
        const char* name;
        int bytes;
    } kTypes[] = {
        { "int8", 1 },
        { "uint8", 1 },
        { "char", 1 },
        { "f8e4m3", 1 },
        { "f8e5m2", 1 },
        { "half", 2 },
        { "bfloat16", 2 },
        { "int32", 4 },
        { "uint32", 4 },
        { "int", 4 },
        { "float", 4 },
        { "int64", 8 },
        { "uint64", 8 },
        { "double", 8 },
    };
    for (const auto& t : kTypes) {
        if (typeName == t.name)
            return t.bytes;
    }
    return std::nullopt;
}

} // namespace clusterscope::importers
