// Direct torus of servers, as TPU v4 pods (Jouppi et al., "TPU v4", ISCA 2023: 4x4x4 cubes, 3D torus): every server
// links to its two neighbours in each dimension with wrap-around; NICs forward transit traffic.

#include "engine/fabric/fabricbuilder.h"

#include <string>

namespace clusterscope::engine {

Result<FabricDesign> buildTorus(const HostOptions& ho, const std::vector<int>& dims)
{
    if (dims.size() < 2 || dims.size() > 3)
        return Status::error("a torus has 2 or 3 dimensions, got " + std::to_string(dims.size()));
    long long product = 1;
    for (int x : dims) {
        if (x < 1)
            return Status::error("torus dimensions must be positive");
        product *= x;
    }
    if (product != ho.hosts)
        return Status::error("torus dims multiply to " + std::to_string(product) + " but there are "
            + std::to_string(ho.hosts) + " servers");
    FabricDesign d = buildHosts(ho);
    d.family = FabricFamily::Torus;
    d.nicsForward = true;
    FabricGraph& g = d.graph;
    const int nd = static_cast<int>(dims.size());
    // Ports per server: 2 per dimension of extent > 2, 1 for extent 2, 0 for extent 1.
    int portsPerServer = 0;
    for (int x : dims)
        portsPerServer += x > 2 ? 2 : (x == 2 ? 1 : 0);
    if (portsPerServer == 0)
        return Status::error("a torus needs at least one dimension of extent >= 2");
    const float gbps = static_cast<float>(ho.nicGbps * ho.nicsPerNode / portsPerServer);
    std::vector<int> nextPort(ho.hosts, 0);
    for (NodeId nic : d.nics)
        g.node(nic).ports = static_cast<std::uint16_t>((portsPerServer + ho.nicsPerNode - 1) / ho.nicsPerNode);
    const auto nicFor = [&](int host) {
        const int slot = nextPort[host]++;
        return std::pair<NodeId, std::uint16_t>(
            d.nics[static_cast<std::size_t>(host) * ho.nicsPerNode + slot % ho.nicsPerNode],
            static_cast<std::uint16_t>(slot / ho.nicsPerNode + 1));
    };
    std::vector<int> coord(nd, 0);
    for (int host = 0; host < ho.hosts; ++host) {
        int rest = host;
        for (int k = 0; k < nd; ++k) {
            coord[k] = rest % dims[k];
            rest /= dims[k];
        }
        int stride = 1;
        for (int k = 0; k < nd; ++k) {
            // Link to the + neighbour; the wrap link closes the ring (extent 2: a single link).
            const bool wrap = coord[k] == dims[k] - 1;
            if (dims[k] >= 2 && !(wrap && dims[k] == 2)) {
                const int peer = wrap ? host - coord[k] * stride : host + stride;
                const auto [na, pa] = nicFor(host);
                const auto [nb, pb] = nicFor(peer);
                FabricLink l;
                l.a = na;
                l.b = nb;
                l.portA = pa;
                l.portB = pb;
                l.gbps = gbps;
                g.addLink(l);
            }
            stride *= dims[k];
        }
    }
    // NICs of one server forward to each other through the host (the chip's router on a TPU): an
    // internal mesh at PCIe rate so transit traffic can change dimension.
    for (int host = 0; host < ho.hosts; ++host)
        for (int i = 0; i < ho.nicsPerNode; ++i)
            for (int j = i + 1; j < ho.nicsPerNode; ++j) {
                FabricLink l;
                l.a = d.nics[static_cast<std::size_t>(host) * ho.nicsPerNode + i];
                l.b = d.nics[static_cast<std::size_t>(host) * ho.nicsPerNode + j];
                l.gbps = static_cast<float>(ho.pcieGbps);
                l.medium = LinkMedium::Pcie;
                l.lanes = 16;
                g.addLink(l);
            }
    d.notes.push_back("each server's " + std::to_string(ho.nicsPerNode) + " x "
        + std::to_string(static_cast<int>(ho.nicGbps)) + " Gb/s is spread over " + std::to_string(portsPerServer)
        + " torus links of " + std::to_string(static_cast<int>(gbps)) + " Gb/s");
    return d;
}

} // namespace clusterscope::engine
