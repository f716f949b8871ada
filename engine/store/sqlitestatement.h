#pragma once

// Small RAII wrappers over the sqlite3 C API for the store's .cpp files.

#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace clusterscope::engine {

class Statement {
public:
    Statement(sqlite3* db, const char* sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    bool ok() const { return m_statement != nullptr && !m_failed; }
    void bind(int index, std::int64_t value);
    void bind(int index, double value);
    void bind(int index, const std::string& value);
    /// Steps once: true while a row is available.
    bool step();
    /// Runs to completion (INSERT/UPDATE/DELETE): true on success.
    bool run();
    /// True once step() has returned false because the statement finished (not because of an error).
    bool done() const { return m_done; }
    void reset();

    int columnInt(int column) const;
    std::int64_t columnInt64(int column) const;
    double columnDouble(int column) const;
    std::string columnText(int column) const;

private:
    sqlite3_stmt* m_statement = nullptr;
    bool m_failed = false;
    bool m_done = false;
};

/// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() succeeded.
class Transaction {
public:
    explicit Transaction(sqlite3* db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    bool ok() const { return m_open; }
    bool commit();

private:
    sqlite3* m_db;
    bool m_open = false;
};

} // namespace clusterscope::engine
