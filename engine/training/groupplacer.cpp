#include "engine/training/groupplacer.h"

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenario.h"
#include "engine/training/memorymodel.h"

#include <algorithm>

namespace clusterscope::engine {

ClusterGeometry ClusterGeometry::fromScenario(const Scenario& scenario, const GpuModel& gpu)
{
    const ClusterSpec& c = scenario.cluster;
    const FabricSpec& f = c.fabric;
    ClusterGeometry g;
    g.gpus = c.gpus;
    g.gpusPerNode = c.gpusPerNode;
    // Only a multi-node NVLink system (GB200 NVL72) makes several nodes one scale-up domain.
    int domain = ::clusterscope::engine::scaleUpDomainGpus(gpu, c.gpusPerNode, c.gpus);
    if (domain % c.gpusPerNode != 0)
        domain = c.gpusPerNode;
    g.scaleUpDomainGpus = domain;
    g.nicsPerDomain = std::max(1, c.nic.perNode * (domain / c.gpusPerNode));
    g.tiers = f.tiers;

    const int radix = std::max(2, f.switchRadix);
    const int down = std::max(1, static_cast<int>(radix * f.oversubscription / (1.0 + f.oversubscription)));
    const int totalNodes = std::max(1, c.gpus / c.gpusPerNode);
    switch (f.type) {
    case FabricType::RailOptimized:
        g.nodesPerLeaf = down; // one leaf per rail per scalable unit
        break;
    case FabricType::FatTree:
    case FabricType::LeafSpine:
        g.nodesPerLeaf = std::max(1, down / std::max(1, c.nic.perNode));
        break;
    case FabricType::Dragonfly:
        g.nodesPerLeaf = std::max(1, f.dragonflyP / std::max(1, c.nic.perNode));
        break;
    case FabricType::Torus:
        g.nodesPerLeaf = f.torusDims.empty() ? 1 : f.torusDims[0];
        break;
    }
    if (f.type == FabricType::Dragonfly) {
        g.nodesPerPod = g.nodesPerLeaf * std::max(1, f.dragonflyA);
        g.tiers = 3;
    } else if (f.type == FabricType::Torus) {
        g.nodesPerPod = f.torusDims.size() >= 2 ? f.torusDims[0] * f.torusDims[1] : g.nodesPerLeaf;
        g.tiers = 3;
    } else if (f.tiers >= 3) {
        g.nodesPerPod = g.nodesPerLeaf * std::max(1, radix / 2); // a pod's spines use half their ports down
    } else {
        g.nodesPerPod = totalNodes; // two tiers: the spines reach every leaf
    }
    if (f.tiers <= 1 && f.type != FabricType::Dragonfly && f.type != FabricType::Torus)
        g.nodesPerLeaf = std::max(g.nodesPerLeaf, totalNodes);
    return g;
}

GroupPlacement GroupPlacer::place(int ranks, int strideGpus) const
{
    const ClusterGeometry& g = m_geometry;
    GroupPlacement p;
    p.ranks = std::max(1, ranks);
    strideGpus = std::max(1, strideGpus);
    p.ranksPerNode = std::clamp(g.scaleUpDomainGpus / strideGpus, 1, p.ranks);
    // The domain's NICs are shared by the domain's groups of this kind running at the same time:
    // a group with r ranks in a domain of D GPUs uses r x NICs / D of them (at least one).
    p.nicsPerNode = std::max(1, g.nicsPerDomain * p.ranksPerNode / g.scaleUpDomainGpus);
    if (p.ranksPerNode >= p.ranks) {
        p.spanTier = 0;
        return p;
    }
    // Physical nodes between the group's first and last rank.
    const long long lastGpu = static_cast<long long>(p.ranks - 1) * strideGpus;
    p.spanTier = pairTier(0, lastGpu);
    return p;
}

int GroupPlacer::pairTier(long long gpuA, long long gpuB) const
{
    const ClusterGeometry& g = m_geometry;
    if (gpuA / g.scaleUpDomainGpus == gpuB / g.scaleUpDomainGpus)
        return 0;
    const long long nodeA = gpuA / g.gpusPerNode, nodeB = gpuB / g.gpusPerNode;
    int tier = 3;
    if (nodeA / g.nodesPerLeaf == nodeB / g.nodesPerLeaf)
        tier = 1;
    else if (nodeA / g.nodesPerPod == nodeB / g.nodesPerPod)
        tier = 2;
    return std::clamp(tier, 1, std::max(1, g.tiers));
}

StrategyGroups GroupPlacer::groups(const ParallelismSpec& p) const
{
    // Strides from the rank order, innermost first ("tp-cp-dp-pp" unless overridden).
    int stride = 1;
    StrategyGroups s;
    const std::string& order = p.placementOrder;
    for (std::size_t start = 0; start < order.size(); start += 3) {
        const char c = order[start];
        const char c2 = start + 1 < order.size() ? order[start + 1] : 'p';
        if (c == 't') {
            s.tpStride = stride;
            stride *= p.tp;
        } else if (c == 'c') {
            s.cpStride = stride;
            stride *= p.cp;
        } else if (c == 'd') {
            s.dpStride = stride;
            stride *= p.dp;
        } else if (c == 'p' && c2 == 'p') {
            s.ppStride = stride;
            stride *= p.pp;
        }
    }
    s.epStride = s.dpStride; // EP groups are the first ep ranks of each DP group (Megatron-Core)
    s.tp = place(p.tp, s.tpStride);
    s.cp = place(p.cp, s.cpStride);
    s.dp = place(p.dp, s.dpStride);
    s.ep = place(p.ep, s.epStride);
    s.ppPair = place(p.pp > 1 ? 2 : 1, s.ppStride);
    s.pp = place(p.pp, s.ppStride);
    // dp x cp: contiguous when cp and dp are neighbours in the order; otherwise the inner stride
    // still gives the right ranks per node and the span is that of the outer dimension.
    const int innerStride = std::min(s.cpStride, s.dpStride);
    s.dpGrad = place(p.dp * p.cp, innerStride);
    s.dpGrad.spanTier = std::max({ s.dpGrad.spanTier, s.dp.spanTier, s.cp.spanTier });
    s.expertTp = s.tp;
    s.expertDpStride = innerStride * std::max(1, p.ep);
    if (p.expertTp() != p.tp) {
        // MoE parallel folding: the expert ranks of a stage, innermost first, are etp, ep, expert-dp
        // over the tp x cp x dp ranks (Megatron-Core parallel_state.py, expert RankGenerator with
        // order "tp-ep-dp-pp"); the evaluator requires pp outermost, so those ranks are contiguous.
        const int ep = std::max(1, p.ep);
        s.expertTp = place(p.etp, 1);
        s.epStride = p.etp;
        s.ep = place(ep, s.epStride);
        s.expertDpStride = p.etp * ep;
    }
    s.expertDpGrad = place(static_cast<int>(expertDataParallel(p)), s.expertDpStride);
    return s;
}

} // namespace clusterscope::engine
