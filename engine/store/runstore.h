#pragma once

// Imported profiler runs stored in the project: the summary, the per-rank
// per-step breakdowns, the matched collectives, the stragglers, the measured traffic matrix (only
// its non-zero pairs) and the diagnostics, so that reopening a project shows a run without
// re-parsing its traces. The raw GPU events are not stored (the timeline needs the trace files).
// Every write is one transaction: a failed or cancelled store leaves the project as it was.

#include "engine/core/status.h"
#include "engine/run/runanalysis.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace clusterscope::engine {

class ProjectStore;

/// What the Runs list shows about one stored run (no per-row data).
struct StoredRunSummary {
    std::int64_t id = 0; ///< row id in the project
    std::string name; ///< display name (e.g. the trace directory's name)
    std::vector<std::string> sources; ///< the paths given to the import (files or directories)
    std::string importedUtc; ///< "YYYY-MM-DD HH:MM:SS" (UTC, SQLite datetime('now'))
    std::int32_t rankCount = 0; ///< rank files imported
    std::int32_t worldSize = 0; ///< world size stated by the traces (0 = unknown)
    std::string gpuName; ///< of the first rank ("" = unknown)
    std::string ncclVersion; ///< of the first rank that states one ("" = unknown)
    std::int32_t stepCount = 0; ///< ProfilerSteps in the breakdown
    std::int32_t collectiveCount = 0; ///< matched collectives
    std::int32_t errorCount = 0; ///< error diagnostics (import + analysis)
    std::int32_t warningCount = 0; ///< warning diagnostics (import + analysis)
};

/// What was known about one rank file (the run model's RankTrace without its events).
struct StoredRunRank {
    std::int32_t rank = -1;
    std::int32_t worldSize = 0;
    std::string sourceFile;
    std::string gpuName;
    std::int64_t gpuMemoryBytes = 0;
    std::string ncclVersion;
};

/// A stored run read back: equal to what was stored (analysis.clockOffsetNs, steps, collectives,
/// stragglers, traffic and diagnostics), plus the rank files and the import's own diagnostics.
struct StoredRun {
    StoredRunSummary summary;
    std::vector<StoredRunRank> ranks; ///< in Run::ranks order (index matches analysis.clockOffsetNs)
    Diagnostics importDiagnostics; ///< Run::diagnostics
    RunAnalysis analysis;
};

/// Options of RunStore::add.
struct RunStoreOptions {
    /// Called after each table is written with the fraction done (0..1).
    std::function<void(double)> progress;
    /// When set and true (checked between tables and every 4096 rows) the store is rolled back and
    /// add() fails with "cancelled".
    const std::atomic<bool>* stop = nullptr;
};

/// Reads and writes runs of one open project. Keeps a reference to `project`: it must outlive this.
class RunStore {
public:
    explicit RunStore(ProjectStore& project);

    /// Stores `run` (rank files and diagnostics only) and its `analysis` under `name` in one
    /// transaction; returns the new run's id. On any failure nothing is stored.
    Result<std::int64_t> add(const std::string& name, const std::vector<std::string>& sources, const Run& run,
        const RunAnalysis& analysis, const RunStoreOptions& options = {});
    /// The stored runs, oldest first.
    Result<std::vector<StoredRunSummary>> list() const;
    /// One stored run with all its rows; an error naming the id when there is no such run.
    Result<StoredRun> load(std::int64_t id) const;
    /// One page of a stored run's per-rank breakdown of step `step`: ranks >= `firstRank` in rank order,
    /// at most `count` rows (an index seek: a 16,384-rank run is browsed without reading it whole).
    Result<std::vector<RankStepBreakdown>> stepRanks(
        std::int64_t id, std::int64_t step, std::int32_t firstRank, std::int32_t count) const;
    /// One page of a stored run's rank files: positions [first, first + count) of StoredRun::ranks,
    /// with their clock offsets (ns) in `clockOffsetsNs` when given.
    Result<std::vector<StoredRunRank>> rankFiles(std::int64_t id, std::int32_t first, std::int32_t count,
        std::vector<std::int64_t>* clockOffsetsNs = nullptr) const;
    /// Deletes a run and all its rows (one transaction); an error when there is no such run.
    Status remove(std::int64_t id);

private:
    ProjectStore* m_project;
};

} // namespace clusterscope::engine
