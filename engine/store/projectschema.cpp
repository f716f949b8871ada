#include "engine/store/projectschema.h"

#include "engine/store/sqlitestatement.h"

#include <sqlite3.h>

namespace clusterscope::engine {

namespace {

    const char* const kMigrations[] = {
        // 1: scenarios and their results.
        "CREATE TABLE scenarios ("
        "  id INTEGER PRIMARY KEY, position INTEGER NOT NULL, name TEXT NOT NULL, json TEXT NOT NULL,"
        "  modified TEXT NOT NULL);"
        "CREATE TABLE results ("
        "  scenario_id INTEGER NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE, kind TEXT NOT NULL,"
        "  json TEXT NOT NULL, engine_version TEXT NOT NULL, created TEXT NOT NULL,"
        "  PRIMARY KEY (scenario_id, kind));",
        // 2: named documents (calibrations, settings) and imported runs with their per-rank and
        // per-collective rows, so reopening a project needs no re-parse.
        "CREATE TABLE documents ("
        "  kind TEXT NOT NULL, name TEXT NOT NULL, json TEXT NOT NULL, modified TEXT NOT NULL,"
        "  PRIMARY KEY (kind, name));"
        "CREATE TABLE runs ("
        "  id INTEGER PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, imported TEXT NOT NULL,"
        "  summary_json TEXT NOT NULL);"
        "CREATE TABLE run_rank_steps ("
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,"
        "  rank INTEGER NOT NULL, duration_s REAL, compute_s REAL, comm_exposed_s REAL,"
        "  comm_overlapped_s REAL, memcpy_s REAL, idle_s REAL, PRIMARY KEY (run_id, step, rank));"
        "CREATE TABLE run_collectives ("
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL,"
        "  op TEXT NOT NULL, process_group TEXT, bytes REAL, ranks INTEGER, duration_us REAL,"
        "  algbw_gbps REAL, busbw_gbps REAL, last_arrival_rank INTEGER, wait_us REAL,"
        "  PRIMARY KEY (run_id, seq));",
        // 3: the rest of a stored run (engine/store/runstore.h): the collectives' per-group sequence,
        // step, ranks seen, total wait and aligned first start; the rank files with their clock
        // offsets; stragglers; the measured traffic matrix as its non-zero pairs; diagnostics.
        "ALTER TABLE run_collectives ADD COLUMN group_seq INTEGER NOT NULL DEFAULT 0;"
        "ALTER TABLE run_collectives ADD COLUMN step INTEGER NOT NULL DEFAULT -1;"
        "ALTER TABLE run_collectives ADD COLUMN ranks_seen INTEGER NOT NULL DEFAULT 0;"
        "ALTER TABLE run_collectives ADD COLUMN total_wait_us REAL NOT NULL DEFAULT 0;"
        "ALTER TABLE run_collectives ADD COLUMN first_start_ns INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE run_ranks ("
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, position INTEGER NOT NULL,"
        "  rank INTEGER NOT NULL, world_size INTEGER NOT NULL, source_file TEXT NOT NULL, gpu TEXT NOT NULL,"
        "  gpu_memory_bytes INTEGER NOT NULL, nccl_version TEXT NOT NULL, clock_offset_ns INTEGER NOT NULL,"
        "  PRIMARY KEY (run_id, position));"
        "CREATE TABLE run_stragglers ("
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, position INTEGER NOT NULL,"
        "  rank INTEGER NOT NULL, last_arrivals INTEGER NOT NULL, wait_caused_us REAL NOT NULL,"
        "  PRIMARY KEY (run_id, position));"
        "CREATE TABLE run_traffic ("
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, src INTEGER NOT NULL,"
        "  dst INTEGER NOT NULL, bytes REAL NOT NULL, PRIMARY KEY (run_id, src, dst)) WITHOUT ROWID;"
        "CREATE TABLE run_diagnostics ("
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, position INTEGER NOT NULL,"
        "  origin TEXT NOT NULL, id TEXT NOT NULL, severity TEXT NOT NULL, count INTEGER NOT NULL,"
        "  message TEXT NOT NULL, PRIMARY KEY (run_id, position));",
        // 4: the idle time of a rank's step split into host-wait and kernel-wait.
        "ALTER TABLE run_rank_steps ADD COLUMN idle_host_wait_s REAL NOT NULL DEFAULT 0;"
        "ALTER TABLE run_rank_steps ADD COLUMN idle_kernel_wait_s REAL NOT NULL DEFAULT 0;",
        // 5: imported fabrics (ibnetdiscover dumps) beside the scenarios: the dump itself, so the
        // analysis can be redone by a newer importer, and a JSON summary for listing.
        "CREATE TABLE fabrics ("
        "  id INTEGER PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, imported TEXT NOT NULL,"
        "  dump TEXT NOT NULL, summary_json TEXT NOT NULL);",
    };

} // namespace

std::span<const char* const> projectMigrations() { return kMigrations; }

Status migrateProject(sqlite3* db, const std::string& path, int fromVersion)
{
    const auto migrations = projectMigrations();
    if (fromVersion < 0)
        return Status::error(path + ": cannot upgrade the project from schema " + std::to_string(fromVersion));
    for (int version = fromVersion; version < static_cast<int>(migrations.size()); ++version) {
        Transaction tx(db);
        char* message = nullptr;
        const std::string sql
            = std::string(migrations[version]) + "PRAGMA user_version = " + std::to_string(version + 1) + ";";
        if (!tx.ok() || sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK || !tx.commit()) {
            const std::string why = message ? message : sqlite3_errmsg(db);
            sqlite3_free(message);
            return Status::error(path + ": cannot upgrade the project from schema " + std::to_string(version) + " to "
                + std::to_string(version + 1) + " (" + why + ")");
        }
    }
    return Status::success();
}

} // namespace clusterscope::engine
