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

using engine::DiagnosticSeverity;
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

struct FileResult {
    std::vector<engine::RankTrace> ranks;
    engine::Diagnostics diagnostics;
    std::string error;
};
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
    std::vector<FileResult> results(files->size());
    std::atomic<std::size_t> next { 0 }, done { 0 };
    auto worker = [&]() {
        KinetoParser parser; // one simdjson parser per thread, reused across its files
        while (true) {
            const std::size_t i = next.fetch_add(1);
            if (i >= files->size())
                break;
            FileResult& r = results[i];
            const std::string& path = (*files)[i];
            if (options.stop && options.stop->load()) {
                r.error = "cancelled";
                continue;
            }
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
    std::set<std::int32_t> used;
    bool renumbered = false;
    for (auto& t : run.ranks) {
        if (t.rank >= 0 && used.insert(t.rank).second)
            continue;
        renumbered = true;
        t.rank = -1;
    }
    std::int32_t candidate = 0;
    for (auto& t : run.ranks) {
        if (t.rank >= 0)
            continue;
        while (used.count(candidate))
            ++candidate;
        t.rank = candidate;
        used.insert(candidate);
    }
    if (renumbered)
        run.diagnostics.add(engine::diagnostic::kImportRankAssigned,
            "Some traces state no rank or a rank another trace already has; they were numbered in file order.");
    std::stable_sort(run.ranks.begin(), run.ranks.end(),
        [](const engine::RankTrace& a, const engine::RankTrace& b) { return a.rank < b.rank; });
    std::int32_t world = 0;
    for (const auto& t : run.ranks)
        world = std::max(world, t.worldSize);
    for (auto& t : run.ranks)
        if (t.worldSize == 0)
            t.worldSize = std::max<std::int32_t>(world, std::int32_t(run.ranks.size()));
    return run;
}

} // namespace clusterscope::importers
