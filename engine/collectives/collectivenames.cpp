// Names of collective operations, algorithms and protocols, and the nccl-tests busbw factors.

#include "engine/collectives/collectivemodel.h"

#include <cctype>
#include <string>

namespace clusterscope::engine {

namespace {

    std::string lower(std::string_view text)
    {
        std::string s(text);
        for (char& ch : s)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return s;
    }

} // namespace

const char* toString(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::AllReduce:
        return "allreduce";
    case CollectiveOp::ReduceScatter:
        return "reducescatter";
    case CollectiveOp::AllGather:
        return "allgather";
    case CollectiveOp::Broadcast:
        return "broadcast";
    case CollectiveOp::Reduce:
        return "reduce";
    case CollectiveOp::AllToAll:
        return "alltoall";
    case CollectiveOp::SendRecv:
        return "sendrecv";
    }
    return "?";
}

const char* toString(CollectiveAlgorithm a)
{
    switch (a) {
    case CollectiveAlgorithm::Auto:
        return "auto";
    case CollectiveAlgorithm::Ring:
        return "ring";
    case CollectiveAlgorithm::Tree:
        return "tree";
    case CollectiveAlgorithm::Nvls:
        return "nvls";
    case CollectiveAlgorithm::NvlsTree:
        return "nvlstree";
    case CollectiveAlgorithm::CollNetDirect:
        return "collnet_direct";
    case CollectiveAlgorithm::CollNetChain:
        return "collnet_chain";
    case CollectiveAlgorithm::Pat:
        return "pat";
    case CollectiveAlgorithm::HalvingDoubling:
        return "halving_doubling";
    case CollectiveAlgorithm::Direct:
        return "direct";
    case CollectiveAlgorithm::Hierarchical:
        return "hierarchical";
    case CollectiveAlgorithm::ParameterServer:
        return "parameter_server";
    }
    return "?";
}

const char* toString(CollectiveProtocol p)
{
    switch (p) {
    case CollectiveProtocol::LL:
        return "LL";
    case CollectiveProtocol::LL128:
        return "LL128";
    case CollectiveProtocol::Simple:
        return "Simple";
    }
    return "?";
}

std::optional<CollectiveOp> parseCollectiveOp(std::string_view text)
{
    const std::string s = lower(text);
    for (int i = 0; i < kCollectiveOpCount; ++i) {
        const auto op = static_cast<CollectiveOp>(i);
        if (s == toString(op))
            return op;
    }
    return std::nullopt;
}

std::optional<CollectiveAlgorithm> parseCollectiveAlgorithm(std::string_view text)
{
    const std::string s = lower(text);
    for (int i = 0; i < CollectiveCalibration::kAlgorithms; ++i) {
        const auto a = static_cast<CollectiveAlgorithm>(i);
        if (s == toString(a))
            return a;
    }
    if (s == "collnet")
        return CollectiveAlgorithm::CollNetDirect;
    if (s == "halving-doubling" || s == "halvingdoubling")
        return CollectiveAlgorithm::HalvingDoubling;
    if (s == "parameter-server" || s == "ps")
        return CollectiveAlgorithm::ParameterServer;
    if (s == "nvls_tree" || s == "nvls-tree")
        return CollectiveAlgorithm::NvlsTree;
    return std::nullopt;
}

double busBandwidthFactor(CollectiveOp op, int ranks)
{
    // nccl-tests' definitions (NVIDIA/nccl-tests src/*.cu, the *GetBw functions; doc/PERFORMANCE.md
    // "Bus bandwidth"). No bandwidth is defined without ranks.
    const double n = ranks;
    if (ranks < 1)
        return 0;
    switch (op) {
    case CollectiveOp::AllReduce:
        return 2.0 * (n - 1) / n;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
    case CollectiveOp::AllToAll:
        return (n - 1) / n;
    case CollectiveOp::Broadcast:
    case CollectiveOp::Reduce:
    case CollectiveOp::SendRecv:
        return 1.0;
    }
    return 0;
}

} // namespace clusterscope::engine
