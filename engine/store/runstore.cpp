#include "engine/store/runstore.h"

#include "engine/store/projectstore.h"
#include "engine/store/sqlitestatement.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

namespace clusterscope::engine {

namespace {

    using I64 = std::int64_t;

    struct Cancelled { };

    std::string dbError(sqlite3* db, const std::string& path, const std::string& what)
    {
        return path + ": " + what + " (" + sqlite3_errmsg(db) + ")";
    }

    DiagnosticSeverity parseSeverity(const std::string& s)
    {
        if (s == "info")
            return DiagnosticSeverity::Info;
        if (s == "error")
            return DiagnosticSeverity::Error;
        return DiagnosticSeverity::Warning;
    }

    // Diagnostics::add merges by id; entries that were added separately (same id twice) come back
    // separately too.
    void restoreDiagnostic(
        Diagnostics& into, const std::string& id, DiagnosticSeverity severity, const std::string& message, I64 count)
    {
        if (into.find(id))
            into.addSeparate(id, severity, message);
        else
            into.add(id, severity, message, count);
    }

    StoredRunSummary summarize(const Run& run, const RunAnalysis& analysis)
    {
        StoredRunSummary s;
        s.rankCount = std::int32_t(run.ranks.size());
        for (const RankTrace& r : run.ranks) {
            if (s.worldSize == 0)
                s.worldSize = r.worldSize;
            if (s.gpuName.empty())
                s.gpuName = r.gpuName;
            if (s.ncclVersion.empty())
                s.ncclVersion = r.ncclVersion;
        }
        s.stepCount = std::int32_t(analysis.steps.size());
        s.collectiveCount = std::int32_t(analysis.collectives.size());
        for (const Diagnostics* d : { &run.diagnostics, &analysis.diagnostics })
            for (const Diagnostic& x : d->items()) {
                s.errorCount += x.severity == DiagnosticSeverity::Error;
                s.warningCount += x.severity == DiagnosticSeverity::Warning;
            }
        return s;
    }

    std::string summaryJson(const StoredRunSummary& s, std::int32_t trafficRanks)
    {
        nlohmann::json j = { { "sources", s.sources }, { "rank_count", s.rankCount }, { "world_size", s.worldSize },
            { "gpu", s.gpuName }, { "nccl_version", s.ncclVersion }, { "step_count", s.stepCount },
            { "collective_count", s.collectiveCount }, { "error_count", s.errorCount },
            { "warning_count", s.warningCount }, { "traffic_ranks", trafficRanks } };
        return j.dump();
    }

    // Fills `s` (id, name and imported already set) from the summary JSON; returns the traffic ranks.
    bool readSummaryJson(const std::string& text, StoredRunSummary& s, std::int32_t& trafficRanks)
    {
        const auto j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            return false;
        // A damaged project may hold any JSON here: check every type and range before converting (a
        // get<int32_t>() of 1e300 would be undefined behaviour, not an exception).
        const auto int32 = [&j](const char* key, std::int32_t& field) {
            const auto it = j.find(key);
            if (it == j.end() || !it->is_number_integer())
                return false;
            if (it->is_number_unsigned() ? it->get<std::uint64_t>() > std::uint64_t(INT32_MAX)
                                         : it->get<std::int64_t>() < INT32_MIN || it->get<std::int64_t>() > INT32_MAX)
                return false;
            field = static_cast<std::int32_t>(it->get<std::int64_t>());
            return true;
        };
        const auto string = [&j](const char* key, std::string& field) {
            const auto it = j.find(key);
            if (it == j.end() || !it->is_string())
                return false;
            field = it->get<std::string>();
            return true;
        };
        const auto sources = j.find("sources");
        if (sources == j.end() || !sources->is_array())
            return false;
        s.sources.clear();
        for (const auto& source : *sources) {
            if (!source.is_string())
                return false;
            s.sources.push_back(source.get<std::string>());
        }
        return int32("rank_count", s.rankCount) && int32("world_size", s.worldSize) && string("gpu", s.gpuName)
            && string("nccl_version", s.ncclVersion) && int32("step_count", s.stepCount)
            && int32("collective_count", s.collectiveCount) && int32("error_count", s.errorCount)
            && int32("warning_count", s.warningCount) && int32("traffic_ranks", trafficRanks);
    }

    // Writes the rows of one run; throws Cancelled when asked to stop, returns false on a SQLite error.
    class RunWriter {
    public:
        RunWriter(sqlite3* db, I64 runId, const RunStoreOptions& options)
            : m_db(db)
            , m_runId(runId)
            , m_options(options)
        {
        }

        bool write(const Run& run, const RunAnalysis& a)
        {
            return ranks(run, a) && tick(0.2) && steps(a) && tick(0.4) && collectives(a) && tick(0.7) && stragglers(a)
                && traffic(a) && tick(0.9) && diagnostics(run, a) && tick(1.0);
        }

    private:
        bool tick(double fraction)
        {
            checkStop();
            if (m_options.progress)
                m_options.progress(fraction);
            checkStop();
            return true;
        }
        void checkStop() const
        {
            if (m_options.stop && m_options.stop->load())
                throw Cancelled {};
        }
        void row(std::size_t i) const
        {
            if ((i & 4095) == 4095)
                checkStop();
        }

        bool ranks(const Run& run, const RunAnalysis& a)
        {
            Statement st(m_db,
                "INSERT INTO run_ranks(run_id, position, rank, world_size, source_file, gpu, gpu_memory_bytes,"
                " nccl_version, clock_offset_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
            for (std::size_t i = 0; i < run.ranks.size(); ++i) {
                const RankTrace& r = run.ranks[i];
                st.reset();
                st.bind(1, m_runId);
                st.bind(2, I64(i));
                st.bind(3, I64(r.rank));
                st.bind(4, I64(r.worldSize));
                st.bind(5, r.sourceFile);
                st.bind(6, r.gpuName);
                st.bind(7, r.gpuMemoryBytes);
                st.bind(8, r.ncclVersion);
                st.bind(9, i < a.clockOffsetNs.size() ? a.clockOffsetNs[i] : I64(0));
                if (!st.run())
                    return false;
            }
            return true;
        }

        bool steps(const RunAnalysis& a)
        {
            Statement st(m_db,
                "INSERT INTO run_rank_steps(run_id, step, rank, duration_s, compute_s, comm_exposed_s,"
                " comm_overlapped_s, memcpy_s, idle_s, idle_host_wait_s, idle_kernel_wait_s)"
                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
            std::size_t n = 0;
            for (const StepBreakdown& s : a.steps)
                for (const RankStepBreakdown& r : s.ranks) {
                    row(n++);
                    st.reset();
                    st.bind(1, m_runId);
                    st.bind(2, s.step);
                    st.bind(3, I64(r.rank));
                    st.bind(4, r.durationSeconds);
                    st.bind(5, r.computeSeconds);
                    st.bind(6, r.commExposedSeconds);
                    st.bind(7, r.commOverlappedSeconds);
                    st.bind(8, r.memcpySeconds);
                    st.bind(9, r.idleSeconds);
                    st.bind(10, r.idleHostWaitSeconds);
                    st.bind(11, r.idleKernelWaitSeconds);
                    if (!st.run())
                        return false;
                }
            return true;
        }

        bool collectives(const RunAnalysis& a)
        {
            Statement st(m_db,
                "INSERT INTO run_collectives(run_id, seq, op, process_group, bytes, ranks, duration_us,"
                " algbw_gbps, busbw_gbps, last_arrival_rank, wait_us, group_seq, step, ranks_seen,"
                " total_wait_us, first_start_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
                " ?13, ?14, ?15, ?16)");
            for (std::size_t i = 0; i < a.collectives.size(); ++i) {
                const CollectiveSummary& c = a.collectives[i];
                row(i);
                st.reset();
                st.bind(1, m_runId);
                st.bind(2, I64(i));
                st.bind(3, std::string(toString(c.op)));
                st.bind(4, c.processGroup);
                st.bind(5, c.bytes); // integer bytes; the column's REAL affinity keeps them exact below 2^53
                st.bind(6, I64(c.groupSize));
                st.bind(7, c.durationUs);
                st.bind(8, c.algbwGbps);
                st.bind(9, c.busbwGbps);
                st.bind(10, I64(c.lastArrivalRank));
                st.bind(11, c.waitUs);
                st.bind(12, c.sequence);
                st.bind(13, c.step);
                st.bind(14, I64(c.ranksSeen));
                st.bind(15, c.totalWaitUs);
                st.bind(16, c.firstStartNs);
                if (!st.run())
                    return false;
            }
            return true;
        }

        bool stragglers(const RunAnalysis& a)
        {
            Statement st(m_db,
                "INSERT INTO run_stragglers(run_id, position, rank, last_arrivals, wait_caused_us)"
                " VALUES (?1, ?2, ?3, ?4, ?5)");
            for (std::size_t i = 0; i < a.stragglers.size(); ++i) {
                st.reset();
                st.bind(1, m_runId);
                st.bind(2, I64(i));
                st.bind(3, I64(a.stragglers[i].rank));
                st.bind(4, I64(a.stragglers[i].lastArrivals));
                st.bind(5, a.stragglers[i].waitCausedUs);
                if (!st.run())
                    return false;
            }
            return true;
        }

        // The sparse pairs as they are: a 16,384-rank data-parallel ring is ~2 rows per rank.
        bool traffic(const RunAnalysis& a)
        {
            Statement st(m_db, "INSERT INTO run_traffic(run_id, src, dst, bytes) VALUES (?1, ?2, ?3, ?4)");
            for (std::size_t i = 0; i < a.traffic.pairs.size(); ++i) {
                const RankTrafficPair& p = a.traffic.pairs[i];
                if (p.src < 0 || p.dst < 0 || p.src >= a.traffic.ranks || p.dst >= a.traffic.ranks || p.src == p.dst
                    || (i > 0
                        && !(a.traffic.pairs[i - 1].src < p.src
                            || (a.traffic.pairs[i - 1].src == p.src && a.traffic.pairs[i - 1].dst < p.dst))))
                    return false; // not a MeasuredTraffic (makeMeasuredTraffic keeps the invariant)
                row(i);
                st.reset();
                st.bind(1, m_runId);
                st.bind(2, I64(p.src));
                st.bind(3, I64(p.dst));
                st.bind(4, p.bytes);
                if (!st.run())
                    return false;
            }
            return true;
        }

        bool diagnostics(const Run& run, const RunAnalysis& a)
        {
            Statement st(m_db,
                "INSERT INTO run_diagnostics(run_id, position, origin, id, severity, count, message)"
                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
            I64 position = 0;
            for (const auto& [origin, list] :
                { std::pair { "import", &run.diagnostics }, std::pair { "analysis", &a.diagnostics } })
                for (const Diagnostic& d : list->items()) {
                    st.reset();
                    st.bind(1, m_runId);
                    st.bind(2, position++);
                    st.bind(3, std::string(origin));
                    st.bind(4, d.id);
                    st.bind(5, std::string(toString(d.severity)));
                    st.bind(6, d.count);
                    st.bind(7, d.message);
                    if (!st.run())
                        return false;
                }
            return true;
        }

        sqlite3* m_db;
        I64 m_runId;
        const RunStoreOptions& m_options;
    };

} // namespace

RunStore::RunStore(ProjectStore& project)
    : m_project(&project)
{
}

Result<std::int64_t> RunStore::add(const std::string& name, const std::vector<std::string>& sources, const Run& run,
    const RunAnalysis& analysis, const RunStoreOptions& options)
{
    sqlite3* db = m_project->handle();
    const std::string& path = m_project->path();
    const std::string what = "cannot store the run \"" + name + "\"";
    Transaction tx(db);
    if (!tx.ok())
        return Status::error(dbError(db, path, what));
    StoredRunSummary summary = summarize(run, analysis);
    summary.sources = sources;
    std::string joined;
    for (const std::string& s : sources)
        joined += (joined.empty() ? "" : "\n") + s;
    Statement insert(db, "INSERT INTO runs(name, source, imported, summary_json) VALUES (?1, ?2, datetime('now'), ?3)");
    insert.bind(1, name);
    insert.bind(2, joined);
    insert.bind(3, summaryJson(summary, analysis.traffic.ranks));
    if (!insert.run())
        return Status::error(dbError(db, path, what));
    const I64 id = sqlite3_last_insert_rowid(db);
    try {
        RunWriter writer(db, id, options);
        if (!writer.write(run, analysis))
            return Status::error(dbError(db, path, what));
    } catch (const Cancelled&) {
        return Status::error(path + ": storing the run \"" + name + "\" was cancelled; the project is unchanged");
    }
    if (!tx.commit())
        return Status::error(dbError(db, path, what));
    return id;
}

Result<std::vector<StoredRunSummary>> RunStore::list() const
{
    sqlite3* db = m_project->handle();
    Statement st(db, "SELECT id, name, imported, summary_json FROM runs ORDER BY id");
    std::vector<StoredRunSummary> out;
    while (st.step()) {
        StoredRunSummary s;
        s.id = st.columnInt64(0);
        s.name = st.columnText(1);
        s.importedUtc = st.columnText(2);
        std::int32_t trafficRanks = 0;
        if (!readSummaryJson(st.columnText(3), s, trafficRanks))
            return Status::error(m_project->path() + ": run " + std::to_string(s.id) + " has a damaged summary");
        out.push_back(std::move(s));
    }
    if (!st.done())
        return Status::error(dbError(db, m_project->path(), "cannot list the runs"));
    return out;
}

Result<StoredRun> RunStore::load(std::int64_t id) const
{
    sqlite3* db = m_project->handle();
    const std::string& path = m_project->path();
    const std::string what = "cannot read run " + std::to_string(id);
    StoredRun out;
    std::int32_t trafficRanks = 0;
    {
        Statement st(db, "SELECT id, name, imported, summary_json FROM runs WHERE id = ?1");
        st.bind(1, id);
        if (!st.step())
            return Status::error(
                st.done() ? path + ": there is no run " + std::to_string(id) : dbError(db, path, what));
        out.summary.id = st.columnInt64(0);
        out.summary.name = st.columnText(1);
        out.summary.importedUtc = st.columnText(2);
        // The dense matrix below has traffic_ranks^2 cells: a damaged count must not become a huge allocation.
        if (!readSummaryJson(st.columnText(3), out.summary, trafficRanks) || trafficRanks < 0
            || trafficRanks > (1 << 15))
            return Status::error(path + ": run " + std::to_string(id) + " has a damaged summary");
    }
    RunAnalysis& a = out.analysis;
    bool ok = true;
    auto query = [&](const char* sql, auto&& onRow) {
        Statement st(db, sql);
        st.bind(1, id);
        while (st.step())
            onRow(st);
        ok = ok && st.done();
    };
    query("SELECT rank, world_size, source_file, gpu, gpu_memory_bytes, nccl_version, clock_offset_ns FROM run_ranks"
          " WHERE run_id = ?1 ORDER BY position",
        [&](Statement& st) {
            out.ranks.push_back({ st.columnInt(0), st.columnInt(1), st.columnText(2), st.columnText(3),
                st.columnInt64(4), st.columnText(5) });
            a.clockOffsetNs.push_back(st.columnInt64(6));
        });
    // Insertion order (rowid) is the analysis' order of steps and of ranks within a step.
    query("SELECT step, rank, duration_s, compute_s, comm_exposed_s, comm_overlapped_s, memcpy_s, idle_s,"
          " idle_host_wait_s, idle_kernel_wait_s FROM run_rank_steps WHERE run_id = ?1 ORDER BY rowid",
        [&](Statement& st) {
            const I64 step = st.columnInt64(0);
            if (a.steps.empty() || a.steps.back().step != step)
                a.steps.push_back({ step, {} });
            a.steps.back().ranks.push_back(
                { st.columnInt(1), st.columnDouble(2), st.columnDouble(3), st.columnDouble(4), st.columnDouble(5),
                    st.columnDouble(6), st.columnDouble(7), st.columnDouble(8), st.columnDouble(9) });
        });
    query("SELECT op, process_group, bytes, ranks, duration_us, algbw_gbps, busbw_gbps, last_arrival_rank, wait_us,"
          " group_seq, step, ranks_seen, total_wait_us, first_start_ns FROM run_collectives WHERE run_id = ?1 ORDER BY "
          "seq",
        [&](Statement& st) {
            CollectiveSummary c;
            c.op = parseRunCollectiveOp(st.columnText(0));
            c.processGroup = st.columnText(1);
            c.bytes = st.columnInt64(2);
            c.groupSize = st.columnInt(3);
            c.durationUs = st.columnDouble(4);
            c.algbwGbps = st.columnDouble(5);
            c.busbwGbps = st.columnDouble(6);
            c.lastArrivalRank = st.columnInt(7);
            c.waitUs = st.columnDouble(8);
            c.sequence = st.columnInt64(9);
            c.step = st.columnInt64(10);
            c.ranksSeen = st.columnInt(11);
            c.totalWaitUs = st.columnDouble(12);
            c.firstStartNs = st.columnInt64(13);
            a.collectives.push_back(std::move(c));
        });
    query("SELECT rank, last_arrivals, wait_caused_us FROM run_stragglers WHERE run_id = ?1 ORDER BY position",
        [&](Statement& st) {
            a.stragglers.push_back({ st.columnInt(0), st.columnInt(1), st.columnDouble(2) });
        });
    // The primary key (run_id, src, dst) of the WITHOUT ROWID table returns the pairs sorted.
    // The tail each straggler causes is derived from the stored collectives (the table predates it).
    if (!a.collectives.empty())
        a.stragglers = rankStragglers(a.collectives);
    a.traffic.ranks = trafficRanks;
    query("SELECT src, dst, bytes FROM run_traffic WHERE run_id = ?1 ORDER BY src, dst", [&](Statement& st) {
        const I64 src = st.columnInt64(0), dst = st.columnInt64(1);
        if (src < 0 || dst < 0 || src >= trafficRanks || dst >= trafficRanks) {
            ok = false;
            return;
        }
        a.traffic.pairs.push_back({ std::int32_t(src), std::int32_t(dst), st.columnDouble(2) });
    });
    query("SELECT origin, id, severity, count, message FROM run_diagnostics WHERE run_id = ?1 ORDER BY position",
        [&](Statement& st) {
            Diagnostics& into = st.columnText(0) == "import" ? out.importDiagnostics : a.diagnostics;
            restoreDiagnostic(
                into, st.columnText(1), parseSeverity(st.columnText(2)), st.columnText(4), st.columnInt64(3));
        });
    if (!ok)
        return Status::error(dbError(db, path, what));
    return out;
}

Result<std::vector<RankStepBreakdown>> RunStore::stepRanks(
    std::int64_t id, std::int64_t step, std::int32_t firstRank, std::int32_t count) const
{
    sqlite3* db = m_project->handle();
    // The primary key (run_id, step, rank) serves the seek and the order.
    Statement st(db,
        "SELECT rank, duration_s, compute_s, comm_exposed_s, comm_overlapped_s, memcpy_s, idle_s,"
        " idle_host_wait_s, idle_kernel_wait_s FROM run_rank_steps WHERE run_id = ?1 AND step = ?2 AND rank >= ?3"
        " ORDER BY rank LIMIT ?4");
    st.bind(1, id);
    st.bind(2, step);
    st.bind(3, I64(firstRank));
    st.bind(4, I64(std::max(count, 0)));
    std::vector<RankStepBreakdown> out;
    while (st.step())
        out.push_back({ st.columnInt(0), st.columnDouble(1), st.columnDouble(2), st.columnDouble(3), st.columnDouble(4),
            st.columnDouble(5), st.columnDouble(6), st.columnDouble(7), st.columnDouble(8) });
    if (!st.done())
        return Status::error(dbError(db, m_project->path(), "cannot read the steps of run " + std::to_string(id)));
    return out;
}

Result<std::vector<StoredRunRank>> RunStore::rankFiles(
    std::int64_t id, std::int32_t first, std::int32_t count, std::vector<std::int64_t>* clockOffsetsNs) const
{
    sqlite3* db = m_project->handle();
    Statement st(db,
        "SELECT rank, world_size, source_file, gpu, gpu_memory_bytes, nccl_version, clock_offset_ns FROM run_ranks"
        " WHERE run_id = ?1 AND position >= ?2 ORDER BY position LIMIT ?3");
    st.bind(1, id);
    st.bind(2, I64(first));
    st.bind(3, I64(std::max(count, 0)));
    std::vector<StoredRunRank> out;
    while (st.step()) {
        out.push_back({ st.columnInt(0), st.columnInt(1), st.columnText(2), st.columnText(3), st.columnInt64(4),
            st.columnText(5) });
        if (clockOffsetsNs)
            clockOffsetsNs->push_back(st.columnInt64(6));
    }
    if (!st.done())
        return Status::error(dbError(db, m_project->path(), "cannot read the ranks of run " + std::to_string(id)));
    return out;
}

Status RunStore::remove(std::int64_t id)
{
    sqlite3* db = m_project->handle();
    const std::string& path = m_project->path();
    Transaction tx(db);
    Statement st(db, "DELETE FROM runs WHERE id = ?1");
    st.bind(1, id);
    if (!tx.ok() || !st.run())
        return Status::error(dbError(db, path, "cannot delete run " + std::to_string(id)));
    if (sqlite3_changes(db) == 0)
        return Status::error(path + ": there is no run " + std::to_string(id));
    if (!tx.commit())
        return Status::error(dbError(db, path, "cannot delete run " + std::to_string(id)));
    return Status::success();
}

} // namespace clusterscope::engine
