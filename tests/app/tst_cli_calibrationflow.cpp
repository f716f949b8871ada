// The calibration round trip a user makes: import an nccl-tests log into a project, then evaluate
// with the project's calibration; the evaluation says it is calibrated and changes accordingly.

#include "clirunner.h"

#include <QtTest>

namespace {
using clitest::Run;
using clitest::runCli;
QString data(const char* path) { return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/") + QLatin1String(path); }
// One 8x H100 node (the nccl-tests fixture's cluster) training a 7B-class model with TP 8, so
// its tensor-parallel all-reduces run on the calibrated NVLink collectives.
QString writeScenario(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("node.json"));
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(R"({"format": "clusterscope-scenario", "version": 1, "name": "7B on one H100 node",
      "cluster": {"gpu": "H100-SXM-80GB", "gpus": 8, "gpus_per_node": 8, "nic": {"gbps": 400, "per_node": 8},
                  "transport": "infiniband", "fabric": {"type": "leaf-spine", "switch_radix": 64, "tiers": 1}},
      "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "vocab": 32000,
                "seq_len": 4096, "moe": null},
      "training": {"global_batch": 64, "micro_batch": 1, "dtype": "bf16", "recompute": "selective", "tokens": 1e12},
      "parallelism": {"tp": 8, "pp": 1, "dp": 1, "sequence_parallel": true}})");
    return path;
}
QJsonObject contention(const Run& r)
{
    return QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("fabric_contention")).toObject();
}
}

class TestCliCalibrationFlow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void importThenEvaluate()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("cluster.csproj"));
        const QString scenario = writeScenario(dir);
        Run r = runCli({ QStringLiteral("import-nccl-tests"), data("nccltests/allreduce_h100_8gpu.log"),
            QStringLiteral("--scenario"), scenario, QStringLiteral("--project"), project });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("calibration stored in the project")));
        QVERIFY(QFile::exists(project));

        const Run plain = runCli({ QStringLiteral("evaluate"), scenario, QStringLiteral("--json") });
        const Run calibrated = runCli(
            { QStringLiteral("evaluate"), scenario, QStringLiteral("--json"), QStringLiteral("--project"), project });
        QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
        QVERIFY2(calibrated.exitCode == 0, qPrintable(calibrated.err));
        QCOMPARE(contention(plain).value(QStringLiteral("calibrated")).toBool(), false);
        QCOMPARE(contention(calibrated).value(QStringLiteral("calibrated")).toBool(), true);
        // The fixture's measured bus bandwidth differs from the uncalibrated model, so the TP
        // all-reduces inside the node (and so the iteration) change.
        const double a = QJsonDocument::fromJson(plain.out.toUtf8())
                             .object()
                             .value(QStringLiteral("iteration_seconds"))
                             .toDouble();
        const double b = QJsonDocument::fromJson(calibrated.out.toUtf8())
                             .object()
                             .value(QStringLiteral("iteration_seconds"))
                             .toDouble();
        QVERIFY(a > 0 && b > 0);
        QVERIFY2(std::abs(a - b) > 1e-9 * a, qPrintable(QStringLiteral("%1 vs %2").arg(a).arg(b)));

        // A file calibration works the same way; both at once is refused.
        const QString file = dir.filePath(QStringLiteral("cal.json"));
        r = runCli({ QStringLiteral("import-nccl-tests"), data("nccltests/allreduce_h100_8gpu.log"),
            QStringLiteral("--scenario"), scenario, QStringLiteral("--save-calibration"), file });
        QCOMPARE(r.exitCode, 0);
        const Run fromFile = runCli(
            { QStringLiteral("evaluate"), scenario, QStringLiteral("--json"), QStringLiteral("--calibration"), file });
        QCOMPARE(QJsonDocument::fromJson(fromFile.out.toUtf8())
                     .object()
                     .value(QStringLiteral("iteration_seconds"))
                     .toDouble(),
            b);
        r = runCli({ QStringLiteral("evaluate"), scenario, QStringLiteral("--calibration"), file,
            QStringLiteral("--project"), project });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("not both")));
        r = runCli({ QStringLiteral("search"), scenario, QStringLiteral("--top"), QStringLiteral("1"),
            QStringLiteral("--project"), project });
        QCOMPARE(r.exitCode, 0);
    }

    void errors()
    {
        QTemporaryDir dir;
        const QString scenario = writeScenario(dir);
        const QString empty = dir.filePath(QStringLiteral("empty.csproj"));
        // A project without a calibration.
        Run r = runCli({ QStringLiteral("import-nccl-tests"), data("nccltests/allreduce_h100_8gpu.log"),
            QStringLiteral("--scenario"), scenario, QStringLiteral("--save-calibration"),
            dir.filePath(QStringLiteral("x.json")) });
        QCOMPARE(r.exitCode, 0);
        QFile notProject(empty);
        QVERIFY(notProject.open(QIODevice::WriteOnly));
        notProject.write("not a project");
        notProject.close();
        r = runCli({ QStringLiteral("evaluate"), scenario, QStringLiteral("--project"), empty });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("not a ClusterScope project")), qPrintable(r.err));
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": 3}");
        f.close();
        r = runCli({ QStringLiteral("evaluate"), scenario, QStringLiteral("--calibration"), bad });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith(bad), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCalibrationFlow)
#include "tst_cli_calibrationflow.moc"
