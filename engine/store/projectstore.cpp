#include "engine/store/projectstore.h"

#include "engine/scenario/scenariojson.h"
#include "engine/store/projectschema.h"
#include "engine/store/sqlitestatement.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace clusterscope::engine {

namespace {

    constexpr int kApplicationId = 0x43534350; // "CSCP": marks a SQLite file as a ClusterScope project

    bool fileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

    void removeDatabaseFiles(const std::string& path)
    {
        std::remove(path.c_str());
        std::remove((path + "-wal").c_str());
        std::remove((path + "-shm").c_str());
        std::remove((path + "-journal").c_str());
    }

    Result<sqlite3*> openConnection(const std::string& path, bool create)
    {
        sqlite3* db = nullptr;
        const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
        if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
            const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
            sqlite3_close(db);
            return Status::error(path + ": cannot open the project (" + why + ")");
        }
        sqlite3_busy_timeout(db, 5000);
        sqlite3_extended_result_codes(db, 1);
        return db;
    }

    std::string sqliteError(sqlite3* db, const std::string& path, const std::string& what)
    {
        return path + ": " + what + " (" + sqlite3_errmsg(db) + ")";
    }

} // namespace

int ProjectStore::currentSchemaVersion() { return static_cast<int>(projectMigrations().size()); }

ProjectStore::ProjectStore(sqlite3* db, std::string path)
    : m_db(db)
    , m_path(std::move(path))
{
}

ProjectStore::ProjectStore(ProjectStore&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr))
    , m_path(std::move(other.m_path))
{
}

ProjectStore& ProjectStore::operator=(ProjectStore&& other) noexcept
{
    if (this != &other) {
        sqlite3_close(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
    }
    return *this;
}

ProjectStore::~ProjectStore() { sqlite3_close(m_db); }

std::string ProjectStore::error(const std::string& what) const { return sqliteError(m_db, m_path, what); }

Status ProjectStore::exec(const char* sql) const
{
    char* message = nullptr;
    if (sqlite3_exec(m_db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = m_path + ": " + (message ? message : "SQL error");
        sqlite3_free(message);
        return Status::error(text);
    }
    return Status::success();
}

int ProjectStore::schemaVersion() const
{
    Statement st(m_db, "PRAGMA user_version");
    return st.step() ? st.columnInt(0) : -1;
}

Result<ProjectStore> ProjectStore::create(const std::string& path)
{
    const std::string temporary = path + ".new-" + std::to_string(::getpid());
    removeDatabaseFiles(temporary);
    {
        auto db = openConnection(temporary, true);
        if (!db)
            return db.status();
        ProjectStore store(*db, temporary);
        if (auto s = store.exec(("PRAGMA application_id = " + std::to_string(kApplicationId)).c_str()); !s)
            return s;
        if (auto s = migrateProject(store.m_db, temporary, 0); !s) {
            removeDatabaseFiles(temporary);
            return s;
        }
        // Leave no WAL beside the temporary file: the rename must carry the whole database.
        if (auto s = store.exec("PRAGMA journal_mode = DELETE"); !s)
            return s;
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        removeDatabaseFiles(temporary);
        return Status::error(path + ": cannot create the project file");
    }
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    return open(path);
}

Result<ProjectStore> ProjectStore::open(const std::string& path)
{
    if (!fileExists(path))
        return Status::error(path + ": no such project file");
    auto db = openConnection(path, false);
    if (!db)
        return db.status();
    return checkAndMigrate(*db, path);
}

Result<ProjectStore> ProjectStore::openImage(std::string_view bytes, const std::string& name)
{
    auto db = openConnection(":memory:", false);
    if (!db)
        return db.status();
    ProjectStore store(*db, name);
    // sqlite3_deserialize takes a buffer from sqlite3_malloc64 and frees it on close
    // (https://sqlite.org/c3ref/deserialize.html); RESIZEABLE lets a migration grow the database.
    auto* image = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size() ? bytes.size() : 1));
    if (!image)
        return Status::error(name + ": cannot open the project (out of memory)");
    std::copy(bytes.begin(), bytes.end(), image);
    // A project saved in WAL mode says so in header bytes 18 and 19 (https://sqlite.org/fileformat.html,
    // 1.3.5); an in-memory database has no WAL file and would refuse it: read it in rollback mode.
    if (bytes.size() >= 20 && image[18] == 2 && image[19] == 2)
        image[18] = image[19] = 1;
    const auto size = static_cast<sqlite3_int64>(bytes.size());
    if (sqlite3_deserialize(
            store.m_db, "main", image, size, size, SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE)
        != SQLITE_OK)
        return Status::error(sqliteError(store.m_db, name, "cannot open the project"));
    return checkAndMigrate(std::exchange(store.m_db, nullptr), name);
}

Result<ProjectStore> ProjectStore::checkAndMigrate(sqlite3* db, const std::string& path)
{
    ProjectStore store(db, path);
    int applicationId = 0;
    {
        Statement st(store.m_db, "PRAGMA application_id");
        if (!st.ok() || !st.step()) {
            return Status::error(path + ": not a ClusterScope project (not an SQLite database)");
        }
        applicationId = st.columnInt(0);
    }
    if (applicationId != kApplicationId)
        return Status::error(path + ": not a ClusterScope project (an SQLite database of another application)");
    const int version = store.schemaVersion();
    // PRAGMA user_version is a signed 32-bit integer (https://www.sqlite.org/pragma.html#pragma_user_version);
    // ClusterScope writes 1 and up, so a negative one is damage, not a schema to migrate from.
    if (version < 0)
        return Status::error(path + ": not a ClusterScope project (schema version " + std::to_string(version)
            + " is not one ClusterScope writes)");
    if (version > currentSchemaVersion())
        return Status::error(path + ": written by a newer ClusterScope (project schema " + std::to_string(version)
            + "; this version reads up to " + std::to_string(currentSchemaVersion()) + ")");
    if (auto s = store.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL"); !s)
        return s;
    if (version < currentSchemaVersion()) {
        if (auto s = migrateProject(store.m_db, path, version); !s)
            return s;
    }
    return store;
}

Result<std::vector<StoredScenario>> ProjectStore::scenarios() const
{
    Statement st(m_db, "SELECT id, name, json FROM scenarios ORDER BY position, id");
    if (!st.ok())
        return Status::error(error("cannot read scenarios"));
    std::vector<StoredScenario> list;
    while (st.step()) {
        const std::int64_t id = st.columnInt64(0);
        auto parsed = parseScenarioJson(st.columnText(2), m_path + " (scenario " + std::to_string(id) + ")");
        if (!parsed)
            return parsed.status();
        list.push_back({ id, std::move(*parsed) });
    }
    if (!st.done())
        return Status::error(error("cannot read scenarios"));
    return list;
}

Result<std::vector<std::int64_t>> ProjectStore::saveScenarios(const std::vector<StoredScenario>& scenarios)
{
    Transaction tx(m_db);
    if (!tx.ok())
        return Status::error(error("cannot start saving"));
    std::vector<std::int64_t> ids;
    {
        Statement update(m_db,
            "UPDATE scenarios SET position = ?1, name = ?2, json = ?3, modified = datetime('now') "
            "WHERE id = ?4");
        Statement insert(
            m_db, "INSERT INTO scenarios(position, name, json, modified) VALUES (?1, ?2, ?3, datetime('now'))");
        if (!update.ok() || !insert.ok())
            return Status::error(error("cannot save scenarios"));
        for (std::size_t i = 0; i < scenarios.size(); ++i) {
            const StoredScenario& s = scenarios[i];
            const std::string json = scenarioToJson(s.scenario);
            Statement& st = s.id > 0 ? update : insert;
            st.reset();
            st.bind(1, static_cast<std::int64_t>(i));
            st.bind(2, s.scenario.name);
            st.bind(3, json);
            if (s.id > 0)
                st.bind(4, s.id);
            if (!st.run())
                return Status::error(error("cannot save scenario \"" + s.scenario.name + "\""));
            if (s.id > 0 && sqlite3_changes(m_db) == 0)
                return Status::error(m_path + ": scenario id " + std::to_string(s.id) + " is not in this project");
            ids.push_back(s.id > 0 ? s.id : sqlite3_last_insert_rowid(m_db));
        }
    }
    // Delete scenarios that are no longer in the list (their results cascade).
    std::string keep;
    for (std::int64_t id : ids)
        keep += (keep.empty() ? "" : ",") + std::to_string(id);
    const std::string sql
        = "DELETE FROM scenarios" + (keep.empty() ? std::string() : " WHERE id NOT IN (" + keep + ")");
    if (auto s = exec(sql.c_str()); !s)
        return s;
    if (!tx.commit())
        return Status::error(error("cannot commit the save"));
    return ids;
}

Status ProjectStore::putResult(std::int64_t scenarioId, const StoredResult& result)
{
    Statement st(m_db,
        "INSERT OR REPLACE INTO results(scenario_id, kind, json, engine_version, created) "
        "VALUES (?1, ?2, ?3, ?4, datetime('now'))");
    st.bind(1, scenarioId);
    st.bind(2, result.kind);
    st.bind(3, result.json);
    st.bind(4, result.engineVersion);
    if (!st.run())
        return Status::error(
            error("cannot store the " + result.kind + " result of scenario " + std::to_string(scenarioId)));
    return Status::success();
}

Result<StoredResult> ProjectStore::result(std::int64_t scenarioId, const std::string& kind) const
{
    Statement st(m_db, "SELECT json, engine_version FROM results WHERE scenario_id = ?1 AND kind = ?2");
    st.bind(1, scenarioId);
    st.bind(2, kind);
    if (!st.ok())
        return Status::error(error("cannot read results"));
    StoredResult r { kind, {}, {} };
    if (st.step()) {
        r.json = st.columnText(0);
        r.engineVersion = st.columnText(1);
    }
    return r;
}

Status ProjectStore::putDocument(const std::string& kind, const std::string& name, const std::string& json)
{
    Statement st(
        m_db, "INSERT OR REPLACE INTO documents(kind, name, json, modified) VALUES (?1, ?2, ?3, datetime('now'))");
    st.bind(1, kind);
    st.bind(2, name);
    st.bind(3, json);
    if (!st.run())
        return Status::error(error("cannot store " + kind + " \"" + name + "\""));
    return Status::success();
}

Result<std::string> ProjectStore::document(const std::string& kind, const std::string& name) const
{
    Statement st(m_db, "SELECT json FROM documents WHERE kind = ?1 AND name = ?2");
    st.bind(1, kind);
    st.bind(2, name);
    if (!st.ok())
        return Status::error(error("cannot read documents"));
    if (!st.step())
        return Status::error(m_path + ": no " + kind + " named \"" + name + "\" in the project");
    return st.columnText(0);
}

Result<std::vector<std::string>> ProjectStore::documentNames(const std::string& kind) const
{
    Statement st(m_db, "SELECT name FROM documents WHERE kind = ?1 ORDER BY name");
    st.bind(1, kind);
    if (!st.ok())
        return Status::error(error("cannot read documents"));
    std::vector<std::string> names;
    while (st.step())
        names.push_back(st.columnText(0));
    return names;
}

Status ProjectStore::removeDocument(const std::string& kind, const std::string& name)
{
    Statement st(m_db, "DELETE FROM documents WHERE kind = ?1 AND name = ?2");
    st.bind(1, kind);
    st.bind(2, name);
    if (!st.run())
        return Status::error(error("cannot remove " + kind + " \"" + name + "\""));
    return Status::success();
}

Status ProjectStore::saveAs(const std::string& path)
{
    if (path == m_path)
        return Status::success();
    const std::string temporary = path + ".new-" + std::to_string(::getpid());
    removeDatabaseFiles(temporary);
    {
        auto target = openConnection(temporary, true);
        if (!target)
            return target.status();
        sqlite3_backup* backup = sqlite3_backup_init(*target, "main", m_db, "main");
        int rc = backup ? sqlite3_backup_step(backup, -1) : SQLITE_ERROR;
        sqlite3_backup_finish(backup);
        if (rc == SQLITE_DONE)
            rc = sqlite3_exec(*target, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK && rc != SQLITE_DONE) {
            const std::string why = sqliteError(*target, path, "cannot write the copy");
            sqlite3_close(*target);
            removeDatabaseFiles(temporary);
            return Status::error(why);
        }
        sqlite3_close(*target);
    }
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        removeDatabaseFiles(temporary);
        return Status::error(path + ": cannot move the saved copy into place");
    }
    auto reopened = open(path);
    if (!reopened)
        return reopened.status();
    *this = std::move(*reopened);
    return Status::success();
}

} // namespace clusterscope::engine
