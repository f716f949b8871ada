#pragma once

// The per-process half of a distributed trace import (app/cli/mpi/): each process reads its share
// of the rank files and reduces every rank to a compact engine::RankSummary; the root assembles the
// reductions of all files exactly as loadRun assembles parsed traces (diagnostics in file order,
// rank numbering) and runs the cross-rank analyses. No MPI here: the transport is the caller's.

#include "engine/core/status.h"
#include "engine/run/ranksummary.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::importers {

class KinetoParser;

/// One rank file reduced: the summaries of its ranks, its diagnostics, or the error that stopped it.
struct TraceFileReduction {
    std::vector<engine::RankSummary> ranks;
    engine::Diagnostics diagnostics;
    std::string error; ///< "" when the file was read
};

/// Reads `path` (readTraceFile) and reduces each of its ranks with engine::summarizeRank. The ranks
/// keep the rank and world size their trace states (assembleReducedRun numbers them).
TraceFileReduction reduceTraceFile(const std::string& path, KinetoParser& parser);

/// A run assembled from reductions: the rank files (RankTrace without events, sorted by rank),
/// the import's diagnostics and the analysis. Equal to loadRun + analyseRun on the same files.
struct ReducedRun {
    engine::Run run;
    engine::RunAnalysis analysis;
};

/// Assembles the reductions of `files` (same order; reductions[i] belongs to files[i]) like
/// loadRun: a failed file becomes an error diagnostic naming it, ranks are numbered with
/// numberRanks. A rank whose number or world size changed is reduced again from its file (only
/// traces without a unique stated rank or world size, i.e. damaged runs). Fails only when no rank
/// could be read.
engine::Result<ReducedRun> assembleReducedRun(
    const std::vector<std::string>& files, std::vector<TraceFileReduction> reductions);

/// Which process reads each file: files sorted by size (largest first) go to the process with the
/// least bytes so far (longest-processing-time-first; ties to the lower process). Returns the
/// process of each file, in file order. Deterministic: every process computes the same answer.
std::vector<int> partitionFilesBySize(const std::vector<std::uint64_t>& fileBytes, int processes);

/// Serialises reductions (with their file indices) to bytes for a gather, and back. The encoding is
/// the host's (all processes of one job run the same binary on the same architecture). decode
/// fails naming the byte offset when the buffer is damaged.
std::string encodeReductions(const std::vector<std::pair<std::int64_t, const TraceFileReduction*>>& reductions);
engine::Status decodeReductions(std::string_view bytes, std::vector<std::pair<std::int64_t, TraceFileReduction>>& out);

} // namespace clusterscope::importers
