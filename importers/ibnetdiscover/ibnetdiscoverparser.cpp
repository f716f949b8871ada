#include "importers/ibnetdiscover/ibnetdiscoverparser.h"

#include "importers/common/inputfile.h"
#include "importers/ibnetdiscover/ibnetdiscoverlexer.h"
#include "importers/ibnetdiscover/tierinference.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace clusterscope::importers {

using engine::DiagnosticSeverity;
using engine::Status;

const char* toString(FabricFlag::Kind kind)
{
    switch (kind) {
    case FabricFlag::Kind::Missing:
        return "missing";
    case FabricFlag::Kind::Degraded:
        return "degraded";
    case FabricFlag::Kind::SelfLoop:
        return "self_loop";
    case FabricFlag::Kind::Miswired:
        return "miswired";
    case FabricFlag::Kind::Extra:
        return "extra";
    }
    return "missing";
}

double infinibandLaneGbps(std::string_view speed)
{
    static const struct {
        const char* name;
        double gbps;
    } kSpeeds[] = { { "SDR", 2.5 }, { "DDR", 5 }, { "QDR", 10 }, { "FDR10", 10 }, { "FDR", 14 }, { "EDR", 25 },
        { "HDR", 50 }, { "NDR", 100 }, { "XDR", 200 } };
    for (const auto& s : kSpeeds)
        if (speed == s.name)
            return s.gbps;
    return 0.0;
}

namespace {
using PortKey = std::pair<std::uint64_t, int>; // (GUID, port)

struct NodeRecord {
    char type = 'S';
    int ports = 0;
    std::string description;
    bool hasHeader = false;
};

struct LinkRecord {
    PortKey a, b;        // a < b
    int lanesA = 0;      // width as reported in a's block (0 = not seen from a)
    int lanesB = 0;
    std::string speed;
    int firstLine = 0;
};

std::string guidName(char type, std::uint64_t guid)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%c-%016llx", type, static_cast<unsigned long long>(guid));
    return buf;
}
}

engine::Result<ImportedFabric> parseIbnetdiscover(std::string_view text, const std::string& name)
{
    ImportedFabric out;
    const std::vector<IbLine> lines = tokenizeIbnetdiscover(text);
    std::map<std::uint64_t, NodeRecord> nodes;
    std::map<std::pair<PortKey, PortKey>, LinkRecord> links;
    std::map<PortKey, PortKey> peerOf;
    std::uint64_t current = 0;
    bool inNode = false;
    int unrecognised = 0, firstUnrecognised = 0, conflicts = 0, firstConflict = 0;

    for (const IbLine& l : lines) {
        if (l.kind == IbLine::Kind::NodeHeader) {
            NodeRecord& n = nodes[l.guid];
            n.type = l.nodeType;
            n.ports = l.ports;
            n.description = l.description;
            n.hasHeader = true;
            current = l.guid;
            inNode = true;
            continue;
        }
        if (l.kind == IbLine::Kind::Unrecognised || !inNode) {
            if (!inNode && l.kind == IbLine::Kind::Unrecognised) {
                out.diagnostics.add(engine::diagnostic::kIbLeadingText,
                    name + ": line " + std::to_string(l.lineNumber) + ": text before the first node header was skipped (\""
                        + l.text.substr(0, 80) + "\").");
                continue;
            }
            if (unrecognised++ == 0)
                firstUnrecognised = l.lineNumber;
            continue;
        }
        NodeRecord& peer = nodes[l.peerGuid];
        if (!peer.hasHeader) {
            peer.type = l.peerType;
            if (peer.description.empty())
                peer.description = l.peerDescription;
        }
        const PortKey self { current, l.localPort }, other { l.peerGuid, l.peerPort };
        for (const auto& [from, to] : { std::pair { self, other }, std::pair { other, self } }) {
            auto [it, inserted] = peerOf.emplace(from, to);
            if (!inserted && it->second != to && conflicts++ == 0)
                firstConflict = l.lineNumber;
        }
        const bool forward = self < other;
        const auto key = forward ? std::make_pair(self, other) : std::make_pair(other, self);
        LinkRecord& r = links[key];
        if (r.firstLine == 0) {
            r.a = key.first;
            r.b = key.second;
            r.firstLine = l.lineNumber;
        }
        (forward ? r.lanesA : r.lanesB) = l.lanes;
        if (r.speed.empty())
            r.speed = l.speed;
    }
    if (nodes.empty() || std::none_of(nodes.begin(), nodes.end(), [](const auto& n) { return n.second.hasHeader; }))
        return Status::error(name + ": line " + std::to_string(lines.empty() ? 1 : lines.front().lineNumber)
            + ": no Switch or Ca node header: not an ibnetdiscover dump");
    if (unrecognised > 0)
        out.diagnostics.add(engine::diagnostic::kIbUnrecognisedLine,
            name + ": line " + std::to_string(firstUnrecognised) + ": lines that are neither a node header nor a port were skipped.",
            unrecognised);
    if (conflicts > 0)
        out.diagnostics.add(engine::diagnostic::kIbPortConflict,
            name + ": line " + std::to_string(firstConflict) + ": a port is reported connected to two different peers.", conflicts);

    // Nodes: switches then CAs, in GUID order (stable ids for golden files).
    std::map<std::uint64_t, engine::NodeId> ids;
    std::map<std::string, std::int32_t> hostIndex;
    std::map<std::string, int> caDescriptions;
    for (const auto& [guid, n] : nodes)
        if (n.type != 'S')
            ++caDescriptions[n.description];
    for (char pass : { 'S', 'H', 'R' }) {
        for (const auto& [guid, n] : nodes) {
            if (n.type != pass)
                continue;
            engine::FabricNode fn;
            fn.guid = guid;
            fn.kind = n.type == 'S' ? engine::NodeKind::Switch : engine::NodeKind::Nic;
            fn.ports = std::uint16_t(std::max(n.ports, 0));
            if (n.type != 'S') {
                // Host: the description's first word ("stage114 mlx4_0" -> "stage114"). A description
                // several CAs share word for word is a default ("MT23108 InfiniHost Mellanox
                // Technologies"), not a host name: such CAs are hosts of their own. (sysimgguid is
                // per adapter, not per machine, so it cannot group a server's HCAs.)
                std::string host = n.description.substr(0, n.description.find(' '));
                if (host.empty() || caDescriptions[n.description] > 1)
                    host = guidName('H', guid);
                fn.host = hostIndex.emplace(host, std::int32_t(hostIndex.size())).first->second;
            }
            if (!n.hasHeader)
                out.diagnostics.add(engine::diagnostic::kIbNodeWithoutHeader,
                    name + ": nodes only seen as a peer (no block of their own) were added from the peer's description.");
            const engine::NodeId id = out.graph.addNode(fn);
            out.graph.setLabel(id, n.description.empty() ? guidName(n.type, guid) : n.description);
            ids[guid] = id;
        }
    }
    auto portName = [&](const PortKey& p) { return guidName(nodes[p.first].type, p.first) + "/P" + std::to_string(p.second); };

    // The fabric's usual width: links narrower than it are degraded.
    std::map<int, int> widthCounts;
    for (const auto& [key, r] : links)
        ++widthCounts[std::max(r.lanesA, r.lanesB)];
    int usualLanes = 0, best = -1;
    for (const auto& [w, n] : widthCounts)
        if (n > best && w > 0) {
            best = n;
            usualLanes = w;
        }

    std::vector<engine::FabricLink> graphLinks;
    for (const auto& [key, r] : links) {
        if (r.a.first == r.b.first) {
            out.flags.push_back({ FabricFlag::Kind::SelfLoop, { portName(r.a), portName(r.b) },
                nodes[r.a.first].description + ": port " + std::to_string(r.a.second) + " is cabled to port "
                    + std::to_string(r.b.second) + " of the same switch." });
            continue;
        }
        engine::FabricLink fl;
        fl.a = ids[r.a.first];
        fl.b = ids[r.b.first];
        fl.portA = std::uint16_t(r.a.second);
        fl.portB = std::uint16_t(r.b.second);
        const int lanesSeen = (r.lanesA > 0 && r.lanesB > 0) ? std::min(r.lanesA, r.lanesB) : std::max(r.lanesA, r.lanesB);
        fl.lanes = std::uint8_t(lanesSeen > 0 ? lanesSeen : 4);
        fl.gbps = float(fl.lanes * infinibandLaneGbps(r.speed));
        if (infinibandLaneGbps(r.speed) == 0.0)
            out.diagnostics.add(engine::diagnostic::kIbUnknownSpeed,
                name + ": line " + std::to_string(r.firstLine) + ": link speed \"" + r.speed + "\" is unknown; its rate is 0.");
        const bool asymmetric = r.lanesA > 0 && r.lanesB > 0 && r.lanesA != r.lanesB;
        if (asymmetric || (usualLanes > 0 && lanesSeen > 0 && lanesSeen < usualLanes)) {
            fl.flags |= engine::kLinkDegraded;
            std::string why = asymmetric
                ? "the ends report " + std::to_string(r.lanesA) + "x and " + std::to_string(r.lanesB) + "x"
                : "it runs at " + std::to_string(lanesSeen) + "x where the fabric's links are " + std::to_string(usualLanes) + "x";
            out.flags.push_back({ FabricFlag::Kind::Degraded, { portName(r.a), portName(r.b) },
                "Link " + portName(r.a) + " - " + portName(r.b) + " is degraded: " + why + "." });
        }
        graphLinks.push_back(fl);
    }
    for (const auto& fl : graphLinks)
        out.graph.addLink(fl);

    inferSwitchTiers(out.graph, out.diagnostics, name);
    // Orientation: the lower tier (NICs lowest) at end a.
    auto rank = [&](engine::NodeId n) { return out.graph.node(n).kind == engine::NodeKind::Switch ? out.graph.node(n).tier + 1 : -1; };
    for (engine::LinkId i = 0; i < out.graph.linkCount(); ++i) {
        engine::FabricLink& l = out.graph.link(i);
        if (rank(l.a) > rank(l.b)) {
            std::swap(l.a, l.b);
            std::swap(l.portA, l.portB);
        }
    }
    flagMissingUplinks(out, name);
    return out;
}

engine::Result<ImportedFabric> importIbnetdiscoverFile(const std::string& path)
{
    auto text = readInputFile(path);
    if (!text)
        return text.status();
    return parseIbnetdiscover(*text, path);
}

} // namespace clusterscope::importers
