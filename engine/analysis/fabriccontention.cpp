#include "engine/analysis/fabriccontention.h"

#include "engine/fabric/fabricgraph.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace clusterscope::engine {

namespace {

    // Slowdown over the links of one level, grouping each link by its lower end (the switch whose
    // uplinks share the traffic): max link load / max over switches of their mean link load.
    double levelSlowdown(const FabricGraph& graph, std::span<const double> directedBytes,
        std::span<const double> largestFlowBytes, LinkLevel level)
    {
        std::vector<double> sum(graph.nodeCount(), 0.0);
        std::vector<double> largest(graph.nodeCount(), 0.0);
        std::vector<int> count(graph.nodeCount(), 0);
        double maxLoad = 0.0;
        for (LinkId l = 0; l < graph.linkCount(); ++l) {
            const FabricLink& link = graph.link(l);
            if ((link.flags & kLinkMissing) || graph.level(l) != level || link.gbps <= 0)
                continue;
            // Normalise by capacity so links of different rates compare as utilisation.
            const double up = directedBytes[2 * std::size_t(l)] / link.gbps;
            const double down = directedBytes[2 * std::size_t(l) + 1] / link.gbps;
            const double load = std::max(up, down);
            sum[link.a] += load;
            count[link.a] += 1;
            if (!largestFlowBytes.empty())
                largest[link.a] = std::max({ largest[link.a], largestFlowBytes[2 * std::size_t(l)] / link.gbps,
                    largestFlowBytes[2 * std::size_t(l) + 1] / link.gbps });
            maxLoad = std::max(maxLoad, load);
        }
        double idealMax = 0.0;
        for (NodeId n = 0; n < graph.nodeCount(); ++n)
            if (count[n] > 0)
                idealMax = std::max({ idealMax, sum[n] / count[n], largest[n] });
        return idealMax > 0.0 ? std::max(1.0, maxLoad / idealMax) : 1.0;
    }

} // namespace

TierContention contentionFromLinkLoads(
    const FabricGraph& graph, std::span<const double> directedBytes, std::span<const double> largestFlowBytes)
{
    TierContention c;
    if (directedBytes.size() < 2 * graph.linkCount()
        || (!largestFlowBytes.empty() && largestFlowBytes.size() < 2 * graph.linkCount()))
        return c;
    c.spineSlowdown = levelSlowdown(graph, directedBytes, largestFlowBytes, LinkLevel::LeafSpine);
    c.coreSlowdown
        = std::max(c.spineSlowdown, levelSlowdown(graph, directedBytes, largestFlowBytes, LinkLevel::SpineCore));
    return c;
}

namespace {
    std::optional<BusiestLink> busiestOf(const FabricGraph& graph, std::span<const float> utilisation, bool networkOnly)
    {
        if (utilisation.empty() || utilisation.size() < graph.linkCount())
            return std::nullopt;
        std::optional<BusiestLink> best;
        for (LinkId l = 0; l < graph.linkCount(); ++l) {
            if ((graph.link(l).flags & kLinkMissing) || (networkOnly && graph.level(l) == LinkLevel::Internal))
                continue;
            if (!best || utilisation[l] > best->utilisation)
                best = BusiestLink { l, double(utilisation[l]), graph.level(l) };
        }
        return best;
    }
} // namespace

std::optional<BusiestLink> busiestNetworkLink(const FabricGraph& graph, std::span<const float> utilisation)
{
    return busiestOf(graph, utilisation, true);
}

std::optional<BusiestLink> busiestLink(const FabricGraph& graph, std::span<const float> utilisation)
{
    return busiestOf(graph, utilisation, false);
}

bool hasLinksAt(const FabricGraph& graph, LinkLevel level)
{
    for (LinkId l = 0; l < graph.linkCount(); ++l)
        if (graph.level(l) == level && !(graph.link(l).flags & kLinkMissing))
            return true;
    return false;
}

std::string describeUtilisation(double utilisation)
{
    char text[64];
    if (utilisation > 1.0)
        std::snprintf(text, sizeof text, "%.1fx over capacity", utilisation);
    else if (utilisation > 0 && utilisation < 0.1) // a decimal below 10%, as the report's tables print it
        std::snprintf(text, sizeof text, "%.1f%% busy", utilisation * 100);
    else
        std::snprintf(text, sizeof text, "%.0f%% busy", utilisation * 100);
    return text;
}

std::string describeContention(const FabricGraph& graph, double spineSlowdown, double coreSlowdown)
{
    char text[96];
    if (hasLinksAt(graph, LinkLevel::SpineCore))
        std::snprintf(text, sizeof text, "spine links x%.2f, core links x%.2f", spineSlowdown, coreSlowdown);
    else
        std::snprintf(text, sizeof text, "spine links x%.2f", spineSlowdown);
    return text;
}

} // namespace clusterscope::engine
