#pragma once

// Utilisation over time of one link direction and of each tier (mean and largest of its links per
// sample interval), for the charts of the live view and for a recorded, downsampled window. Rates
// come from exact per-interval counter increases (counterintervals.h); missed scrapes stay gaps (NaN).

#include "engine/fabric/fabricgraph.h"
#include "engine/telemetry/telemetrydata.h"

#include <vector>

namespace clusterscope::engine {

/// Values are fractions of the link's rate per direction (FabricLink::gbps), at the END time of each
/// sample interval; NaN where the interval has no data.
struct UtilisationSeries {
    double startS = 0.0; ///< time of bin 0 (seconds since the epoch)
    double stepS = 1.0; ///< bin width (the sample interval)
    std::vector<double> values;
};

/// The byte series that measures direction `dir` of `link` (0: a -> b, 1: b -> a): the sender's tx
/// counter, else the receiver's rx counter (the choice analyseTelemetry makes); null when neither.
const RawSeries* directionSeries(const FabricGraph& graph, const TelemetryData& data, LinkId link, int dir);

/// Per-interval utilisation of one link direction on the window's grid (data.startS, sample interval).
UtilisationSeries linkUtilisationSeries(const FabricGraph& graph, const TelemetryData& data, LinkId link, int dir);

struct TierSeries {
    LinkLevel level = LinkLevel::Other;
    int direction = 0; ///< 0 up (a -> b, towards the higher tier), 1 down
    UtilisationSeries average; ///< mean over the tier's link directions with data in that bin
    UtilisationSeries peak; ///< largest of them in that bin
};

/// Mean and largest utilisation per bin of every network tier (NodeLeaf, LeafSpine, SpineCore) and
/// direction that has data.
std::vector<TierSeries> tierUtilisationSeries(const FabricGraph& graph, const TelemetryData& data);

/// Averages a series into bins `factor` times wider (NaN bins are skipped; all-NaN stays NaN);
/// `keepPeak` keeps the largest value instead of the mean (so recorded peaks survive downsampling).
UtilisationSeries downsample(const UtilisationSeries& s, int factor, bool keepPeak);

} // namespace clusterscope::engine
