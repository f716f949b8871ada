// Dragonfly (Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology",
// ISCA 2008): groups of `a` routers joined all-to-all by local links; each router has `p` terminal
// ports and `h` global ports; with g = a h + 1 groups every pair of groups shares one global link.

#include "engine/fabric/fabricbuilder.h"

#include <string>

namespace clusterscope::engine {

Result<FabricDesign> buildDragonfly(const HostOptions& ho, int p, int a, int h)
{
    if (p < 1 || a < 1 || h < 1)
        return Status::error("dragonfly needs p, a and h >= 1, got p=" + std::to_string(p) + " a=" + std::to_string(a)
            + " h=" + std::to_string(h));
    FabricDesign d = buildHosts(ho);
    d.family = FabricFamily::Dragonfly;
    d.tiers = 1;
    FabricGraph& g = d.graph;
    const long long endpoints = static_cast<long long>(d.nics.size());
    const long long perGroup = 1LL * a * p;
    const long long groups = (endpoints + perGroup - 1) / perGroup;
    const long long maxGroups = 1LL * a * h + 1; // Kim, Dally, Scott and Abts, "Technology-Driven, Highly-Scalable
                                                 // Dragonfly Topology", ISCA 2008: groups <= a h + 1
    if (groups > maxGroups)
        return Status::error(std::to_string(endpoints) + " NIC ports need " + std::to_string(groups)
            + " dragonfly groups of a p = " + std::to_string(perGroup)
            + ", more than a h + 1 = " + std::to_string(maxGroups));
    const int radix = p + a - 1 + h;
    const float gbps = static_cast<float>(ho.nicGbps);
    std::vector<NodeId> routers(static_cast<std::size_t>(groups * a));
    for (long long r = 0; r < groups * a; ++r) {
        FabricNode n;
        n.kind = NodeKind::Switch;
        n.tier = kTierLeaf;
        n.group = static_cast<std::int32_t>(r / a);
        n.ports = static_cast<std::uint16_t>(radix);
        routers[r] = g.addNode(n);
        g.setLabel(routers[r], "g" + std::to_string(r / a) + "-r" + std::to_string(r % a));
    }
    std::vector<int> nextPort(routers.size(), p + 1);
    const auto connect = [&](NodeId x, std::uint16_t px, NodeId y, std::uint16_t py) {
        FabricLink l;
        l.a = x;
        l.b = y;
        l.portA = px;
        l.portB = py;
        l.gbps = gbps;
        g.addLink(l);
    };
    for (long long e = 0; e < endpoints; ++e)
        connect(d.nics[e], 1, routers[e / p], static_cast<std::uint16_t>(e % p + 1));
    // Local links: all-to-all inside each group (ports p+1 .. p+a-1).
    for (long long grp = 0; grp < groups; ++grp)
        for (int i = 0; i < a; ++i)
            for (int j = i + 1; j < a; ++j) {
                const std::size_t ri = grp * a + i, rj = grp * a + j;
                connect(routers[ri], static_cast<std::uint16_t>(nextPort[ri]++), routers[rj],
                    static_cast<std::uint16_t>(nextPort[rj]++));
            }
    // Global links: each pair of groups gets floor(a h / (g - 1)) links (1 when g = a h + 1), taken
    // from the routers of each group in round-robin order so global ports spread evenly.
    if (groups > 1) {
        const long long perPair = (1LL * a * h) / (groups - 1);
        std::vector<long long> cursor(groups, 0); // global port cursor per group (router = c % a)
        for (long long x = 0; x < groups; ++x)
            for (long long y = x + 1; y < groups; ++y)
                for (long long m = 0; m < perPair; ++m) {
                    const std::size_t rx = x * a + cursor[x] % a, ry = y * a + cursor[y] % a;
                    ++cursor[x];
                    ++cursor[y];
                    connect(routers[rx], static_cast<std::uint16_t>(nextPort[rx]++), routers[ry],
                        static_cast<std::uint16_t>(nextPort[ry]++));
                }
        if (groups < maxGroups)
            d.notes.push_back(std::to_string(groups) + " of at most " + std::to_string(maxGroups)
                + " groups: " + std::to_string(perPair) + " global links per group pair");
    }
    d.pods = static_cast<int>(groups);
    return d;
}

} // namespace clusterscope::engine
