// Imported fabrics in a project: stored beside the scenarios (schema 5), listed, read back, removed;
// a schema-4 project gains the table when opened.

#include "engine/store/fabricstore.h"
#include "engine/store/projectschema.h"
#include "engine/store/projectstore.h"

#include <QtTest>

#include <sqlite3.h>

using namespace clusterscope::engine;

class TestFabricStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void storeListReadRemove()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("p.csproj")).toStdString();
        auto store = ProjectStore::create(path);
        QVERIFY2(store, store.message().c_str());
        QVERIFY(ProjectStore::currentSchemaVersion() >= 5);
        const std::string dump = "Switch 36 \"S-01\" # \"sw\"\n[1] \"H-02\"[1] # \"h\" lid 1 4xHDR\n";
        auto a = storeImportedFabric(*store, "hall-a", "/data/hall-a.topo", dump, R"({"switches": 1})");
        QVERIFY2(a, a.message().c_str());
        auto b = storeImportedFabric(*store, "hall-b", "/data/hall-b.topo", std::string(3'000'000, 'x'), "{}");
        QVERIFY(b);
        QVERIFY(*b != *a);
        auto reopened = ProjectStore::open(path);
        QVERIFY(reopened);
        auto list = importedFabrics(*reopened);
        QVERIFY2(list, list.message().c_str());
        QCOMPARE(int(list->size()), 2);
        QCOMPARE(QString::fromStdString((*list)[0].name), QStringLiteral("hall-a"));
        QCOMPARE(QString::fromStdString((*list)[0].source), QStringLiteral("/data/hall-a.topo"));
        QCOMPARE((*list)[0].dumpBytes, std::int64_t(dump.size()));
        QCOMPARE(QString::fromStdString((*list)[0].summaryJson), QStringLiteral(R"({"switches": 1})"));
        QCOMPARE((*list)[1].dumpBytes, std::int64_t(3'000'000));
        auto text = importedFabricDump(*reopened, *a);
        QVERIFY(text);
        QCOMPARE(*text, dump);
        QVERIFY(removeImportedFabric(*reopened, *a));
        QCOMPARE(int(importedFabrics(*reopened)->size()), 1);
        auto gone = importedFabricDump(*reopened, *a);
        QVERIFY(!gone);
        QVERIFY2(QString::fromStdString(gone.message()).contains(QStringLiteral("no imported fabric with id")),
            gone.message().c_str());
    }

    void migrationFromSchema4()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("old.csproj")).toStdString();
        std::string sql = "PRAGMA application_id = 1129530192;";
        for (int v = 0; v < 4; ++v)
            sql += projectMigrations()[v];
        sql += "PRAGMA user_version = 4;";
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        auto store = ProjectStore::open(path);
        QVERIFY2(store, store.message().c_str());
        QCOMPARE(store->schemaVersion(), ProjectStore::currentSchemaVersion());
        QVERIFY(storeImportedFabric(*store, "f", "f.topo", "x", "{}"));
    }
};

QTEST_GUILESS_MAIN(TestFabricStore)
#include "tst_fabricstore.moc"
