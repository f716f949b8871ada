// calibrate-compute --run: a profiled run stored in the project calibrates the compute model. A
// generated 8-rank H100 trace whose compute kernels take 1.25x what the model predicts for the
// scenario it ran is imported, fitted, and then evaluate --project predicts its compute time; a
// scenario of another GPU type or count is refused, and one of another GPU is left uncalibrated.

#include "tests/support/kinetotracegenerator.h"

#include "clirunner.h"

#include <QtTest>

namespace {
using clitest::Run;
using clitest::runCli;

QString writeScenario(const QTemporaryDir& dir, const char* name, const char* gpu, int gpus)
{
    const QString path = dir.filePath(QLatin1String(name) + QStringLiteral(".json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    const QString text = QStringLiteral(R"({"format": "clusterscope-scenario", "version": 1, "name": "%1",
      "cluster": {"gpu": "%2", "gpus": %3, "gpus_per_node": 8, "nic": {"gbps": 400, "per_node": 8},
                  "transport": "infiniband", "fabric": {"type": "leaf-spine", "switch_radix": 64, "tiers": 1}},
      "model": {"layers": 16, "hidden": 2048, "heads": 16, "kv_heads": 16, "ffn_hidden": 8192, "vocab": 32000,
                "seq_len": 2048, "moe": null},
      "training": {"global_batch": %4, "micro_batch": 1, "dtype": "bf16", "recompute": "none", "tokens": 1e12},
      "parallelism": {"tp": 1, "pp": 1, "dp": %3}})")
                             .arg(QLatin1String(name), QLatin1String(gpu))
                             .arg(gpus)
                             .arg(2 * gpus);
    f.write(text.toUtf8());
    return path;
}

QJsonObject json(const Run& r) { return QJsonDocument::fromJson(r.out.toUtf8()).object(); }

// The model's compute per iteration: the one definition of modelledComputeSeconds.
double modelledCompute(const QJsonObject& evaluation)
{
    const QJsonObject b = evaluation.value(QStringLiteral("breakdown")).toObject();
    return b.value(QStringLiteral("compute")).toDouble() + b.value(QStringLiteral("recompute")).toDouble()
        + b.value(QStringLiteral("optimizer")).toDouble();
}
}

class TestCliCalibrateRun : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_project, m_scenario;
    double m_modelCompute = 0, m_measuredCompute = 0;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_project = m_dir.filePath(QStringLiteral("cluster.csproj"));
        m_scenario = writeScenario(m_dir, "h100x8", "H100-SXM-80GB", 8);
        const Run before = runCli({ QStringLiteral("evaluate"), m_scenario, QStringLiteral("--json") });
        QVERIFY2(before.exitCode == 0, qPrintable(before.err));
        m_modelCompute = modelledCompute(json(before));
        QVERIFY(m_modelCompute > 1e-3);

        // The run: 2 segments of 4 GEMM kernels per step, together 1.25x the modelled compute.
        clusterscope::testing::TraceGeneratorSpec spec;
        spec.ranks = 8;
        spec.steps = 3;
        spec.allReducesPerStep = 2;
        spec.computeKernelsPerCollective = 4;
        m_measuredCompute = 1.25 * m_modelCompute;
        spec.computeKernelUs = m_measuredCompute / 8.0 * 1e6;
        const QString traces = m_dir.filePath(QStringLiteral("gpt-run"));
        QVERIFY(QDir().mkpath(traces));
        std::string error;
        QVERIFY2(!clusterscope::testing::writeRunTraces(spec, traces.toStdString(), error).empty(), error.c_str());
        const Run imported = runCli({ QStringLiteral("import-trace"), traces, QStringLiteral("--project"), m_project });
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
    }

    void fitsTheRunsComputeTime()
    {
        const Run r = runCli(
            { QStringLiteral("calibrate-compute"), QStringLiteral("--project"), m_project, QStringLiteral("--run"),
                QStringLiteral("gpt-run"), QStringLiteral("--scenario"), m_scenario, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = json(r);
        const QJsonObject fit = o.value(QStringLiteral("fits")).toArray().first().toObject();
        QCOMPARE(fit.value(QStringLiteral("quantity")).toString(), QStringLiteral("compute time"));
        QCOMPARE(fit.value(QStringLiteral("measured_steps")).toInt(), 3);
        // The trace's kernel times are written with 1 ns resolution.
        QVERIFY(qAbs(fit.value(QStringLiteral("measured_compute_seconds")).toDouble() / m_measuredCompute - 1) < 1e-4);
        const QJsonObject row = fit.value(QStringLiteral("residuals")).toArray().first().toObject();
        // Before: the model is 1/1.25 of the measurement (-20%); after: within 1%.
        QVERIFY2(qAbs(row.value(QStringLiteral("error_before")).toDouble() + 0.2) < 1e-3,
            qPrintable(QString::number(row.value(QStringLiteral("error_before")).toDouble())));
        QVERIFY2(qAbs(row.value(QStringLiteral("error_after")).toDouble()) < 0.01,
            qPrintable(QString::number(row.value(QStringLiteral("error_after")).toDouble())));
        const QJsonObject cal = o.value(QStringLiteral("calibration")).toObject();
        const QJsonObject fitted = o.value(QStringLiteral("fitted")).toObject();
        QCOMPARE(fitted.value(QStringLiteral("gpu")).toString(), QStringLiteral("H100-SXM-80GB"));
        QCOMPARE(fitted.value(QStringLiteral("dtype")).toString(), QStringLiteral("bf16"));
        QVERIFY(cal.value(QStringLiteral("calibrated_from")).toString().contains(QStringLiteral("run \"gpt-run\"")));

        // evaluate --project now predicts the run's compute time and says it is calibrated.
        const Run e = runCli({ QStringLiteral("evaluate"), m_scenario, QStringLiteral("--project"), m_project,
            QStringLiteral("--json") });
        QVERIFY2(e.exitCode == 0, qPrintable(e.err));
        const QJsonObject evaluation = json(e);
        QVERIFY(evaluation.value(QStringLiteral("compute_calibration"))
                    .toObject()
                    .value(QStringLiteral("calibrated"))
                    .toBool());
        QVERIFY(qAbs(modelledCompute(evaluation) / m_measuredCompute - 1) < 0.01);
        QCOMPARE(evaluation.value(QStringLiteral("iteration_seconds")).toDouble(),
            fit.value(QStringLiteral("iteration_seconds_after")).toDouble());

        // The text form says which quantity it used and shows the residuals.
        const Run text = runCli({ QStringLiteral("calibrate-compute"), QStringLiteral("--project"), m_project,
            QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("--scenario"), m_scenario });
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY2(text.out.contains(QStringLiteral("fitted to the compute time")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("mean |error|")), qPrintable(text.out));
    }

    void refusesAnotherCluster_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<QString>("message");
        QTest::addRow("16 GPUs") << QStringLiteral("H100-SXM-80GB") << 16 << QStringLiteral("8 ranks");
        QTest::addRow("A100") << QStringLiteral("A100-SXM-80GB") << 8 << QStringLiteral("ran on NVIDIA H100 80GB HBM3");
    }
    void refusesAnotherCluster()
    {
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(QString, message);
        const QString other = writeScenario(m_dir, QTest::currentDataTag(), gpu.toLatin1().constData(), gpus);
        const Run r = runCli({ QStringLiteral("calibrate-compute"), QStringLiteral("--project"), m_project,
            QStringLiteral("--run"), QStringLiteral("gpt-run"), QStringLiteral("--scenario"), other });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.contains(message) && r.err.contains(QStringLiteral("is not the job of scenario")), qPrintable(r.err));
    }

    void otherGpusStayUncalibrated()
    {
        // The fit of the H100 run does not apply to an A100 scenario of the same project.
        const QString a100 = writeScenario(m_dir, "a100", "A100-SXM-80GB", 8);
        const Run e = runCli(
            { QStringLiteral("evaluate"), a100, QStringLiteral("--project"), m_project, QStringLiteral("--json") });
        QVERIFY2(e.exitCode == 0, qPrintable(e.err));
        QVERIFY(!json(e)
                     .value(QStringLiteral("compute_calibration"))
                     .toObject()
                     .value(QStringLiteral("calibrated"))
                     .toBool());
        QVERIFY2(e.err.contains(QStringLiteral("fitted on H100-SXM-80GB bf16")), qPrintable(e.err));
    }

    void dlrmSampleSaysWhatTheFitCannotReach()
    {
        // The DLRM sample (8 V100 ranks, one step, 1.1 ms of compute kernels) as a small GPT job on
        // 8 V100: the model's kernel overhead alone exceeds the measured compute, so the scale hits
        // its limit and the command says what is left.
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("dlrm.csproj"));
        const Run imported = runCli({ QStringLiteral("import-trace"), clitest::data("kineto/param_dlrm_8rank"),
            QStringLiteral("--project"), project });
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        const QString v100 = writeScenario(dir, "v100", "V100-SXM2-32GB", 8);
        const Run r = runCli(
            { QStringLiteral("calibrate-compute"), QStringLiteral("--project"), project, QStringLiteral("--run"),
                QStringLiteral("param_dlrm_8rank"), QStringLiteral("--scenario"), v100, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject fit = json(r).value(QStringLiteral("fits")).toArray().first().toObject();
        QCOMPARE(fit.value(QStringLiteral("quantity")).toString(), QStringLiteral("compute time"));
        QCOMPARE(fit.value(QStringLiteral("measured_steps")).toInt(), 1);
        QVERIFY(qAbs(fit.value(QStringLiteral("measured_compute_seconds")).toDouble() - 1.108e-3) < 0.01e-3);
        const QJsonArray warnings = fit.value(QStringLiteral("warnings")).toArray();
        QCOMPARE(warnings.size(), 1);
        QVERIFY(warnings.first().toString().contains(QStringLiteral("does not move")));
    }

    void unknownRunIsNamed()
    {
        const Run r = runCli({ QStringLiteral("calibrate-compute"), QStringLiteral("--project"), m_project,
            QStringLiteral("--run"), QStringLiteral("nope"), QStringLiteral("--scenario"), m_scenario });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no run \"nope\"")) && r.err.contains(QStringLiteral("\"gpt-run\"")),
            qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCalibrateRun)
#include "tst_cli_calibraterun.moc"
