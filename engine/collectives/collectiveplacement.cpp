// Placement of a group on the cluster: the per-request context, consecutive placement, the split of
// NIC bytes over fabric tiers and the flow count.

#include "engine/collectives/collectivecost.h"
#include "engine/collectives/nccltuningtables.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clusterscope::engine::collectives {

bool placementIsValid(const GroupPlacement& g)
{
    return g.ranks >= 1 && g.ranksPerNode >= 1 && g.nicsPerNode >= 1 && g.spanTier >= 0 && g.spanTier <= 3
        && g.nodesPerLeaf >= 0;
}

GroupContext makeContext(const CollectiveHardware& hw, const GroupPlacement& g)
{
    GroupContext c;
    c.ranks = std::max(1, g.ranks);
    c.ranksPerNode = std::clamp(g.ranksPerNode, 1, c.ranks);
    c.nodes = (c.ranks + c.ranksPerNode - 1) / c.ranksPerNode;
    c.nics = std::max(1, g.nicsPerNode);
    c.spanTier = c.nodes > 1 ? std::clamp(g.spanTier, 1, 3) : 0;
    c.capIndex = c.nodes <= 2 ? c.nodes - 1 : 2;
    c.nodesPerLeaf = std::max(1, g.nodesPerLeaf > 0 ? g.nodesPerLeaf : hw.nodesPerLeaf);
    c.nodesPerPod = std::max(c.nodesPerLeaf, hw.nodesPerPod);
    // A group that spans only one leaf never sees more; one that crosses spines sees more than one leaf.
    if (c.spanTier <= 1)
        c.nodesPerLeaf = std::max(c.nodesPerLeaf, c.nodes);
    if (c.spanTier <= 2)
        c.nodesPerPod = std::max(c.nodesPerPod, c.nodes);
    c.intraHw = hw.nvlink ? nccl::kNvlink : nccl::kPci;
    c.gpusPerThread = std::clamp(g.gpusPerThread, 1, c.ranksPerNode);
    c.intraBytesPerSecond = c.ranksPerNode > 1 ? hw.intraBytesPerSecond : std::numeric_limits<double>::infinity();
    c.nicBytesPerSecond = hw.nicBytesPerSecond;
    // Uplinks above the leaf are shared down:up; traffic that crosses spines gets 1/oversubscription.
    const double oversub = c.spanTier >= 2 ? std::max(1.0, hw.oversubscription) : 1.0;
    c.interBytesPerSecond = c.nics * hw.nicBytesPerSecond / oversub;
    // NCCL channels: the intra-node graph's channels on one node, two per NIC beyond (MAXCHANNELS 32).
    c.channels = c.nodes > 1 ? std::min(32, 2 * c.nics) : hw.intraChannels;
    return c;
}

void splitTiers(const GroupContext& ctx, double nicBytes, bool neighbourTraffic, LinkClassBytes& out)
{
    out.tierBytes[0] = 0;
    out.tierBytes[1] = out.tierBytes[2] = out.tierBytes[3] = 0;
    if (ctx.nodes <= 1 || nicBytes <= 0)
        return;
    const double m = ctx.nodes;
    const double leaves = std::ceil(m / ctx.nodesPerLeaf);
    const double pods = std::ceil(m / ctx.nodesPerPod);
    double beyondLeaf = 0, beyondPod = 0;
    if (neighbourTraffic) {
        // Ring order over consecutive nodes: of the m node-to-node hops, one per leaf (pod) leaves it.
        beyondLeaf = leaves > 1 ? leaves / m : 0.0;
        beyondPod = pods > 1 ? pods / m : 0.0;
    } else {
        // Peers spread over the other m-1 nodes.
        beyondLeaf = (m - std::min<double>(ctx.nodesPerLeaf, m)) / (m - 1);
        beyondPod = (m - std::min<double>(ctx.nodesPerPod, m)) / (m - 1);
    }
    if (ctx.spanTier <= 1)
        beyondLeaf = beyondPod = 0;
    else if (ctx.spanTier == 2)
        beyondPod = 0;
    out.tierBytes[1] = nicBytes * (1.0 - beyondLeaf);
    out.tierBytes[2] = nicBytes * (beyondLeaf - beyondPod);
    out.tierBytes[3] = nicBytes * beyondPod;
}

double flowCount(const GroupContext& ctx, CollectiveOp op, CollectiveAlgorithm a)
{
    const double n = ctx.ranks;
    switch (a) {
    case CollectiveAlgorithm::Ring:
    case CollectiveAlgorithm::Pat:
        return n * ctx.channels; // one flow per rank and channel
    case CollectiveAlgorithm::Tree:
        return 4.0 * (n - 1); // two trees, n-1 edges, both directions
    case CollectiveAlgorithm::Nvls:
    case CollectiveAlgorithm::NvlsTree:
        return 2.0 * n + 4.0 * (ctx.nodes - 1);
    case CollectiveAlgorithm::CollNetDirect:
    case CollectiveAlgorithm::CollNetChain:
        return 2.0 * n;
    case CollectiveAlgorithm::HalvingDoubling:
        return n * log2Floor(n);
    case CollectiveAlgorithm::Direct:
        return op == CollectiveOp::SendRecv ? n : n * (n - 1);
    case CollectiveAlgorithm::Hierarchical:
        return 2.0 * n;
    case CollectiveAlgorithm::ParameterServer:
        return 2.0 * n;
    case CollectiveAlgorithm::Auto:
        return 0;
    }
    return 0;
}

} // namespace clusterscope::engine::collectives
