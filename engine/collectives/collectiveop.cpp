#include "engine/collectives/collectiveop.h"

#include <cctype>
#include <string>

namespace clusterscope::engine {

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
    case CollectiveOp::Gather:
        return "gather";
    case CollectiveOp::Scatter:
        return "scatter";
    case CollectiveOp::HyperCube:
        return "hypercube";
    case CollectiveOp::Barrier:
        return "barrier";
    case CollectiveOp::Unknown:
        break;
    }
    return "unknown";
}

std::optional<CollectiveOp> parseCollectiveOp(std::string_view text)
{
    std::string s(text);
    for (char& ch : s)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (int i = 0; i < kCollectiveOpCount; ++i) {
        const auto op = static_cast<CollectiveOp>(i);
        if (s == toString(op))
            return op;
    }
    return std::nullopt;
}

double busBandwidthFactor(CollectiveOp op, int ranks)
{
    // nccl-tests' definitions (NVIDIA/nccl-tests src/*.cu, the *GetBw functions; doc/PERFORMANCE.md
    // "Bus bandwidth"); Gather and Scatter move data like AllGather (src/gather.cu, src/scatter.cu).
    const double n = ranks;
    if (ranks < 1)
        return 0;
    switch (op) {
    case CollectiveOp::AllReduce:
        return 2.0 * (n - 1) / n;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
    case CollectiveOp::AllToAll:
    case CollectiveOp::Gather:
    case CollectiveOp::Scatter:
        return (n - 1) / n;
    case CollectiveOp::Broadcast:
    case CollectiveOp::Reduce:
    case CollectiveOp::SendRecv:
    case CollectiveOp::HyperCube:
    case CollectiveOp::Barrier:
    case CollectiveOp::Unknown:
        return 1.0;
    }
    return 1.0;
}

} // namespace clusterscope::engine
