#pragma once

// Source profiles: which exporter series measure what at which link end, in which unit. Data, not
// code (resources/telemetry/*.json, compiled in; users can load edited copies).

#include "engine/core/status.h"
#include "engine/telemetry/telemetrydata.h"

#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::importers {

enum class ProfileEnd : std::uint8_t {
    Nic, ///< a host port: host name + device (+ port) labels
    Switch, ///< a switch port: GUID or name + port labels
    Gpu, ///< a GPU: host name + GPU index; maps to the GPU's NVLink link
};

struct ProfileSeries {
    std::string metric; ///< exact series name on the server
    engine::TelemetryMetric measures = engine::TelemetryMetric::TxBytes;
    bool gauge = false; ///< a rate (B/s) already, not a counter
    double scale = 1.0; ///< multiplier to bytes (or events); 4 for 4-octet-word counters
    std::string unit; ///< as the source states it
};

struct ProfileHealth {
    std::string metric; ///< e.g. node_scrape_collector_success
    double unhealthyBelow = 1.0;
    std::string nameLabel; ///< label naming the failing part (collector)
};

struct SourceProfile {
    std::string name;
    std::string description;
    std::string source; ///< public documentation the mapping follows
    ProfileEnd end = ProfileEnd::Nic;
    std::vector<std::string> hostLabels; ///< first present wins; "instance" has its :port stripped
    std::string deviceLabel;
    std::string portLabel; ///< empty: port 1
    std::string guidLabel;
    std::vector<std::string> nameLabels;
    std::string gpuLabel;
    bool portTrailingNumber = false; ///< port = trailing digits of the label value ("swp12" -> 12)
    std::string capacityMetric;
    double capacityScale = 1.0; ///< to B/s
    std::vector<ProfileSeries> series;
    std::vector<ProfileHealth> health;
};

/// Parses one profile; errors name `name` and the JSON pointer.
engine::Result<SourceProfile> parseSourceProfile(std::string_view json, const std::string& name);
/// Reads a profile file.
engine::Result<SourceProfile> loadSourceProfileFile(const std::string& path);
/// Every profile in resources/telemetry/, sorted by name.
engine::Result<std::vector<SourceProfile>> builtinSourceProfiles();

} // namespace clusterscope::importers
