#include "importers/nccltests/nccltestscollective.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace clusterscope::importers {

namespace {

    /// A benchmark name as a key: directory ("./build/all_reduce_perf") and "_perf", "_perf_mpi" suffixes
    /// stripped, '_' and '-' dropped, lower case.
    std::string benchmarkKey(std::string_view name)
    {
        if (const auto slash = name.find_last_of('/'); slash != std::string_view::npos)
            name.remove_prefix(slash + 1);
        if (const auto perf = name.find("_perf"); perf != std::string_view::npos)
            name = name.substr(0, perf);
        std::string key;
        for (char c : name) {
            if (c != '_' && c != '-')
                key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
        return key;
    }

} // namespace

bool ncclTestsIsAlltoallv(std::string_view name) { return benchmarkKey(name) == "alltoallv"; }

double ncclTestsAlltoallvSpread(std::string_view value)
{
    double v = 1.0;
    const char* end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v))
        return 1.0;
    return std::clamp(v, 0.0, 1.0);
}

std::optional<engine::CollectiveOp> ncclTestsCollectiveFromName(std::string_view name)
{
    const std::string key = benchmarkKey(name);
    static const struct {
        const char* key;
        engine::CollectiveOp collective;
    } kNames[] = {
        { "allreduce", engine::CollectiveOp::AllReduce },
        { "allgather", engine::CollectiveOp::AllGather },
        { "reducescatter", engine::CollectiveOp::ReduceScatter },
        { "broadcast", engine::CollectiveOp::Broadcast },
        { "reduce", engine::CollectiveOp::Reduce },
        { "alltoall", engine::CollectiveOp::AllToAll },
        { "sendrecv", engine::CollectiveOp::SendRecv },
        { "scatter", engine::CollectiveOp::Scatter },
        { "gather", engine::CollectiveOp::Gather },
        { "hypercube", engine::CollectiveOp::HyperCube },
    };
    for (const auto& n : kNames) {
        if (key == n.key)
            return n.collective;
    }
    return std::nullopt;
}

double algorithmBandwidthShare(engine::CollectiveOp collective, int ranks)
{
    const double n = std::max(ranks, 1);
    return collective == engine::CollectiveOp::HyperCube ? (n - 1.0) / n : 1.0;
}

int sizeToCountRatio(engine::CollectiveOp collective, int ranks)
{
    switch (collective) {
    case engine::CollectiveOp::AllGather:
    case engine::CollectiveOp::ReduceScatter:
    case engine::CollectiveOp::AllToAll:
    case engine::CollectiveOp::Scatter:
    case engine::CollectiveOp::Gather:
    case engine::CollectiveOp::HyperCube:
        return std::max(ranks, 1);
    default:
        return 1;
    }
}

bool hasRoot(engine::CollectiveOp collective)
{
    return collective == engine::CollectiveOp::Broadcast || collective == engine::CollectiveOp::Reduce
        || collective == engine::CollectiveOp::Scatter || collective == engine::CollectiveOp::Gather;
}

bool isReduction(engine::CollectiveOp collective)
{
    return collective == engine::CollectiveOp::AllReduce || collective == engine::CollectiveOp::ReduceScatter
        || collective == engine::CollectiveOp::Reduce;
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
