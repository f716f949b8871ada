#pragma once

// JSON text of a SweepCalibration: what the project store keeps and --save-calibration writes.
//   {"format": "clusterscope-calibration", "version": 1,
//    "sweep": {"op", "ranks", "ranks_per_node", "nodes", "gpu", "busbw_factor", "sources": [..],
//              "measured": [{"bytes", "time_us"}]},
//    "regimes": [{"algorithm", "protocol", "min_bytes", "max_bytes", "points", "applied",
//                 "model_latency_us", "model_bandwidth_gbps", "fitted_latency_us",
//                 "fitted_bandwidth_gbps", "latency_scale", "bandwidth_scale"}],
//    "residuals": [{"bytes", "measured_us", "before_us", "after_us", "algorithm", "protocol"}],
//    "rms_before", "rms_after"}
// Bandwidths are the b of t = a + S/b in GB/s (1e9 B/s); 0 = not identifiable.

#include "engine/calibration/sweepcalibration.h"
#include "engine/core/status.h"

#include <string>
#include <string_view>

namespace clusterscope::engine {

std::string calibrationToJson(const SweepCalibration& calibration);

/// Strict reader: unknown keys, wrong types and missing keys are errors naming `origin` and the
/// JSON pointer.
Result<SweepCalibration> calibrationFromJson(std::string_view text, const std::string& origin);

} // namespace clusterscope::engine
