// ibnetdiscover's output format as written by infiniband-diags (ibnetdiscover.c, out_switch /
// out_ca / out_switch_port / out_ca_port in linux-rdma/rdma-core, infiniband-diags/ibnetdiscover.c).

#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace clusterscope::importers {

using engine::LinkId;
using engine::NodeId;
using engine::NodeKind;

namespace {

    constexpr std::uint64_t kSwitchGuidBase = 0xb8599f0300000000ull;
    constexpr std::uint64_t kCaGuidBase = 0x0c42a10300000000ull;
    constexpr std::uint64_t kMgmtSwitchGuidBase = 0xb8599f0400000000ull;
    constexpr std::uint64_t kMgmtCaGuidBase = 0x0c42a10400000000ull;

    // IBTA lane rates (Gb/s) and their names; FDR10 is left out (same lane rate as QDR).
    struct Speed {
        double gbps;
        const char* name;
    };
    constexpr Speed kSpeeds[] = { { 2.5, "SDR" }, { 5, "DDR" }, { 10, "QDR" }, { 14, "FDR" }, { 25, "EDR" },
        { 50, "HDR" }, { 100, "NDR" }, { 200, "XDR" } };

    int speedIndex(double laneGbps)
    {
        int best = 0;
        for (int i = 1; i < int(std::size(kSpeeds)); ++i)
            if (std::abs(kSpeeds[i].gbps - laneGbps) < std::abs(kSpeeds[best].gbps - laneGbps))
                best = i;
        return best;
    }

    bool inSubnet(NodeKind k) { return k == NodeKind::Switch || k == NodeKind::Nic || k == NodeKind::Host; }

    struct Writer {
        std::string out;
        const char* eol = "\n";

        void line(const char* fmt, auto... args)
        {
            if constexpr (sizeof...(args) == 0) {
                out += fmt;
            } else {
                char buf[512];
                const int n = std::snprintf(buf, sizeof buf, fmt, args...);
                out.append(buf, std::size_t(std::clamp(n, 0, int(sizeof buf) - 1)));
            }
            out += eol;
        }
    };

    struct PortEnd {
        int port = 0;
        std::uint64_t peerGuid = 0;
        bool peerSwitch = false;
        int peerPort = 0;
        std::uint64_t peerPortGuid = 0;
        std::string peerDescription;
        int peerLid = 0;
        std::string width; // "4xHDR"
    };

} // namespace

std::uint64_t writtenGuid(const engine::FabricGraph& graph, NodeId node)
{
    return graph.node(node).kind == NodeKind::Switch ? kSwitchGuidBase + 16ull * node : kCaGuidBase + 32ull * node;
}

std::string writtenDescription(const engine::FabricGraph& g, NodeId n, const std::string& switchModel)
{
    const auto& node = g.node(n);
    if (node.kind == NodeKind::Switch)
        return "MF0;" + (g.label(n).empty() ? "sw" + std::to_string(n) : g.label(n)) + ":" + switchModel + "/U1";
    if (node.kind == NodeKind::Nic) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "node%05d mlx5_%d", node.host + 1, int(node.rail));
        return buf;
    }
    return (g.label(n).empty() ? "host" + std::to_string(n) : g.label(n)) + " mlx5_0";
}

std::string writeIbnetdiscover(const engine::FabricGraph& g, const IbnetdiscoverWriteOptions& o)
{
    Writer w;
    w.eol = o.crlf ? "\r\n" : "\n";
    w.out.reserve(g.linkCount() * 220 + 4096);

    // Descriptions and LIDs.
    std::vector<std::string> description(g.nodeCount());
    std::vector<int> lid(g.nodeCount(), 0);
    int nextLid = 1;
    for (NodeId n = 0; n < g.nodeCount(); ++n) {
        const auto& node = g.node(n);
        if (!inSubnet(node.kind))
            continue;
        lid[n] = nextLid++;
        description[n] = writtenDescription(g, n, o.switchModel);
    }
    // Ports of every node, from both ends of each cable.
    std::vector<std::vector<PortEnd>> ports(g.nodeCount());
    std::map<int, std::int64_t> speedUse;
    for (const auto& l : g.links()) {
        if ((l.flags & engine::kLinkMissing) || !inSubnet(g.node(l.a).kind) || !inSubnet(g.node(l.b).kind))
            continue;
        const int lanes = std::max<int>(l.lanes, 1);
        const int speed = speedIndex(l.gbps / lanes);
        ++speedUse[speed];
        const std::string width = std::to_string(lanes) + "x" + kSpeeds[speed].name;
        for (const auto& [self, selfPort, peer, peerPort] : { std::tuple { l.a, int(l.portA), l.b, int(l.portB) },
                 std::tuple { l.b, int(l.portB), l.a, int(l.portA) } }) {
            PortEnd e;
            e.port = selfPort;
            e.peerGuid = writtenGuid(g, peer);
            e.peerSwitch = g.node(peer).kind == NodeKind::Switch;
            e.peerPort = peerPort;
            e.peerPortGuid = e.peerGuid + std::uint64_t(std::max(peerPort, 1) - 1);
            e.peerDescription = description[peer];
            e.peerLid = lid[peer];
            e.width = width;
            ports[self].push_back(std::move(e));
        }
    }
    int commonSpeed = 5; // HDR when the fabric has no links
    std::int64_t most = -1;
    for (const auto& [s, n] : speedUse)
        if (n > most) {
            most = n;
            commonSpeed = s;
        }
    const std::string commonWidth = std::string("4x") + kSpeeds[commonSpeed].name;
    const char* kAnDescription = "Mellanox Technologies Aggregation Node";

    w.line("#");
    w.line("# Topology file: generated by ClusterScope from a built fabric");
    w.line("#");
    w.out += w.eol;
    auto writeSwitch = [&](std::uint64_t guid, int portCount, const std::string& desc, int switchLid,
                           std::vector<PortEnd>& list, int anLid) {
        const bool sharp = o.sharpAggregationNodes;
        w.line("vendid=0x2c9");
        w.line("devid=0xd2f0");
        w.line("sysimgguid=0x%llx", static_cast<unsigned long long>(guid));
        w.line("switchguid=0x%llx(%llx)", static_cast<unsigned long long>(guid), static_cast<unsigned long long>(guid));
        w.line("Switch\t%d \"S-%016llx\"\t\t# \"%s\" enhanced port 0 lid %d lmc 0", portCount + (sharp ? 1 : 0),
            static_cast<unsigned long long>(guid), desc.c_str(), switchLid);
        std::sort(list.begin(), list.end(), [](const PortEnd& x, const PortEnd& y) { return x.port < y.port; });
        for (const PortEnd& e : list) {
            if (e.peerSwitch)
                w.line("[%d]\t\"S-%016llx\"[%d]\t\t# \"%s\" lid %d %s", e.port,
                    static_cast<unsigned long long>(e.peerGuid), e.peerPort, e.peerDescription.c_str(), e.peerLid,
                    e.width.c_str());
            else
                w.line("[%d]\t\"H-%016llx\"[%d](%llx) \t\t# \"%s\" lid %d %s", e.port,
                    static_cast<unsigned long long>(e.peerGuid), e.peerPort,
                    static_cast<unsigned long long>(e.peerPortGuid), e.peerDescription.c_str(), e.peerLid,
                    e.width.c_str());
        }
        if (sharp)
            w.line("[%d]\t\"H-%016llx\"[1](%llx) \t\t# \"%s\" lid %d %s", portCount + 1,
                static_cast<unsigned long long>(guid) + 8, static_cast<unsigned long long>(guid) + 8, kAnDescription,
                anLid, commonWidth.c_str());
        w.out += w.eol;
    };
    auto writeCa = [&](std::uint64_t guid, std::uint64_t sysGuid, int portCount, const std::string& desc, int caLid,
                       std::vector<PortEnd>& list) {
        w.line("vendid=0x2c9");
        w.line("devid=0x101b");
        w.line("sysimgguid=0x%llx", static_cast<unsigned long long>(sysGuid));
        w.line("caguid=0x%llx", static_cast<unsigned long long>(guid));
        w.line("Ca\t%d \"H-%016llx\"\t\t# \"%s\"", portCount, static_cast<unsigned long long>(guid), desc.c_str());
        std::sort(list.begin(), list.end(), [](const PortEnd& x, const PortEnd& y) { return x.port < y.port; });
        for (const PortEnd& e : list)
            w.line("[%d](%llx) \t\"%c-%016llx\"[%d]\t\t# lid %d lmc 0 \"%s\" lid %d %s", e.port,
                static_cast<unsigned long long>(guid) + std::uint64_t(std::max(e.port, 1) - 1),
                e.peerSwitch ? 'S' : 'H', static_cast<unsigned long long>(e.peerGuid), e.peerPort, caLid,
                e.peerDescription.c_str(), e.peerLid, e.width.c_str());
        w.out += w.eol;
    };

    // The management fabric (not in the graph): a chain of switches with its hosts.
    const int ms = std::max(o.managementSwitches, 0);
    const int mh = ms > 0 ? std::max(o.managementHosts, 0) : 0;
    constexpr int kMgmtRadix = 40;
    std::vector<std::vector<PortEnd>> mgmtSwitchPorts(static_cast<std::size_t>(ms)),
        mgmtHostPorts(static_cast<std::size_t>(mh));
    std::vector<std::string> mgmtSwitchDesc(static_cast<std::size_t>(ms)), mgmtHostDesc(static_cast<std::size_t>(mh));
    const int mgmtLid0 = nextLid + int(g.nodeCount()); // after the aggregation nodes' LIDs
    for (int j = 0; j < ms; ++j) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "MF0;mgmt-sw-%02d:%s/U1", j + 1, o.switchModel.c_str());
        mgmtSwitchDesc[j] = buf;
    }
    for (int h = 0; h < mh; ++h) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "mgmt%02d mlx5_0", h + 1);
        mgmtHostDesc[h] = buf;
    }
    auto mgmtSwitchGuid = [](int j) { return kMgmtSwitchGuidBase + 16ull * std::uint64_t(j); };
    auto mgmtHostGuid = [](int h) { return kMgmtCaGuidBase + 32ull * std::uint64_t(h); };
    for (int j = 0; j + 1 < ms; ++j)
        for (int c = 0; c < 2; ++c) {
            mgmtSwitchPorts[j].push_back({ kMgmtRadix - 3 + c, mgmtSwitchGuid(j + 1), true, kMgmtRadix - 1 + c,
                mgmtSwitchGuid(j + 1), mgmtSwitchDesc[j + 1], mgmtLid0 + j + 1, commonWidth });
            mgmtSwitchPorts[j + 1].push_back({ kMgmtRadix - 1 + c, mgmtSwitchGuid(j), true, kMgmtRadix - 3 + c,
                mgmtSwitchGuid(j), mgmtSwitchDesc[j], mgmtLid0 + j, commonWidth });
        }
    for (int h = 0; h < mh; ++h) {
        const int j = h % ms, port = h / ms + 1;
        mgmtSwitchPorts[j].push_back(
            { port, mgmtHostGuid(h), false, 1, mgmtHostGuid(h), mgmtHostDesc[h], mgmtLid0 + ms + h, commonWidth });
        mgmtHostPorts[h].push_back(
            { 1, mgmtSwitchGuid(j), true, port, mgmtSwitchGuid(j), mgmtSwitchDesc[j], mgmtLid0 + j, commonWidth });
    }

    int anLid = nextLid;
    for (NodeId n = 0; n < g.nodeCount(); ++n)
        if (g.node(n).kind == NodeKind::Switch)
            writeSwitch(writtenGuid(g, n), g.node(n).ports, description[n], lid[n], ports[n], anLid++);
    for (int j = 0; j < ms; ++j)
        writeSwitch(
            mgmtSwitchGuid(j), kMgmtRadix, mgmtSwitchDesc[j], mgmtLid0 + j, mgmtSwitchPorts[j], mgmtLid0 + ms + mh + j);
    for (NodeId n = 0; n < g.nodeCount(); ++n)
        if (g.node(n).kind == NodeKind::Nic || g.node(n).kind == NodeKind::Host)
            writeCa(writtenGuid(g, n), writtenGuid(g, n), std::max<int>(g.node(n).ports, 1), description[n], lid[n],
                ports[n]);
    for (int h = 0; h < mh; ++h)
        writeCa(mgmtHostGuid(h), mgmtHostGuid(h), 1, mgmtHostDesc[h], mgmtLid0 + ms + h, mgmtHostPorts[h]);
    if (o.sharpAggregationNodes) {
        anLid = nextLid;
        auto writeAn = [&](std::uint64_t sw, int swPorts, const std::string& swDesc, int swLid, int lidOfAn) {
            std::vector<PortEnd> list { { 1, sw, true, swPorts + 1, sw, swDesc, swLid, commonWidth } };
            writeCa(sw + 8, sw, 1, kAnDescription, lidOfAn, list);
        };
        for (NodeId n = 0; n < g.nodeCount(); ++n)
            if (g.node(n).kind == NodeKind::Switch)
                writeAn(writtenGuid(g, n), g.node(n).ports, description[n], lid[n], anLid++);
        for (int j = 0; j < ms; ++j)
            writeAn(mgmtSwitchGuid(j), kMgmtRadix, mgmtSwitchDesc[j], mgmtLid0 + j, mgmtLid0 + ms + mh + j);
    }
    w.out += o.trailingPrompt;
    return w.out;
}

engine::Status plantDefects(engine::FabricGraph& g, const std::vector<PlantedDefect>& defects)
{
    for (std::size_t i = 0; i < defects.size(); ++i) {
        const PlantedDefect& d = defects[i];
        const std::string where = "planted defect " + std::to_string(i) + ": ";
        if (d.link >= g.linkCount())
            return engine::Status::error(where + "link " + std::to_string(d.link) + " does not exist");
        engine::FabricLink& l = g.link(d.link);
        switch (d.kind) {
        case PlantedDefect::Kind::Remove:
            l.flags |= engine::kLinkMissing;
            break;
        case PlantedDefect::Kind::DegradeWidth:
            l.gbps = l.gbps / std::max<int>(l.lanes, 1);
            l.lanes = 1;
            break;
        case PlantedDefect::Kind::DegradeSpeed: {
            const int lanes = std::max<int>(l.lanes, 1);
            const int s = speedIndex(l.gbps / lanes);
            l.gbps = float(lanes * kSpeeds[std::max(s - 1, 0)].gbps);
            break;
        }
        case PlantedDefect::Kind::Swap: {
            if (d.other >= g.linkCount() || d.other == d.link)
                return engine::Status::error(where + "a swap needs a second, different link");
            engine::FabricLink& m = g.link(d.other);
            std::swap(l.b, m.b);
            std::swap(l.portB, m.portB);
            break;
        }
        }
    }
    // Swaps change endpoints, which the graph's adjacency does not follow: rebuild the graph.
    engine::FabricGraph rebuilt;
    for (NodeId n = 0; n < g.nodeCount(); ++n) {
        rebuilt.addNode(g.node(n));
        if (!g.label(n).empty())
            rebuilt.setLabel(n, g.label(n));
    }
    for (const auto& r : g.racks())
        rebuilt.addRack(r);
    for (const auto& l : g.links())
        rebuilt.addLink(l);
    g = std::move(rebuilt);
    return engine::Status::success();
}

} // namespace clusterscope::importers
