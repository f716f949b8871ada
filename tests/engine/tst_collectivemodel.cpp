// CollectiveModel: the public figures of notes/collectives.md (±10% at large sizes), busbw/algbw
// factors, Auto selection, the NCCL latency formulas and calibration.

#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/scenario/scenario.h"

#include <QtTest>

#include <cmath>

using namespace clusterscope::engine;

namespace {

Scenario cluster(const char* gpu, int gpus, int gpusPerNode, double nicGbps, int nicsPerNode,
    Transport transport = Transport::InfiniBand)
{
    Scenario s;
    s.name = "test";
    s.cluster.gpu = gpu;
    s.cluster.gpus = gpus;
    s.cluster.gpusPerNode = gpusPerNode;
    s.cluster.nic.gbps = nicGbps;
    s.cluster.nic.perNode = nicsPerNode;
    s.cluster.transport = transport;
    return s;
}

CollectiveModel modelFor(const Scenario& s)
{
    static const Catalog catalog = Catalog::builtin().value();
    auto m = CollectiveModel::fromScenario(s, catalog);
    if (!m)
        qFatal("model: %s", m.message().c_str());
    return *m;
}

CollectiveAlgorithm algo(const QString& name) { return *parseCollectiveAlgorithm(name.toStdString()); }
CollectiveOp opNamed(const QString& name) { return *parseCollectiveOp(name.toStdString()); }

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

class TestCollectiveModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void publicFigures_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<double>("nicGbps");
        QTest::addColumn<int>("nicsPerNode");
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<double>("expectedBusbwGBps");
        // notes/collectives.md "Public reference figures"; 8 GiB AllReduce (large-size plateau).
        QTest::addRow("8x H100 one node ring ~370") << "H100-SXM-80GB" << 8 << 8 << 400.0 << 8 << "ring" << 370.0;
        QTest::addRow("8x H100 one node nvls ~480") << "H100-SXM-80GB" << 8 << 8 << 400.0 << 8 << "nvls" << 480.0;
        QTest::addRow("8x H100 one node auto ~480") << "H100-SXM-80GB" << 8 << 8 << 400.0 << 8 << "auto" << 480.0;
        QTest::addRow("DGX A100 8x HDR multi-node ~192") << "A100-SXM-80GB" << 32 << 8 << 200.0 << 8 << "ring" << 192.0;
        QTest::addRow("one NDR NIC 46-48") << "H100-SXM-80GB" << 16 << 8 << 400.0 << 1 << "ring" << 47.0;
        QTest::addRow("one HDR NIC ~24") << "A100-SXM-80GB" << 16 << 8 << 200.0 << 1 << "ring" << 24.0;
        QTest::addRow("H100 8x NDR multi-node ~400") << "H100-SXM-80GB" << 64 << 8 << 400.0 << 8 << "ring" << 400.0;
    }
    void publicFigures()
    {
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(int, gpusPerNode);
        QFETCH(double, nicGbps);
        QFETCH(int, nicsPerNode);
        QFETCH(QString, algorithm);
        QFETCH(double, expectedBusbwGBps);
        const CollectiveModel m = modelFor(cluster(gpu.toUtf8().constData(), gpus, gpusPerNode, nicGbps, nicsPerNode));
        CollectiveRequest r;
        r.op = CollectiveOp::AllReduce;
        r.bytes = 8 * kGiB;
        r.group = m.placementFor(gpus);
        r.algorithm = algo(algorithm);
        const CollectiveEstimate e = m.estimate(r);
        QVERIFY(e.valid);
        const double busbw = e.busbwBytesPerSecond / 1e9;
        qInfo("%s: busbw %.1f GB/s (%s/%s), expected %.0f", QTest::currentDataTag(), busbw, toString(e.algorithm),
            toString(e.protocol), expectedBusbwGBps);
        QVERIFY2(std::abs(busbw / expectedBusbwGBps - 1.0) <= 0.10, qPrintable(QString::number(busbw)));
    }

    void autoChoice_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<QString>("op");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("expectedAlgorithm");
        QTest::addColumn<QString>("expectedProtocol");
        QTest::addColumn<bool>("roce");
        // Small messages are latency-bound: LL; large ones bandwidth-bound: NVLS on Hopper NVSwitch,
        // ring elsewhere (NCCL's usual choices).
        QTest::addRow("H100 1 node 1 KiB allreduce") << "H100-SXM-80GB" << 8 << "allreduce" << 1024.0 << "ring" << "LL" << false;
        QTest::addRow("H100 1 node 8 GiB allreduce") << "H100-SXM-80GB" << 8 << "allreduce" << 8 * kGiB << "nvls" << "Simple" << false;
        QTest::addRow("A100 1 node 1 KiB allreduce") << "A100-SXM-80GB" << 8 << "allreduce" << 1024.0 << "ring" << "LL" << false;
        QTest::addRow("A100 1 node 8 GiB allreduce") << "A100-SXM-80GB" << 8 << "allreduce" << 8 * kGiB << "ring" << "Simple" << false;
        QTest::addRow("A100 64 nodes 8 KiB allreduce RoCE") << "A100-SXM-80GB" << 512 << "allreduce" << 8192.0 << "tree" << "LL" << true;
        // With InfiniBand, SHARP (CollNet) is eligible and its single network hop wins small sizes.
        QTest::addRow("A100 64 nodes 8 KiB allreduce IB") << "A100-SXM-80GB" << 512 << "allreduce" << 8192.0 << "collnet_direct" << "Simple" << false;
        QTest::addRow("A100 64 nodes 8 GiB allgather") << "A100-SXM-80GB" << 512 << "allgather" << 8 * kGiB << "ring" << "Simple" << false;
        QTest::addRow("H100 1 node 8 GiB alltoall") << "H100-SXM-80GB" << 8 << "alltoall" << 8 * kGiB << "direct" << "Simple" << false;
    }
    void autoChoice()
    {
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(QString, op);
        QFETCH(double, bytes);
        QFETCH(QString, expectedAlgorithm);
        QFETCH(QString, expectedProtocol);
        QFETCH(bool, roce);
        const CollectiveModel m = modelFor(
            cluster(gpu.toUtf8().constData(), gpus, 8, 200.0, 8, roce ? Transport::RoCE : Transport::InfiniBand));
        CollectiveRequest r;
        r.op = opNamed(op);
        r.bytes = bytes;
        r.group = m.placementFor(gpus);
        const CollectiveEstimate e = m.estimate(r);
        QVERIFY(e.valid);
        QCOMPARE(QString::fromUtf8(toString(e.algorithm)), expectedAlgorithm);
        QCOMPARE(QString::fromUtf8(toString(e.protocol)), expectedProtocol);
    }
};

QTEST_GUILESS_MAIN(TestCollectiveModel)
#include "tst_collectivemodel.moc"
