#include "importers/nsys/sqlitereader.h"

#include <sqlite3.h>

namespace clusterscope::importers {

using engine::Status;

std::int64_t SqliteRow::integer(int column) const { return sqlite3_column_int64(m_statement, column); }

std::string SqliteRow::text(int column) const
{
    const auto* p = sqlite3_column_text(m_statement, column);
    return p ? std::string(reinterpret_cast<const char*>(p), std::size_t(sqlite3_column_bytes(m_statement, column)))
             : std::string();
}

bool SqliteRow::isNull(int column) const { return sqlite3_column_type(m_statement, column) == SQLITE_NULL; }

engine::Result<SqliteReader> SqliteReader::open(const std::string& path)
{
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close(db);
        return Status::error(path + ": cannot open the SQLite database (" + message + ")");
    }
    return SqliteReader(db, path);
}

SqliteReader::SqliteReader(SqliteReader&& other) noexcept
    : m_db(other.m_db)
    , m_path(std::move(other.m_path))
{
    other.m_db = nullptr;
}

SqliteReader::~SqliteReader() { sqlite3_close(m_db); }

bool SqliteReader::hasTable(const std::string& table) const
{
    bool found = false;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(
            m_db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &st, nullptr)
        == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

bool SqliteReader::hasColumn(const std::string& table, const std::string& column) const
{
    bool found = false;
    const engine::Status status = forEach("PRAGMA table_info(\"" + table + "\")", [&](const SqliteRow& row) {
        if (row.text(1) == column)
            found = true;
    });
    return status.isOk() && found; // a table whose columns cannot be listed has none we can read
}

engine::Status SqliteReader::forEach(const std::string& sql, const std::function<void(const SqliteRow&)>& row) const
{
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        std::string message = sqlite3_errmsg(m_db);
        sqlite3_finalize(st);
        return Status::error(m_path + ": " + message + " (in \"" + sql + "\")");
    }
    int rc;
    const SqliteRow r(st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        row(r);
    std::string message = rc == SQLITE_DONE ? std::string() : sqlite3_errmsg(m_db);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return Status::error(m_path + ": " + message + " (in \"" + sql + "\")");
    return Status::success();
}

} // namespace clusterscope::importers
