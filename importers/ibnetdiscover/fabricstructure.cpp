#include "importers/ibnetdiscover/fabricstructure.h"

#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/ibnetdiscover/podinference.h"
#include "importers/ibnetdiscover/tierinference.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

namespace clusterscope::importers {

using engine::LinkId;
using engine::NodeId;
using engine::NodeKind;

const char* toString(FabricPart::Role role)
{
    switch (role) {
    case FabricPart::Role::Compute:
        return "compute";
    case FabricPart::Role::Management:
        return "management";
    case FabricPart::Role::Storage:
        return "storage";
    case FabricPart::Role::Other:
        return "other";
    }
    return "other";
}

const char* toString(EmbeddedCa::Kind kind)
{
    return kind == EmbeddedCa::Kind::SharpAggregationNode ? "sharp_aggregation_node" : "switch_management";
}

namespace {

    std::string lower(const std::string& s)
    {
        std::string out(s);
        for (char& c : out)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return out;
    }

    NodeId findRoot(std::vector<NodeId>& parent, NodeId n)
    {
        while (parent[n] != n)
            n = parent[n] = parent[parent[n]];
        return n;
    }

    void findParts(ImportedFabric& fabric)
    {
        const engine::FabricGraph& g = fabric.graph;
        std::vector<NodeId> parent(g.nodeCount());
        std::iota(parent.begin(), parent.end(), NodeId(0));
        for (const auto& l : g.links())
            if (!(l.flags & engine::kLinkMissing) && g.node(l.a).kind == NodeKind::Switch
                && g.node(l.b).kind == NodeKind::Switch)
                parent[findRoot(parent, l.a)] = findRoot(parent, l.b);
        std::map<NodeId, std::size_t> partOf;
        std::vector<FabricPart> parts;
        std::vector<std::string> text; // descriptions, lower case, for the role
        for (NodeId n = 0; n < g.nodeCount(); ++n) {
            if (g.node(n).kind != NodeKind::Switch)
                continue;
            auto [it, fresh] = partOf.emplace(findRoot(parent, n), parts.size());
            if (fresh) {
                parts.emplace_back();
                text.emplace_back();
            }
            parts[it->second].switches.push_back(n);
            if (text[it->second].size() < 100000)
                text[it->second] += lower(g.label(n)) + "\n";
        }
        for (const auto& l : g.links()) {
            if (l.flags & engine::kLinkMissing)
                continue;
            const bool aSwitch = g.node(l.a).kind == NodeKind::Switch, bSwitch = g.node(l.b).kind == NodeKind::Switch;
            if (aSwitch == bSwitch)
                continue;
            const std::size_t p = partOf[findRoot(parent, aSwitch ? l.a : l.b)];
            ++parts[p].hostCas;
            if (text[p].size() < 100000)
                text[p] += lower(g.label(aSwitch ? l.b : l.a)) + "\n";
        }
        if (parts.empty())
            return;
        std::size_t compute = 0;
        for (std::size_t p = 1; p < parts.size(); ++p)
            if (parts[p].hostCas > parts[compute].hostCas
                || (parts[p].hostCas == parts[compute].hostCas
                    && parts[p].switches.size() > parts[compute].switches.size()))
                compute = p;
        static const char* kManagement[] = { "mgmt", "management", "ufm", "ipmi", "bmc", "admin", "head" };
        static const char* kStorage[]
            = { "stor", "lustre", "gpfs", "nfs", "ddn", "weka", "vast", "netapp", "oss", "mds" };
        for (std::size_t p = 0; p < parts.size(); ++p) {
            FabricPart& part = parts[p];
            std::set<int> tiers;
            for (NodeId n : part.switches)
                if (g.node(n).tier >= 0)
                    tiers.insert(g.node(n).tier);
            part.tiers = int(tiers.size());
            if (p == compute) {
                part.role = FabricPart::Role::Compute;
                part.why = "most host CAs";
                continue;
            }
            part.role = FabricPart::Role::Other;
            part.why = "not joined to the compute fabric by any switch cable";
            for (const char* w : kManagement)
                if (text[p].find(w) != std::string::npos) {
                    part.role = FabricPart::Role::Management;
                    part.why = std::string("descriptions mention \"") + w + "\"";
                    break;
                }
            if (part.role == FabricPart::Role::Other)
                for (const char* w : kStorage)
                    if (text[p].find(w) != std::string::npos) {
                        part.role = FabricPart::Role::Storage;
                        part.why = std::string("descriptions mention \"") + w + "\"";
                        break;
                    }
        }
        std::stable_sort(parts.begin(), parts.end(), [](const FabricPart& x, const FabricPart& y) {
            return (x.role == FabricPart::Role::Compute) > (y.role == FabricPart::Role::Compute);
        });
        fabric.structure.parts = std::move(parts);
    }

    // "MF0;ib-dir01:MCS8500/L05/U1" -> chassis "ib-dir01", model "MCS8500", leaf blade.
    void findChassis(ImportedFabric& fabric)
    {
        const engine::FabricGraph& g = fabric.graph;
        std::map<std::string, Chassis> byName;
        for (NodeId n = 0; n < g.nodeCount(); ++n) {
            if (g.node(n).kind != NodeKind::Switch)
                continue;
            const std::string& d = g.label(n);
            const auto colon = d.find(':');
            if (colon == std::string::npos)
                continue;
            const auto semi = d.rfind(';', colon);
            const std::string chassis = d.substr(
                semi == std::string::npos ? 0 : semi + 1, colon - (semi == std::string::npos ? 0 : semi + 1));
            const auto slash = d.find('/', colon);
            if (slash == std::string::npos || slash + 2 >= d.size() || chassis.empty())
                continue;
            const char blade = d[slash + 1];
            if ((blade != 'L' && blade != 'S') || !std::isdigit(static_cast<unsigned char>(d[slash + 2])))
                continue;
            Chassis& c = byName[chassis];
            c.name = chassis;
            c.model = d.substr(colon + 1, slash - colon - 1);
            (blade == 'L' ? c.leafBlades : c.spineBlades).push_back(n);
        }
        for (auto& [name, c] : byName)
            if (c.leafBlades.size() + c.spineBlades.size() >= 2)
                fabric.structure.chassis.push_back(std::move(c));
    }

    // A switch whose description names a tier other than its distance from the hosts, when the named
    // tier keeps every one of its switch cables between adjacent tiers: the name wins. (A leaf without
    // hosts yet, such as the leaves of a scalable unit only the UFM appliance occupies, is two hops from
    // the nearest leaf and would otherwise pass for a core switch.)
    void applyNamedTiers(ImportedFabric& fabric, const std::string& name)
    {
        engine::FabricGraph& g = fabric.graph;
        std::vector<std::pair<NodeId, int>> changes;
        for (NodeId n = 0; n < g.nodeCount(); ++n) {
            if (g.node(n).kind != NodeKind::Switch)
                continue;
            const int named = tierNamedBy(g.label(n));
            if (named < 0 || named == g.node(n).tier)
                continue;
            bool consistent = true, cabled = false;
            for (LinkId l : g.linksOf(n)) {
                const NodeId m = g.otherEnd(l, n);
                if ((g.link(l).flags & engine::kLinkMissing) || g.node(m).kind != NodeKind::Switch)
                    continue;
                cabled = true;
                consistent = consistent && g.node(m).tier >= 0 && std::abs(g.node(m).tier - named) == 1;
            }
            if (cabled && consistent)
                changes.push_back({ n, named });
        }
        for (const auto& [n, tier] : changes)
            g.node(n).tier = std::int8_t(tier);
        if (!changes.empty())
            fabric.diagnostics.add(engine::diagnostic::kIbTierFromName,
                name + ": switches take the tier their description names (" + g.label(changes.front().first)
                    + "): their distance from the hosts says otherwise, but every cable of theirs still joins adjacent "
                      "tiers.",
                std::int64_t(changes.size()));
    }

    void tierConfidence(ImportedFabric& fabric)
    {
        const engine::FabricGraph& g = fabric.graph;
        FabricStructure& s = fabric.structure;
        std::int64_t switchLinks = 0, adjacent = 0;
        int maxTier = 0;
        for (const auto& n : g.nodes())
            if (n.kind == NodeKind::Switch)
                maxTier = std::max<int>(maxTier, n.tier);
        // Only parts with more than one tier have an up/down hierarchy to be consistent with (a
        // management fabric of two switches joined by a trunk has none).
        std::vector<char> layered(g.nodeCount(), 0);
        for (const auto& p : s.parts)
            for (NodeId n : p.switches)
                layered[n] = p.tiers > 1;
        for (const auto& l : g.links()) {
            if ((l.flags & engine::kLinkMissing) || g.node(l.a).kind != NodeKind::Switch
                || g.node(l.b).kind != NodeKind::Switch || !layered[l.a])
                continue;
            ++switchLinks;
            adjacent += std::abs(g.node(l.a).tier - g.node(l.b).tier) == 1;
        }
        s.upDownConsistency = maxTier >= 1 && switchLinks > 0 ? double(adjacent) / double(switchLinks) : -1.0;
        for (NodeId n = 0; n < g.nodeCount(); ++n) {
            if (g.node(n).kind != NodeKind::Switch)
                continue;
            const int named = tierNamedBy(g.label(n));
            if (named < 0)
                continue;
            ++s.switchesNamingTier;
            s.namesAgreeing += named == g.node(n).tier;
        }
        s.tierConfidence = (s.upDownConsistency >= 0 ? s.upDownConsistency : 1.0)
            * (s.switchesNamingTier > 0 ? double(s.namesAgreeing) / s.switchesNamingTier : 1.0);
    }

    void flagDegradedLinks(ImportedFabric& fabric, const std::string& name)
    {
        engine::FabricGraph& g = fabric.graph;
        auto rank = [&](NodeId n) { return g.node(n).kind == NodeKind::Switch ? g.node(n).tier + 1 : -1; };
        auto levelName = [&](LinkId i) {
            const auto& l = g.link(i);
            auto part = [&](NodeId n) {
                return g.node(n).kind == NodeKind::Switch ? engine::tierName(g.node(n).tier) : std::string("host");
            };
            return part(l.a) + "-" + part(l.b);
        };
        // Per level: how many links have each width and each lane rate (Gb/s per lane, x4 to keep integers).
        std::map<std::pair<int, int>, std::map<int, std::int64_t>> widths, rates;
        std::map<std::pair<int, int>, std::int64_t> total;
        auto laneRate4
            = [](const engine::FabricLink& l) { return int(std::lround(4.0 * l.gbps / std::max<int>(l.lanes, 1))); };
        for (const auto& l : g.links()) {
            if (l.flags & engine::kLinkMissing)
                continue;
            const std::pair<int, int> key { std::min(rank(l.a), rank(l.b)), std::max(rank(l.a), rank(l.b)) };
            ++widths[key][l.lanes];
            ++rates[key][laneRate4(l)];
            ++total[key];
        }
        auto usual = [](const std::map<int, std::int64_t>& h) {
            int mode = 0;
            std::int64_t best = -1;
            for (const auto& [k, n] : h)
                if (n > best) {
                    best = n;
                    mode = k;
                }
            return std::pair { mode, best };
        };
        std::map<std::pair<int, int>, bool> mixed;
        for (const auto& [key, n] : total) {
            const auto [w, wn] = usual(widths[key]);
            const auto [r, rn] = usual(rates[key]);
            std::int64_t narrower = 0, slower = 0;
            for (const auto& [k, c] : widths[key])
                narrower += k < w ? c : 0;
            for (const auto& [k, c] : rates[key])
                slower += k < r ? c : 0;
            mixed[key] = 10 * (narrower + slower) > n;
            if (mixed[key])
                fabric.diagnostics.add(engine::diagnostic::kIbMixedLinkRates,
                    name
                        + ": the links of one level differ in width or speed too often to be defects (a mixed fabric); "
                          "not flagged.",
                    narrower + slower);
        }
        for (LinkId i = 0; i < g.linkCount(); ++i) {
            engine::FabricLink& l = g.link(i);
            if (l.flags & (engine::kLinkMissing | engine::kLinkDegraded))
                continue;
            const std::pair<int, int> key { std::min(rank(l.a), rank(l.b)), std::max(rank(l.a), rank(l.b)) };
            if (mixed[key])
                continue;
            const int w = usual(widths[key]).first, r = usual(rates[key]).first;
            const bool narrow = l.lanes < w, slow = laneRate4(l) < r;
            if (!narrow && !slow)
                continue;
            l.flags |= engine::kLinkDegraded;
            auto end = [&](NodeId n, int port) {
                return ibGuidName(g.node(n).kind == NodeKind::Switch ? 'S' : 'H', g.node(n).guid) + "/P"
                    + std::to_string(port);
            };
            FabricFlag f;
            f.kind = FabricFlag::Kind::Degraded;
            f.ports = { end(l.a, l.portA), end(l.b, l.portB) };
            f.switches = { g.label(l.a), g.label(l.b) };
            const std::string lvl = levelName(i);
            auto rateText = [](int rate4) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%g", rate4 / 4.0);
                return std::string(buf);
            };
            if (narrow) {
                f.pattern = lvl + " link narrower than usual";
                f.message = "Link " + f.ports[0] + " - " + f.ports[1] + " (" + g.label(l.a) + " - " + g.label(l.b)
                    + ") is degraded: it runs at " + std::to_string(l.lanes) + "x where the fabric's " + lvl
                    + " links are " + std::to_string(w) + "x.";
            } else {
                f.pattern = lvl + " link slower than usual";
                f.message = "Link " + f.ports[0] + " - " + f.ports[1] + " (" + g.label(l.a) + " - " + g.label(l.b)
                    + ") is degraded: " + rateText(laneRate4(l)) + " Gb/s per lane where the fabric's " + lvl
                    + " links run " + rateText(r) + ".";
            }
            fabric.flags.push_back(std::move(f));
        }
    }

} // namespace

void analyseFabricStructure(ImportedFabric& fabric, const std::string& name)
{
    engine::FabricGraph& g = fabric.graph;
    inferSwitchTiers(g, fabric.diagnostics, name);
    applyNamedTiers(fabric, name);
    // Orientation: the lower tier (CAs lowest) at end a.
    auto rank = [&](NodeId n) { return g.node(n).kind == NodeKind::Switch ? g.node(n).tier + 1 : -1; };
    for (LinkId i = 0; i < g.linkCount(); ++i) {
        engine::FabricLink& l = g.link(i);
        if (rank(l.a) > rank(l.b)) {
            std::swap(l.a, l.b);
            std::swap(l.portA, l.portB);
        }
    }
    findParts(fabric);
    findChassis(fabric);
    tierConfidence(fabric);
    flagDegradedLinks(fabric, name);
    inferGroupsAndCablingDefects(fabric, name);
    for (const auto& e : fabric.structure.embedded)
        if (e.hostSwitch == engine::kNoId)
            fabric.diagnostics.add(engine::diagnostic::kIbEmbeddedCaUnplaced,
                name + ": a switch-embedded CA (" + e.description + ") is cabled to no switch in the dump.");
}

} // namespace clusterscope::importers
