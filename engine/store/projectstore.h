#pragma once

// A ClusterScope project is one SQLite file: scenarios, their evaluation results, calibrations and
// imported runs. The file is the live database (WAL journal, foreign keys on): every save is one
// transaction, so killing the process mid-save leaves either the old or the new project, never a
// mix. "Save As" copies the database with SQLite's online backup into a temporary file beside the
// target and renames it into place.

#include "engine/core/status.h"
#include "engine/scenario/scenario.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace clusterscope::engine {

struct StoredScenario {
    std::int64_t id = 0; ///< row id; 0 for a scenario not stored yet
    Scenario scenario; ///< its name is the scenario's name
};

/// A stored result blob: one evaluation (kind "evaluate", "search", "fabric", ...) of one scenario.
struct StoredResult {
    std::string kind;
    std::string json; ///< the result as JSON text
    std::string engineVersion; ///< version of the engine that produced it
};

class ProjectStore {
public:
    /// Schema version this build writes. Files with an older version are migrated on open.
    static int currentSchemaVersion();

    /// Creates a new, empty project at `path` (an existing file there is replaced atomically).
    static Result<ProjectStore> create(const std::string& path);
    /// Opens an existing project, migrating an older schema. Refuses files that are not
    /// ClusterScope projects and projects written by a newer version, naming the file.
    static Result<ProjectStore> open(const std::string& path);
    /// Opens the bytes of a project file held in memory (SQLite's memdb, nothing touches the disk),
    /// with the same checks and migration as open(); `name` stands for the file in messages.
    static Result<ProjectStore> openImage(std::string_view bytes, const std::string& name);

    ProjectStore(ProjectStore&&) noexcept;
    ProjectStore& operator=(ProjectStore&&) noexcept;
    ~ProjectStore();

    const std::string& path() const { return m_path; }
    int schemaVersion() const;

    Result<std::vector<StoredScenario>> scenarios() const;
    /// Replaces the project's scenario list with `scenarios` (in this order) in one transaction;
    /// results of scenarios that are gone are deleted with them. Returns the ids, in order.
    Result<std::vector<std::int64_t>> saveScenarios(const std::vector<StoredScenario>& scenarios);

    /// Stores (replacing) the result of `kind` for a scenario.
    Status putResult(std::int64_t scenarioId, const StoredResult& result);
    /// The stored result of `kind`, or an empty json when there is none.
    Result<StoredResult> result(std::int64_t scenarioId, const std::string& kind) const;

    /// Stores a named JSON document in the project (calibrations, imported-run summaries, ...).
    Status putDocument(const std::string& kind, const std::string& name, const std::string& json);
    Result<std::string> document(const std::string& kind, const std::string& name) const;
    Result<std::vector<std::string>> documentNames(const std::string& kind) const;
    Status removeDocument(const std::string& kind, const std::string& name);

    /// Writes a copy of the whole project to `path` atomically and switches this store to it.
    Status saveAs(const std::string& path);

    /// Raw handle for store extensions inside the engine (runs, telemetry). Not for the GUI.
    sqlite3* handle() const { return m_db; }

private:
    ProjectStore(sqlite3* db, std::string path);
    /// The checks and migration shared by open() and openImage(); takes ownership of `db`.
    static Result<ProjectStore> checkAndMigrate(sqlite3* db, const std::string& path);
    Status exec(const char* sql) const;
    std::string error(const std::string& what) const;

    sqlite3* m_db = nullptr;
    std::string m_path;
};

} // namespace clusterscope::engine
