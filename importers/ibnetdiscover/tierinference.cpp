#include "importers/ibnetdiscover/tierinference.h"

#include <cstdio>
#include <deque>
#include <map>
#include <set>

namespace clusterscope::importers {

using engine::DiagnosticSeverity;
using engine::NodeKind;

void inferSwitchTiers(engine::FabricGraph& graph, engine::Diagnostics& diagnostics, const std::string& name)
{
    // Leaves: switches with CAs on at least as many ports as switches, or with CAs and a single
    // neighbouring switch (two chassis joined by a trunk). A switch that fans out to several switches
    // and also hosts a few CAs (management hosts, a UFM appliance) stays above the leaves. When no
    // switch qualifies, every switch with a CA is a leaf.
    std::vector<int> distance(graph.nodeCount(), -1);
    std::deque<engine::NodeId> queue;
    for (int pass = 0; pass < 2 && queue.empty(); ++pass) {
        for (engine::NodeId n = 0; n < graph.nodeCount(); ++n) {
            if (graph.node(n).kind != NodeKind::Switch)
                continue;
            int toCa = 0, toSwitch = 0;
            std::set<engine::NodeId> switchNeighbours;
            for (engine::LinkId l : graph.linksOf(n)) {
                if (graph.link(l).flags & engine::kLinkMissing)
                    continue;
                const engine::NodeId m = graph.otherEnd(l, n);
                if (graph.node(m).kind == NodeKind::Switch) {
                    ++toSwitch;
                    switchNeighbours.insert(m);
                } else {
                    ++toCa;
                }
            }
            if (toCa > 0 && (pass == 1 || toCa >= toSwitch || switchNeighbours.size() <= 1)) {
                distance[n] = 0;
                queue.push_back(n);
            }
        }
    }
    // Breadth-first over switch-to-switch links: tier = hops from the nearest leaf.
    while (!queue.empty()) {
        const engine::NodeId n = queue.front();
        queue.pop_front();
        for (engine::LinkId l : graph.linksOf(n)) {
            if (graph.link(l).flags & engine::kLinkMissing)
                continue;
            const engine::NodeId m = graph.otherEnd(l, n);
            if (graph.node(m).kind == NodeKind::Switch && distance[m] < 0) {
                distance[m] = distance[n] + 1;
                queue.push_back(m);
            }
        }
    }
    std::int64_t unreached = 0;
    for (engine::NodeId n = 0; n < graph.nodeCount(); ++n) {
        if (graph.node(n).kind != NodeKind::Switch)
            continue;
        graph.node(n).tier = distance[n] >= 0 ? std::int8_t(std::min(distance[n], 100)) : engine::kTierUnknown;
        if (distance[n] < 0)
            ++unreached;
    }
    if (unreached > 0)
        diagnostics.add(engine::diagnostic::kIbTierUnknown,
            name + ": switches with no path to a channel adapter have no inferable tier.", unreached);
}

void flagMissingUplinks(ImportedFabric& fabric, const std::string& name)
{
    engine::FabricGraph& g = fabric.graph;
    auto guidName = [&](engine::NodeId n) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "S-%016llx", static_cast<unsigned long long>(g.node(n).guid));
        return std::string(buf);
    };
    // Links between each (lower, upper) switch pair of adjacent tiers.
    std::map<int, std::map<std::pair<engine::NodeId, engine::NodeId>, int>> pairs; // lower tier -> pair -> links
    std::map<int, std::vector<engine::NodeId>> byTier;
    for (engine::NodeId n = 0; n < g.nodeCount(); ++n)
        if (g.node(n).kind == NodeKind::Switch && g.node(n).tier >= 0)
            byTier[g.node(n).tier].push_back(n);
    for (const auto& l : g.links()) {
        const auto& a = g.node(l.a);
        const auto& b = g.node(l.b);
        if (a.kind != NodeKind::Switch || b.kind != NodeKind::Switch || a.tier < 0 || b.tier != a.tier + 1)
            continue;
        ++pairs[a.tier][{ l.a, l.b }];
    }
    std::vector<engine::FabricLink> added;
    for (const auto& [tier, counts] : pairs) {
        // Usual multiplicity of a cabled pair.
        std::map<int, int> histogram;
        for (const auto& [p, n] : counts)
            ++histogram[n];
        int usual = 0, best = -1;
        for (const auto& [k, n] : histogram)
            if (n > best || (n == best && k > usual)) {
                best = n;
                usual = k;
            }
        // Only a clear majority defines the plan (a fabric built irregularly on purpose is left alone).
        if (best * 2 <= int(counts.size()) || usual == 0)
            continue;
        for (engine::NodeId lower : byTier[tier]) {
            for (engine::NodeId upper : byTier[tier + 1]) {
                auto it = counts.find({ lower, upper });
                const int have = it == counts.end() ? 0 : it->second;
                if (have >= usual)
                    continue;
                for (int k = have; k < usual; ++k) {
                    engine::FabricLink l;
                    l.a = lower;
                    l.b = upper;
                    l.flags = engine::kLinkMissing;
                    added.push_back(l);
                }
                fabric.flags.push_back({ FabricFlag::Kind::Missing, { guidName(lower) + "/P0", guidName(upper) + "/P0" },
                    g.label(lower) + " (" + guidName(lower) + ") has " + std::to_string(have) + " link(s) to "
                        + g.label(upper) + " (" + guidName(upper) + ") where its peers have " + std::to_string(usual)
                        + ": " + std::to_string(usual - have) + " missing." });
            }
        }
    }
    for (const auto& l : added)
        g.addLink(l);
    if (!added.empty())
        fabric.diagnostics.add(engine::diagnostic::kIbMissingLinks,
            name + ": inter-switch links are missing compared with the fabric's regular pattern.", std::int64_t(added.size()));
}

} // namespace clusterscope::importers
