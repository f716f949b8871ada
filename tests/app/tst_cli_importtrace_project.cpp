// clusterscope-cli import-trace PATH... --project P: the run is stored in the project (created
// when absent, appended when present), the command says so, and what is stored equals what the
// command printed; a failing import leaves the project as it was.

#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"

#include "clirunner.h"

#include <QtTest>

using namespace clusterscope::engine;

namespace {
using clitest::runCli;
using CliRun = clitest::Run;

QString data(const char* rel) { return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/") + QLatin1String(rel); }
}

class TestCliImportTraceProject : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void storesTheRunAndSaysSo()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("new.cscp"));
        QVERIFY(!QFile::exists(project));
        const CliRun r = runCli({ QStringLiteral("import-trace"), data("kineto/param_dlrm_8rank"),
            QStringLiteral("--project"), project, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject stored = o.value(QStringLiteral("stored")).toObject();
        QCOMPARE(stored.value(QStringLiteral("project")).toString(), project);
        QCOMPARE(stored.value(QStringLiteral("name")).toString(), QStringLiteral("param_dlrm_8rank"));
        const std::int64_t id = stored.value(QStringLiteral("run_id")).toInteger();
        QVERIFY(id > 0);

        auto store = ProjectStore::open(project.toStdString());
        QVERIFY2(store, store.message().c_str());
        RunStore runs(*store);
        auto list = runs.list();
        QVERIFY(list);
        QCOMPARE(int(list->size()), 1);
        QCOMPARE(list->front().id, id);
        QCOMPARE(list->front().rankCount, 8);
        QCOMPARE(list->front().sources.size(), std::size_t(1));
        QVERIFY(QDir::isAbsolutePath(QString::fromStdString(list->front().sources.front())));
        QVERIFY(
            QString::fromStdString(list->front().sources.front()).endsWith(QLatin1String("kineto/param_dlrm_8rank")));

        auto loaded = runs.load(id);
        QVERIFY2(loaded, loaded.message().c_str());
        const RunAnalysis& a = loaded->analysis;
        // What is stored is what the command printed.
        const QJsonArray stragglers = o.value(QStringLiteral("stragglers")).toArray();
        QCOMPARE(int(a.stragglers.size()), int(stragglers.size()));
        for (int i = 0; i < stragglers.size(); ++i) {
            QCOMPARE(a.stragglers[std::size_t(i)].rank, stragglers[i].toObject().value(QStringLiteral("rank")).toInt());
            QCOMPARE(a.stragglers[std::size_t(i)].waitCausedUs,
                stragglers[i].toObject().value(QStringLiteral("wait_caused_us")).toDouble());
        }
        // Ranked by the tail they cause: rank 7 (7.6 ms), rank 4 (one wait of 886 us), rank 5 (583 us).
        QCOMPARE(a.stragglers[0].rank, 7);
        QCOMPARE(a.stragglers[1].rank, 4);
        QCOMPARE(a.stragglers[2].rank, 5);
        QCOMPARE(
            stragglers[1].toObject().value(QStringLiteral("wait_max_us")).toDouble(), a.stragglers[1].waitTailUs.max);
        const QJsonArray colls = o.value(QStringLiteral("collectives")).toArray();
        QCOMPARE(int(a.collectives.size()), int(colls.size()));
        for (int i = 0; i < colls.size(); ++i) {
            const QJsonObject c = colls[i].toObject();
            QCOMPARE(QString::fromLatin1(toString(a.collectives[std::size_t(i)].op)),
                c.value(QStringLiteral("op")).toString());
            QCOMPARE(a.collectives[std::size_t(i)].durationUs, c.value(QStringLiteral("duration_us")).toDouble());
            if (!c.value(QStringLiteral("busbw_gbps")).isNull())
                QCOMPARE(a.collectives[std::size_t(i)].busbwGbps, c.value(QStringLiteral("busbw_gbps")).toDouble());
        }
        const QJsonObject rank0 = o.value(QStringLiteral("steps"))
                                      .toArray()[0]
                                      .toObject()
                                      .value(QStringLiteral("ranks"))
                                      .toArray()[0]
                                      .toObject();
        QCOMPARE(a.steps.front().ranks.front().durationSeconds, rank0.value(QStringLiteral("duration_s")).toDouble());
        QCOMPARE(a.steps.front().ranks.front().idleSeconds, rank0.value(QStringLiteral("idle_s")).toDouble());
    }

    void textOutputNamesTheProjectAndAppends()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.cscp"));
        for (int i = 1; i <= 2; ++i) {
            const CliRun r = runCli({ QStringLiteral("import-trace"), data("kineto/hta_sampled_2of128rank"),
                QStringLiteral("--project"), project });
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY2(r.out.contains(QStringLiteral("run \"hta_sampled_2of128rank\" stored in the project ") + project),
                qPrintable(r.out));
            QVERIFY(r.out.contains(QStringLiteral("Per-step breakdown")));
        }
        auto store = ProjectStore::open(project.toStdString());
        QVERIFY(store);
        QCOMPARE(int(RunStore(*store).list()->size()), 2);
    }

    void failedImportLeavesTheProjectAsItWas()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.cscp"));
        QVERIFY(runCli({ QStringLiteral("import-trace"), data("kineto/hta_sampled_2of128rank"),
                           QStringLiteral("--project"), project })
                    .exitCode
            == 0);
        QFile bad(dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"traceEvents\": [ {\"ph\": \"X\", ");
        bad.close();
        const CliRun r
            = runCli({ QStringLiteral("import-trace"), bad.fileName(), QStringLiteral("--project"), project });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("bad.json")), qPrintable(r.err));
        auto store = ProjectStore::open(project.toStdString());
        QVERIFY(store);
        QCOMPARE(int(RunStore(*store).list()->size()), 1);
    }

    void projectThatIsNotAProjectIsAnError()
    {
        QTemporaryDir dir;
        QFile notProject(dir.filePath(QStringLiteral("notes.txt")));
        QVERIFY(notProject.open(QIODevice::WriteOnly));
        notProject.write("hello");
        notProject.close();
        const CliRun r = runCli({ QStringLiteral("import-trace"), data("kineto/hta_sampled_2of128rank"),
            QStringLiteral("--project"), notProject.fileName() });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("notes.txt")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliImportTraceProject)
#include "tst_cli_importtrace_project.moc"
