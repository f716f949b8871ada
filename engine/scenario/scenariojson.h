#pragma once

#include "engine/core/status.h"
#include "engine/scenario/scenario.h"

#include <string>
#include <string_view>

namespace clusterscope::engine {

/// Parses a scenario from JSON text (format "clusterscope-scenario", version 1). Every key is
/// checked: unknown keys, wrong types and out-of-range values fail with a message of the form
/// `<fileName>: <JSON pointer>: <what is wrong>`. Cross-field and catalog checks are done by
/// validateScenario().
Result<Scenario> parseScenarioJson(std::string_view text, std::string_view fileName);

/// Reads and parses a scenario file; I/O errors name the file.
Result<Scenario> loadScenarioFile(const std::string& path);

/// Serialises a scenario to JSON text (stable key order, 2-space indent). parseScenarioJson() of
/// the result gives back an equal Scenario.
std::string scenarioToJson(const Scenario& scenario);

/// A compute calibration as its own document ({"format": "clusterscope-compute-calibration",
/// "version": 1, "compute": {the calibration.compute keys}}), e.g. stored in a project by
/// calibrate-compute; and back (errors: "<origin>: <JSON pointer>: <what>").
std::string computeCalibrationToJson(const ComputeCalibrationSpec& calibration);
Result<ComputeCalibrationSpec> parseComputeCalibrationJson(std::string_view text, std::string_view origin);

/// Writes scenarioToJson() to `path` atomically (temporary file + rename).
Status saveScenarioFile(const Scenario& scenario, const std::string& path);

} // namespace clusterscope::engine
