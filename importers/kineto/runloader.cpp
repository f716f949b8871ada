#include "importers/kineto/runloader.h"

#include "importers/kineto/kinetoparser.h"
#include "importers/nsys/nsysimporter.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

namespace clusterscope::importers {

using engine::Status;
namespace fs = std::filesystem;

namespace {
    bool isTraceName(const std::string& file)
    {
        auto ends = [&](const char* suffix) {
            const std::size_t n = std::strlen(suffix);
            return file.size() >= n && file.compare(file.size() - n, n, suffix) == 0;
        };
        return ends(".json") || ends(".json.gz") || ends(".sqlite") || ends(".sqlite3") || ends(".db");
    }

    bool isSqlite(const std::string& path)
    {
        char magic[16] = {};
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (!f)
            return false;
        const std::size_t n = std::fread(magic, 1, sizeof magic, f);
        std::fclose(f);
        return n == sizeof magic && std::memcmp(magic, "SQLite format 3", 16) == 0;
    }

}

TraceFileResult readTraceFile(const std::string& path, KinetoParser& parser)
{
    TraceFileResult r;
    if (isSqlite(path)) {
        auto ranks = importNsysDatabase(path, r.diagnostics);
        if (ranks)
            r.ranks = std::move(*ranks);
        else
            r.error = ranks.message();
    } else {
        auto rank = parser.parseFile(path, r.diagnostics);
        if (rank)
            r.ranks.push_back(std::move(*rank));
        else
            r.error = rank.message();
    }
    return r;
}

RankNumbering numberRanks(const std::vector<std::pair<std::int32_t, std::int32_t>>& stated)
{
    RankNumbering out;
    out.ranks.resize(stated.size());
    std::set<std::int32_t> used;
    for (std::size_t i = 0; i < stated.size(); ++i) {
        const std::int32_t rank = stated[i].first;
        if (rank >= 0 && used.insert(rank).second) {
            out.ranks[i] = rank;
            continue;
        }
        out.renumbered = true;
        out.ranks[i] = -1;
    }
    std::int32_t candidate = 0;
    for (auto& rank : out.ranks) {
        if (rank >= 0)
            continue;
        while (used.count(candidate))
            ++candidate;
        rank = candidate;
        used.insert(candidate);
    }
    std::int32_t world = 0;
    for (const auto& s : stated)
        world = std::max(world, s.second);
    out.worldSizes.resize(stated.size());
    for (std::size_t i = 0; i < stated.size(); ++i)
        out.worldSizes[i]
            = stated[i].second == 0 ? std::max<std::int32_t>(world, std::int32_t(stated.size())) : stated[i].second;
    return out;
}

void addRunLevelDiagnostics(engine::Run& run, bool renumbered)
{
    if (renumbered)
        run.diagnostics.add(engine::diagnostic::kImportRankAssigned,
            "Some traces state no rank or a rank another trace already has; they were numbered in file order.");
    // Ranks the world size promises but no file holds (a missing, truncated or unreadable rank file).
    std::int32_t world = 0;
    for (const auto& t : run.ranks)
        world = std::max(world, t.worldSize);
    std::vector<bool> seen(std::size_t(std::max(world, 0)), false);
    for (const auto& t : run.ranks)
        if (t.rank >= 0 && t.rank < world)
            seen[std::size_t(t.rank)] = true;
    std::string first;
    std::int64_t missing = 0;
    for (std::int32_t r = 0; r < world; ++r) {
        if (seen[std::size_t(r)])
            continue;
        if (++missing <= 8)
            first += (first.empty() ? "" : ", ") + std::to_string(r);
    }
    if (missing > 0)
        run.diagnostics.add(engine::diagnostic::kImportRanksWithoutTrace,
            "The traces state a world size of " + std::to_string(world) + " but " + std::to_string(missing)
                + " ranks have no readable trace (" + first + (missing > 8 ? ", ..." : "")
                + "); their collectives are seen from the other ranks only.",
            missing);
}

engine::Result<std::vector<std::string>> expandTracePaths(const std::vector<std::string>& paths)
{
    std::vector<std::string> files;
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> inDir;
            for (const auto& e : fs::directory_iterator(p, ec))
                if (e.is_regular_file() && isTraceName(e.path().filename().string()))
                    inDir.push_back(e.path().string());
            if (ec)
                return Status::error(p + ": cannot list the directory (" + ec.message() + ")");
            if (inDir.empty())
                return Status::error(p + ": no trace files (*.json, *.json.gz, *.sqlite) in the directory");
            std::sort(inDir.begin(), inDir.end());
            files.insert(files.end(), inDir.begin(), inDir.end());
        } else if (fs::exists(p, ec)) {
            files.push_back(p);
        } else {
            return Status::error(p + ": no such file or directory");
        }
    }
    return files;
}

engine::Result<engine::Run> loadRun(const std::vector<std::string>& paths, const RunLoadOptions& options)
{
    auto files = expandTracePaths(paths);
    if (!files)
        return files.status();
    if (files->empty())
        return Status::error("no trace files given");
    std::vector<TraceFileResult> results(files->size());
    std::atomic<std::size_t> next { 0 }, done { 0 };
    auto worker = [&]() {
        KinetoParser parser; // one simdjson parser per thread, reused across its files
        while (true) {
            const std::size_t i = next.fetch_add(1);
            if (i >= files->size())
                break;
            if (options.stop && options.stop->load()) {
                results[i].error = "cancelled";
                continue;
            }
            results[i] = readTraceFile((*files)[i], parser);
            const std::size_t n = ++done;
            if (options.progress)
                options.progress(n, files->size());
        }
    };
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = unsigned(std::min<std::size_t>(threads, files->size()));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();
    if (options.stop && options.stop->load())
        return Status::error("import cancelled");

    engine::Run run;
    std::string firstError;
    for (auto& r : results) {
        run.diagnostics.merge(r.diagnostics);
        if (!r.error.empty()) {
            run.diagnostics.addSeparate(engine::diagnostic::kImportFileFailed, r.error);
            if (firstError.empty())
                firstError = r.error;
        }
        for (auto& t : r.ranks)
            run.ranks.push_back(std::move(t));
    }
    if (run.ranks.empty())
        return Status::error(firstError.empty() ? "no rank could be read" : firstError);

    // Ranks: keep the stated ones when unique, number the rest in file order.
    std::vector<std::pair<std::int32_t, std::int32_t>> stated;
    for (const auto& t : run.ranks)
        stated.push_back({ t.rank, t.worldSize });
    const RankNumbering numbering = numberRanks(stated);
    for (std::size_t i = 0; i < run.ranks.size(); ++i) {
        run.ranks[i].rank = numbering.ranks[i];
        run.ranks[i].worldSize = numbering.worldSizes[i];
    }
    std::stable_sort(run.ranks.begin(), run.ranks.end(),
        [](const engine::RankTrace& a, const engine::RankTrace& b) { return a.rank < b.rank; });
    addRunLevelDiagnostics(run, numbering.renumbered);
    return run;
}

} // namespace clusterscope::importers
