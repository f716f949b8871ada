#pragma once

#include "engine/core/status.h"
#include "engine/run/runmodel.h"

#include <string>
#include <vector>

namespace clusterscope::importers {

/// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`, schema in the
/// Nsight Systems user guide, "SQLite Schema Reference") into one RankTrace per GPU device that ran kernels: kernels,
/// memcpy/memset, NCCL collectives (kernels linked through CUPTI correlation ids to the enclosing
/// NVTX range of the "NCCL" domain, whose JSON payload gives message size, rank and rank count),
/// ProfilerStep#N NVTX ranges and TARGET_INFO_GPU. Times are ns, made absolute with
/// TARGET_INFO_SESSION_START_TIME when present. Errors name the file and the table.
engine::Result<std::vector<engine::RankTrace>> importNsysDatabase(
    const std::string& path, engine::Diagnostics& diagnostics);

} // namespace clusterscope::importers
