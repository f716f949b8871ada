#pragma once

// Alert rules: thresholds and durations evaluated on a TelemetryReport (live or over a window), and
// the same thresholds exported into a Prometheus rules file (importers/telemetry/promrules.h).

#include "engine/fabric/fabricgraph.h"

#include <string>
#include <vector>

namespace clusterscope::engine {

enum class AlertKind : std::uint8_t {
    PeakUtilisation, ///< utilisation >= threshold for at least `forS` seconds in a row
    Burst, ///< a single interval (1-s peak) >= threshold
    AverageUtilisation, ///< window average above threshold
    LinkErrors, ///< symbol / receive / recovery errors increased by more than threshold
    Discards, ///< transmit or receive discards increased by more than threshold
    LinkDown, ///< link downed counter increased
    Imbalance, ///< a switch's hottest uplink carries more than threshold x the uplinks' mean
    PeerOutlier, ///< robust z-score of a link's average above threshold within its tier
    CounterReset, ///< a byte counter restarted
    TelemetryGap, ///< target down, collector failed or series stale
    PfcStorm, ///< a link direction's sender paused by PFC >= threshold of each interval for `forS` seconds
};

const char* toString(AlertKind kind);

enum class AlertSeverity : std::uint8_t { Info, Warning, Critical };
const char* toString(AlertSeverity severity);

struct AlertRule {
    std::string name; ///< "LinkPeakUtilisation" (also the Prometheus alert name, prefixed ClusterScope)
    AlertKind kind = AlertKind::PeakUtilisation;
    double threshold = 0.0;
    double forS = 0.0; ///< duration the condition must hold
    AlertSeverity severity = AlertSeverity::Warning;
};

struct AlertRules {
    std::vector<AlertRule> rules;
    /// The defaults: 1-s peaks >= 95 % for 2 s (warning) or once (info), average > 80 %, any error,
    /// discard or link-down, uplink imbalance > 1.5x, peer outliers at z > 6, resets, gaps.
    static AlertRules defaults();
    const AlertRule* find(AlertKind kind) const;
};

struct Alert {
    std::string rule;
    AlertKind kind = AlertKind::PeakUtilisation;
    AlertSeverity severity = AlertSeverity::Warning;
    LinkId link = kNoId; ///< the link it is attributed to, or kNoId
    NodeId node = kNoId; ///< the switch (imbalance), or kNoId
    int direction = -1; ///< 0 a->b, 1 b->a, -1 both / not applicable
    double value = 0.0; ///< the measured value compared with the threshold
    std::string message; ///< one sentence naming the link
};

} // namespace clusterscope::engine
