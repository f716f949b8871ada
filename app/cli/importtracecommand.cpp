#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "app/cli/distributedimport.h"
#include "engine/analysis/runcomparison.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/fabric/pricebook.h"
#include "engine/run/collectivefold.h"
#include "engine/run/runanalysis.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"
#include "importers/kineto/runloader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <unistd.h>

namespace clusterscope::app {

namespace {
    using nlohmann::json;

    std::string fixed(double v, int decimals)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
        return buf;
    }

    // The run's display name: the directory or file name of the first path, "+N" when there are more.
    std::string runName(const std::vector<std::string>& paths)
    {
        std::filesystem::path first(paths.front());
        if (!first.has_filename())
            first = first.parent_path();
        std::string name = first.filename().string();
        if (paths.size() > 1)
            name += " +" + std::to_string(paths.size() - 1);
        return name;
    }

    json diagnosticsJson(const engine::Diagnostics& d)
    {
        json list = json::array();
        for (const auto& x : d.items())
            list.push_back({ { "id", x.id }, { "severity", engine::toString(x.severity) }, { "count", x.count },
                { "message", x.message } });
        return list;
    }

    json statsJson(const engine::LatencyStats& s)
    {
        return { { "count", s.count }, { "mean", s.mean }, { "p50", s.p50 }, { "p99", s.p99 }, { "max", s.max } };
    }

    json toJson(const engine::Run& run, const engine::RunAnalysis& a, const engine::Diagnostics& all)
    {
        json out;
        out["ranks"] = run.ranks.size();
        json rankList = json::array();
        for (std::size_t i = 0; i < run.ranks.size(); ++i) {
            const auto& r = run.ranks[i];
            rankList.push_back({ { "rank", r.rank }, { "file", r.sourceFile }, { "gpu", r.gpuName },
                { "world_size", r.worldSize }, { "clock_offset_us", double(a.clockOffsetNs[i]) / 1e3 } });
        }
        out["rank_files"] = rankList;
        json steps = json::array();
        for (const auto& s : a.steps) {
            json ranks = json::array();
            for (const auto& r : s.ranks)
                ranks.push_back({ { "rank", r.rank }, { "duration_s", r.durationSeconds },
                    { "compute_s", r.computeSeconds }, { "comm_exposed_s", r.commExposedSeconds },
                    { "comm_overlapped_s", r.commOverlappedSeconds }, { "memcpy_s", r.memcpySeconds },
                    { "idle_s", r.idleSeconds }, { "idle_host_wait_s", r.idleHostWaitSeconds },
                    { "idle_kernel_wait_s", r.idleKernelWaitSeconds } });
            steps.push_back({ { "step", s.step }, { "ranks", ranks } });
        }
        out["steps"] = steps;
        // Mean and tail: each step lasts as long as its slowest rank (engine/run/collectivefold.h).
        out["step_time_s"] = statsJson(engine::stepDurationStats(a));
        json colls = json::array();
        for (const auto& c : a.collectives) {
            json j = { { "op", engine::toString(c.op) },
                { "process_group", c.processGroup.empty() ? "default" : c.processGroup }, { "sequence", c.sequence },
                { "step", c.step }, { "ranks", c.groupSize }, { "ranks_seen", c.ranksSeen },
                { "duration_us", c.durationUs }, { "wait_us", c.waitUs }, { "total_wait_us", c.totalWaitUs } };
            j["bytes"] = c.bytes >= 0 ? json(c.bytes) : json(nullptr);
            j["algbw_gbps"] = c.bytes >= 0 ? json(c.algbwGbps) : json(nullptr);
            j["busbw_gbps"] = c.bytes >= 0 ? json(c.busbwGbps) : json(nullptr);
            j["last_arrival_rank"] = c.lastArrivalRank >= 0 ? json(c.lastArrivalRank) : json(nullptr);
            colls.push_back(j);
        }
        out["collectives"] = colls;
        // The calls folded per kind with the one measured-busbw definition (the Runs tab's rows).
        json kinds = json::array();
        for (const engine::CollectiveFold& f : engine::foldCollectives(a.collectives)) {
            json j = { { "op", engine::toString(f.op) },
                { "process_group", f.processGroup.empty() ? "default" : f.processGroup }, { "ranks", f.groupSize },
                { "calls", f.calls }, { "duration_us", statsJson(f.durationUs) }, { "total_wait_us", f.totalWaitUs } };
            j["bytes"] = f.bytes >= 0 ? json(f.bytes) : json(nullptr);
            j["algbw_gbps"] = f.bytes >= 0 ? json(f.algbwGbps) : json(nullptr);
            j["busbw_gbps"] = f.bytes >= 0 ? json(f.busbwGbps) : json(nullptr);
            kinds.push_back(j);
        }
        out["collective_kinds"] = kinds;
        json stragglers = json::array();
        for (const auto& s : a.stragglers)
            stragglers.push_back({ { "rank", s.rank }, { "last_arrivals", s.lastArrivals },
                { "wait_caused_us", s.waitCausedUs }, { "wait_p50_us", s.waitTailUs.p50 },
                { "wait_p99_us", s.waitTailUs.p99 }, { "wait_max_us", s.waitTailUs.max } });
        out["stragglers"] = stragglers;
        // The dense matrix up to 4,096 ranks (as before the traffic became sparse); the pairs always.
        json matrix = json::array();
        if (a.traffic.ranks <= 4096)
            for (int i = 0; i < a.traffic.ranks; ++i) {
                json row = json::array();
                std::vector<double> bytes(std::size_t(a.traffic.ranks), 0.0);
                for (const auto& p : a.traffic.sentBy(i))
                    bytes[std::size_t(p.dst)] = p.bytes;
                for (double b : bytes)
                    row.push_back(b);
                matrix.push_back(row);
            }
        out["traffic_bytes"] = matrix;
        out["traffic_ranks"] = a.traffic.ranks;
        json pairs = json::array();
        for (const auto& p : a.traffic.pairs)
            pairs.push_back(json::array({ p.src, p.dst, p.bytes }));
        out["traffic_pairs"] = pairs;
        out["diagnostics"] = diagnosticsJson(all);
        return out;
    }

    void printText(
        std::ostream& os, const engine::Run& run, const engine::RunAnalysis& a, const engine::Diagnostics& all)
    {
        os << run.ranks.size() << " ranks";
        if (!run.ranks.empty() && !run.ranks.front().gpuName.empty())
            os << " (" << run.ranks.front().gpuName << ")";
        os << "\n\nPer-step breakdown (ms): rank duration compute comm_exposed comm_overlapped memcpy idle (host-wait "
              "kernel-wait)\n";
        for (const auto& s : a.steps) {
            os << "step " << s.step << "\n";
            for (const auto& r : s.ranks)
                os << "  " << r.rank << "  " << fixed(r.durationSeconds * 1e3, 3) << "  "
                   << fixed(r.computeSeconds * 1e3, 3) << "  " << fixed(r.commExposedSeconds * 1e3, 3) << "  "
                   << fixed(r.commOverlappedSeconds * 1e3, 3) << "  " << fixed(r.memcpySeconds * 1e3, 3) << "  "
                   << fixed(r.idleSeconds * 1e3, 3) << " (" << fixed(r.idleHostWaitSeconds * 1e3, 3) << " "
                   << fixed(r.idleKernelWaitSeconds * 1e3, 3) << ")\n";
        }
        const engine::LatencyStats stepTail = engine::stepDurationStats(a);
        if (stepTail.count > 0)
            os << "\nStep time (slowest rank, ms): mean " << fixed(stepTail.mean * 1e3, 3) << "  p50 "
               << fixed(stepTail.p50 * 1e3, 3) << "  p99 " << fixed(stepTail.p99 * 1e3, 3) << "  max "
               << fixed(stepTail.max * 1e3, 3) << " over " << stepTail.count << " steps\n";
        os << "\nCollective kinds: op group bytes ranks calls duration_us (mean p50 p99 max) algbw_GB/s busbw_GB/s "
              "(busbw of the mean duration, as nccl-tests)\n";
        for (const engine::CollectiveFold& f : engine::foldCollectives(a.collectives))
            os << "  " << engine::toString(f.op) << "  " << (f.processGroup.empty() ? "default" : f.processGroup)
               << "  " << (f.bytes >= 0 ? std::to_string(f.bytes) : "?") << "  " << f.groupSize << "  " << f.calls
               << "  (" << fixed(f.durationUs.mean, 1) << " " << fixed(f.durationUs.p50, 1) << " "
               << fixed(f.durationUs.p99, 1) << " " << fixed(f.durationUs.max, 1) << ")  "
               << (f.bytes >= 0 ? fixed(f.algbwGbps, 2) : "?") << "  " << (f.bytes >= 0 ? fixed(f.busbwGbps, 2) : "?")
               << "\n";
        os << "\nCollectives: op group bytes ranks duration_us algbw_GB/s busbw_GB/s last_arrival wait_us\n";
        for (const auto& c : a.collectives)
            os << "  " << engine::toString(c.op) << "  " << (c.processGroup.empty() ? "default" : c.processGroup)
               << "  " << (c.bytes >= 0 ? std::to_string(c.bytes) : "?") << "  " << c.groupSize << "  "
               << fixed(c.durationUs, 1) << "  " << (c.bytes >= 0 ? fixed(c.algbwGbps, 2) : "?") << "  "
               << (c.bytes >= 0 ? fixed(c.busbwGbps, 2) : "?") << "  "
               << (c.lastArrivalRank >= 0 ? std::to_string(c.lastArrivalRank) : "-") << "  " << fixed(c.waitUs, 1)
               << "\n";
        if (a.traffic.ranks > 0 && a.traffic.ranks <= 16) {
            os << "\nTraffic sent (MB, row = source rank; exact for p2p and all-to-all, ring-modelled otherwise)\n    "
                  " ";
            for (int j = 0; j < a.traffic.ranks; ++j)
                os << " " << std::string(std::max(0, 8 - int(std::to_string(j).size())), ' ') << j;
            os << "\n";
            for (int i = 0; i < a.traffic.ranks; ++i) {
                const std::string label = std::to_string(i);
                os << std::string(5 - std::min<std::size_t>(5, label.size()), ' ') << label;
                for (int j = 0; j < a.traffic.ranks; ++j) {
                    const std::string v = fixed(a.traffic.at(i, j) / 1e6, 3);
                    os << " " << std::string(std::max(0, 8 - int(v.size())), ' ') << v;
                }
                os << "\n";
            }
        }
        os << "\nStragglers, by the tail they cause (rank: last arrivals, wait caused us, p99 / max wait us)\n";
        for (const auto& s : a.stragglers)
            os << "  " << s.rank << ": " << s.lastArrivals << ", " << fixed(s.waitCausedUs, 1) << ", "
               << fixed(s.waitTailUs.p99, 1) << " / " << fixed(s.waitTailUs.max, 1) << "\n";
        if (!all.empty()) {
            os << "\nDiagnostics\n";
            for (const auto& d : all.items())
                os << "  " << engine::toString(d.severity) << " " << d.id << " (x" << d.count << "): " << d.message
                   << "\n";
        }
    }
}

namespace {

    json splitJson(const engine::TimeSplit& t)
    {
        return { { "total_s", t.total }, { "compute_s", t.compute }, { "comm_exposed_s", t.exposedComm },
            { "comm_overlapped_s", t.overlappedComm }, { "other_s", t.other } };
    }

    json comparisonJson(const engine::RunComparison& c)
    {
        json collectives = json::array();
        for (const auto& row : c.collectives)
            collectives.push_back({ { "op", row.op }, { "process_group", row.processGroup }, { "bytes", row.bytes },
                { "ranks", row.ranks }, { "calls", row.calls }, { "measured_busbw_gbps", row.measuredBusbwGbps },
                { "modelled_busbw_gbps", row.modelledBusbwGbps }, { "model_algorithm", row.algorithm },
                { "ratio", row.ratio }, { "measured_duration_us", statsJson(row.measuredDurationUs) } });
        json out = { { "collectives", collectives }, { "measured", splitJson(c.measured) }, { "findings", c.findings },
            { "notes", c.notes } };
        out["modelled"] = c.modelled ? splitJson(*c.modelled) : json(nullptr);
        return out;
    }

    void printComparison(std::ostream& out, const engine::RunComparison& c)
    {
        char line[256];
        out << "\nmeasured vs modelled (collective bus bandwidth on the scenario's cluster)\n";
        std::snprintf(line, sizeof line, "  %-14s %12s %6s %6s %12s %12s %8s  %s\n", "op", "bytes", "ranks", "calls",
            "measured", "modelled", "ratio", "model algorithm");
        out << line;
        for (const auto& row : c.collectives) {
            std::snprintf(line, sizeof line, "  %-14s %12lld %6d %6d %9.2f GB/s %9.2f GB/s %7.0f%%  %s\n",
                row.op.c_str(), static_cast<long long>(row.bytes), row.ranks, row.calls, row.measuredBusbwGbps,
                row.modelledBusbwGbps, row.ratio * 100.0, row.algorithm.c_str());
            out << line;
        }
        std::snprintf(line, sizeof line,
            "  time per step, measured: %.4f s (compute %.4f, exposed comm %.4f, overlapped comm %.4f, idle+memcpy "
            "%.4f)\n",
            c.measured.total, c.measured.compute, c.measured.exposedComm, c.measured.overlappedComm, c.measured.other);
        out << line;
        if (c.modelled) {
            std::snprintf(line, sizeof line,
                "  iteration, modelled:     %.4f s (compute %.4f, exposed comm %.4f, bubble+other %.4f)\n",
                c.modelled->total, c.modelled->compute, c.modelled->exposedComm, c.modelled->other);
            out << line;
        }
        for (const auto& f : c.findings)
            out << "  finding: " << f << "\n";
        for (const auto& n : c.notes)
            out << "  note: " << n << "\n";
    }

} // namespace

int reportImport(
    const CommandLine& cl, CliIo io, const engine::Run& run, const engine::RunAnalysis& analysis, bool atomicProject);

int runImportTraceCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(args, { "json" }, { "threads", "project", "compare", "catalog" });
    if (!cl)
        return cliUsageError(io, "import-trace", cl.message());
    if (cl->positionals().empty())
        return cliUsageError(io, "import-trace", "expected at least one trace FILE or DIRECTORY (see --help)");
    importers::RunLoadOptions options;
    if (auto t = cl->value("threads")) {
        try {
            options.threads = unsigned(std::stoul(*t));
        } catch (...) {
            return cliUsageError(io, "import-trace", "--threads expects a number, got \"" + *t + "\"");
        }
    }
    if (launchedUnderMpi()) {
        // Under mpirun / srun: every process reduces its share of the rank files; process 0 reports
        // and writes the project (into a temporary file renamed into place at the end).
        DistributedImport distributed = importTracesDistributed(cl->positionals(), io);
        int code = 0;
        if (distributed.root) {
            if (!distributed.run) {
                io.err << distributed.run.message() << "\n";
                code = 1;
            } else {
                code = reportImport(*cl, io, distributed.run->run, distributed.run->analysis, true);
            }
        }
        endDistributedImport(io);
        return code;
    }
    auto run = importers::loadRun(cl->positionals(), options);
    if (!run) {
        io.err << run.message() << "\n";
        return 1;
    }
    const engine::RunAnalysis analysis = engine::analyseRun(*run);
    return reportImport(*cl, io, *run, analysis, false);
}

namespace {

    // Stores the run in a copy of the project (or a new one) beside it, then renames the copy into
    // place: a job that dies before the rename leaves the project as it was (no half-written file).
    bool storeRunAtomically(const std::string& project, const std::string& name,
        const std::vector<std::string>& sources, const engine::Run& run, const engine::RunAnalysis& analysis, CliIo io,
        std::int64_t& id)
    {
        namespace fs = std::filesystem;
        const std::string temporary = project + ".importing-" + std::to_string(::getpid());
        std::error_code ec;
        {
            engine::Result<engine::ProjectStore> store = engine::Status::error("");
            if (fs::exists(project, ec)) {
                store = engine::ProjectStore::open(project);
                if (store)
                    if (auto copied = store->saveAs(temporary); !copied)
                        store = copied;
            } else {
                store = engine::ProjectStore::create(temporary);
            }
            if (!store) {
                io.err << store.message() << "\n";
                fs::remove(temporary, ec);
                return false;
            }
            auto added = engine::RunStore(*store).add(name, sources, run, analysis);
            if (!added) {
                io.err << added.message() << "\n";
                store = engine::Status::error("closed");
                fs::remove(temporary, ec);
                return false;
            }
            id = *added;
        } // closes the database: SQLite checkpoints its WAL into the file
        fs::rename(temporary, project, ec);
        if (ec) {
            io.err << project << ": cannot move the imported project into place (" << ec.message() << ")\n";
            fs::remove(temporary, ec);
            return false;
        }
        return true;
    }

}

int reportImport(
    const CommandLine& cl, CliIo io, const engine::Run& run, const engine::RunAnalysis& analysis, bool atomicProject)
{
    engine::Diagnostics all = run.diagnostics;
    all.merge(analysis.diagnostics);
    for (const auto& d : run.diagnostics.items())
        if (d.severity == engine::DiagnosticSeverity::Error)
            io.err << d.message << "\n";
    // --project: the run goes into the project (created when absent) in one transaction, so the
    // GUI's Runs tab shows it without re-parsing the traces.
    std::int64_t storedId = 0;
    std::string storedName;
    const auto project = cl.value("project");
    if (project) {
        std::vector<std::string> sources;
        for (const auto& p : cl.positionals()) {
            std::error_code ec;
            const auto absolute = std::filesystem::absolute(p, ec);
            sources.push_back(ec ? p : absolute.lexically_normal().string());
        }
        storedName = runName(cl.positionals());
        if (atomicProject) {
            if (!storeRunAtomically(*project, storedName, sources, run, analysis, io, storedId))
                return 1;
        } else {
            auto store = openOrCreateProjectForCli(*project, io);
            if (!store)
                return 1;
            auto id = engine::RunStore(*store).add(storedName, sources, run, analysis);
            if (!id) {
                io.err << id.message() << "\n";
                return 1;
            }
            storedId = *id;
        }
    }
    // --compare SCENARIO: measured beside modelled (collective bus bandwidths, iteration split).
    std::optional<engine::RunComparison> comparison;
    if (const auto scenarioPath = cl.value("compare")) {
        auto catalog = loadCatalogForCli(cl, io);
        if (!catalog)
            return 1;
        auto scenario = loadValidScenarioForCli(*scenarioPath, *catalog, io);
        if (!scenario)
            return 1;
        auto prices = engine::PriceBook::builtin();
        if (!prices) {
            io.err << prices.message() << "\n";
            return 1;
        }
        engine::AnalysisOptions options;
        options.searchTopK = 1;
        options.timeContention = false;
        const engine::ScenarioAnalysis modelled = engine::analyseScenario(*scenario, *catalog, *prices, options);
        comparison = engine::compareRunWithScenario(analysis, *scenario, *catalog, &modelled);
    }
    if (cl.flag("json")) {
        json out = toJson(run, analysis, all);
        if (project)
            out["stored"] = { { "project", *project }, { "run_id", storedId }, { "name", storedName } };
        if (comparison)
            out["model_comparison"] = comparisonJson(*comparison);
        io.out << out.dump(2) << "\n";
    } else {
        printText(io.out, run, analysis, all);
        if (comparison)
            printComparison(io.out, *comparison);
        if (project)
            io.out << "\nrun \"" << storedName << "\" stored in the project " << *project << " (run id " << storedId
                   << "; shown in the GUI's Runs tab)\n";
    }
    return 0;
}

} // namespace clusterscope::app
