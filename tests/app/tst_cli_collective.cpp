// clusterscope-cli collective as a user runs it: public figures, JSON keys, the nccl-tests-shaped
// sweep table, exit codes and messages.

#include "clirunner.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace {
using clitest::Run;
// Every call runs the collective command.
Run runCli(const QStringList& args) { return clitest::runCli(QStringList { QStringLiteral("collective") } + args); }

QString scenario(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/scenarios/") + QLatin1String(name);
}

QStringList words(const QString& s) { return s.split(QLatin1Char(' '), Qt::SkipEmptyParts); }
} // namespace

class TestCliCollective : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void help()
    {
        const Run r = runCli({ QStringLiteral("--help") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("Usage: clusterscope-cli collective FILE")));
        QVERIFY(r.out.contains(QStringLiteral("--sweep")));
    }

    void publicFigures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("algo");
        QTest::addColumn<double>("busbw");
        // notes/collectives.md public figures, 8 GiB AllReduce.
        QTest::addRow("8x H100 ring") << "h100-1node.json"
                                      << "ring" << 370.0;
        QTest::addRow("8x H100 nvls") << "h100-1node.json"
                                      << "nvls" << 480.0;
        QTest::addRow("8x H100 auto") << "h100-1node.json"
                                      << "auto" << 480.0;
        QTest::addRow("DGX A100 x4, 8x HDR") << "dgx-a100-4nodes.json"
                                             << "ring" << 192.0;
        QTest::addRow("one NDR NIC") << "h100-2nodes-1ndr.json"
                                     << "ring" << 47.0;
    }
    void publicFigures()
    {
        QFETCH(QString, file);
        QFETCH(QString, algo);
        QFETCH(double, busbw);
        const Run r = runCli({ scenario(file.toUtf8().constData()), QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8G"), QStringLiteral("--algo"), algo,
            QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j.value(QStringLiteral("bytes")).toDouble(), 8589934592.0);
        const double got = j.value(QStringLiteral("busbw_gbps")).toDouble();
        QVERIFY2(std::abs(got / busbw - 1) <= 0.10, qPrintable(QString::number(got)));
    }

    void jsonKeys()
    {
        const Run r = runCli({ scenario("dgx-a100-4nodes.json"), QStringLiteral("--op"), QStringLiteral("allgather"),
            QStringLiteral("--bytes"), QStringLiteral("128M"), QStringLiteral("--ranks"), QStringLiteral("16"),
            QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        for (const char* key : { "time_us", "algbw_gbps", "busbw_gbps", "algorithm", "protocol", "bytes_per_rank",
                 "ranks", "ranks_per_node", "nodes", "op" })
            QVERIFY2(j.contains(QLatin1String(key)), key);
        QCOMPARE(j.value(QStringLiteral("ranks")).toInt(), 16);
        QCOMPARE(j.value(QStringLiteral("nodes")).toInt(), 2);
        QCOMPARE(j.value(QStringLiteral("op")).toString(), QStringLiteral("allgather"));
        // algbw = S / t (GB/s = 1e9 B/s) and busbw = algbw x (n-1)/n.
        const double t = j.value(QStringLiteral("time_us")).toDouble() * 1e-6;
        const double algbw = j.value(QStringLiteral("algbw_gbps")).toDouble();
        QVERIFY(std::abs(algbw / (134217728.0 / t / 1e9) - 1) < 1e-9);
        QVERIFY(std::abs(j.value(QStringLiteral("busbw_gbps")).toDouble() / (algbw * 15 / 16) - 1) < 1e-9);
        const QJsonObject b = j.value(QStringLiteral("bytes_per_rank")).toObject();
        for (const char* key : { "scale_up", "nic", "leaf", "spine", "core" })
            QVERIFY2(b.contains(QLatin1String(key)), key);
        QVERIFY(b.value(QStringLiteral("nic")).toDouble() > 0);
    }

    void text()
    {
        const Run r = runCli({ scenario("h100-1node.json"), QStringLiteral("--op"), QStringLiteral("reducescatter"),
            QStringLiteral("--bytes"), QStringLiteral("1G") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("size 1073741824 B: time ")));
        QVERIFY(r.out.contains(QStringLiteral("busbw")));
        QVERIFY(r.out.contains(QStringLiteral("bytes sent per rank: scale-up")));
    }

    void sweep_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("range");
        QTest::addColumn<int>("rows");
        QTest::addColumn<QString>("redop");
        QTest::addColumn<QString>("root");
        QTest::addRow("allreduce 8:8G") << "allreduce"
                                        << "8:8G" << 31 << "sum"
                                        << "-1";
        QTest::addRow("broadcast 1K:1M") << "broadcast"
                                         << "1K:1M" << 11 << "none"
                                         << "0";
        QTest::addRow("allgather 1M:1M") << "allgather"
                                         << "1M:1M" << 1 << "none"
                                         << "-1";
    }
    void sweep()
    {
        QFETCH(QString, op);
        QFETCH(QString, range);
        QFETCH(int, rows);
        QFETCH(QString, redop);
        QFETCH(QString, root);
        const Run r = runCli(
            { scenario("dgx-a100-4nodes.json"), QStringLiteral("--op"), op, QStringLiteral("--sweep"), range });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QStringList header, data;
        for (const QString& l : lines)
            (l.startsWith(QLatin1Char('#')) ? header : data).append(l);
        // nccl-tests columns: size count type redop root time algbw busbw (+ the algorithm chosen).
        const QString columns = header.filter(QStringLiteral("size")).value(0);
        const QStringList names = words(columns.mid(1));
        QCOMPARE(names.mid(0, 8),
            (QStringList { QStringLiteral("size"), QStringLiteral("count"), QStringLiteral("type"),
                QStringLiteral("redop"), QStringLiteral("root"), QStringLiteral("time"), QStringLiteral("algbw"),
                QStringLiteral("busbw") }));
        QCOMPARE(data.size(), rows);
        double previous = 0;
        for (const QString& l : data) {
            const QStringList f = words(l);
            QCOMPARE(f.size(), 9);
            const double size = f[0].toDouble();
            if (previous > 0)
                QCOMPARE(size, 2 * previous); // factor-2 steps
            previous = size;
            QCOMPARE(f[2], QStringLiteral("float"));
            QCOMPARE(f[3], redop);
            QCOMPARE(f[4], root);
            QVERIFY(f[5].toDouble() > 0);
            QVERIFY(f[8].contains(QLatin1Char('/')));
        }
        // count = size / 4 for AllReduce (float elements).
        if (op == QLatin1String("allreduce"))
            QCOMPARE(words(data.first())[1].toDouble(), 2.0);
    }

    void sweepJson()
    {
        const Run r = runCli({ scenario("h100-1node.json"), QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--sweep"), QStringLiteral("1K:1G"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray rows
            = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 21);
        // Auto: small sizes latency-bound (LL), the largest NVLS.
        QCOMPARE(rows.first().toObject().value(QStringLiteral("protocol")).toString(), QStringLiteral("LL"));
        QCOMPARE(rows.last().toObject().value(QStringLiteral("algorithm")).toString(), QStringLiteral("nvls"));
        for (const auto& v : rows)
            QVERIFY(v.toObject().contains(QStringLiteral("busbw_gbps")));
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString h100 = scenario("h100-1node.json");
        const QString roce = scenario("a100-2nodes-roce.json");
        QTest::addRow("no file") << QStringList { QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8") }
                                 << "expected exactly one scenario FILE";
        QTest::addRow("no op") << QStringList { h100, QStringLiteral("--bytes"), QStringLiteral("8") }
                               << "--op is required";
        QTest::addRow("bad op") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allsum"),
            QStringLiteral("--bytes"), QStringLiteral("8") }
                                << "--op: unknown collective \"allsum\"";
        QTest::addRow("no size") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allreduce") }
                                 << "--bytes N or --sweep MIN:MAX is required";
        QTest::addRow("bad bytes") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("1.5G") }
                                   << "--bytes: expected a size";
        QTest::addRow("bad sweep") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--sweep"), QStringLiteral("8G:8") }
                                   << "--sweep: expected MIN:MAX";
        QTest::addRow("sweep without colon") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--sweep"), QStringLiteral("8") }
                                             << "--sweep: expected MIN:MAX";
        QTest::addRow("too many ranks") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8"), QStringLiteral("--ranks"), QStringLiteral("9") }
                                        << "--ranks: expected an integer from 1 to the scenario's 8 GPUs";
        QTest::addRow("ranks not an integer") << QStringList { h100, QStringLiteral("--op"),
            QStringLiteral("allreduce"), QStringLiteral("--bytes"), QStringLiteral("8"), QStringLiteral("--ranks"),
            QStringLiteral("4K") } << "--ranks: expected an integer";
        QTest::addRow("bad algo") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8"), QStringLiteral("--algo"), QStringLiteral("bogus") }
                                  << "--algo: unknown algorithm \"bogus\"";
        QTest::addRow("nvls on A100") << QStringList { roce, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8"), QStringLiteral("--algo"), QStringLiteral("nvls") }
                                      << "nvls needs an NVSwitch";
        QTest::addRow("collnet on RoCE") << QStringList { roce, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8"), QStringLiteral("--algo"), QStringLiteral("collnet") }
                                         << "needs InfiniBand";
        QTest::addRow("missing file") << QStringList { QStringLiteral("/nonexistent/x.json"), QStringLiteral("--op"),
            QStringLiteral("allreduce"), QStringLiteral("--bytes"), QStringLiteral("8") }
                                      << "/nonexistent/x.json";
        QTest::addRow("unknown option") << QStringList { h100, QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8"), QStringLiteral("--frob"), QStringLiteral("1") }
                                        << "frob";
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void scenarioAlgorithmIsTheDefault()
    {
        // communication.algorithm in the scenario picks the algorithm when --algo is absent.
        QFile in(scenario("h100-1node.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject doc = QJsonDocument::fromJson(in.readAll()).object();
        doc.insert(
            QStringLiteral("communication"), QJsonObject { { QStringLiteral("algorithm"), QStringLiteral("ring") } });
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ring.json"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(doc).toJson());
        out.close();
        Run r = runCli({ path, QStringLiteral("--op"), QStringLiteral("allreduce"), QStringLiteral("--bytes"),
            QStringLiteral("1G"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("algorithm")).toString(),
            QStringLiteral("ring"));
        r = runCli({ path, QStringLiteral("--op"), QStringLiteral("alltoall"), QStringLiteral("--bytes"),
            QStringLiteral("1G") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.contains(QStringLiteral("/communication/algorithm \"ring\": algorithm 'ring' cannot run alltoall")),
            qPrintable(r.err));
        r = runCli({ path, QStringLiteral("--op"), QStringLiteral("allreduce"), QStringLiteral("--bytes"),
            QStringLiteral("1G"), QStringLiteral("--algo"), QStringLiteral("nvls"), QStringLiteral("--json") });
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("algorithm")).toString(),
            QStringLiteral("nvls"));
    }
};

QTEST_GUILESS_MAIN(TestCliCollective)
#include "tst_cli_collective.moc"
