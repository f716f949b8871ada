// The compact GPU-pair traffic matrix: patterns per dimension, pair lookups, totals by link class
// and node/rack aggregation agree with the bytes each GPU sends.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/trafficmatrix.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <cmath>
#include <numeric>

using namespace clusterscope::engine;

namespace {
Scenario example(const char* name)
{
    return *parseScenarioJson(clusterscope::resources::embeddedFile(std::string("examples/") + name), name);
}
bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b) + 1e-6; }
} // namespace

class TestTrainingTraffic : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    struct Built {
        TrainingEstimate estimate;
        TrafficMatrix matrix;
    };
    Built build(const Scenario& s)
    {
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        if (!evaluator)
            qFatal("%s", evaluator.message().c_str());
        const TrainingEstimate e = evaluator->evaluate(TrainingStrategy::fromScenario(s));
        return { e, TrafficMatrix::fromEstimate(e, evaluator->placer()) };
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    void totalsMatchBytesSent_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("cpKind");
        QTest::addRow("llama 1f1b") << QStringLiteral("llama3-70b-1024-h100.json") << 1 << -1;
        QTest::addRow("llama interleaved") << QStringLiteral("llama3-70b-1024-h100.json") << 2 << -1;
        QTest::addRow("mixtral ep + ring cp")
            << QStringLiteral("mixtral-8x7b-256-h200-roce.json") << 1 << int(ContextParallelKind::Ring);
        QTest::addRow("mixtral ep + ulysses")
            << QStringLiteral("mixtral-8x7b-256-h200-roce.json") << 1 << int(ContextParallelKind::Ulysses);
    }
    void totalsMatchBytesSent()
    {
        QFETCH(QString, name);
        QFETCH(int, vpp);
        QFETCH(int, cpKind);
        Scenario s = example(name.toLatin1().constData());
        if (vpp > 1) {
            s.parallelism->vpp = vpp;
            s.parallelism->schedule = PipelineSchedule::Interleaved;
        }
        if (cpKind >= 0) {
            s.parallelism->cp = 2;
            s.parallelism->dp /= 2;
            s.parallelism->cpKind = ContextParallelKind(cpKind);
        }
        const Built b = build(s);
        QVERIFY(b.estimate.valid);
        const auto totals = b.matrix.totalsByClass();
        const auto sum
            = [](const std::array<double, kLinkClasses>& row) { return std::accumulate(row.begin(), row.end(), 0.0); };
        const double gpus = s.cluster.gpus;
        const CommunicationBytes& sent = b.estimate.bytesSent;
        QVERIFY(near(sum(totals[int(TrafficDimension::TP)]), gpus * sent.tp, 1e-9));
        QVERIFY(near(sum(totals[int(TrafficDimension::DP)]), gpus * (sent.dp + sent.expertDp), 1e-9));
        QVERIFY(near(sum(totals[int(TrafficDimension::EP)]), gpus * sent.ep, 1e-9));
        QVERIFY(near(sum(totals[int(TrafficDimension::CP)]), gpus * sent.cp, 1e-9));
        // Pipeline: the first stage sends no gradient back and the last no activation forward (a chain),
        // unless interleaving closes the ring.
        const double pp = s.parallelism->pp;
        const double ppExpected = vpp > 1 || pp == 1 ? gpus * sent.pp : gpus * sent.pp * (pp - 1.0) / pp;
        QVERIFY(near(sum(totals[int(TrafficDimension::PP)]), ppExpected, 1e-9));
        // Aggregates keep every byte; the node aggregate's diagonal holds the scale-up traffic.
        const double all = gpus * (sent.tp + sent.dp + sent.expertDp + sent.ep + sent.cp) + ppExpected;
        const BlockTraffic nodes = b.matrix.aggregate(s.cluster.gpusPerNode);
        QCOMPARE(nodes.blocks, static_cast<long long>(s.cluster.gpus / s.cluster.gpusPerNode));
        QVERIFY(near(std::accumulate(nodes.bytes.begin(), nodes.bytes.end(), 0.0), all, 1e-9));
        double diagonal = 0, scaleUp = 0;
        for (long long n = 0; n < nodes.blocks; ++n)
            diagonal += nodes.at(n, n);
        for (const auto& row : totals)
            scaleUp += row[0];
        QVERIFY(near(diagonal, scaleUp, 1e-9));
        const BlockTraffic racks = b.matrix.aggregate(s.cluster.gpusPerNode * 4);
        QVERIFY(near(std::accumulate(racks.bytes.begin(), racks.bytes.end(), 0.0), all, 1e-9));
    }

    void pairLookups()
    {
        const Scenario s = example("llama3-70b-1024-h100.json"); // tp 8, pp 4, dp 32, rail-optimized
        const Built b = build(s);
        const CommunicationBytes& sent = b.estimate.bytesSent;
        // TP ring neighbours inside node 0; GPU 0 -> 2 is not a ring neighbour.
        QVERIFY(near(b.matrix.pairBytes(0, 1)[int(TrafficDimension::TP)], sent.tp, 1e-12));
        QVERIFY(near(b.matrix.pairBytes(7, 0)[int(TrafficDimension::TP)], sent.tp, 1e-12));
        QCOMPARE(b.matrix.pairTotalBytes(0, 2), 0.0);
        // DP ring: GPU 0 -> GPU 8 (next node, same rail).
        QVERIFY(near(b.matrix.pairBytes(0, 8)[int(TrafficDimension::DP)], sent.dp, 1e-12));
        // Pipeline: stage 0 (GPU 0) -> stage 1 (GPU 256) forward, and back.
        QVERIFY(near(b.matrix.pairBytes(0, 256)[int(TrafficDimension::PP)], sent.pp / 2, 1e-12));
        QVERIFY(near(b.matrix.pairBytes(256, 0)[int(TrafficDimension::PP)], sent.pp / 2, 1e-12));
        QCOMPARE(b.matrix.pairBytes(0, 512)[int(TrafficDimension::PP)], 0.0);
        // Compact: one pattern per active dimension, never a dense matrix.
        QVERIFY(b.matrix.patterns().size() <= 5);
        // Link classes: TP on NVLink, DP under the rail leaf, PP through the spines.
        const auto totals = b.matrix.totalsByClass();
        QVERIFY(totals[int(TrafficDimension::TP)][0] > 0 && totals[int(TrafficDimension::TP)][1] == 0);
        QVERIFY(totals[int(TrafficDimension::DP)][1] > 0 && totals[int(TrafficDimension::DP)][2] == 0);
        QVERIFY(totals[int(TrafficDimension::PP)][2] > 0 && totals[int(TrafficDimension::PP)][1] == 0);
    }

    // A ring collective over groups with several GPUs per server runs on NCCL's channels: each
    // channel leaves a server through one NIC and enters the next server through the NIC of the
    // same index (the same rail), so the network bytes of the ring are spread over the group's
    // GPUs in each server and never cross rails; the NVLink hops carry the rest.
    void ringCollectivesStayOnRails()
    {
        Scenario s = example("llama3-70b-1024-h100.json");
        s.parallelism->tp = 1;
        s.parallelism->pp = 1;
        s.parallelism->cp = 4;
        s.parallelism->dp = 256;
        s.parallelism->zero = 3;
        s.parallelism->sequenceParallel = false;
        const Built b = build(s);
        QVERIFY(b.estimate.valid);
        const int perNode = s.cluster.gpusPerNode;
        const double sent = b.estimate.bytesSent.dp;
        QVERIFY(sent > 0);
        std::vector<double> network(s.cluster.gpus, 0.0), scaleUp(s.cluster.gpus, 0.0);
        b.matrix.visitSends([&](long long src, long long dst, int d, double bytes) {
            if (d != int(TrafficDimension::DP))
                return;
            if (src / perNode == dst / perNode) {
                scaleUp[src] += bytes;
            } else {
                QCOMPARE(src % perNode, dst % perNode); // same rail
                QCOMPARE((dst - src + s.cluster.gpus) % s.cluster.gpus, static_cast<long long>(perNode)); // next server
                network[src] += bytes;
            }
        });
        // The dp x cp group has all 8 GPUs of each server: 1/8 of each GPU's ring bytes go out on its
        // own NIC, 7/8 to its NVLink neighbour; the pair lookup says the same.
        for (long long g = 0; g < s.cluster.gpus; ++g) {
            QVERIFY(near(network[g], sent / perNode, 1e-12));
            QVERIFY(near(scaleUp[g], sent * (perNode - 1) / perNode, 1e-12));
        }
        QVERIFY(near(b.matrix.pairBytes(3, 11)[int(TrafficDimension::DP)], sent / perNode, 1e-12));
        QVERIFY(near(b.matrix.pairBytes(3, 4)[int(TrafficDimension::DP)], sent * (perNode - 1) / perNode, 1e-12));
        QVERIFY(near(b.matrix.pairBytes(7, 0)[int(TrafficDimension::DP)], sent * (perNode - 1) / perNode, 1e-12));
        QCOMPARE(b.matrix.pairBytes(7, 8)[int(TrafficDimension::DP)], 0.0); // not across rails
        // The last server's GPUs wrap around to the first server, on their own rails.
        QVERIFY(near(
            b.matrix.pairBytes(s.cluster.gpus - 1, perNode - 1)[int(TrafficDimension::DP)], sent / perNode, 1e-12));
        // Ring attention's point-to-point sends (CP) still go from each member to the next.
        QVERIFY(near(b.matrix.pairBytes(0, 1)[int(TrafficDimension::CP)], b.estimate.bytesSent.cp, 1e-12));
    }

    void allToAllPairs()
    {
        const Scenario s = example("mixtral-8x7b-256-h200-roce.json"); // tp 2, ep 8 inside dp
        const Built b = build(s);
        const double perPair = b.estimate.bytesSent.ep / 7.0;
        // EP group of GPU 0: GPUs 0, 2, 4, ..., 14 (stride tp = 2).
        for (int peer = 2; peer < 16; peer += 2)
            QVERIFY(near(b.matrix.pairBytes(0, peer)[int(TrafficDimension::EP)], perPair, 1e-12));
        QCOMPARE(b.matrix.pairBytes(0, 16)[int(TrafficDimension::EP)], 0.0);
    }
};

QTEST_GUILESS_MAIN(TestTrainingTraffic)
#include "tst_trainingtraffic.moc"
