// Textbook claims about collectives (Thakur, Rabenseifner and Gropp, "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 2005; Patarasuk and Yuan, JPDC 2009): ring per-link volume, hierarchical
// reduction's saving, the parameter server's hub load, and the "N^2/2 flows" remark (true of a naive all-to-all
// exchange, not of ring or tree).

#include "engine/collectives/collectivemodel.h"

#include <QtTest>

#include <cmath>

using namespace clusterscope::engine;

namespace {

CollectiveHardware machine()
{
    CollectiveHardware hw;
    hw.archIndex = 2;
    hw.intraBytesPerSecond = 370.8e9;
    hw.intraChannels = 18;
    hw.nicBytesPerSecond = 48e9;
    hw.copyBytesPerSecond = 1e12;
    hw.nicsPerNode = 8;
    hw.nodesPerLeaf = 32;
    hw.nodesPerPod = 100000;
    hw.fabricTiers = 2;
    return hw;
}

CollectiveEstimate run(CollectiveOp op, CollectiveAlgorithm a, GroupPlacement g, double bytes)
{
    const CollectiveModel m(machine());
    CollectiveRequest r;
    r.op = op;
    r.bytes = bytes;
    r.group = g;
    r.algorithm = a;
    return m.estimate(r);
}

constexpr double kS = 1e9;

} // namespace

class TestCollectiveSeed : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ringPerLinkVolume_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::addRow("2") << 2;
        QTest::addRow("4") << 4;
        QTest::addRow("8") << 8;
    }
    void ringPerLinkVolume()
    {
        // "(N-1)/N de los datos" per link per phase; AllReduce = reduce-scatter + all-gather: 2(N-1)/N.
        QFETCH(int, ranks);
        const double n = ranks;
        const GroupPlacement oneNode { ranks, ranks, 8, 0, 0 };
        const auto ar = run(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, oneNode, kS);
        QVERIFY(std::abs(ar.perRankBytes.scaleUpBytes - 2 * (n - 1) / n * kS) < 1e-3);
        const auto rs = run(CollectiveOp::ReduceScatter, CollectiveAlgorithm::Ring, oneNode, kS);
        QVERIFY(std::abs(rs.perRankBytes.scaleUpBytes - (n - 1) / n * kS) < 1e-3);
        const auto ag = run(CollectiveOp::AllGather, CollectiveAlgorithm::Ring, oneNode, kS);
        QVERIFY(std::abs(ag.perRankBytes.scaleUpBytes - (n - 1) / n * kS) < 1e-3);
        // One rank per node: the same volume leaves through the NIC.
        const auto spread = run(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, { ranks, 1, 1, 1, 0 }, kS);
        QVERIFY(std::abs(spread.perRankBytes.nicBytes - 2 * (n - 1) / n * kS) < 1e-3);
        QCOMPARE(spread.perRankBytes.scaleUpBytes, 0.0);
    }

    void hierarchicalSaving_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("ranksPerNode");
        QTest::addRow("32 nodes x 8") << 32 << 8;
        QTest::addRow("16 nodes x 4") << 16 << 4;
        QTest::addRow("8 nodes x 8") << 8 << 8;
    }
    void hierarchicalSaving()
    {
        // "reduce el tráfico inter-rack por el número de GPUs por rack, típicamente 8x": against a
        // flat ring where every hop crosses the network (one rank per node), the two-level scheme
        // sends 1/ppn of it per rank (exactly: the node shard S/ppn over a ring of m nodes).
        QFETCH(int, nodes);
        QFETCH(int, ranksPerNode);
        const int n = nodes * ranksPerNode;
        const double m = nodes;
        const auto hier = run(
            CollectiveOp::AllReduce, CollectiveAlgorithm::Hierarchical, { n, ranksPerNode, ranksPerNode, 1, 0 }, kS);
        QVERIFY(std::abs(hier.perRankBytes.nicBytes * ranksPerNode - 2 * (m - 1) / m * kS) < 1);
        const auto flat = run(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, { n, 1, 1, 1, 0 }, kS);
        const double saving = flat.perRankBytes.nicBytes / hier.perRankBytes.nicBytes;
        qInfo("%d GPUs, %d per node: inter-node bytes per rank cut %.2fx", n, ranksPerNode, saving);
        QVERIFY(std::abs(saving / ranksPerNode - 1) < 0.15);
    }

    void threeLevelSaving()
    {
        // Three levels (node, leaf, global): 128 nodes x 8 GPUs, 32 nodes per leaf. Bytes above the
        // leaf per rank are those of an all-reduce among the 4 leaves, divided by the 256 GPUs of a leaf.
        const GroupPlacement g { 1024, 8, 8, 2, 32 };
        const auto hier = run(CollectiveOp::AllReduce, CollectiveAlgorithm::Hierarchical, g, kS);
        const double aboveLeaf = hier.perRankBytes.tierBytes[2] + hier.perRankBytes.tierBytes[3];
        QVERIFY(std::abs(aboveLeaf * 256 - 2 * (3.0 / 4) * kS) < 1);
        // Against the flat ring over all 1024 GPUs spread one per node, the cut is ~GPUs per leaf.
        const auto flat = run(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, { 1024, 1, 1, 1, 0 }, kS);
        const double cut = flat.perRankBytes.nicBytes / aboveLeaf;
        qInfo("inter-leaf bytes per rank cut %.0fx (GPUs per leaf 256)", cut);
        QVERIFY(cut >= 256);
        // Everything NIC-bound is accounted for by the tiers.
        const auto& b = hier.perRankBytes;
        QVERIFY(std::abs(b.tierBytes[1] + b.tierBytes[2] + b.tierBytes[3] - b.nicBytes) < 1e-3);
    }

    void parameterServerHubLoad_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::addRow("16") << 16;
        QTest::addRow("64") << 64;
        QTest::addRow("256") << 256;
    }
    void parameterServerHubLoad()
    {
        // "deben manejar 2N veces el volumen de gradientes": N pushes in, N pulls out.
        QFETCH(int, ranks);
        const auto ps = run(CollectiveOp::AllReduce, CollectiveAlgorithm::ParameterServer, { ranks, 8, 8, 1, 0 }, kS);
        QVERIFY(ps.valid);
        QCOMPARE(ps.hubBytes, 2.0 * ranks * kS);
        // And it is slower than the ring for the same group by about N / (2(N-1)/N x ...): the hub
        // carries N times what a ring node carries.
        const auto ring = run(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, { ranks, 8, 8, 1, 0 }, kS);
        QVERIFY(ps.seconds > ring.seconds * ranks / 16.0);
    }

    void flowCounts()
    {
        // Claim: all-reduce makes "N^2/2 flows". A one-shot exchange does open N(N-1) directed flows
        // (N(N-1)/2 pairs); a ring opens one per rank and channel, a double binary tree 4(N-1).
        const int n = 64;
        const GroupPlacement g { n, 8, 8, 1, 0 };
        QCOMPARE(run(CollectiveOp::AllReduce, CollectiveAlgorithm::Direct, g, kS).flows, double(n) * (n - 1));
        QCOMPARE(run(CollectiveOp::AllReduce, CollectiveAlgorithm::Tree, g, kS).flows, 4.0 * (n - 1));
        const double ringFlows = run(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, g, kS).flows;
        QCOMPARE(ringFlows, n * 16.0); // 2 channels per NIC x 8 NICs
        QVERIFY(ringFlows < n * (n - 1) / 2.0);
    }
};

QTEST_GUILESS_MAIN(TestCollectiveSeed)
#include "tst_collectiveseed.moc"
