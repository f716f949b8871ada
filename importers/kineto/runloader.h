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

class KinetoParser;

/// One trace file read: its ranks (a Kineto file holds one, an Nsight Systems export one per rank
/// it recorded), its per-record diagnostics, or the error that stopped it ("" when none).
struct TraceFileResult {
    std::vector<engine::RankTrace> ranks;
    engine::Diagnostics diagnostics;
    std::string error;
};

/// Reads one Kineto JSON (.json, .json.gz) or Nsight Systems SQLite file (told apart by content).
TraceFileResult readTraceFile(const std::string& path, KinetoParser& parser);

/// How loadRun numbers the ranks of a run from what each trace states, (rank, world size) per trace
/// in file order: stated ranks are kept when unique (first one wins), the others get the lowest free
/// numbers in file order; an unstated world size (0) becomes the largest stated one (at least the
/// number of traces).
struct RankNumbering {
    std::vector<std::int32_t> ranks;
    std::vector<std::int32_t> worldSizes;
    bool renumbered = false; ///< some trace stated no rank or a duplicate one
};
RankNumbering numberRanks(const std::vector<std::pair<std::int32_t, std::int32_t>>& stated);

/// The diagnostics about the run as a whole (ranks renumbered; ranks of the world size without a
/// readable trace), added after the ranks are numbered and sorted.
void addRunLevelDiagnostics(engine::Run& run, bool renumbered);

/// The files loadRun would read for `paths` (directories expanded, sorted by name).
engine::Result<std::vector<std::string>> expandTracePaths(const std::vector<std::string>& paths);

} // namespace clusterscope::importers
