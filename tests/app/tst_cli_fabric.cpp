// clusterscope-cli fabric: the JSON contract (README "The command-line tool") on the example scenarios,
// the BOM CSV file, and bad input.

#include "clirunner.h"

#include <QtTest>

namespace {
using clitest::Run;
using clitest::runCli;
QString example(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + QLatin1String(name);
}
QString data(const char* name) { return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/fabric/") + QLatin1String(name); }
}

class TestCliFabric : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jsonContract_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("leaf");
        QTest::addColumn<int>("spine");
        QTest::addColumn<int>("core");
        QTest::addColumn<int>("nodeLeaf");
        QTest::addColumn<double>("bisectionGbps");
        QTest::addRow("SuperPOD 1 SU") << data("superpod-1su.json") << 8 << 4 << 0 << 252 << 48000.0;
        QTest::addRow("512 leaf-spine") << data("leafspine-512-layout.json") << 16 << 8 << 0 << 512 << 102400.0;
        // 128 nodes + UFM -> 5 whole SUs; 40 leaves x 32 up-ports over 32 spines.
        QTest::addRow("Llama 1024 H100") << example("llama3-70b-1024-h100.json") << 40 << 32 << 0 << 1028 << 204800.0;
        QTest::addRow("Mixtral 256 RoCE 3:1")
            << example("mixtral-8x7b-256-h200-roce.json") << 6 << 2 << 0 << 256 << 25600.0;
        QTest::addRow("GPT-3 1024 A100 (radix 40: 3 tiers)")
            << example("gpt3-175b-1024-a100.json") << 52 << 60 << 40 << 1024 << 102400.0;
        QTest::addRow("torus 4x4x4") << data("torus-64.json") << 0 << 0 << 0 << 0 << 32 * 400.0 * 4 / 6;
    }
    void jsonContract()
    {
        QFETCH(QString, file);
        QFETCH(int, leaf);
        QFETCH(int, spine);
        QFETCH(int, core);
        QFETCH(int, nodeLeaf);
        QFETCH(double, bisectionGbps);
        const Run r = runCli({ QStringLiteral("fabric"), file, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        for (const char* key : { "switches", "cables", "cables_by_medium", "bisection_gbps", "cost_usd", "power_w",
                 "cost_per_gpu_usd", "bom" })
            QVERIFY2(j.contains(QLatin1String(key)), key);
        QCOMPARE(j[QStringLiteral("switches")][QStringLiteral("leaf")].toInt(), leaf);
        QCOMPARE(j[QStringLiteral("switches")][QStringLiteral("spine")].toInt(), spine);
        QCOMPARE(j[QStringLiteral("switches")][QStringLiteral("core")].toInt(), core);
        QCOMPARE(j[QStringLiteral("cables")][QStringLiteral("node_leaf")].toInt(), nodeLeaf);
        QVERIFY(j[QStringLiteral("cables")].toObject().contains(QStringLiteral("leaf_spine")));
        QVERIFY(j[QStringLiteral("cables")].toObject().contains(QStringLiteral("spine_core")));
        QVERIFY(std::abs(j[QStringLiteral("bisection_gbps")].toDouble() - bisectionGbps) < 1e-3);
        const double cost = j[QStringLiteral("cost_usd")].toDouble();
        QVERIFY(cost > 0 && j[QStringLiteral("power_w")].toDouble() > 0);
        QVERIFY(std::abs(j[QStringLiteral("cost_per_gpu_usd")].toDouble() * j[QStringLiteral("gpus")].toDouble() - cost)
            < 1e-3);
        const QJsonObject contention = j[QStringLiteral("contention")].toObject();
        QCOMPARE(contention[QStringLiteral("routing")].toString(), QStringLiteral("ecmp"));
        QVERIFY(contention[QStringLiteral("ring_allreduce")][QStringLiteral("slowdown")].toDouble() >= 1.0);
        QVERIFY(contention[QStringLiteral("half_shift")][QStringLiteral("slowdown")].toDouble() >= 1.0);
        int cablesByMedium = 0;
        for (const auto v : j[QStringLiteral("cables_by_medium")].toObject())
            cablesByMedium += v.toInt();
        const QJsonObject cables = j[QStringLiteral("cables")].toObject();
        int cablesPerTier = 0;
        for (const auto v : cables)
            cablesPerTier += v.toInt();
        QCOMPARE(cablesByMedium, cablesPerTier);
    }

    void bomCsvMatchesGolden()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("bom.csv"));
        const Run r = runCli({ QStringLiteral("fabric"), data("superpod-1su.json"), QStringLiteral("--bom-csv"), out });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("switches: 8 leaf, 4 spine (QM9700)")),
            qPrintable(r.out)); // no core tier: not named
        QFile produced(out), golden(data("superpod-1su.bom.csv"));
        QVERIFY(produced.open(QIODevice::ReadOnly) && golden.open(QIODevice::ReadOnly));
        QCOMPARE(produced.readAll(), golden.readAll());
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("no file") << QStringList { QStringLiteral("fabric") }
                                 << "clusterscope-cli fabric: expected exactly one scenario FILE";
        QTest::addRow("unknown option") << QStringList { QStringLiteral("fabric"), data("torus-64.json"),
            QStringLiteral("--bogus") } << "clusterscope-cli fabric:";
        QTest::addRow("missing file") << QStringList { QStringLiteral("fabric"), QStringLiteral("/nonexistent/x.json") }
                                      << "/nonexistent/x.json";
        QTest::addRow("missing price book") << QStringList { QStringLiteral("fabric"), data("torus-64.json"),
            QStringLiteral("--prices"), QStringLiteral("/nonexistent/p.json") }
                                            << "/nonexistent/p.json: cannot open the price book";
        QTest::addRow("control: explicit catalog folder, dragonfly")
            << QStringList { QStringLiteral("fabric"), data("dragonfly-72.json"), QStringLiteral("--catalog"),
                   QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/catalog") }
            << "";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runCli(args);
        if (message.isEmpty()) { // the control row: a valid run with an explicit catalog folder
            QCOMPARE(r.exitCode, 0);
            return;
        }
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    void help()
    {
        const Run r = runCli({ QStringLiteral("fabric"), QStringLiteral("--help") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("--bom-csv OUT")));
    }
};

QTEST_GUILESS_MAIN(TestCliFabric)
#include "tst_cli_fabric.moc"
