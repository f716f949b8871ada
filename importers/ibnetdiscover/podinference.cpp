#include "importers/ibnetdiscover/podinference.h"

#include "importers/ibnetdiscover/ibnetdiscoverparser.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace clusterscope::importers {

using engine::DiagnosticSeverity;
using engine::LinkId;
using engine::NodeId;
using engine::NodeKind;

namespace {

    struct Up {
        NodeId upper;
        LinkId link;
    };

    // One lower switch's departure from its group's norm.
    struct Deviation {
        NodeId lower = engine::kNoId;
        std::vector<std::pair<NodeId, int>> deficits; // upper, cables short
        std::vector<std::pair<NodeId, int>> surpluses; // upper, cables beyond the norm
        std::vector<LinkId> surplusLinks; // every link to a surplus upper
        int norm = 0;
        bool handled = false;
    };

    std::string sw(const engine::FabricGraph& g, NodeId n) { return ibGuidName('S', g.node(n).guid); }
    std::string named(const engine::FabricGraph& g, NodeId n) { return g.label(n) + " (" + sw(g, n) + ")"; }

    std::string linkPorts(const engine::FabricGraph& g, LinkId l)
    {
        const auto& k = g.link(l);
        return sw(g, k.a) + "/P" + std::to_string(k.portA) + " - " + sw(g, k.b) + "/P" + std::to_string(k.portB);
    }

    // Groups the lower switches of one tier by up-neighbourhood (see the header).
    std::vector<std::vector<int>> groupLowers(const std::vector<std::vector<Up>>& ups)
    {
        std::map<std::vector<NodeId>, std::vector<int>> bySignature;
        for (int i = 0; i < int(ups.size()); ++i) {
            std::vector<NodeId> sig;
            for (const Up& u : ups[i])
                if (sig.empty() || sig.back() != u.upper)
                    sig.push_back(u.upper);
            if (!sig.empty())
                bySignature[std::move(sig)].push_back(i);
        }
        std::vector<const std::pair<const std::vector<NodeId>, std::vector<int>>*> order;
        for (const auto& e : bySignature)
            order.push_back(&e);
        std::sort(order.begin(), order.end(), [](const auto* x, const auto* y) {
            if (x->second.size() != y->second.size())
                return x->second.size() > y->second.size();
            return x->second.front() < y->second.front();
        });
        std::vector<std::vector<int>> groups;
        std::vector<std::size_t> seedSize;
        std::unordered_map<NodeId, std::vector<int>> seedsWith; // upper -> groups whose seed has it
        for (const auto* e : order) {
            const std::vector<NodeId>& sig = e->first;
            std::unordered_map<int, int> overlap;
            for (NodeId u : sig)
                if (auto it = seedsWith.find(u); it != seedsWith.end())
                    for (int gi : it->second)
                        ++overlap[gi];
            int best = -1, bestOverlap = 0;
            for (const auto& [gi, n] : overlap)
                if (n > bestOverlap || (n == bestOverlap && gi < best)) {
                    best = gi;
                    bestOverlap = n;
                }
            if (best >= 0 && 2 * std::size_t(bestOverlap) > std::min(sig.size(), seedSize[best])) {
                groups[best].insert(groups[best].end(), e->second.begin(), e->second.end());
                continue;
            }
            for (NodeId u : sig)
                seedsWith[u].push_back(int(groups.size()));
            groups.push_back(e->second);
            seedSize.push_back(sig.size());
        }
        for (auto& gr : groups)
            std::sort(gr.begin(), gr.end());
        std::sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.front() < y.front(); });
        return groups;
    }

    int majorityMode(const std::map<int, std::int64_t>& histogram, std::int64_t total)
    {
        int mode = 0;
        std::int64_t best = -1;
        for (const auto& [k, n] : histogram)
            if (n > best || (n == best && k > mode)) {
                best = n;
                mode = k;
            }
        return 2 * best > total ? mode : -1;
    }

} // namespace

void inferGroupsAndCablingDefects(ImportedFabric& fabric, const std::string& name)
{
    engine::FabricGraph& g = fabric.graph;
    std::map<int, std::vector<NodeId>> byTier;
    for (NodeId n = 0; n < g.nodeCount(); ++n)
        if (g.node(n).kind == NodeKind::Switch && g.node(n).tier >= 0)
            byTier[g.node(n).tier].push_back(n);
    std::vector<engine::FabricLink> added;
    std::vector<FabricFlag> flags;
    std::int64_t missingLinks = 0;
    for (const auto& [tier, lowers] : byTier) {
        if (!byTier.count(tier + 1))
            continue;
        const std::string level = engine::tierName(tier) + "-" + engine::tierName(tier + 1);
        std::vector<std::vector<Up>> ups(lowers.size());
        for (std::size_t i = 0; i < lowers.size(); ++i) {
            for (LinkId l : g.linksOf(lowers[i])) {
                const NodeId m = g.otherEnd(l, lowers[i]);
                if (!(g.link(l).flags & engine::kLinkMissing) && g.node(m).kind == NodeKind::Switch
                    && g.node(m).tier == tier + 1)
                    ups[i].push_back({ m, l });
            }
            std::sort(ups[i].begin(), ups[i].end(),
                [](const Up& x, const Up& y) { return std::tie(x.upper, x.link) < std::tie(y.upper, y.link); });
        }
        const std::vector<std::vector<int>> groups = groupLowers(ups);
        std::vector<int> groupOfLower(lowers.size(), -1);
        for (int gi = 0; gi < int(groups.size()); ++gi)
            for (int i : groups[gi])
                groupOfLower[i] = gi;
        // Upper switches: the group most of their down-links come from.
        std::unordered_map<NodeId, std::map<int, int>> downFrom;
        for (std::size_t i = 0; i < lowers.size(); ++i)
            for (const Up& u : ups[i])
                ++downFrom[u.upper][groupOfLower[i]];
        std::unordered_map<NodeId, int> groupOfUpper;
        std::vector<std::vector<NodeId>> uppers(groups.size());
        for (NodeId u : byTier.at(tier + 1)) {
            auto it = downFrom.find(u);
            if (it == downFrom.end())
                continue;
            int best = -1, bestCount = -1;
            for (const auto& [gi, n] : it->second)
                if (gi >= 0 && n > bestCount) {
                    best = gi;
                    bestCount = n;
                }
            if (best < 0)
                continue;
            groupOfUpper[u] = best;
            uppers[best].push_back(u);
        }
        for (int gi = 0; gi < int(groups.size()); ++gi) {
            if (tier == 0)
                for (int i : groups[gi])
                    g.node(lowers[i]).group = gi;
            for (NodeId u : uppers[gi])
                g.node(u).group = gi;
        }

        std::vector<Deviation> deviations;
        for (int gi = 0; gi < int(groups.size()); ++gi) {
            SwitchGroup sg;
            sg.tier = tier;
            sg.index = gi;
            for (int i : groups[gi])
                sg.lower.push_back(lowers[i]);
            sg.upper = uppers[gi];
            const std::int64_t pairs = std::int64_t(sg.lower.size()) * std::int64_t(sg.upper.size());
            std::map<int, std::int64_t> pairHistogram, uplinkHistogram;
            std::int64_t cabledPairs = 0;
            for (int i : groups[gi]) {
                ++uplinkHistogram[int(ups[i].size())];
                for (std::size_t k = 0; k < ups[i].size();) {
                    std::size_t e = k;
                    while (e < ups[i].size() && ups[i][e].upper == ups[i][k].upper)
                        ++e;
                    if (auto it = groupOfUpper.find(ups[i][k].upper); it != groupOfUpper.end() && it->second == gi) {
                        ++pairHistogram[int(e - k)];
                        ++cabledPairs;
                    }
                    k = e;
                }
            }
            pairHistogram[0] += pairs - cabledPairs;
            const int norm = majorityMode(pairHistogram, pairs);
            sg.linksPerPair = std::max(norm, 0);
            sg.uplinksPerSwitch = std::max(majorityMode(uplinkHistogram, std::int64_t(sg.lower.size())), 0);
            fabric.structure.groups.push_back(sg);
            if (norm <= 0) {
                // Not a regular mesh: only the uplink count can be compared within the group.
                if (sg.uplinksPerSwitch == 0)
                    continue;
                for (int i : groups[gi]) {
                    const int have = int(ups[i].size());
                    if (have >= sg.uplinksPerSwitch)
                        continue;
                    FabricFlag f;
                    f.kind = FabricFlag::Kind::FewUplinks;
                    f.ports = { sw(g, lowers[i]) + "/P0" };
                    f.switches = { g.label(lowers[i]) };
                    f.pattern = engine::tierName(tier) + " with fewer uplinks than its group";
                    f.message = named(g, lowers[i]) + " has " + std::to_string(have) + " uplink(s) where the other "
                        + engine::tierName(tier) + " switches of its group have " + std::to_string(sg.uplinksPerSwitch)
                        + ".";
                    flags.push_back(std::move(f));
                }
                continue;
            }
            for (int i : groups[gi]) {
                Deviation d;
                d.lower = lowers[i];
                d.norm = norm;
                std::unordered_map<NodeId, int> have;
                for (const Up& u : ups[i])
                    ++have[u.upper];
                for (NodeId u : sg.upper) {
                    auto it = have.find(u);
                    const int c = it == have.end() ? 0 : it->second;
                    if (c < norm)
                        d.deficits.push_back({ u, norm - c });
                }
                for (std::size_t k = 0; k < ups[i].size();) {
                    std::size_t e = k;
                    while (e < ups[i].size() && ups[i][e].upper == ups[i][k].upper)
                        ++e;
                    const auto it = groupOfUpper.find(ups[i][k].upper);
                    const int expected = it != groupOfUpper.end() && it->second == gi ? norm : 0;
                    if (int(e - k) > expected) {
                        d.surpluses.push_back({ ups[i][k].upper, int(e - k) - expected });
                        for (std::size_t j = k; j < e; ++j)
                            d.surplusLinks.push_back(ups[i][j].link);
                    }
                    k = e;
                }
                if (!d.deficits.empty() || !d.surpluses.empty())
                    deviations.push_back(std::move(d));
            }
        }

        // Two lower switches whose misplaced cables mirror each other: cables swapped between them.
        std::map<std::pair<NodeId, NodeId>, std::vector<std::size_t>> byShape; // (short at, surplus at)
        for (std::size_t k = 0; k < deviations.size(); ++k)
            if (deviations[k].deficits.size() == 1 && deviations[k].surpluses.size() == 1)
                byShape[{ deviations[k].deficits[0].first, deviations[k].surpluses[0].first }].push_back(k);
        auto surplusText = [&](const Deviation& d) {
            std::string s;
            for (LinkId l : d.surplusLinks)
                s += (s.empty() ? "" : ", ") + linkPorts(g, l);
            return s;
        };
        auto addPorts = [&](FabricFlag& f, const Deviation& d) {
            for (LinkId l : d.surplusLinks) {
                const auto& k = g.link(l);
                f.ports.push_back(sw(g, k.a) + "/P" + std::to_string(k.portA));
                f.ports.push_back(sw(g, k.b) + "/P" + std::to_string(k.portB));
            }
        };
        for (std::size_t k = 0; k < deviations.size(); ++k) {
            Deviation& d = deviations[k];
            if (d.handled)
                continue;
            d.handled = true;
            if (!d.deficits.empty() && !d.surpluses.empty()) {
                FabricFlag f;
                f.kind = FabricFlag::Kind::Miswired;
                f.severity = DiagnosticSeverity::Error;
                f.switches = { g.label(d.lower) };
                addPorts(f, d);
                Deviation* mirror = nullptr;
                if (d.deficits.size() == 1 && d.surpluses.size() == 1) {
                    auto it = byShape.find({ d.surpluses[0].first, d.deficits[0].first });
                    if (it != byShape.end())
                        for (std::size_t m : it->second)
                            if (!deviations[m].handled) {
                                mirror = &deviations[m];
                                break;
                            }
                }
                if (mirror) {
                    mirror->handled = true;
                    addPorts(f, *mirror);
                    f.switches.push_back(g.label(mirror->lower));
                    f.pattern = level + " cables swapped";
                    f.message = named(g, d.lower) + " and " + named(g, mirror->lower) + " have swapped " + level
                        + " cables: the first reaches " + g.label(d.surpluses[0].first) + " instead of "
                        + g.label(d.deficits[0].first) + ", the second the reverse (cables " + surplusText(d) + "; "
                        + surplusText(*mirror) + ").";
                } else {
                    f.pattern = level + " cable on the wrong switch";
                    std::string to, short_;
                    for (const auto& [u, n] : d.surpluses)
                        to += (to.empty() ? "" : ", ") + std::to_string(n) + " extra to " + g.label(u);
                    for (const auto& [u, n] : d.deficits)
                        short_ += (short_.empty() ? "" : ", ") + std::to_string(n) + " short to " + g.label(u);
                    f.message = named(g, d.lower) + " is miswired against its group's " + std::to_string(d.norm)
                        + " cable(s) per " + engine::tierName(tier + 1) + ": " + to + "; " + short_ + " (cables "
                        + surplusText(d) + ").";
                }
                flags.push_back(std::move(f));
                continue;
            }
            if (!d.surpluses.empty()) {
                FabricFlag f;
                f.kind = FabricFlag::Kind::Extra;
                f.severity = DiagnosticSeverity::Info;
                f.switches = { g.label(d.lower) };
                addPorts(f, d);
                f.pattern = level + " cables beyond the group's pattern";
                f.message = named(g, d.lower) + " has more " + level + " cables than its group's "
                    + std::to_string(d.norm) + " per pair: " + surplusText(d) + ".";
                flags.push_back(std::move(f));
                continue;
            }
            for (const auto& [u, n] : d.deficits) {
                const int have = d.norm - n;
                for (int m = 0; m < n; ++m) {
                    engine::FabricLink l;
                    l.a = d.lower;
                    l.b = u;
                    l.flags = engine::kLinkMissing;
                    added.push_back(l);
                }
                missingLinks += n;
                FabricFlag f;
                f.kind = FabricFlag::Kind::Missing;
                f.ports = { sw(g, d.lower) + "/P0", sw(g, u) + "/P0" };
                f.switches = { g.label(d.lower), g.label(u) };
                f.pattern = level + " cable missing";
                f.message = named(g, d.lower) + " has " + std::to_string(have) + " link(s) to " + named(g, u)
                    + " where its peers have " + std::to_string(d.norm) + ": " + std::to_string(n) + " missing.";
                flags.push_back(std::move(f));
            }
        }
    }
    for (const auto& l : added)
        g.addLink(l);
    if (missingLinks > 0)
        fabric.diagnostics.add(engine::diagnostic::kIbMissingLinks,
            name + ": inter-switch links are missing compared with the cabling pattern of their pod.", missingLinks);
    fabric.flags.insert(
        fabric.flags.end(), std::make_move_iterator(flags.begin()), std::make_move_iterator(flags.end()));
}

} // namespace clusterscope::importers
