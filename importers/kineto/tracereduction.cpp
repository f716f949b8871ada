#include "importers/kineto/tracereduction.h"

#include "importers/kineto/kinetoparser.h"
#include "importers/kineto/runloader.h"

#include <algorithm>
#include <numeric>

namespace clusterscope::importers {

using engine::Status;

TraceFileReduction reduceTraceFile(const std::string& path, KinetoParser& parser)
{
    TraceFileResult file = readTraceFile(path, parser);
    TraceFileReduction out;
    out.diagnostics = std::move(file.diagnostics);
    out.error = std::move(file.error);
    out.ranks.reserve(file.ranks.size());
    for (const engine::RankTrace& rank : file.ranks)
        out.ranks.push_back(engine::summarizeRank(rank));
    return out;
}

engine::Result<ReducedRun> assembleReducedRun(
    const std::vector<std::string>& files, std::vector<TraceFileReduction> reductions)
{
    if (reductions.size() != files.size())
        return Status::error("trace import: " + std::to_string(reductions.size()) + " reductions for "
            + std::to_string(files.size()) + " files");
    // The same order as loadRun: per file its diagnostics, then its failure, then its ranks.
    ReducedRun out;
    struct Origin {
        std::size_t file;
        std::size_t position; ///< rank within the file
    };
    std::vector<engine::RankSummary> summaries;
    std::vector<Origin> origins;
    std::string firstError;
    for (std::size_t f = 0; f < reductions.size(); ++f) {
        TraceFileReduction& r = reductions[f];
        out.run.diagnostics.merge(r.diagnostics);
        if (!r.error.empty()) {
            out.run.diagnostics.addSeparate(engine::diagnostic::kImportFileFailed, r.error);
            if (firstError.empty())
                firstError = r.error;
        }
        for (std::size_t i = 0; i < r.ranks.size(); ++i) {
            summaries.push_back(std::move(r.ranks[i]));
            origins.push_back({ f, i });
        }
    }
    if (summaries.empty())
        return Status::error(firstError.empty() ? "no rank could be read" : firstError);

    std::vector<std::pair<std::int32_t, std::int32_t>> stated;
    for (const auto& s : summaries)
        stated.push_back({ s.info.rank, s.info.worldSize });
    const RankNumbering numbering = numberRanks(stated);
    KinetoParser parser;
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        if (numbering.ranks[i] == stated[i].first && numbering.worldSizes[i] == stated[i].second)
            continue;
        // The summary depends on the rank's number and world size (traffic, labels): reduce the
        // trace again with the assigned ones, as loadRun + analyseRun would see it.
        TraceFileResult again = readTraceFile(files[origins[i].file], parser);
        if (!again.error.empty() || origins[i].position >= again.ranks.size())
            return Status::error(files[origins[i].file] + ": the file changed during the import");
        engine::RankTrace& trace = again.ranks[origins[i].position];
        trace.rank = numbering.ranks[i];
        trace.worldSize = numbering.worldSizes[i];
        summaries[i] = engine::summarizeRank(trace);
    }
    std::vector<std::size_t> order(summaries.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return numbering.ranks[a] < numbering.ranks[b]; });
    std::vector<engine::RankSummary> sorted;
    sorted.reserve(summaries.size());
    for (std::size_t i : order) {
        sorted.push_back(std::move(summaries[i]));
        sorted.back().info.rank = numbering.ranks[i];
        sorted.back().info.worldSize = numbering.worldSizes[i];
        out.run.ranks.push_back(sorted.back().info);
    }
    addRunLevelDiagnostics(out.run, numbering.renumbered);
    out.analysis = engine::analyseRankSummaries(sorted);
    return out;
}

std::vector<int> partitionFilesBySize(const std::vector<std::uint64_t>& fileBytes, int processes)
{
    processes = std::max(processes, 1);
    std::vector<std::size_t> order(fileBytes.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return fileBytes[a] > fileBytes[b]; });
    std::vector<std::uint64_t> load(std::size_t(processes), 0);
    std::vector<int> owner(fileBytes.size(), 0);
    for (std::size_t f : order) {
        const auto least = std::min_element(load.begin(), load.end()); // first minimum: the lower process
        // Count at least one byte per file so that empty files spread too.
        *least += std::max<std::uint64_t>(fileBytes[f], 1);
        owner[f] = int(least - load.begin());
    }
    return owner;
}

} // namespace clusterscope::importers
