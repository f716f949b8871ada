#include "importers/ibnetdiscover/planfromdesign.h"

#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"

#include <unordered_set>

namespace clusterscope::importers {

using engine::NodeId;
using engine::NodeKind;

PlannedFabric planFromGraph(const engine::FabricGraph& g, bool withHosts)
{
    PlannedFabric plan;
    std::vector<std::string> names(g.nodeCount());
    for (NodeId n = 0; n < g.nodeCount(); ++n) {
        const NodeKind k = g.node(n).kind;
        if (k == NodeKind::Switch) {
            names[n] = g.label(n).empty() ? writtenDescription(g, n, "") : g.label(n);
            plan.systems.push_back({ "switch", names[n], 0 });
        } else if (withHosts && (k == NodeKind::Nic || k == NodeKind::Host)) {
            names[n] = writtenDescription(g, n, "");
            plan.systems.push_back({ "ca", names[n], 0 });
        }
    }
    for (const auto& l : g.links()) {
        if (l.flags & engine::kLinkMissing || names[l.a].empty() || names[l.b].empty())
            continue;
        plan.cables.push_back({ names[l.a], l.portA, names[l.b], l.portB, 0 });
    }
    return plan;
}

double planNameCoverage(const ImportedFabric& actual, const PlannedFabric& plan)
{
    std::unordered_set<std::string> have;
    const auto& g = actual.graph;
    for (NodeId n = 0; n < g.nodeCount(); ++n) {
        if (g.node(n).kind != NodeKind::Switch)
            continue;
        const std::string& d = g.label(n);
        have.insert(d);
        const auto semi = d.find(';'), colon = d.find(':');
        if (semi != std::string::npos && colon != std::string::npos && colon > semi)
            have.insert(d.substr(semi + 1, colon - semi - 1));
    }
    int switches = 0, found = 0;
    for (const auto& s : plan.systems)
        if (s.type == "switch") {
            ++switches;
            found += have.count(s.name) > 0;
        }
    return switches > 0 ? double(found) / switches : 0.0;
}

} // namespace clusterscope::importers
