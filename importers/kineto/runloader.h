#pragma once

#include "engine/core/status.h"
#include "engine/run/runmodel.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace clusterscope::importers {

struct RunLoadOptions {
    /// Worker threads; 0 = std::thread::hardware_concurrency(). Never more than the number of files.
    unsigned threads = 0;
    /// Called from worker threads after each file: (files done, files total).
    std::function<void(std::size_t, std::size_t)> progress;
    /// When set and true, remaining files are skipped and the load fails with "cancelled".
    const std::atomic<bool>* stop = nullptr;
};

/// Loads a run from per-rank trace files and/or directories of them (*.json, *.json.gz,
/// *.sqlite: Kineto JSON or Nsight Systems SQLite, told apart by content). Files are parsed in
/// parallel. A file that fails becomes an error diagnostic naming it and the place; the load fails
/// only when no file could be read. Ranks come from distributedInfo / NCCL NVTX ranges; missing or
/// duplicate ranks are numbered in file order (with a diagnostic). Ranks are sorted.
engine::Result<engine::Run> loadRun(const std::vector<std::string>& paths, const RunLoadOptions& options = {});

/// The files loadRun would read for `paths` (directories expanded, sorted by name).
engine::Result<std::vector<std::string>> expandTracePaths(const std::vector<std::string>& paths);

} // namespace clusterscope::importers
