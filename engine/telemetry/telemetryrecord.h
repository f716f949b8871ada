#pragma once

// A measured telemetry window recorded into a project (ProjectStore document of kind
// "telemetry_window") for post-mortems and reports: the window, the per-tier summaries and their
// utilisation over time downsampled to at most `maxPoints` bins (mean of the means, largest of the
// peaks, so a 1-s peak survives), every measured link direction's average / p99 / peak, the error
// increases per end and the alerts. Utilisations are fractions of the link rate per direction.

#include "engine/fabric/fabricgraph.h"
#include "engine/telemetry/telemetryanalysis.h"
#include "engine/telemetry/utilisationseries.h"

#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::engine {

inline constexpr std::string_view kTelemetryWindowKind = "telemetry_window";

/// The document's JSON (see the header comment); `maxPoints` >= 1.
std::string telemetryWindowJson(const FabricGraph& graph, const TelemetryData& data, const TelemetryReport& report,
    const std::vector<TierSeries>& tiers, int maxPoints);

/// The document's name: the window in UTC, "2026-12-01T23:10:00Z+90s".
std::string telemetryWindowName(double startS, double endS);

} // namespace clusterscope::engine
