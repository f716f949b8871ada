#include "engine/store/fabricstore.h"

#include "engine/store/projectstore.h"
#include "engine/store/sqlitestatement.h"

#include <sqlite3.h>

namespace clusterscope::engine {

namespace {
    std::string sqliteError(const ProjectStore& store, const std::string& what)
    {
        return store.path() + ": " + what + " (" + sqlite3_errmsg(store.handle()) + ")";
    }
} // namespace

Result<std::int64_t> storeImportedFabric(ProjectStore& store, const std::string& name, const std::string& source,
    std::string_view dump, const std::string& summaryJson)
{
    Statement st(store.handle(),
        "INSERT INTO fabrics(name, source, imported, dump, summary_json) VALUES (?1, ?2, datetime('now'), ?3, ?4)");
    st.bind(1, name);
    st.bind(2, source);
    st.bind(3, std::string(dump));
    st.bind(4, summaryJson);
    if (!st.run())
        return Status::error(sqliteError(store, "cannot store the imported fabric \"" + name + "\""));
    return std::int64_t(sqlite3_last_insert_rowid(store.handle()));
}

Result<std::vector<StoredFabric>> importedFabrics(const ProjectStore& store)
{
    Statement st(
        store.handle(), "SELECT id, name, source, imported, summary_json, length(dump) FROM fabrics ORDER BY id");
    if (!st.ok())
        return Status::error(sqliteError(store, "cannot read the imported fabrics"));
    std::vector<StoredFabric> out;
    while (st.step())
        out.push_back({ st.columnInt64(0), st.columnText(1), st.columnText(2), st.columnText(3), st.columnText(4),
            st.columnInt64(5) });
    if (!st.done())
        return Status::error(sqliteError(store, "cannot read the imported fabrics"));
    return out;
}

Result<std::string> importedFabricDump(const ProjectStore& store, std::int64_t id)
{
    Statement st(store.handle(), "SELECT dump FROM fabrics WHERE id = ?1");
    st.bind(1, id);
    if (!st.ok())
        return Status::error(sqliteError(store, "cannot read the imported fabrics"));
    if (!st.step())
        return Status::error(store.path() + ": no imported fabric with id " + std::to_string(id));
    return st.columnText(0);
}

Status removeImportedFabric(ProjectStore& store, std::int64_t id)
{
    Statement st(store.handle(), "DELETE FROM fabrics WHERE id = ?1");
    st.bind(1, id);
    if (!st.run())
        return Status::error(sqliteError(store, "cannot remove imported fabric " + std::to_string(id)));
    return Status::success();
}

} // namespace clusterscope::engine
