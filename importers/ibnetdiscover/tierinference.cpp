#include "importers/ibnetdiscover/tierinference.h"

#include <algorithm>
#include <cctype>
#include <deque>

namespace clusterscope::importers {

using engine::NodeKind;

void inferSwitchTiers(engine::FabricGraph& graph, engine::Diagnostics& diagnostics, const std::string& name)
{
    const std::size_t count = graph.nodeCount();
    std::vector<int> toCa(count, 0), toSwitch(count, 0), switchNeighbours(count, 0);
    for (engine::NodeId n = 0; n < count; ++n) {
        if (graph.node(n).kind != NodeKind::Switch)
            continue;
        engine::NodeId last = engine::kNoId;
        for (engine::LinkId l : graph.linksOf(n)) {
            if (graph.link(l).flags & engine::kLinkMissing)
                continue;
            const engine::NodeId m = graph.otherEnd(l, n);
            if (graph.node(m).kind == NodeKind::Switch) {
                ++toSwitch[n];
                if (m != last) // links of one node are listed in link order; count distinct peers roughly
                    ++switchNeighbours[n];
                last = m;
            } else {
                ++toCa[n];
            }
        }
    }
    // Leaves (see the header); when no switch qualifies, every switch with a CA is a leaf.
    std::vector<char> leaf(count, 0);
    bool any = false;
    for (engine::NodeId n = 0; n < count; ++n)
        if (toCa[n] > 0 && (toCa[n] >= toSwitch[n] || switchNeighbours[n] <= 1 || toCa[n] >= 4)) {
            leaf[n] = 1;
            any = true;
        }
    if (!any)
        for (engine::NodeId n = 0; n < count; ++n)
            leaf[n] = graph.node(n).kind == NodeKind::Switch && toCa[n] > 0;
    std::vector<engine::NodeId> demoted;
    for (engine::NodeId n = 0; n < count; ++n) {
        if (!leaf[n] || toSwitch[n] <= toCa[n] || switchNeighbours[n] <= 1)
            continue;
        int toLeaves = 0;
        for (engine::LinkId l : graph.linksOf(n)) {
            const engine::NodeId m = graph.otherEnd(l, n);
            toLeaves
                += !(graph.link(l).flags & engine::kLinkMissing) && graph.node(m).kind == NodeKind::Switch && leaf[m];
        }
        if (2 * toLeaves > toSwitch[n])
            demoted.push_back(n);
    }
    for (engine::NodeId n : demoted)
        leaf[n] = 0;

    // Breadth-first over switch-to-switch links: tier = hops from the nearest leaf.
    std::vector<int> distance(count, -1);
    std::deque<engine::NodeId> queue;
    for (engine::NodeId n = 0; n < count; ++n)
        if (leaf[n]) {
            distance[n] = 0;
            queue.push_back(n);
        }
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
    for (engine::NodeId n = 0; n < count; ++n) {
        if (graph.node(n).kind != NodeKind::Switch)
            continue;
        graph.node(n).tier = distance[n] >= 0 ? std::int8_t(std::min(distance[n], 100)) : engine::kTierUnknown;
        unreached += distance[n] < 0;
    }
    if (unreached > 0)
        diagnostics.add(engine::diagnostic::kIbTierUnknown,
            name + ": switches with no path to a channel adapter have no inferable tier.", unreached);
}

int tierNamedBy(const std::string& description)
{
    int named = -1;
    std::size_t i = 0;
    while (i < description.size()) {
        while (i < description.size() && !std::isalpha(static_cast<unsigned char>(description[i])))
            ++i;
        std::string word;
        while (i < description.size() && std::isalpha(static_cast<unsigned char>(description[i])))
            word += char(std::tolower(static_cast<unsigned char>(description[i++])));
        int t = -1;
        if (word == "leaf" || word == "tor" || word == "edge")
            t = 0;
        else if (word == "spine" || word == "agg" || word == "aggregation")
            t = 1;
        else if (word == "core" || word == "superspine")
            t = 2;
        if (t >= 0 && word == "spine" && named == -2) // "super-spine"
            t = 2;
        if (word == "super")
            named = -2;
        else if (t >= 0)
            return t;
    }
    return named == -2 ? -1 : named;
}

} // namespace clusterscope::importers
