#pragma once

// JSON text of a CalibrationSet: what the project store keeps and --save-calibration writes.
//   {"format": "clusterscope-calibration", "version": 1,
//    "calibration": [{"algorithm", "tier", "latency_scale", "latency_offset_us", "bandwidth_scale"}],
//    "sweeps": [{
//    "sweep": {"op", "ranks", "nodes", "gpu", "algorithm", "sources": [..],
//              "measured": [{"bytes", "time_us"}]},
//    "corrections": [{"algorithm", "tier", "latency_scale", "latency_offset_us", "bandwidth_scale",
//                     "parameters", "points", "min_bytes", "max_bytes",
//                     "measured_latency_us", "measured_bandwidth_gbps"}],
//    "residuals": [{"bytes", "measured_us", "before_us", "after_us", "algorithm_before",
//                   "protocol_before", "algorithm_after", "protocol_after"}],
//    "rms_before", "rms_after"}]}
// "calibration" lists the non-identity entries of the combined CollectiveCalibration (the one to
// give CollectiveModel::setCalibration); each sweep's "corrections" are the CollectiveCalibration entries the sweep set
// (every other entry is the identity); "measured_*" is the t = a + S/b law of the group's measurements (b in GB/s, 1e9
// B/s; 0 = not identifiable). Times in microseconds.

#include "engine/calibration/sweepcalibration.h"
#include "engine/core/status.h"

#include <string>
#include <string_view>

namespace clusterscope::engine {

std::string calibrationToJson(const CalibrationSet& calibration);

/// Strict reader: unknown keys, wrong types and missing keys are errors naming `origin` and the
/// JSON pointer. Each sweep's `calibration` is rebuilt from its "corrections".
Result<CalibrationSet> calibrationFromJson(std::string_view text, const std::string& origin);

} // namespace clusterscope::engine
