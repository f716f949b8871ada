// `clusterscope-cli report` as a user runs it: it execs clusterscope-report (the CLI links no Qt),
// writes the three formats, and fails with exit 1 and a clear message on bad input.

#include "app/report/reportformat.h"
#include "engine/analysis/runcomputecalibration.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/calibration/calibrationjson.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/fabricbom.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "engine/store/projectstore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace clusterscope;

namespace {

struct Run {
    int exitCode;
    QString out;
    QString err;
};

Run runCli(const QStringList& args, const QString& program = QStringLiteral(CLUSTERSCOPE_CLI_PATH),
    const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, QStringList { QStringLiteral("report") } + args);
    if (!p.waitForFinished(120000))
        return { -1, {}, QStringLiteral("timeout") };
    return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()) };
}

QString example(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + QLatin1String(name);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestReportCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // A project with two scenarios and a stored (empty) calibration.
        m_project = m_dir.filePath(QStringLiteral("two.csproj"));
        auto store = engine::ProjectStore::create(m_project.toStdString());
        QVERIFY2(store.isOk(), store.message().c_str());
        std::vector<engine::StoredScenario> scenarios;
        for (const char* name : { "llama3-70b-1024-h100.json", "mixtral-8x7b-256-h200-roce.json" }) {
            auto s = engine::loadScenarioFile(example(name).toStdString());
            QVERIFY2(s.isOk(), s.message().c_str());
            scenarios.push_back({ 0, *s });
        }
        QVERIFY(store->saveScenarios(scenarios).isOk());
        QVERIFY(store->putDocument("calibration", "lab sweep", engine::calibrationToJson({})).isOk());
    }

    void writesAllFormats()
    {
        const QString pdf = m_dir.filePath(QStringLiteral("r.pdf")), html = m_dir.filePath(QStringLiteral("r.html")),
                      csv = m_dir.filePath(QStringLiteral("r.csv"));
        const Run r = runCli({ example("llama3-70b-1024-h100.json"), QStringLiteral("--pdf"), pdf,
            QStringLiteral("--html"), html, QStringLiteral("--bom-csv"), csv });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("wrote ") + pdf));
        QVERIFY(r.err.isEmpty()); // no Qt chatter on a headless run
        QVERIFY(readAll(pdf).startsWith("%PDF-"));
        QVERIFY(readAll(html).startsWith("<!DOCTYPE html>"));
        QCOMPARE(
            readAll(csv), readAll(QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/report/llama3-70b-1024-h100-bom.csv")));
    }

    /// A project's scenario chosen by name; the stored calibration is reported by name.
    void projectScenario()
    {
        const QString csv = m_dir.filePath(QStringLiteral("mixtral.csv")),
                      html = m_dir.filePath(QStringLiteral("mixtral.html"));
        const Run r
            = runCli({ m_project, QStringLiteral("--scenario"), QStringLiteral("Mixtral 8x7B on 256 H200, RoCE 3:1"),
                QStringLiteral("--bom-csv"), csv, QStringLiteral("--html"), html, QStringLiteral("--no-sensitivity") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto catalog = engine::Catalog::builtin();
        auto prices = engine::PriceBook::builtin();
        auto scenario = engine::loadScenarioFile(example("mixtral-8x7b-256-h200-roce.json").toStdString());
        QVERIFY(catalog.isOk() && prices.isOk() && scenario.isOk());
        const engine::ScenarioAnalysis a = engine::analyseScenario(*scenario, *catalog, *prices);
        QVERIFY(a.bom);
        QCOMPARE(readAll(csv), QByteArray::fromStdString(engine::bomCsv(*a.bom)));
        QVERIFY(readAll(html).contains("stored calibration lab sweep (0 measured sweeps"));
    }

    /// A calibration fitted from an nccl-tests log (by the CLI) and stored in a project: the report
    /// names it and prints each sweep's residuals before and after, as the calibration holds them.
    void calibratedProject()
    {
        const QString calibrationFile = m_dir.filePath(QStringLiteral("cal.json"));
        QProcess import;
        import.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("import-nccl-tests"),
                QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/nccltests/allreduce_h100_8gpu.log"),
                QStringLiteral("--save-calibration"), calibrationFile });
        QVERIFY(import.waitForFinished(60000));
        QCOMPARE(import.exitCode(), 0);
        const QByteArray json = readAll(calibrationFile);
        auto set = engine::calibrationFromJson(json.toStdString(), "cal.json");
        QVERIFY2(set.isOk(), set.message().c_str());
        QVERIFY(!set->sweeps.empty());

        const QString project = m_dir.filePath(QStringLiteral("calibrated.csproj"));
        auto store = engine::ProjectStore::create(project.toStdString());
        QVERIFY(store.isOk());
        auto scenario = engine::loadScenarioFile(example("llama3-70b-1024-h100.json").toStdString());
        QVERIFY(scenario.isOk());
        QVERIFY(store->saveScenarios({ { 0, *scenario } }).isOk());
        QVERIFY(store->putDocument("calibration", "h100 allreduce", json.toStdString()).isOk());

        const QString pdf = m_dir.filePath(QStringLiteral("calibrated.pdf"));
        const Run r = runCli({ project, QStringLiteral("--pdf"), pdf, QStringLiteral("--no-sensitivity") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QProcess text;
        text.start(QStringLiteral("pdftotext"), { QStringLiteral("-layout"), pdf, QStringLiteral("-") });
        QVERIFY(text.waitForFinished(60000));
        const QString plain = QString::fromUtf8(text.readAllStandardOutput());
        QVERIFY(plain.contains(QStringLiteral("stored calibration h100 allreduce")));
        QVERIFY(!plain.contains(QStringLiteral("Uncalibrated.")));
        for (const char* section : { "Iteration breakdown", "Link utilisation and oversubscription",
                 "Calibration status", "is stored in the project: 1 measured sweep(s)", "Compute efficiency model" })
            QVERIFY2(plain.contains(QLatin1String(section)), section);
        const engine::SweepCalibration& sweep = set->sweeps.front();
        const QString rms = QString::number(sweep.rmsBefore * 100, 'f', 1) + QStringLiteral("%\\s+")
            + QString::number(sweep.rmsAfter * 100, 'f', 1) + QLatin1Char('%');
        QVERIFY2(plain.contains(QRegularExpression(rms)), qPrintable(rms));
    }

    /// A project's compute calibration (calibrate-compute --project, or the GUI's Calibrate from this
    /// run) is applied by the report as by evaluate --project, and said beside the iteration time.
    void computeCalibratedProject()
    {
        const QString project = m_dir.filePath(QStringLiteral("compute.csproj"));
        auto store = engine::ProjectStore::create(project.toStdString());
        QVERIFY(store.isOk());
        auto scenario = engine::loadScenarioFile(example("llama3-70b-1024-h100.json").toStdString());
        QVERIFY(scenario.isOk());
        QVERIFY(store->saveScenarios({ { 0, *scenario } }).isOk());
        engine::ProjectComputeCalibration c;
        c.compute.gemmPeakFraction = 0.5;
        c.compute.calibratedFrom = "run \"llama-run\"";
        c.fittedGpu = scenario->cluster.gpu;
        c.fittedDtype = "bf16";
        QVERIFY(engine::storeProjectComputeCalibration(*store, c).isOk());

        QProcess evaluate;
        evaluate.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("evaluate"), example("llama3-70b-1024-h100.json"), QStringLiteral("--project"), project,
                QStringLiteral("--json") });
        QVERIFY(evaluate.waitForFinished(120000));
        QCOMPARE(evaluate.exitCode(), 0);
        const double seconds = QJsonDocument::fromJson(evaluate.readAllStandardOutput())
                                   .object()
                                   .value(QStringLiteral("iteration_seconds"))
                                   .toDouble();

        const QString html = m_dir.filePath(QStringLiteral("compute.html"));
        const Run r = runCli({ project, QStringLiteral("--html"), html, QStringLiteral("--no-sensitivity") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString text = QString::fromUtf8(readAll(html));
        const QString beside
            = QString(app::formatSeconds(seconds) + QStringLiteral(" (compute calibrated from run \"llama-run\")"))
                  .toHtmlEscaped();
        QVERIFY2(text.contains(beside), qPrintable(beside));
        QVERIFY(text.contains(QStringLiteral("Calibrated from run &quot;llama-run&quot;.")));
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString llama = example("llama3-70b-1024-h100.json");
        const QString out = QDir::temp().filePath(QStringLiteral("clusterscope-report-test.pdf"));
        QTest::addRow("unknown option") << QStringList { llama, QStringLiteral("--pdf"), out,
            QStringLiteral("--bogus") } << QStringLiteral("unknown option --bogus (see --help)");
        QTest::addRow("no file") << QStringList { QStringLiteral("--pdf"), out }
                                 << QStringLiteral("expected one scenario or project FILE");
        QTest::addRow("no output") << QStringList { llama } << QStringLiteral("nothing to write: give --pdf OUT");
        QTest::addRow("missing file") << QStringList { QStringLiteral("/nonexistent/s.json"), QStringLiteral("--pdf"),
            out } << QStringLiteral("/nonexistent/s.json: no such file");
        QTest::addRow("option without value")
            << QStringList { llama, QStringLiteral("--pdf") } << QStringLiteral("option --pdf needs a value");
        QTest::addRow("compare without name") << QStringList { llama, QStringLiteral("--compare"),
            QStringLiteral("--pdf"), out } << QStringLiteral("--compare needs at least one scenario NAME");
        QTest::addRow("unwritable folder")
            << QStringList { llama, QStringLiteral("--pdf"), QStringLiteral("/nonexistent-dir/r.pdf") }
            << QStringLiteral("cannot write /nonexistent-dir/r.pdf: the folder /nonexistent-dir does not exist");
        QTest::addRow("output is a folder")
            << QStringList { llama, QStringLiteral("--html"), QDir::tempPath() } << QStringLiteral("it is a folder");
        QTest::addRow("project without scenario name") << QStringList {
            m_project, QStringLiteral("--pdf"), out
        } << QStringLiteral("the project holds 2 scenarios; pass --scenario NAME (one of \"Llama-3-70B on 1024 H100\"");
        QTest::addRow("project unknown scenario") << QStringList { m_project, QStringLiteral("--scenario"),
            QStringLiteral("Nope"), QStringLiteral("--pdf"), out }
                                                  << QStringLiteral("no scenario named \"Nope\"");
        QTest::addRow("project unknown calibration") << QStringList { m_project, QStringLiteral("--scenario"),
            QStringLiteral("Llama-3-70B on 1024 H100"), QStringLiteral("--calibration"), QStringLiteral("none"),
            QStringLiteral("--pdf"), out } << QStringLiteral("no calibration named \"none\"");
        QTest::addRow("scenario file with another name") << QStringList {
            llama, QStringLiteral("--scenario"), QStringLiteral("Other"), QStringLiteral("--pdf"), out
        } << QStringLiteral("the scenario is named \"Llama-3-70B on 1024 H100\", not \"Other\"");
        QTest::addRow("compare file missing") << QStringList { llama, QStringLiteral("--compare"),
            QStringLiteral("/nonexistent/b.json"), QStringLiteral("--pdf"), out }
                                              << QStringLiteral("/nonexistent/b.json");
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith(QStringLiteral("clusterscope-cli report: ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void help()
    {
        const Run r = runCli({ QStringLiteral("--help") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("Usage: clusterscope-cli report FILE")));
    }

    /// Without clusterscope-report beside the CLI or on PATH: exit 1 saying so.
    void reportProgramMissing()
    {
        const QString lonely = m_dir.filePath(QStringLiteral("bin/clusterscope-cli"));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("bin"))));
        QVERIFY(QFile::copy(QStringLiteral(CLUSTERSCOPE_CLI_PATH), lonely));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"), m_dir.filePath(QStringLiteral("empty")));
        const Run r = runCli(
            { example("llama3-70b-1024-h100.json"), QStringLiteral("--pdf"), m_dir.filePath(QStringLiteral("x.pdf")) },
            lonely, env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("clusterscope-cli report: clusterscope-report is not installed")),
            qPrintable(r.err));
    }

    /// The CLI itself links no Qt library (no GUI libraries needed to run it).
    void cliLinksNoQt()
    {
        QProcess ldd;
        ldd.start(QStringLiteral("ldd"), { QStringLiteral(CLUSTERSCOPE_CLI_PATH) });
        QVERIFY(ldd.waitForFinished(30000));
        const QString libs = QString::fromUtf8(ldd.readAllStandardOutput());
        QVERIFY(libs.contains(QStringLiteral("libc.so")));
        QVERIFY2(!libs.contains(QStringLiteral("libQt6")), qPrintable(libs));
    }

private:
    QTemporaryDir m_dir;
    QString m_project;
};

QTEST_GUILESS_MAIN(TestReportCli)
#include "tst_reportcli.moc"
