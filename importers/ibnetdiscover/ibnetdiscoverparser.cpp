#include "importers/ibnetdiscover/ibnetdiscoverparser.h"

#include "importers/common/inputfile.h"
#include "importers/ibnetdiscover/fabricstructure.h"
#include "importers/ibnetdiscover/ibnetdiscoverlexer.h"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <unordered_map>

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
    case FabricFlag::Kind::FewUplinks:
        return "few_uplinks";
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

std::string ibGuidName(char type, std::uint64_t guid)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%c-%016llx", type, static_cast<unsigned long long>(guid));
    return buf;
}

namespace {
    struct PortKey {
        std::uint64_t guid = 0;
        int port = 0;
        bool operator==(const PortKey&) const = default;
        // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=> (no pointer here)
        auto operator<=>(const PortKey&) const = default;
    };
    struct PortKeyHash {
        std::size_t operator()(const PortKey& k) const
        {
            return std::hash<std::uint64_t>()(k.guid * 0x9E3779B97F4A7C15ull ^ std::uint64_t(k.port));
        }
    };

    struct NodeRecord {
        char type = 'S';
        bool hasHeader = false;
        int ports = 0;
        std::uint64_t systemGuid = 0;
        std::string description;
    };

    struct LinkRecord {
        PortKey a, b; // a < b
        int lanesA = 0; // width as reported in a's block (0 = not seen from a)
        int lanesB = 0;
        std::string speed;
        int firstLine = 0;
    };

    bool contains(const std::string& s, std::string_view what) { return s.find(what) != std::string::npos; }

    // A terminal capture's last line: "[root@ufm ~]# ", "user@host:~$ ", "ufm > ".
    bool looksLikePrompt(const std::string& line)
    {
        std::size_t end = line.size();
        while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
            --end;
        return end > 0 && (line[end - 1] == '#' || line[end - 1] == '$' || line[end - 1] == '>' || line[end - 1] == '%')
            && line.find('"') == std::string::npos;
    }
}

engine::Result<ImportedFabric> parseIbnetdiscover(std::string_view text, const std::string& name)
{
    ImportedFabric out;
    std::unordered_map<std::uint64_t, NodeRecord> nodes;
    std::unordered_map<PortKey, PortKey, PortKeyHash> peerOf;
    std::unordered_map<PortKey, std::size_t, PortKeyHash> linkAt; // lower end -> index into `links`
    std::vector<LinkRecord> links;
    // Rough sizes from the text (a port line is ~100 bytes) so the tables do not rehash as they grow.
    const std::size_t expectedLines = text.size() / 100 + 16;
    nodes.reserve(expectedLines / 8);
    peerOf.reserve(expectedLines * 2);
    linkAt.reserve(expectedLines);
    links.reserve(expectedLines);
    std::uint64_t current = 0;
    bool inNode = false;
    bool listing = false; // a port-by-port listing (--ports report, iblinkinfo): no node blocks
    int unrecognised = 0, firstUnrecognised = 0, conflicts = 0, firstConflict = 0, firstLine = 0;
    // An unrecognised line is counted when the next line arrives: the last one may be a shell prompt.
    int pendingLine = 0;
    std::string pendingText;
    auto flushPending = [&] {
        if (pendingLine > 0 && unrecognised++ == 0)
            firstUnrecognised = pendingLine;
        pendingLine = 0;
    };

    // The link from `node`'s port to the peer (`peerGuid`) a Port or PortsReport line names.
    const auto addLink = [&](std::uint64_t node, std::uint64_t peerGuid, const IbLine& l) {
        NodeRecord& peer = nodes[peerGuid];
        if (!peer.hasHeader) {
            peer.type = l.peerType;
            if (peer.description.empty())
                peer.description = l.peerDescription;
        }
        const PortKey self { node, l.localPort }, other { peerGuid, l.peerPort };
        for (const auto& [from, to] : { std::pair { self, other }, std::pair { other, self } }) {
            auto [it, inserted] = peerOf.emplace(from, to);
            if (!inserted && it->second != to && conflicts++ == 0)
                firstConflict = l.lineNumber;
        }
        const bool forward = self < other;
        const PortKey lo = forward ? self : other, hi = forward ? other : self;
        auto [at, fresh] = linkAt.emplace(lo, links.size());
        if (fresh) {
            links.push_back({ lo, hi, 0, 0, {}, l.lineNumber });
        } else if (links[at->second].b != hi) {
            return; // the conflicting report is counted above; the first one stands
        }
        LinkRecord& r = links[at->second];
        (forward ? r.lanesA : r.lanesB) = l.lanes;
        if (r.speed.empty())
            r.speed = l.speed;
    };

    // A ports report names a CA port by its port GUID. The ports of one multi-port HCA carry its node
    // GUID plus the port number (the topology format's "[1](portguid)" lines show it), so a CA port is
    // keyed by port GUID - port when that key has the same description as the first port that claimed
    // it, else by its own port GUID: one CA per HCA, as the topology format counts them.
    std::unordered_map<std::uint64_t, std::string> caByBase;
    const auto nodeKey = [&caByBase](char type, std::uint64_t guid, int port, const std::string& description) {
        if (type != 'H' || port < 1 || guid < std::uint64_t(port))
            return guid;
        const std::uint64_t base = guid - std::uint64_t(port);
        const auto [it, inserted] = caByBase.emplace(base, description);
        return inserted || it->second == description ? base : guid;
    };

    // Lines are visited one at a time (not kept): a 50,000-CA dump has half a million of them.
    const bool iblinkinfo = looksLikeIblinkinfo(text);
    (iblinkinfo ? visitIblinkinfoLines : visitIbnetdiscoverLines)(text, [&](const IbLine& l) {
        if (firstLine == 0)
            firstLine = l.lineNumber;
        flushPending();
        if (l.kind == IbLine::Kind::PortsReport) {
            // `ibnetdiscover --ports`: each line names its node (by port GUID: one per switch, one per
            // CA port) and the peer; the node's port count is the highest port seen.
            const std::uint64_t self = nodeKey(l.nodeType, l.guid, l.localPort, l.description);
            NodeRecord& n = nodes[self];
            n.type = l.nodeType;
            n.ports = std::max(n.ports, l.localPort);
            if (n.description.empty() || !n.hasHeader)
                n.description = l.description;
            n.hasHeader = true;
            inNode = false; // topology-format port lines after it belong to no node
            listing = true;
            if (l.peerGuid != 0)
                addLink(self, nodeKey(l.peerType, l.peerGuid, l.peerPort, l.peerDescription), l);
            return;
        }
        if (l.kind == IbLine::Kind::NodeHeader) {
            NodeRecord& n = nodes[l.guid];
            n.type = l.nodeType;
            n.ports = l.ports;
            n.description = l.description;
            n.systemGuid = l.systemGuid;
            n.hasHeader = true;
            current = l.guid;
            inNode = true;
            return;
        }
        if (l.kind == IbLine::Kind::Unrecognised || !inNode) {
            if (!inNode && !listing && l.kind == IbLine::Kind::Unrecognised) {
                out.diagnostics.add(engine::diagnostic::kIbLeadingText,
                    name + ": line " + std::to_string(l.lineNumber)
                        + ": text before the first node header was skipped (\"" + l.text.substr(0, 80) + "\").");
                return;
            }
            pendingLine = l.lineNumber;
            pendingText = l.text;
            return;
        }
        addLink(current, l.peerGuid, l);
    });
    if (pendingLine > 0 && looksLikePrompt(pendingText)) {
        out.diagnostics.add(engine::diagnostic::kIbTrailingPrompt,
            name + ": line " + std::to_string(pendingLine) + ": a shell prompt after the dump was skipped (\""
                + pendingText.substr(0, 80) + "\").");
        pendingLine = 0;
    }
    flushPending();
    if (nodes.empty() || std::none_of(nodes.begin(), nodes.end(), [](const auto& n) { return n.second.hasHeader; }))
        return Status::error(name + ": line " + std::to_string(firstLine == 0 ? 1 : firstLine)
            + ": no Switch or Ca node header nor ibnetdiscover --ports line: not an ibnetdiscover dump");
    if (unrecognised > 0)
        out.diagnostics.add(engine::diagnostic::kIbUnrecognisedLine,
            name + ": line " + std::to_string(firstUnrecognised)
                + ": lines that are neither a node header nor a port were skipped.",
            unrecognised);
    if (conflicts > 0)
        out.diagnostics.add(engine::diagnostic::kIbPortConflict,
            name + ": line " + std::to_string(firstConflict) + ": a port is reported connected to two different peers.",
            conflicts);

    std::vector<std::uint64_t> guids;
    guids.reserve(nodes.size());
    for (const auto& [guid, n] : nodes)
        guids.push_back(guid);
    std::sort(guids.begin(), guids.end());

    // Switch-embedded CAs: a CA cabled to exactly one switch that is that switch's SHARP aggregation
    // node (NVIDIA SHARP docs: Quantum switches expose the AN as a CA on an extra port) or its
    // management port (same system image GUID or the same description as the switch).
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, int>>
        caSwitch; // CA guid -> (switch, port); (0, 0) = not one switch
    for (const LinkRecord& r : links) {
        for (const auto& [ca, sw] : { std::pair { r.a, r.b }, std::pair { r.b, r.a } }) {
            if (nodes[ca.guid].type == 'S' || nodes[sw.guid].type != 'S')
                continue;
            auto [it, inserted] = caSwitch.emplace(ca.guid, std::pair { sw.guid, sw.port });
            if (!inserted && it->second.first != sw.guid)
                it->second = { 0, 0 };
        }
    }
    std::unordered_map<std::uint64_t, std::size_t> embeddedIndex;
    for (std::uint64_t guid : guids) {
        const NodeRecord& n = nodes[guid];
        auto it = caSwitch.find(guid);
        if (n.type == 'S' || it == caSwitch.end() || it->second.first == 0)
            continue;
        const NodeRecord& sw = nodes[it->second.first];
        const bool sharp = contains(n.description, "Aggregation Node");
        const bool management = !sharp
            && ((n.systemGuid != 0 && n.systemGuid == sw.systemGuid)
                || (!n.description.empty() && n.description == sw.description));
        if (!sharp && !management)
            continue;
        EmbeddedCa e;
        e.kind = sharp ? EmbeddedCa::Kind::SharpAggregationNode : EmbeddedCa::Kind::SwitchManagement;
        e.guid = guid;
        e.description = n.description;
        e.switchPort = it->second.second;
        embeddedIndex[guid] = out.structure.embedded.size();
        out.structure.embedded.push_back(std::move(e));
    }

    // Nodes: switches then CAs, in GUID order (stable ids for golden files).
    std::unordered_map<std::uint64_t, engine::NodeId> ids;
    ids.reserve(nodes.size());
    std::unordered_map<std::string, std::int32_t> hostIndex;
    std::unordered_map<std::string, int> caDescriptions;
    for (const auto& [guid, n] : nodes)
        if (n.type != 'S' && !embeddedIndex.count(guid))
            ++caDescriptions[n.description];
    int headerless = 0;
    for (char pass : { 'S', 'H', 'R' }) {
        for (std::uint64_t guid : guids) {
            const NodeRecord& n = nodes[guid];
            if (n.type != pass || embeddedIndex.count(guid))
                continue;
            engine::FabricNode fn;
            fn.guid = guid;
            fn.kind = n.type == 'S' ? engine::NodeKind::Switch : engine::NodeKind::Nic;
            fn.ports = std::uint16_t(std::clamp(n.ports, 0, 65535));
            if (n.type != 'S') {
                // Host: the description's first word ("stage114 mlx4_0" -> "stage114"). A description
                // several CAs share word for word is a default ("MT23108 InfiniHost Mellanox
                // Technologies"), not a host name: such CAs are hosts of their own. (sysimgguid is
                // per adapter, not per machine, so it cannot group a server's HCAs.)
                std::string host = n.description.substr(0, n.description.find(' '));
                if (host.empty() || caDescriptions[n.description] > 1)
                    host = ibGuidName('H', guid);
                fn.host = hostIndex.emplace(host, std::int32_t(hostIndex.size())).first->second;
            }
            headerless += !n.hasHeader;
            const engine::NodeId id = out.graph.addNode(fn);
            out.graph.setLabel(id, n.description.empty() ? ibGuidName(n.type, guid) : n.description);
            ids[guid] = id;
        }
    }
    if (headerless > 0)
        out.diagnostics.add(engine::diagnostic::kIbNodeWithoutHeader,
            name + ": nodes only seen as a peer (no block of their own) were added from the peer's description.",
            headerless);
    auto portName
        = [&](const PortKey& p) { return ibGuidName(nodes[p.guid].type, p.guid) + "/P" + std::to_string(p.port); };

    std::sort(links.begin(), links.end(),
        [](const LinkRecord& x, const LinkRecord& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
    int unknownSpeeds = 0, firstUnknownSpeed = 0;
    std::string unknownSpeed;
    for (const LinkRecord& r : links) {
        const auto ea = embeddedIndex.find(r.a.guid), eb = embeddedIndex.find(r.b.guid);
        if (ea != embeddedIndex.end() || eb != embeddedIndex.end()) {
            auto& e = out.structure.embedded[ea != embeddedIndex.end() ? ea->second : eb->second];
            const auto sw = ids.find(ea != embeddedIndex.end() ? r.b.guid : r.a.guid);
            if (sw != ids.end())
                e.hostSwitch = sw->second;
            continue;
        }
        if (r.a.guid == r.b.guid) {
            FabricFlag f { FabricFlag::Kind::SelfLoop, { portName(r.a), portName(r.b) },
                nodes[r.a.guid].description + ": port " + std::to_string(r.a.port) + " is cabled to port "
                    + std::to_string(r.b.port) + " of the same switch.",
                DiagnosticSeverity::Warning, "switch cabled to itself", { nodes[r.a.guid].description } };
            out.flags.push_back(std::move(f));
            continue;
        }
        engine::FabricLink fl;
        fl.a = ids[r.a.guid];
        fl.b = ids[r.b.guid];
        fl.portA = std::uint16_t(r.a.port);
        fl.portB = std::uint16_t(r.b.port);
        const int lanesSeen
            = (r.lanesA > 0 && r.lanesB > 0) ? std::min(r.lanesA, r.lanesB) : std::max(r.lanesA, r.lanesB);
        fl.lanes = std::uint8_t(lanesSeen > 0 ? std::min(lanesSeen, 255) : 4);
        fl.gbps = float(fl.lanes * infinibandLaneGbps(r.speed));
        if (infinibandLaneGbps(r.speed) == 0.0 && unknownSpeeds++ == 0) {
            firstUnknownSpeed = r.firstLine;
            unknownSpeed = r.speed;
        }
        if (r.lanesA > 0 && r.lanesB > 0 && r.lanesA != r.lanesB) {
            // The two ends disagree on the width: a link that trained down on one side.
            fl.flags |= engine::kLinkDegraded;
            out.flags.push_back({ FabricFlag::Kind::Degraded, { portName(r.a), portName(r.b) },
                "Link " + portName(r.a) + " - " + portName(r.b) + " is degraded: the ends report "
                    + std::to_string(r.lanesA) + "x and " + std::to_string(r.lanesB) + "x.",
                DiagnosticSeverity::Warning, "ends report different widths",
                { nodes[r.a.guid].description, nodes[r.b.guid].description } });
        }
        out.graph.addLink(fl);
    }
    if (unknownSpeeds > 0)
        out.diagnostics.add(engine::diagnostic::kIbUnknownSpeed,
            name + ": line " + std::to_string(firstUnknownSpeed) + ": link speed \"" + unknownSpeed
                + "\" is unknown; its rate is 0.",
            unknownSpeeds);
    analyseFabricStructure(out, name);
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
