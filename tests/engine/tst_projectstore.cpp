// Project store: round trip, migration from an older schema, refusal of foreign and newer files,
// and atomic saves (a process killed mid-save leaves the old or the new project, never a mix).

#include "engine/scenario/scenariojson.h"
#include "engine/store/projectschema.h"
#include "engine/store/projectstore.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace clusterscope::engine;

namespace {
Scenario example(const char* name)
{
    auto s = parseScenarioJson(clusterscope::resources::embeddedFile(std::string("examples/") + name), name);
    return s.isOk() ? *s : Scenario {};
}

void execSql(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
}
}

class TestProjectStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("p.csproj")).toStdString();
        auto store = ProjectStore::create(path);
        QVERIFY2(store.isOk(), store.message().c_str());
        QCOMPARE(store->schemaVersion(), ProjectStore::currentSchemaVersion());
        std::vector<StoredScenario> list { { 0, example("llama3-70b-1024-h100.json") },
            { 0, example("gpt3-175b-1024-a100.json") } };
        auto ids = store->saveScenarios(list);
        QVERIFY2(ids.isOk(), ids.message().c_str());
        QCOMPARE(ids->size(), std::size_t(2));
        QVERIFY(store->putResult((*ids)[1], { "evaluate", "{\"iteration_seconds\": 12.5}", "0.1.0" }).isOk());
        QVERIFY(store->putDocument("calibration", "cluster-a", "{\"k\": 1}").isOk());

        // Reopen: same scenarios in the same order, results kept.
        auto reopened = ProjectStore::open(path);
        QVERIFY2(reopened.isOk(), reopened.message().c_str());
        auto scenarios = reopened->scenarios();
        QVERIFY(scenarios.isOk());
        QCOMPARE(scenarios->size(), std::size_t(2));
        QVERIFY((*scenarios)[0].scenario == list[0].scenario);
        QVERIFY((*scenarios)[1].scenario == list[1].scenario);
        auto result = reopened->result((*ids)[1], "evaluate");
        QVERIFY(result.isOk());
        QCOMPARE(result->json, std::string("{\"iteration_seconds\": 12.5}"));
        QCOMPARE(*reopened->document("calibration", "cluster-a"), std::string("{\"k\": 1}"));
        QVERIFY(!reopened->document("calibration", "nope").isOk());

        // Reorder and drop the first: its id disappears, the result of the other survives.
        std::vector<StoredScenario> second { (*scenarios)[1] };
        second[0].scenario.name = "renamed";
        QVERIFY(reopened->saveScenarios(second).isOk());
        auto after = reopened->scenarios();
        QCOMPARE(after->size(), std::size_t(1));
        QCOMPARE(after->front().scenario.name, std::string("renamed"));
        QCOMPARE(reopened->result((*ids)[1], "evaluate")->json, std::string("{\"iteration_seconds\": 12.5}"));
        QVERIFY(!reopened->saveScenarios({ { 9999, example("gpt3-175b-1024-a100.json") } }).isOk());
        QCOMPARE(reopened->scenarios()->size(), std::size_t(1)); // failed save rolled back
    }

    void saveAs()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath(QStringLiteral("a.csproj")).toStdString();
        const std::string b = dir.filePath(QStringLiteral("b.csproj")).toStdString();
        auto store = ProjectStore::create(a);
        QVERIFY(store.isOk());
        QVERIFY(store->saveScenarios({ { 0, example("mixtral-8x7b-256-h200-roce.json") } }).isOk());
        QVERIFY(store->saveAs(b).isOk());
        QCOMPARE(store->path(), b);
        QVERIFY(store->saveScenarios({}).isOk()); // edits now go to b only
        QCOMPARE(ProjectStore::open(a)->scenarios()->size(), std::size_t(1));
        QCOMPARE(ProjectStore::open(b)->scenarios()->size(), std::size_t(0));
        QVERIFY(!QFile::exists(QString::fromStdString(b) + QStringLiteral(".new-") + QString::number(getpid())));
    }

    void migrationFromSchema1()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("old.csproj")).toStdString();
        // A project as schema version 1 wrote it.
        const std::string json = scenarioToJson(example("gpt3-175b-1024-a100.json"));
        std::string sql = std::string("PRAGMA application_id = 1129530192;") + projectMigrations()[0]
            + "PRAGMA user_version = 1; INSERT INTO scenarios(position, name, json, modified) VALUES (0, 'old', '"
            + json + "', 'x');";
        execSql(path, sql);
        auto store = ProjectStore::open(path);
        QVERIFY2(store.isOk(), store.message().c_str());
        QCOMPARE(store->schemaVersion(), ProjectStore::currentSchemaVersion());
        QCOMPARE(store->scenarios()->size(), std::size_t(1));
        QVERIFY(store->putDocument("calibration", "c", "{}").isOk()); // a table from schema 2
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::addRow("text file") << "text"
                                   << "not a ClusterScope project (not an SQLite database)";
        QTest::addRow("other sqlite") << "sqlite"
                                      << "not a ClusterScope project (an SQLite database of another application)";
        QTest::addRow("newer schema") << "newer"
                                      << "written by a newer ClusterScope (project schema 99";
        QTest::addRow("negative schema") << "negative"
                                         << "not a ClusterScope project (schema version -7";
        QTest::addRow("missing") << "missing"
                                 << "no such project file";
    }
    void refusals()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("x.csproj")).toStdString();
        if (kind == QLatin1String("text")) {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("this is a scenario, honest\n" + QByteArray(4096, 'x'));
        } else if (kind == QLatin1String("sqlite")) {
            execSql(path, "CREATE TABLE t(a);");
        } else if (kind == QLatin1String("newer")) {
            QVERIFY(ProjectStore::create(path).isOk());
            execSql(path, "PRAGMA user_version = 99;");
        } else if (kind == QLatin1String("negative")) {
            // user_version is a signed 32-bit integer: a damaged file can hold a negative one.
            QVERIFY(ProjectStore::create(path).isOk());
            execSql(path, "PRAGMA user_version = -7;");
        }
        auto store = ProjectStore::open(path);
        QVERIFY(!store.isOk());
        QVERIFY2(QString::fromStdString(store.message())
                     .startsWith(QString::fromStdString(path) + QStringLiteral(": ") + expected),
            store.message().c_str());
        if (kind == QLatin1String("missing"))
            return;
        // The same bytes opened in memory are refused with the same message.
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        auto image = ProjectStore::openImage(std::string_view(bytes.constData(), std::size_t(bytes.size())), "image");
        QVERIFY(!image.isOk());
        QVERIFY2(QString::fromStdString(image.message()).startsWith(QStringLiteral("image: ") + expected),
            image.message().c_str());
    }

    // A project file's bytes opened in memory: the live (WAL-mode) file reads back the same, an
    // empty or truncated image is refused naming it, and the file on disk is never touched.
    void openImage()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("p.csproj")).toStdString();
        {
            auto store = ProjectStore::create(path);
            QVERIFY(store.isOk());
            QVERIFY(store->saveScenarios({ { 0, example("llama3-70b-1024-h100.json") } }).isOk());
            QVERIFY(store->putDocument("calibration", "c", "{\"k\": 2}").isOk());
        }
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QCOMPARE(bytes.at(18), char(2)); // saved in WAL mode
        auto image = ProjectStore::openImage(std::string_view(bytes.constData(), std::size_t(bytes.size())), "mem");
        QVERIFY2(image.isOk(), image.message().c_str());
        QCOMPARE(image->path(), std::string("mem"));
        QCOMPARE(image->scenarios()->size(), std::size_t(1));
        QVERIFY(image->scenarios()->front().scenario == example("llama3-70b-1024-h100.json"));
        QCOMPARE(*image->document("calibration", "c"), std::string("{\"k\": 2}"));
        QVERIFY(image->saveScenarios({}).isOk()); // edits stay in memory
        QCOMPARE(ProjectStore::open(path)->scenarios()->size(), std::size_t(1));

        auto empty = ProjectStore::openImage({}, "empty");
        QVERIFY(!empty.isOk());
        QVERIFY2(empty.message().rfind("empty: not a ClusterScope project", 0) == 0, empty.message().c_str());
        auto truncated = ProjectStore::openImage(std::string_view(bytes.constData(), 1000), "cut");
        QVERIFY(!truncated.isOk() || !truncated->scenarios().isOk());
    }

    // A child process saves large projects in a loop and is killed with SIGKILL at varying moments;
    // every time, the file must open, pass SQLite's integrity check and hold one complete save.
    void killedMidSave()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("k.csproj")).toStdString();
        QVERIFY(ProjectStore::create(path).isOk());
        const Scenario base = example("llama3-70b-1024-h100.json");
        for (int attempt = 0; attempt < 6; ++attempt) {
            const pid_t child = fork();
            if (child == 0) {
                auto store = ProjectStore::open(path);
                for (int round = 1;; ++round) {
                    std::vector<StoredScenario> list(400 + (round % 7) * 100, StoredScenario { 0, base });
                    for (std::size_t i = 0; i < list.size(); ++i)
                        list[i].scenario.name = "round " + std::to_string(round) + " #" + std::to_string(i);
                    if (!store || !store->saveScenarios(list))
                        _exit(3);
                }
            }
            QVERIFY(child > 0);
            usleep(150000 + attempt * 70000);
            kill(child, SIGKILL);
            int status = 0;
            waitpid(child, &status, 0);
            QVERIFY(WIFSIGNALED(status));

            auto store = ProjectStore::open(path);
            QVERIFY2(store.isOk(), store.message().c_str());
            {
                sqlite3* db = store->handle();
                sqlite3_stmt* st = nullptr;
                sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr);
                QCOMPARE(sqlite3_step(st), SQLITE_ROW);
                QCOMPARE(QByteArray(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))), QByteArray("ok"));
                sqlite3_finalize(st);
            }
            auto scenarios = store->scenarios();
            QVERIFY2(scenarios.isOk(), scenarios.message().c_str());
            if (scenarios->empty())
                continue; // killed before the first save committed: the old (empty) project
            // All scenarios come from one save: same round prefix, count matching that round.
            const std::string first = scenarios->front().scenario.name;
            const std::string round = first.substr(0, first.find(" #"));
            const int roundNumber = std::stoi(round.substr(6));
            QCOMPARE(scenarios->size(), std::size_t(400 + (roundNumber % 7) * 100));
            for (const auto& s : *scenarios)
                QVERIFY(s.scenario.name.rfind(round + " #", 0) == 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestProjectStore)
#include "tst_projectstore.moc"
