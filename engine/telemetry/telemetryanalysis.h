#pragma once

// Analyses of measured link counters over one window:
// - utilisation per link direction (time-weighted average, p99 and peak of the per-scrape-interval
//   rates; with a 1 s scrape the peak is a "1-s peak": counters polled at >= 100 ms cannot see
//   microbursts, that needs switch buffer telemetry) against the guideline of 60-80 % average and
//   peaks under 95 % (Meta, "RoCE networks for distributed AI training at scale", SIGCOMM 2024,
//   and NVIDIA's SuperPOD operations guidance);
// - errors, discards, link-downs and PFC pauses per link, both ends compared (errors counted at one
//   end only point at the cable or optic of that direction);
// - ECMP imbalance among a switch's uplinks; peer-group outliers (robust z-score of the average);
// - counter resets and saturation; telemetry health (targets down, gaps, stale series);
// - the training iteration period from the NICs' summed traffic (iterationperiod.h);
// - alerts from rules with thresholds and durations (alertrules.h).

#include "engine/fabric/fabricgraph.h"
#include "engine/telemetry/alertrules.h"
#include "engine/telemetry/iterationperiod.h"
#include "engine/telemetry/pfcanalysis.h"
#include "engine/telemetry/telemetrydata.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace clusterscope::engine {

/// Utilisation of one direction of a link (direction 0: a -> b, 1: b -> a), as fractions of the
/// link's rate (FabricLink::gbps, per direction).
struct DirectionUtilisation {
    bool hasData = false;
    double average = 0.0; ///< bytes moved / (capacity x covered seconds)
    double p99 = 0.0; ///< 99th percentile of the per-interval utilisation
    double peak = 0.0; ///< largest per-interval utilisation (a "1-s peak" at a 1 s scrape)
    double longestAboveS = 0.0; ///< longest run of consecutive intervals at or above the peak threshold
    double coverage = 0.0; ///< covered seconds / window seconds
    int resets = 0; ///< counter resets seen in the byte counter used
    std::string source; ///< series used ("tx at a" or "rx at b")
};

struct LinkErrors {
    LinkId link = kNoId;
    TelemetryMetric metric = TelemetryMetric::SymbolErrors;
    std::array<double, 2> increase { 0.0, 0.0 }; ///< exact count per end over the window
    std::array<bool, 2> measured { false, false };
    bool saturated = false;
};

struct SwitchImbalance {
    NodeId node = kNoId;
    int uplinks = 0;
    double meanAverage = 0.0; ///< mean of the uplinks' average utilisation (up direction)
    double maxAverage = 0.0;
    double maxOverMean = 0.0; ///< 1 = perfectly balanced
    LinkId hottest = kNoId;
};

struct PeerOutlier {
    LinkId link = kNoId;
    int direction = 0;
    LinkLevel level = LinkLevel::Other;
    double average = 0.0;
    double groupMedian = 0.0;
    double robustZ = 0.0; ///< (x - median) / (1.4826 MAD)
};

struct TierUtilisation {
    LinkLevel level = LinkLevel::Other;
    int direction = 0; ///< 0 up (towards the higher tier), 1 down
    int links = 0; ///< link directions with data
    double average = 0.0; ///< mean of the links' averages
    double p99OfAverages = 0.0;
    double peak = 0.0; ///< largest 1-s peak of the tier
    int above80 = 0; ///< links whose average exceeds 80 %
    int peaksAbove95 = 0; ///< links whose peak reaches 95 %
};

struct TelemetryReport {
    double windowS = 0.0;
    double sampleIntervalS = 0.0;
    std::vector<std::array<DirectionUtilisation, 2>> utilisation; ///< by LinkId
    std::vector<TierUtilisation> tiers;
    std::vector<LinkErrors> errors; ///< only links whose counters increased
    std::vector<LinkPfc> pfc; ///< link directions paused by PFC in the window (pfcanalysis.h)
    std::vector<SwitchImbalance> imbalance; ///< switches above the imbalance threshold
    std::vector<PeerOutlier> outliers;
    std::vector<LinkId> resets; ///< links with a byte-counter reset
    std::size_t linksMeasured = 0; ///< network links with data in at least one direction
    std::size_t linksWithoutData = 0; ///< network links with none (listed in `gaps`, up to 1000)
    std::vector<LinkId> gaps;
    std::vector<std::string> staleSeries; ///< series whose last sample is older than 3 intervals
    std::vector<TelemetryHealthIssue> health;
    IterationPeriod period;
    std::vector<Alert> alerts;
};

/// Runs every analysis. Network links are those at level NodeLeaf, LeafSpine or SpineCore, plus
/// NVLink links when the data has any. `rules` thresholds drive the alerts and the flags.
TelemetryReport analyseTelemetry(const FabricGraph& graph, const TelemetryData& data, const AlertRules& rules);

/// "node017/mlx5_4 <-> leaf-5 port 3" style name of a link for reports.
std::string linkName(const FabricGraph& graph, LinkId link);

} // namespace clusterscope::engine
