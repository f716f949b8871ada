// The host of a PyTorch profiler trace from its file name (torch.profiler's
// tensorboard_trace_handler: "{hostname}_{pid}.{time_ms}.pt.trace.json[.gz]") and the matching of a
// trace's host against a telemetry host (short against fully qualified names).

#include "importers/telemetry/nicthroughput.h"

#include <QtTest>

using namespace clusterscope::importers;

class TestTraceFileHost : public QObject {
    Q_OBJECT
private slots:
    void host_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("host");
        QTest::newRow("plain") << "node001_4242.1700000000123.pt.trace.json"
                               << "node001";
        QTest::newRow("directory") << "/runs/a_b/node001_4242.1700000000123.pt.trace.json"
                                   << "node001";
        QTest::newRow("gzip") << "gpu-a17_99.17.pt.trace.json.gz"
                              << "gpu-a17";
        QTest::newRow("fqdn") << "n1.cluster.example_7.1.pt.trace.json"
                              << "n1.cluster.example";
        QTest::newRow("underscore in host") << "dgx_a_12_345.6.pt.trace.json"
                                            << "dgx_a_12";
        QTest::newRow("renamed") << "rank0.json"
                                 << "";
        QTest::newRow("no pid") << "node001.1700.pt.trace.json"
                                << "";
        QTest::newRow("no time") << "node001_4242.pt.trace.json"
                                 << "";
        QTest::newRow("pid not a number") << "node001_x.17.pt.trace.json"
                                          << "";
        QTest::newRow("only a pid") << "_42.17.pt.trace.json"
                                    << "";
    }
    void host()
    {
        QFETCH(QString, path);
        QFETCH(QString, host);
        QCOMPARE(QString::fromStdString(traceFileHost(path.toStdString())), host);
    }

    void sameHost_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("same");
        QTest::newRow("equal") << "node001"
                               << "node001" << true;
        QTest::newRow("case") << "Node001"
                              << "node001" << true;
        QTest::newRow("short vs fqdn") << "node001"
                                       << "node001.cluster" << true;
        QTest::newRow("fqdn vs short") << "node001.cluster"
                                       << "node001" << true;
        QTest::newRow("two domains") << "node001.a"
                                     << "node001.b" << false;
        QTest::newRow("other host") << "node001"
                                    << "node0010" << false;
        QTest::newRow("empty") << ""
                               << "" << false;
    }
    void sameHost()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(bool, same);
        QCOMPARE(clusterscope::importers::sameHost(a.toStdString(), b.toStdString()), same);
    }
};

QTEST_APPLESS_MAIN(TestTraceFileHost)
#include "tst_tracefilehost.moc"
