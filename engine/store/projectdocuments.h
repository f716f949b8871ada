#pragma once

// Names of the documents the tools keep in a project (ProjectStore::putDocument / document), so the
// CLI, the GUI and the report agree on where things are.

namespace clusterscope::engine {

/// The collective-model calibration fitted by `clusterscope-cli import-nccl-tests --project`
/// (JSON of engine/calibration/calibrationjson.h).
inline constexpr const char* kCalibrationDocumentKind = "calibration";
inline constexpr const char* kCalibrationDocumentName = "nccl-tests";

} // namespace clusterscope::engine
