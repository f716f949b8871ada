// A FabricDesign around a graph built elsewhere (imported from ibnetdiscover): one GPU per NIC.

#include "engine/fabric/fabricbuilder.h"

#include <algorithm>
#include <map>

namespace clusterscope::engine {

FabricDesign designFromGraph(FabricGraph graph)
{
    FabricDesign d;
    d.graph = std::move(graph);
    FabricGraph& g = d.graph;
    const std::vector<NodeId> nics = g.nodesOfKind(NodeKind::Nic);
    // Servers: NICs sharing a host index, in host order; NICs without one are servers of their own.
    std::map<std::int32_t, std::vector<NodeId>> byHost;
    std::vector<std::vector<NodeId>> servers;
    for (NodeId nic : nics) {
        if (g.node(nic).host >= 0)
            byHost[g.node(nic).host].push_back(nic);
        else
            servers.push_back({ nic });
    }
    std::vector<std::vector<NodeId>> ordered;
    for (auto& [host, list] : byHost)
        ordered.push_back(std::move(list));
    for (auto& s : servers)
        ordered.push_back(std::move(s));
    int maxPerHost = 0;
    for (const auto& s : ordered)
        maxPerHost = std::max(maxPerHost, static_cast<int>(s.size()));
    d.hosts = static_cast<int>(ordered.size());
    d.gpusPerNode = maxPerHost;
    d.nicsPerNode = maxPerHost;
    double fastest = 0;
    for (int h = 0; h < d.hosts; ++h) {
        for (std::size_t r = 0; r < ordered[h].size(); ++r) {
            const NodeId nic = ordered[h][r];
            g.node(nic).host = h;
            g.node(nic).rail = static_cast<std::uint8_t>(r);
            double gbps = 0;
            for (LinkId l : g.linksOf(nic))
                gbps = std::max(gbps, static_cast<double>(g.link(l).gbps));
            fastest = std::max(fastest, gbps);
            FabricNode gpu;
            gpu.kind = NodeKind::Gpu;
            gpu.host = h;
            gpu.rail = static_cast<std::uint8_t>(r);
            gpu.rack = g.node(nic).rack;
            const NodeId gid = g.addNode(gpu);
            FabricLink pcie;
            pcie.a = gid;
            pcie.b = nic;
            pcie.gbps = static_cast<float>(std::max(gbps, 1.0));
            pcie.lanes = 16;
            pcie.medium = LinkMedium::Pcie;
            g.addLink(pcie);
            d.gpus.push_back(gid);
            d.nics.push_back(nic);
            d.nicOfGpu.push_back(static_cast<std::int32_t>(d.nics.size() - 1));
        }
    }
    d.nicGbps = fastest;
    const auto tiers = g.switchesPerTier();
    d.tiers = static_cast<int>(tiers.size());
    d.planes = std::max(1, g.planeCount());
    d.notes.push_back("imported fabric: one GPU per HCA port, servers by host index");
    return d;
}

} // namespace clusterscope::engine
