#include "importers/ibnetdiscover/planfromdesign.h"

#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"

#include <map>
#include <set>
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

namespace clusterscope::importers {

namespace {
    // Switches per tier and cables per (lower rank, upper rank) level; CAs rank -1. Only switches of
    // `keep` (all when empty) and links touching them count.
    struct Counts {
        std::map<int, std::int64_t> switches;
        std::map<std::pair<int, int>, std::int64_t> cables;
    };

    Counts countsOf(const engine::FabricGraph& g, const std::vector<char>& keep)
    {
        Counts c;
        auto rank = [&](NodeId n) { return g.node(n).kind == NodeKind::Switch ? int(g.node(n).tier) : -1; };
        auto kept = [&](NodeId n) { return keep.empty() || keep[n]; };
        for (NodeId n = 0; n < g.nodeCount(); ++n)
            if (g.node(n).kind == NodeKind::Switch && kept(n))
                ++c.switches[g.node(n).tier];
        for (const auto& l : g.links()) {
            if (l.flags & engine::kLinkMissing)
                continue;
            const NodeKind ka = g.node(l.a).kind, kb = g.node(l.b).kind;
            const bool net = (ka == NodeKind::Switch || ka == NodeKind::Nic || ka == NodeKind::Host)
                && (kb == NodeKind::Switch || kb == NodeKind::Nic || kb == NodeKind::Host);
            if (!net || (ka != NodeKind::Switch && kb != NodeKind::Switch))
                continue;
            if ((ka == NodeKind::Switch && !kept(l.a)) || (kb == NodeKind::Switch && !kept(l.b)))
                continue;
            ++c.cables[{ std::min(rank(l.a), rank(l.b)), std::max(rank(l.a), rank(l.b)) }];
        }
        return c;
    }

    std::string levelName(const std::pair<int, int>& k)
    {
        return (k.first < 0 ? std::string("host") : engine::tierName(k.first)) + "-" + engine::tierName(k.second);
    }
} // namespace

std::vector<FabricFlag> compareCountsWithPlan(const ImportedFabric& actual, const engine::FabricGraph& planned)
{
    std::vector<char> compute;
    if (!actual.structure.parts.empty()) {
        compute.assign(actual.graph.nodeCount(), 0);
        for (NodeId n : actual.structure.parts.front().switches)
            compute[n] = 1;
    }
    const Counts have = countsOf(actual.graph, compute), want = countsOf(planned, {});
    std::vector<FabricFlag> flags;
    auto compare = [&](const std::string& what, std::int64_t planned, std::int64_t found) {
        if (planned == found)
            return;
        FabricFlag f;
        f.kind = found < planned ? FabricFlag::Kind::Missing : FabricFlag::Kind::Extra;
        f.severity = found < planned ? engine::DiagnosticSeverity::Warning : engine::DiagnosticSeverity::Info;
        f.pattern = what + " vs plan";
        f.message = "The plan has " + std::to_string(planned) + " " + what + ", the compute fabric "
            + std::to_string(found) + ".";
        flags.push_back(std::move(f));
    };
    std::set<int> tiers;
    for (const auto& [t, n] : have.switches)
        tiers.insert(t);
    for (const auto& [t, n] : want.switches)
        tiers.insert(t);
    for (int t : tiers) {
        const auto h = have.switches.find(t), w = want.switches.find(t);
        compare(engine::tierName(t) + " switches", w == want.switches.end() ? 0 : w->second,
            h == have.switches.end() ? 0 : h->second);
    }
    std::set<std::pair<int, int>> levels;
    for (const auto& [k, n] : have.cables)
        levels.insert(k);
    for (const auto& [k, n] : want.cables)
        levels.insert(k);
    for (const auto& k : levels) {
        const auto h = have.cables.find(k), w = want.cables.find(k);
        compare(
            levelName(k) + " cables", w == want.cables.end() ? 0 : w->second, h == have.cables.end() ? 0 : h->second);
    }
    return flags;
}

} // namespace clusterscope::importers
