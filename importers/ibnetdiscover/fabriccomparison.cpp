#include "importers/ibnetdiscover/fabriccomparison.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace clusterscope::importers {

namespace {
    std::vector<std::string> candidateNames(const engine::FabricGraph& g, engine::NodeId n)
    {
        const std::string& label = g.label(n);
        std::vector<std::string> names { label };
        char buf[32];
        std::snprintf(buf, sizeof buf, "%c-%016llx", g.node(n).kind == engine::NodeKind::Switch ? 'S' : 'H',
            static_cast<unsigned long long>(g.node(n).guid));
        names.emplace_back(buf);
        if (const auto space = label.find(' '); space != std::string::npos)
            names.push_back(label.substr(0, space));
        // Mellanox switch descriptions: "MF0;<name>:<model>/U1".
        const auto semi = label.find(';'), colon = label.find(':');
        if (semi != std::string::npos && colon != std::string::npos && colon > semi)
            names.push_back(label.substr(semi + 1, colon - semi - 1));
        return names;
    }
}

std::vector<FabricFlag> compareWithPlan(const ImportedFabric& actual, const PlannedFabric& plan)
{
    const engine::FabricGraph& g = actual.graph;
    std::map<std::string, engine::NodeId> byName;
    for (engine::NodeId n = 0; n < g.nodeCount(); ++n)
        for (const auto& name : candidateNames(g, n))
            byName.emplace(name, n);
    std::map<std::string, engine::NodeId> planNode; // plan name -> node
    std::map<engine::NodeId, std::string> nodePlanName;
    std::vector<FabricFlag> flags;
    for (const auto& s : plan.systems) {
        auto it = byName.find(s.name);
        if (it == byName.end()) {
            flags.push_back({ FabricFlag::Kind::Missing, { s.name + "/P0" },
                "Planned system " + s.name + " (" + s.type + ") is not in the discovered fabric." });
            continue;
        }
        planNode[s.name] = it->second;
        nodePlanName[it->second] = s.name;
    }
    using Port = std::pair<engine::NodeId, int>;
    std::map<Port, Port> peer;
    for (const auto& l : g.links()) {
        if (l.flags & engine::kLinkMissing)
            continue;
        peer[{ l.a, l.portA }] = { l.b, l.portB };
        peer[{ l.b, l.portB }] = { l.a, l.portA };
    }
    auto portName = [&](const Port& p) {
        auto it = nodePlanName.find(p.first);
        return (it != nodePlanName.end() ? it->second : g.label(p.first)) + "/P" + std::to_string(p.second);
    };
    std::set<Port> plannedPorts;
    std::set<std::pair<Port, Port>> reported;
    for (const auto& c : plan.cables) {
        auto na = planNode.find(c.nameA), nb = planNode.find(c.nameB);
        if (na == planNode.end() || nb == planNode.end())
            continue; // the missing system is already flagged
        const Port a { na->second, c.portA }, b { nb->second, c.portB };
        plannedPorts.insert(a);
        plannedPorts.insert(b);
        const auto pa = peer.find(a), pb = peer.find(b);
        if (pa != peer.end() && pa->second == b)
            continue;
        if (pa == peer.end() && pb == peer.end()) {
            flags.push_back({ FabricFlag::Kind::Missing, { portName(a), portName(b) },
                "Planned cable " + portName(a) + " - " + portName(b) + " is not there." });
            continue;
        }
        std::vector<std::string> ports { portName(a), portName(b) };
        std::string found;
        for (const auto* end : { &pa, &pb }) {
            if (*end == peer.end())
                continue;
            const auto key = std::minmax((*end)->first, (*end)->second);
            if (!reported.insert(key).second)
                continue;
            ports.push_back(portName((*end)->second));
            found += (found.empty() ? "" : "; ") + portName((*end)->first) + " goes to " + portName((*end)->second);
        }
        flags.push_back({ FabricFlag::Kind::Miswired, ports,
            "Planned cable " + portName(a) + " - " + portName(b) + " is miswired: " + found + "." });
    }
    for (const auto& l : g.links()) {
        if (l.flags & engine::kLinkMissing)
            continue;
        const Port a { l.a, l.portA }, b { l.b, l.portB };
        if (!nodePlanName.count(l.a) || !nodePlanName.count(l.b) || plannedPorts.count(a) || plannedPorts.count(b))
            continue;
        flags.push_back({ FabricFlag::Kind::Extra, { portName(a), portName(b) },
            "Cable " + portName(a) + " - " + portName(b) + " is not in the plan." });
    }
    return flags;
}

} // namespace clusterscope::importers
