#pragma once

// Measured against modelled utilisation per tier: the model (engine/analysis, FabricLoad) gives each
// link's utilisation averaged over one training iteration in its busier direction; the measurement
// gives each direction's average over the window. Compared on the same definition: per link the
// busier measured direction, per tier the mean over the links that have both numbers. Over a window
// of many iterations the two agree when the model's traffic and placement match the job's.

#include "engine/fabric/fabricgraph.h"
#include "engine/telemetry/telemetryanalysis.h"

#include <span>
#include <vector>

namespace clusterscope::engine {

struct TierComparison {
    LinkLevel level = LinkLevel::Other;
    int links = 0; ///< links with a measured and a modelled value
    double measured = 0.0; ///< mean of the links' busier-direction measured average (0..1)
    double modelled = 0.0; ///< mean of the links' modelled utilisation (0..1)
    double meanAbsoluteDifference = 0.0; ///< mean |measured - modelled| over the links
};

/// One entry per network tier (NodeLeaf, LeafSpine, SpineCore) with at least one link compared.
/// `modelled` is indexed by LinkId (FabricLoad::linkUtilisation); empty gives nothing.
std::vector<TierComparison> compareMeasuredWithModelled(
    const FabricGraph& graph, const TelemetryReport& report, std::span<const float> modelled);

} // namespace clusterscope::engine
