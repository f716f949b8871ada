#include "engine/store/sqlitestatement.h"

#include <sqlite3.h>

namespace clusterscope::engine {

Statement::Statement(sqlite3* db, const char* sql)
{
    if (sqlite3_prepare_v2(db, sql, -1, &m_statement, nullptr) != SQLITE_OK) {
        sqlite3_finalize(m_statement);
        m_statement = nullptr;
    }
}

Statement::~Statement() { sqlite3_finalize(m_statement); }

void Statement::bind(int index, std::int64_t value)
{
    if (m_statement && sqlite3_bind_int64(m_statement, index, value) != SQLITE_OK)
        m_failed = true;
}

void Statement::bind(int index, double value)
{
    if (m_statement && sqlite3_bind_double(m_statement, index, value) != SQLITE_OK)
        m_failed = true;
}

void Statement::bind(int index, const std::string& value)
{
    if (m_statement
        && sqlite3_bind_text(m_statement, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT)
            != SQLITE_OK)
        m_failed = true;
}

bool Statement::step()
{
    if (!ok())
        return false;
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        m_done = true;
    else
        m_failed = true;
    return false;
}

bool Statement::run()
{
    while (step()) { }
    return m_done && !m_failed;
}

void Statement::reset()
{
    if (!m_statement)
        return;
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
    m_done = false;
    m_failed = false;
}

int Statement::columnInt(int column) const { return sqlite3_column_int(m_statement, column); }
std::int64_t Statement::columnInt64(int column) const { return sqlite3_column_int64(m_statement, column); }
double Statement::columnDouble(int column) const { return sqlite3_column_double(m_statement, column); }

std::string Statement::columnText(int column) const
{
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_statement, column));
    return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)))
                : std::string();
}

Transaction::Transaction(sqlite3* db)
    : m_db(db)
{
    m_open = sqlite3_exec(m_db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK;
}

Transaction::~Transaction()
{
    if (m_open)
        sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

bool Transaction::commit()
{
    if (!m_open)
        return false;
    const bool committed = sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    m_open = !committed;
    return committed;
}

} // namespace clusterscope::engine
