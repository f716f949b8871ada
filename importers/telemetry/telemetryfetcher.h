#pragma once

// Reads one window of counters from a Prometheus-compatible server and attaches them to a fabric:
// byte counters as raw samples (an instant query of a range selector returns the stored samples
// with their own timestamps, so increases are exact and gaps stay gaps), error counters only for the
// series that changed in the window (changes() > 0 first, then their raw samples), scrape health
// from `up` and the profiles' health series.

#include "engine/core/status.h"
#include "engine/telemetry/telemetrydata.h"
#include "importers/telemetry/fabricmapping.h"
#include "importers/telemetry/promclient.h"
#include "importers/telemetry/sourceprofile.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace clusterscope::importers {

struct TelemetryFetch {
    engine::TelemetryData data;
    PromBuildInfo build;
    std::size_t seriesMapped = 0;
    std::size_t seriesUnmatched = 0;
    std::vector<std::string> unmatchedExamples; ///< up to 20: "series: why"
    std::map<std::string, std::size_t> seriesPerProfile;
    std::vector<std::string> warnings; ///< from the server
    int requests = 0;
};

/// Fetches [startS, endS] for every profile whose metrics the server has. `progress(done, total)`
/// is called after each request.
engine::Result<TelemetryFetch> fetchTelemetry(const PromClient& client, const FabricMapping& mapping,
    const std::vector<SourceProfile>& profiles, double startS, double endS,
    const std::function<void(int, int)>& progress = {});

/// Attaches one exposition snapshot (a saved /metrics page) to the fabric: every sample becomes a
/// one-point series (absolute counter values: errors since the counters were last cleared).
engine::Result<TelemetryFetch> attachSnapshot(
    const std::string& path, const FabricMapping& mapping, const std::vector<SourceProfile>& profiles);

} // namespace clusterscope::importers
