// clusterscope-cli import-trace under `mpirun --oversubscribe -np 1/2/4` on loopback: the JSON
// output and the stored project are identical to the single-process import of the same files
// (generated traces with planted stragglers, and the real DLRM sample); the planted stragglers are
// found; a truncated rank file becomes a diagnostic and the import completes; a process that dies
// fails the job and leaves no project behind. Skipped when the CLI is built without MPI.

#include "clirunner.h"
#include "tests/support/kinetotracegenerator.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

namespace {

#ifdef CLUSTERSCOPE_MPIEXEC
clitest::Run runMpi(
    int processes, const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    // CI runs as root; --oversubscribe: more processes than the machine's cores.
    QStringList all { QStringLiteral("--oversubscribe"), QStringLiteral("--allow-run-as-root"), QStringLiteral("-np"),
        QString::number(processes), QStringLiteral(CLUSTERSCOPE_CLI_PATH) };
    all += args;
    p.start(QStringLiteral(CLUSTERSCOPE_MPIEXEC), all);
    if (!p.waitForFinished(240000)) {
        p.kill();
        p.waitForFinished();
        return { -1, {}, QStringLiteral("timeout") };
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
        QString::fromUtf8(p.readAllStandardError()) };
}
#endif

// The JSON without the parts that name where it was stored.
QJsonObject withoutStored(const QString& text)
{
    QJsonObject o = QJsonDocument::fromJson(text.toUtf8()).object();
    o.remove(QStringLiteral("stored"));
    return o;
}

} // namespace

class TestCliMpiImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
#ifndef CLUSTERSCOPE_MPIEXEC
        QSKIP("clusterscope-cli is built without MPI (-DCLUSTERSCOPE_MPI=OFF)");
#else
        QVERIFY(m_dir.isValid());
        m_spec.ranks = 32;
        m_spec.steps = 2;
        m_spec.tensorParallel = 8;
        m_spec.stragglers = { { 21, 1200 }, { 6, 500 } };
        std::string error;
        const auto files = clusterscope::testing::writeRunTraces(m_spec, makeTraceDir(), error);
        QVERIFY2(!files.empty(), error.c_str());
#endif
    }

#ifdef CLUSTERSCOPE_MPIEXEC
    void sameAsSingleProcess_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("processes");
        for (int p : { 1, 2, 4 })
            QTest::addRow("generated 32 ranks, np %d", p) << QString() << p;
        QTest::addRow("DLRM sample, np 2") << clitest::data("kineto/param_dlrm_8rank") << 2;
    }
    void sameAsSingleProcess()
    {
        QFETCH(QString, input);
        QFETCH(int, processes);
        const QString traces = input.isEmpty() ? m_dir.filePath(QStringLiteral("traces")) : input;
        const auto single = clitest::runCli({ QStringLiteral("import-trace"), traces, QStringLiteral("--json") });
        QCOMPARE(single.exitCode, 0);
        QTemporaryDir out;
        const QString project = out.filePath(QStringLiteral("run.csproj"));
        const auto mpi = runMpi(processes,
            { QStringLiteral("import-trace"), traces, QStringLiteral("--json"), QStringLiteral("--project"), project });
        QVERIFY2(mpi.exitCode == 0, qPrintable(mpi.err));
        QVERIFY2(mpi.err.contains(QStringLiteral("on %1 process").arg(processes)),
            qPrintable(mpi.err)); // progress by process 0
        const QJsonObject a = withoutStored(single.out), b = withoutStored(mpi.out);
        QVERIFY(!a.isEmpty());
        QVERIFY2(a == b, "the MPI import's JSON differs from the single-process import's");
        QVERIFY(QFile::exists(project));
        QVERIFY(!QFileInfo::exists(project + QStringLiteral(".importing")));
        // The stored run reads back as the same analysis (the GUI's Runs tab shows it).
        const QJsonObject stored = QJsonDocument::fromJson(mpi.out.toUtf8()).object();
        QCOMPARE(stored.value(QStringLiteral("stored")).toObject().value(QStringLiteral("run_id")).toInt(), 1);
        if (input.isEmpty()) {
            // The planted stragglers, first the one that is 1.2 ms late.
            const QJsonArray stragglers = b.value(QStringLiteral("stragglers")).toArray();
            QVERIFY(stragglers.size() >= 2);
            QCOMPARE(stragglers[0].toObject().value(QStringLiteral("rank")).toInt(), 21);
            QCOMPARE(stragglers[1].toObject().value(QStringLiteral("rank")).toInt(), 6);
            const auto truth = clusterscope::testing::generatedTruth(m_spec);
            QCOMPARE(b.value(QStringLiteral("collectives")).toArray().size(), truth.matchedCollectives);
        } else {
            const QJsonArray stragglers = b.value(QStringLiteral("stragglers")).toArray();
            QCOMPARE(stragglers[0].toObject().value(QStringLiteral("rank")).toInt(),
                7); // the DLRM sample's known last arrivals
        }
    }

    void truncatedRankFileIsADiagnostic()
    {
        QTemporaryDir dir;
        clusterscope::testing::TraceGeneratorSpec spec = m_spec;
        spec.ranks = 8;
        spec.tensorParallel = 1;
        std::string error;
        const auto files = clusterscope::testing::writeRunTraces(spec, dir.path().toStdString(), error);
        QVERIFY(!files.empty());
        std::filesystem::resize_file(files[3], std::filesystem::file_size(files[3]) / 3);
        const auto single = clitest::runCli({ QStringLiteral("import-trace"), dir.path(), QStringLiteral("--json") });
        const auto mpi = runMpi(2, { QStringLiteral("import-trace"), dir.path(), QStringLiteral("--json") });
        QCOMPARE(mpi.exitCode, 0);
        QVERIFY2(mpi.err.contains(QStringLiteral("rank3.pt.trace.json")), qPrintable(mpi.err));
        QVERIFY(withoutStored(single.out) == withoutStored(mpi.out));
        bool failed = false;
        for (const auto& d : withoutStored(mpi.out).value(QStringLiteral("diagnostics")).toArray())
            failed
                = failed || d.toObject().value(QStringLiteral("id")).toString() == QLatin1String("import.file_failed");
        QVERIFY(failed);
    }

    void crashedProcessFailsTheJobAndLeavesNoProject()
    {
        QTemporaryDir out;
        const QString project = out.filePath(QStringLiteral("crash.csproj"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CLUSTERSCOPE_TEST_ABORT_PROCESS"), QStringLiteral("1"));
        const auto mpi = runMpi(2,
            { QStringLiteral("import-trace"), m_dir.filePath(QStringLiteral("traces")), QStringLiteral("--project"),
                project },
            env);
        QVERIFY(mpi.exitCode != 0);
        QVERIFY2(!mpi.err.isEmpty(), "mpirun says which process died");
        QVERIFY(!QFile::exists(project));
        for (const QString& name : QDir(out.path()).entryList(QDir::Files))
            QVERIFY2(!name.startsWith(QLatin1String("crash.csproj")), qPrintable(name));
    }
#endif

private:
    std::string makeTraceDir()
    {
        const QString d = m_dir.filePath(QStringLiteral("traces"));
        QDir().mkpath(d);
        return d.toStdString();
    }
    QTemporaryDir m_dir;
    clusterscope::testing::TraceGeneratorSpec m_spec;
};

QTEST_GUILESS_MAIN(TestCliMpiImport)
#include "tst_cli_mpiimport.moc"
