// clusterscope-cli import-trace and import-fabric as a user runs them.

#include "clirunner.h"

#include <QtTest>

namespace {
using clitest::Run;
using clitest::runCli;

QString data(const char* rel) { return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/") + QLatin1String(rel); }
}

class TestCliImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Measured vs modelled: the DLRM run's collectives beside the collective model of an 8x V100
    // node (the machine the traces come from).
    void compareWithScenario()
    {
        QTemporaryDir dir;
        const QString scenario = dir.filePath(QStringLiteral("v100.json"));
        QFile f(scenario);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "clusterscope-scenario", "version": 1, "name": "8 V100 in one node",
          "cluster": {"gpu": "V100-SXM2-32GB", "gpus": 8, "gpus_per_node": 8, "nic": {"gbps": 100, "per_node": 4},
                      "transport": "infiniband", "fabric": {"type": "leaf-spine", "switch_radix": 40, "tiers": 1}},
          "model": {"layers": 24, "hidden": 2048, "heads": 16, "vocab": 32000, "seq_len": 2048},
          "training": {"global_batch": 64, "micro_batch": 1, "dtype": "fp16", "recompute": "none"},
          "parallelism": {"tp": 1, "pp": 1, "dp": 8}})");
        f.close();
        const Run r = runCli({ QStringLiteral("import-trace"), data("kineto/param_dlrm_8rank"),
            QStringLiteral("--compare"), scenario, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject c
            = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("model_comparison")).toObject();
        const QJsonArray rows = c.value(QStringLiteral("collectives")).toArray();
        QVERIFY(!rows.isEmpty());
        int allreduces = 0;
        for (const auto& v : rows) {
            const QJsonObject row = v.toObject();
            QVERIFY(row.value(QStringLiteral("modelled_busbw_gbps")).toDouble() > 0);
            const double ratio = row.value(QStringLiteral("ratio")).toDouble();
            QCOMPARE(ratio,
                row.value(QStringLiteral("measured_busbw_gbps")).toDouble()
                    / row.value(QStringLiteral("modelled_busbw_gbps")).toDouble());
            if (row.value(QStringLiteral("op")).toString() == QLatin1String("allreduce")) {
                ++allreduces;
                // A V100 NVLink node: the measured all-reduces are within a factor of 3 of the model.
                QVERIFY2(ratio > 0.33 && ratio < 3.0, qPrintable(QString::number(ratio)));
            }
        }
        QVERIFY(allreduces >= 2);
        QVERIFY(!c.value(QStringLiteral("findings")).toArray().isEmpty());
        QVERIFY(c.value(QStringLiteral("measured")).toObject().value(QStringLiteral("total_s")).toDouble() > 0);
        // A scenario that does not exist: exit 1 naming it.
        const Run bad = runCli({ QStringLiteral("import-trace"), data("kineto/param_dlrm_8rank"),
            QStringLiteral("--compare"), dir.filePath(QStringLiteral("nope.json")) });
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(bad.err.contains(QStringLiteral("nope.json")));
    }

    void importTraceJson()
    {
        const Run r
            = runCli({ QStringLiteral("import-trace"), data("kineto/param_dlrm_8rank"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("ranks")).toInt(), 8);
        const QJsonArray steps = o.value(QStringLiteral("steps")).toArray();
        QCOMPARE(steps.size(), 1);
        QCOMPARE(steps[0].toObject().value(QStringLiteral("step")).toInt(), 10);
        const QJsonObject rank0 = steps[0].toObject().value(QStringLiteral("ranks")).toArray()[0].toObject();
        for (const char* key :
            { "rank", "duration_s", "compute_s", "comm_exposed_s", "comm_overlapped_s", "memcpy_s", "idle_s" })
            QVERIFY2(rank0.contains(QLatin1String(key)), key);
        QCOMPARE(rank0.value(QStringLiteral("duration_s")).toDouble(), 0.014455);
        QList<int> last;
        for (const auto& v : o.value(QStringLiteral("collectives")).toArray()) {
            const QJsonObject c = v.toObject();
            for (const char* key : { "op", "process_group", "bytes", "ranks", "duration_us", "algbw_gbps", "busbw_gbps",
                     "last_arrival_rank", "wait_us" })
                QVERIFY2(c.contains(QLatin1String(key)), key);
            if (c.value(QStringLiteral("op")).toString() == QStringLiteral("allreduce"))
                last << c.value(QStringLiteral("last_arrival_rank")).toInt();
        }
        QCOMPARE(last, (QList<int> { 7, 5, 4 }));
        QVERIFY(!o.value(QStringLiteral("stragglers")).toArray().isEmpty());
        QVERIFY(o.value(QStringLiteral("diagnostics")).isArray());
    }

    void importTraceText()
    {
        const Run r
            = runCli({ QStringLiteral("import-trace"), data("kineto/hta_nccl_collective_args/nccl_data.json.gz") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("Per-step breakdown")));
        QVERIFY(r.out.contains(QStringLiteral("allreduce")));
        QVERIFY(r.out.contains(QStringLiteral("NVIDIA A100-PG509-200")));
    }

    void importTraceBadFiles()
    {
        QTemporaryDir dir;
        QFile::copy(data("kineto/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json.gz"),
            dir.filePath(QStringLiteral("a.json.gz")));
        QFile bad(dir.filePath(QStringLiteral("b.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"traceEvents\": [{\"ph\": \"X\"");
        bad.close();
        Run r = runCli({ QStringLiteral("import-trace"), dir.path(), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0); // one good rank survives
        QVERIFY2(r.err.contains(QStringLiteral("b.json: byte ")), qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("ranks")).toInt(), 1);
        QVERIFY(
            QJsonDocument(o.value(QStringLiteral("diagnostics")).toArray()).toJson().contains("import.file_failed"));
        r = runCli({ QStringLiteral("import-trace"), bad.fileName() });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith(bad.fileName() + QStringLiteral(": byte ")), qPrintable(r.err));
        r = runCli({ QStringLiteral("import-trace") });
        QCOMPARE(r.exitCode, 1);
        r = runCli({ QStringLiteral("import-trace"), QStringLiteral("/nonexistent") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("/nonexistent: no such file or directory")));
    }

    void importFabricJson()
    {
        const Run r = runCli({ QStringLiteral("import-fabric"),
            data("ibnetdiscover/loginoff_infiniband_topology_topo.ibnetdiscover.txt.gz"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("switches")).toInt(), 8);
        QCOMPARE(o.value(QStringLiteral("hcas")).toInt(), 144);
        QCOMPARE(o.value(QStringLiteral("links")).toInt(), 192);
        QCOMPARE(o.value(QStringLiteral("tiers")).toObject().value(QStringLiteral("leaf")).toInt(), 6);
        QCOMPARE(o.value(QStringLiteral("tiers")).toObject().value(QStringLiteral("spine")).toInt(), 2);
        const QJsonArray flags = o.value(QStringLiteral("flags")).toArray();
        QCOMPARE(flags.size(), 1);
        QCOMPARE(flags[0].toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("missing"));
        QCOMPARE(flags[0].toObject().value(QStringLiteral("ports")).toArray().size(), 2);
    }

    void importFabricPlan()
    {
        Run r = runCli(
            { QStringLiteral("import-fabric"), data("ibnetdiscover/plan_match.ibnetdiscover"), QStringLiteral("--plan"),
                data("ibnetdiscover/kalcher_infiniband_topology_test.ibnl"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QStringList kinds;
        for (const auto& v : QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("flags")).toArray())
            kinds << v.toObject().value(QStringLiteral("kind")).toString();
        QCOMPARE(
            kinds, (QStringList { QStringLiteral("missing"), QStringLiteral("miswired"), QStringLiteral("extra") }));
        r = runCli({ QStringLiteral("import-fabric"), data("ibnetdiscover/jabl_ibtopotool_tests_3.topo") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("self_loop:")));
        r = runCli({ QStringLiteral("import-fabric"), data("kineto/README.md") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("README.md: line ")), qPrintable(r.err));
        r = runCli({ QStringLiteral("import-fabric"), data("ibnetdiscover/jabl_ibtopotool_tests_2.topo"),
            QStringLiteral("--plan"), data("ibnetdiscover/jabl_ibtopotool_tests_2.topo") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("jabl_ibtopotool_tests_2.topo: line ")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliImport)
#include "tst_cli_import.moc"
