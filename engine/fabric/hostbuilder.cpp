// Servers: GPUs, NICs with the GPU-to-NIC rail mapping, and the scale-up domain.

#include "engine/fabric/fabricbuilder.h"

#include <algorithm>

namespace clusterscope::engine {

FabricDesign buildHosts(const HostOptions& o)
{
    FabricDesign d;
    d.hosts = o.hosts;
    d.gpusPerNode = o.gpusPerNode;
    d.nicsPerNode = o.nicsPerNode;
    d.nicGbps = o.nicGbps;
    FabricGraph& g = d.graph;
    const int domain = std::max(1, o.nvlinkDomainGpus);
    d.nvlinkDomainGpus = domain > 1 ? domain : 0;
    const long long totalGpus = 1LL * o.hosts * o.gpusPerNode;
    d.gpus.reserve(totalGpus);
    d.nics.reserve(1LL * o.hosts * o.nicsPerNode);
    d.nicOfGpu.reserve(totalGpus);

    for (int h = 0; h < o.hosts; ++h) {
        for (int l = 0; l < o.gpusPerNode; ++l) {
            FabricNode n;
            n.kind = NodeKind::Gpu;
            n.host = h;
            n.rail = static_cast<std::uint8_t>(l);
            n.group = domain > 1 ? static_cast<std::int32_t>((1LL * h * o.gpusPerNode + l) / domain) : -1;
            d.gpus.push_back(g.addNode(n));
        }
        for (int r = 0; r < o.nicsPerNode; ++r) {
            FabricNode n;
            n.kind = NodeKind::Nic;
            n.host = h;
            n.rail = static_cast<std::uint8_t>(r);
            n.ports = 1;
            d.nics.push_back(g.addNode(n));
        }
        // Rail mapping (DGX/HGX: GPU i sits on the PCIe switch of NIC i): local GPU l uses NIC
        // l * nics / gpus; with more NICs than GPUs each GPU owns nics/gpus of them.
        const auto pcie = [&](int gpuLocal, int nicLocal) {
            FabricLink link;
            link.a = d.gpus[static_cast<std::size_t>(h) * o.gpusPerNode + gpuLocal];
            link.b = d.nics[static_cast<std::size_t>(h) * o.nicsPerNode + nicLocal];
            link.gbps = static_cast<float>(o.pcieGbps);
            link.lanes = 16;
            link.medium = LinkMedium::Pcie;
            g.addLink(link);
        };
        if (o.nicsPerNode >= o.gpusPerNode) {
            for (int r = 0; r < o.nicsPerNode; ++r)
                pcie(r * o.gpusPerNode / o.nicsPerNode, r);
        } else {
            for (int l = 0; l < o.gpusPerNode; ++l)
                pcie(l, l * o.nicsPerNode / o.gpusPerNode);
        }
        for (int l = 0; l < o.gpusPerNode; ++l)
            d.nicOfGpu.push_back(h * o.nicsPerNode + l * o.nicsPerNode / o.gpusPerNode);
    }

    if (domain > 1) {
        // Scale-up domains of `domain` consecutive ranks (HGX: one server; NVL72: 18 trays of 4).
        // NVIDIA H100 and GB200 NVL72 datasheets: H100 900 GB/s per GPU over 18 NVLink4 links; GB200 NVL72 1.8 TB/s.
        const std::uint8_t lanes = static_cast<std::uint8_t>(std::clamp(o.nvlinkLanes, 1, 255));
        for (long long first = 0; first < totalGpus; first += domain) {
            const long long last = std::min<long long>(totalGpus, first + domain);
            if (o.nvlinkSwitched) {
                FabricNode sw;
                sw.kind = NodeKind::NvSwitch;
                sw.group = static_cast<std::int32_t>(first / domain);
                sw.host = g.node(d.gpus[first]).host;
                sw.ports = static_cast<std::uint16_t>(std::min<long long>(65535, (last - first) * o.nvlinkLanes));
                const NodeId nvs = g.addNode(sw);
                for (long long r = first; r < last; ++r) {
                    FabricLink link;
                    link.a = d.gpus[r];
                    link.b = nvs;
                    link.gbps = static_cast<float>(o.nvlinkGbps);
                    link.lanes = lanes;
                    link.medium = LinkMedium::NvLink;
                    g.addLink(link);
                }
            } else {
                // Point-to-point mesh (MI300X Infinity Fabric, V100 hybrid cube mesh approximated as
                // all-to-all): the GPU's bandwidth is spread over its domain peers.
                const double perPeer = o.nvlinkGbps / std::max<long long>(1, last - first - 1);
                for (long long r = first; r < last; ++r)
                    for (long long s = r + 1; s < last; ++s) {
                        FabricLink link;
                        link.a = d.gpus[r];
                        link.b = d.gpus[s];
                        link.gbps = static_cast<float>(perPeer);
                        link.lanes
                            = static_cast<std::uint8_t>(std::max(1LL, o.nvlinkLanes / std::max(1LL, last - first - 1)));
                        link.medium = LinkMedium::NvLink;
                        g.addLink(link);
                    }
            }
        }
    }
    return d;
}

int smallestDivisorAtLeast(int n, int atLeast)
{
    for (int s = std::max(1, atLeast); s < n; ++s)
        if (n % s == 0)
            return s;
    return n;
}

} // namespace clusterscope::engine
