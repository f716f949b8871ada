#include "engine/telemetry/measuredvsmodelled.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::engine {

std::vector<TierComparison> compareMeasuredWithModelled(
    const FabricGraph& g, const TelemetryReport& r, std::span<const float> modelled)
{
    std::vector<TierComparison> out;
    for (const LinkLevel level : { LinkLevel::NodeLeaf, LinkLevel::LeafSpine, LinkLevel::SpineCore }) {
        TierComparison t;
        t.level = level;
        for (LinkId id = 0; id < g.linkCount() && id < r.utilisation.size() && id < modelled.size(); ++id) {
            if (g.level(id) != level || !std::isfinite(modelled[id]))
                continue;
            const auto& u = r.utilisation[id];
            if (!u[0].hasData && !u[1].hasData)
                continue; // a gap is not a zero
            const double measured = std::max(u[0].hasData ? u[0].average : 0.0, u[1].hasData ? u[1].average : 0.0);
            ++t.links;
            t.measured += measured;
            t.modelled += double(modelled[id]);
            t.meanAbsoluteDifference += std::abs(measured - double(modelled[id]));
        }
        if (t.links == 0)
            continue;
        t.measured /= t.links;
        t.modelled /= t.links;
        t.meanAbsoluteDifference /= t.links;
        out.push_back(t);
    }
    return out;
}

} // namespace clusterscope::engine
