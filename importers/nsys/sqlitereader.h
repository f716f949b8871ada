#pragma once

#include "engine/core/status.h"

#include <cstdint>
#include <functional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace clusterscope::importers {

/// One result row of SqliteReader::forEach (valid during the callback only).
class SqliteRow {
public:
    explicit SqliteRow(sqlite3_stmt* statement)
        : m_statement(statement)
    {
    }
    std::int64_t integer(int column) const;
    std::string text(int column) const;
    bool isNull(int column) const;

private:
    sqlite3_stmt* m_statement;
};

/// A read-only SQLite database (the sqlite3 C API); errors name the file and the statement.
class SqliteReader {
public:
    static engine::Result<SqliteReader> open(const std::string& path);
    SqliteReader(SqliteReader&& other) noexcept;
    SqliteReader& operator=(SqliteReader&&) = delete;
    SqliteReader(const SqliteReader&) = delete;
    ~SqliteReader();

    bool hasTable(const std::string& table) const;
    bool hasColumn(const std::string& table, const std::string& column) const;
    /// Runs `sql` and calls `row` for each result row.
    engine::Status forEach(const std::string& sql, const std::function<void(const SqliteRow&)>& row) const;

private:
    SqliteReader(sqlite3* db, std::string path)
        : m_db(db)
        , m_path(std::move(path))
    {
    }
    sqlite3* m_db = nullptr;
    std::string m_path;
};

} // namespace clusterscope::importers
