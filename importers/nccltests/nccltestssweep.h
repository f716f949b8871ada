#pragma once

// From a parsed nccl-tests run to the engine's neutral MeasuredSweep, and from a CUDA device name
// to a catalog GPU id.

#include "engine/calibration/sweepcalibration.h"
#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/core/status.h"
#include "importers/nccltests/nccltestslog.h"

#include <optional>
#include <string>
#include <string_view>

namespace clusterscope::importers {

/// The sweep of one run: one point per row with a positive size and time, using the out-of-place
/// time (the figure nccl-tests users quote; in-place when a row has only that), sorted by size.
/// Ranks and nodes come from the device lines (nodes = 1 without them). The algorithm is the
/// run's NCCL_ALGO when the log records it (-J env), else Auto. Fails (naming the file and run)
/// for collectives the model has no counterpart for, runs without ranks, and runs without usable rows.
engine::Result<engine::MeasuredSweep> measuredSweepFromRun(const NcclTestsLog& log, const NcclTestsRun& run);

/// `model` as the run used NCCL: the tuner constants of the NCCL version the log states (nccl-library=
/// or the "NCCL version" banner; CollectiveHardware::ncclVersionCode), the newest modelled otherwise.
/// The CLI, the GUI (through the CLI command) and the tests compare a run with this model.
engine::CollectiveModel modelAsRunUsed(engine::CollectiveModel model, const NcclTestsRun& run);

/// Catalog id for a CUDA device name as nccl-tests prints it ("NVIDIA H100 80GB HBM3" ->
/// "H100-SXM-80GB", "NVIDIA A100-SXM4-40GB" -> "A100-SXM-80GB" (same NVLink/NVSwitch, less
/// memory), "Tesla V100-SXM2-16GB" -> "V100-SXM2-32GB"). None for PCIe/NVL boards and unknown
/// names: their links differ from the SXM parts the catalog holds.
std::optional<std::string> catalogGpuIdForDeviceName(const engine::Catalog& catalog, std::string_view deviceName);

} // namespace clusterscope::importers
