#pragma once

// Reads one window of counters from a Prometheus-compatible server and attaches them to a fabric:
// byte counters as raw samples (an instant query of a range selector returns the stored samples
// with their own timestamps, so increases are exact and gaps stay gaps), error counters only for the
// series that changed in the window (changes() > 0 first, then their raw samples), scrape health
// from `up` and the profiles' health series.
//
// Fetching less: only the byte series the analyses read are fetched (the sender's tx counter of each
// link direction; a receiver's rx counter only where the sender has none), the requests of each
// stage run at once on one io_context (PromClient::getMany), and a follow-mode refresh with a
// TelemetryCache fetches only the samples appended since the last window and drops those that left
// it. The samples the analyses see are the same as a full fetch's, so the results are identical.

#include "engine/core/status.h"
#include "engine/telemetry/telemetrydata.h"
#include "importers/telemetry/fabricmapping.h"
#include "importers/telemetry/promclient.h"
#include "importers/telemetry/sourceprofile.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
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

struct FetchOptions {
    int maxParallel = 4; ///< requests in flight at once (1: one after the other)
    /// Fetch rx byte counters only for the link directions whose sender has no tx series (the
    /// analyses read the sender's tx counter first); false fetches every rx series too.
    bool senderSideOnly = true;
};

/// A selector that fetched non-error samples of one profile series (reused by follow-mode refreshes).
struct CachedSelector {
    std::size_t profile = 0;
    std::size_t series = 0;
    std::string selector; ///< without the range, e.g. "PortXmitDataExtended" or "x{device=~\"a|b\"}"
};

/// The previous window of a follow-mode refresh: its samples (bounded: the samples of one window,
/// trimmed at every refresh) and the selectors that fetched them. Bound to one server, mapping and
/// profile list: clear() it when any of them changes.
struct TelemetryCache {
    std::string url;
    std::optional<TelemetryFetch> last;
    std::vector<CachedSelector> selectors;
    std::set<std::string> present; ///< metric names the server had
    int incremental = 0; ///< refreshes served incrementally since the last full fetch
    void clear() { *this = TelemetryCache {}; }
};

/// Fetches [startS, endS] for every profile whose metrics the server has. `progress(done, total)`
/// is called after each request. With a cache holding an overlapping earlier window of the same
/// server and length, only the new byte samples are fetched (errors and health are re-read whole:
/// their queries are small); the cache is updated either way.
engine::Result<TelemetryFetch> fetchTelemetry(const PromClient& client, const FabricMapping& mapping,
    const std::vector<SourceProfile>& profiles, double startS, double endS,
    const std::function<void(int, int)>& progress = {}, const FetchOptions& options = {},
    TelemetryCache* cache = nullptr);

/// Attaches one exposition snapshot (a saved /metrics page) to the fabric: every sample becomes a
/// one-point series (absolute counter values: errors since the counters were last cleared).
engine::Result<TelemetryFetch> attachSnapshot(
    const std::string& path, const FabricMapping& mapping, const std::vector<SourceProfile>& profiles);

} // namespace clusterscope::importers
