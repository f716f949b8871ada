// Clos fabrics: k-ary fat-tree, leaf-spine with oversubscription, rail-optimized scalable units.
// Sizing rules and the reference tables they must reproduce: the compute-fabric tables of the NVIDIA
// DGX SuperPOD reference architectures (DGX H100 and DGX B200, docs.nvidia.com/dgx-superpod); k-ary
// fat-tree: Al-Fares et al., "A Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008.

#include "engine/fabric/fabricbuilder.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace clusterscope::engine {

namespace {

    struct Attachment {
        NodeId endpoint; // NIC or UFM host
        std::uint16_t endpointPort;
        int leaf; // leaf index within the plane
        std::uint16_t leafPort;
    };

    std::string str(long long v) { return std::to_string(v); }

} // namespace

Result<FabricDesign> buildClos(const HostOptions& ho, const ClosOptions& co)
{
    const int k = co.radix;
    if (k < 4 || k % 2 != 0 || k > 65535)
        return Status::error("switch radix must be an even number >= 4, got " + str(k));
    if (co.tiers < 1 || co.tiers > 3)
        return Status::error("a Clos fabric has 1 to 3 switching tiers, got " + str(co.tiers));
    if (!(co.oversubscription >= 1.0) || co.oversubscription > k - 1)
        return Status::error(
            "oversubscription (down:up) must be in [1, radix - 1], got " + std::to_string(co.oversubscription));
    if (co.planes < 1 || co.planes > 16)
        return Status::error("planes must be 1 to 16, got " + str(co.planes));
    if (ho.hosts < 1 || ho.nicsPerNode < 1)
        return Status::error("a Clos fabric needs at least one host with a NIC");

    FabricDesign d = buildHosts(ho);
    d.family = co.railOptimized ? FabricFamily::RailOptimized : FabricFamily::Clos;
    d.planes = co.planes;
    d.dualTor = co.dualTor;
    const int sides = co.dualTor ? 2 : 1;
    const int portsPerNic = co.planes * sides;
    const float linkGbps = static_cast<float>(ho.nicGbps / portsPerNic);

    // Leaf ports: d down + u up = k with d:u = oversubscription (leaf-spine Clos: Al-Fares, Loukissas
    // and Vahdat, "A Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008).
    int up = co.tiers == 1 ? 0 : static_cast<int>(std::lround(k / (1.0 + co.oversubscription)));
    up = co.tiers == 1 ? 0 : std::clamp(up, 1, k - 1);
    const int down = k - up;

    // Endpoint attachments (identical in every plane).
    std::vector<Attachment> att;
    int leaves = 0;
    int leavesPerPod = 0;
    int podsFixed = 0;
    if (co.railOptimized) {
        const int rails = ho.nicsPerNode;
        const int slots = co.nodesPerSu > 0 ? co.nodesPerSu : down;
        if (slots > down)
            return Status::error("a scalable unit of " + str(slots) + " nodes needs " + str(slots)
                + " leaf down-ports, the leaf has " + str(down));
        const int ufm = co.ufmSlot ? 1 : 0;
        if (co.ufmSlot && co.ufmPorts > rails * sides)
            return Status::error("the UFM appliance needs " + str(co.ufmPorts) + " leaf ports, an SU has "
                + str(1LL * rails * sides) + " leaves");
        // Whole-SU rounding: an SU is built complete even when partly filled.
        const int sus = (ho.hosts + ufm + slots - 1) / slots;
        d.scalableUnits = sus;
        leavesPerPod = rails * sides;
        leaves = sus * leavesPerPod;
        podsFixed = sus;
        for (int h = 0; h < ho.hosts; ++h) {
            const int su = h / slots;
            const int slot = h % slots;
            for (int r = 0; r < rails; ++r)
                for (int s = 0; s < sides; ++s)
                    att.push_back({ d.nics[static_cast<std::size_t>(h) * rails + r], static_cast<std::uint16_t>(s + 1),
                        su * leavesPerPod + r * sides + s, static_cast<std::uint16_t>(slot + 1) });
        }
        if (co.ufmSlot) {
            FabricNode n;
            n.kind = NodeKind::Host;
            n.group = sus - 1;
            n.ports = static_cast<std::uint16_t>(co.ufmPorts);
            const NodeId ufmNode = d.graph.addNode(n);
            d.graph.setLabel(ufmNode, "ufm");
            for (int p = 0; p < co.ufmPorts; ++p)
                att.push_back({ ufmNode, static_cast<std::uint16_t>(p + 1),
                    (sus - 1) * leavesPerPod + (p / sides) * sides + p % sides, static_cast<std::uint16_t>(slots) });
            d.notes.push_back(
                "one node slot of the last SU holds the UFM appliance (" + str(co.ufmPorts) + " leaf ports)");
        }
        if (sus * slots > ho.hosts + ufm)
            d.notes.push_back(str(ho.hosts) + " nodes rounded up to " + str(sus) + " whole scalable units of "
                + str(slots) + " slots (" + str(sus * slots - ho.hosts - ufm) + " empty)");
    } else {
        const long long endpoints = 1LL * ho.hosts * ho.nicsPerNode;
        const long long groups = (endpoints + down - 1) / down;
        leaves = static_cast<int>(groups * sides);
        leavesPerPod = std::max(sides, (k / 2) / sides * sides);
        for (long long e = 0; e < endpoints; ++e)
            for (int s = 0; s < sides; ++s)
                att.push_back({ d.nics[e], static_cast<std::uint16_t>(s + 1), static_cast<int>((e / down) * sides + s),
                    static_cast<std::uint16_t>(e % down + 1) });
    }

    int tiers = co.tiers;
    if (tiers == 1 && leaves > 1) {
        return Status::error(
            "one switch of radix " + str(k) + " cannot connect " + str(att.size()) + " NIC ports; use 2 or 3 tiers");
    }
    if (tiers == 2 && leaves > k) {
        d.notes.push_back("tiers raised from 2 to 3: " + str(leaves) + " leaves exceed what radix-" + str(k)
            + " spines reach (" + str(k) + ")");
        tiers = 3;
    }
    int pods = 0;
    if (tiers == 3) {
        pods = podsFixed > 0 ? podsFixed : (leaves + leavesPerPod - 1) / leavesPerPod;
        if (pods > k)
            return Status::error(str(pods) + " pods exceed the " + str(k) + " a three-tier radix-" + str(k)
                + " Clos can join (at most " + str(1LL * k * leavesPerPod * down / sides) + " NIC ports)");
    }
    d.tiers = tiers;
    d.pods = pods;
    d.leafDownPorts = down;
    d.leafUpPorts = tiers == 1 ? 0 : up;

    FabricGraph& g = d.graph;
    for (NodeId nic : d.nics)
        g.node(nic).ports = static_cast<std::uint16_t>(portsPerNic);

    const auto addSwitch = [&](std::int8_t tier, int plane, int group, const std::string& label) {
        FabricNode n;
        n.kind = NodeKind::Switch;
        n.tier = tier;
        n.plane = static_cast<std::uint8_t>(plane);
        n.group = group;
        n.ports = static_cast<std::uint16_t>(k);
        const NodeId id = g.addNode(n);
        g.setLabel(id, label);
        return id;
    };
    const auto connect = [&](NodeId a, std::uint16_t pa, NodeId b, std::uint16_t pb, int plane) {
        FabricLink l;
        l.a = a;
        l.b = b;
        l.portA = pa;
        l.portB = pb;
        l.gbps = linkGbps;
        l.plane = static_cast<std::uint8_t>(plane);
        g.addLink(l);
    };

    for (int plane = 0; plane < co.planes; ++plane) {
        const std::string pfx = co.planes > 1 ? "p" + str(plane) + "-" : "";
        std::vector<NodeId> leafIds(leaves);
        for (int i = 0; i < leaves; ++i)
            leafIds[i] = addSwitch(kTierLeaf, plane, leavesPerPod > 0 ? i / leavesPerPod : -1, pfx + "leaf-" + str(i));
        for (const Attachment& a : att)
            connect(a.endpoint, static_cast<std::uint16_t>(plane * sides + a.endpointPort), leafIds[a.leaf], a.leafPort,
                plane);
        if (tiers == 1)
            continue;
        std::vector<int> nextPort(leaves, down + 1);
        if (tiers == 2) {
            // Every leaf spreads its `up` ports evenly over all spines: spines must divide `up`.
            const int spines = smallestDivisorAtLeast(up, static_cast<int>((1LL * leaves * up + k - 1) / k));
            const int perPair = up / spines;
            for (int s = 0; s < spines; ++s) {
                const NodeId sp = addSwitch(kTierSpine, plane, -1, pfx + "spine-" + str(s));
                int port = 1;
                for (int i = 0; i < leaves; ++i)
                    for (int m = 0; m < perPair; ++m)
                        connect(leafIds[i], static_cast<std::uint16_t>(nextPort[i]++), sp,
                            static_cast<std::uint16_t>(port++), plane);
            }
            continue;
        }
        // Three tiers: each pod's leaves spread their up-ports over the pod's spines (radix/2 down,
        // radix/2 up); spine j of every pod joins core group j.
        const int half = k / 2;
        const int spinesPerPod
            = smallestDivisorAtLeast(up, static_cast<int>((1LL * leavesPerPod * up + half - 1) / half));
        const int leafToSpine = up / spinesPerPod;
        const int coresPerGroup = smallestDivisorAtLeast(half, static_cast<int>((1LL * pods * half + k - 1) / k));
        const int spineToCore = half / coresPerGroup;
        std::vector<NodeId> cores(static_cast<std::size_t>(spinesPerPod) * coresPerGroup);
        for (std::size_t c = 0; c < cores.size(); ++c)
            cores[c] = addSwitch(kTierCore, plane, static_cast<int>(c / coresPerGroup), pfx + "core-" + str(c));
        std::vector<int> corePort(cores.size(), 1);
        for (int p = 0; p < pods; ++p) {
            for (int j = 0; j < spinesPerPod; ++j) {
                const NodeId sp = addSwitch(kTierSpine, plane, p, pfx + "spine-" + str(p) + "-" + str(j));
                int port = 1;
                for (int i = p * leavesPerPod; i < std::min(leaves, (p + 1) * leavesPerPod); ++i)
                    for (int m = 0; m < leafToSpine; ++m)
                        connect(leafIds[i], static_cast<std::uint16_t>(nextPort[i]++), sp,
                            static_cast<std::uint16_t>(port++), plane);
                port = half + 1;
                for (int c = 0; c < coresPerGroup; ++c) {
                    const std::size_t core = static_cast<std::size_t>(j) * coresPerGroup + c;
                    for (int m = 0; m < spineToCore; ++m)
                        connect(sp, static_cast<std::uint16_t>(port++), cores[core],
                            static_cast<std::uint16_t>(corePort[core]++), plane);
                }
            }
        }
    }
    return d;
}

} // namespace clusterscope::engine
