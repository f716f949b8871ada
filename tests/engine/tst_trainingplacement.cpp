// Group placement (rank order TP, CP, DP, PP innermost first) and strategy validity.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <cstring>

using namespace clusterscope::engine;

namespace {
Scenario example(const char* name)
{
    return *parseScenarioJson(clusterscope::resources::embeddedFile(std::string("examples/") + name), name);
}
} // namespace

class TestTrainingPlacement : public QObject {
    Q_OBJECT

    Catalog m_catalog;

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    void geometry_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<int>("radix");
        QTest::addColumn<double>("oversubscription");
        QTest::addColumn<int>("tiers");
        QTest::addColumn<int>("nodesPerLeaf");
        QTest::addColumn<int>("nodesPerPod");
        // Rail-optimized: one leaf per rail serves radix/2 nodes (DGX SuperPOD scalable unit of 32).
        QTest::addRow("rail 64 1:1 2 tiers") << "rail-optimized" << 64 << 1.0 << 2 << 32 << 128;
        QTest::addRow("rail 64 1:1 3 tiers") << "rail-optimized" << 64 << 1.0 << 3 << 32 << 1024;
        // Leaf-spine with 8 NICs per node: 32 down-ports = 4 nodes per leaf; 3:1 gives 48 = 6 nodes.
        QTest::addRow("leaf-spine 64 1:1") << "leaf-spine" << 64 << 1.0 << 2 << 4 << 128;
        QTest::addRow("leaf-spine 64 3:1") << "leaf-spine" << 64 << 3.0 << 2 << 6 << 128;
        QTest::addRow("fat-tree 40 3 tiers") << "fat-tree" << 40 << 1.0 << 3 << 2 << 40;
    }
    void geometry()
    {
        QFETCH(QString, type);
        QFETCH(int, radix);
        QFETCH(double, oversubscription);
        QFETCH(int, tiers);
        QFETCH(int, nodesPerLeaf);
        QFETCH(int, nodesPerPod);
        Scenario s = example("llama3-70b-1024-h100.json");
        s.cluster.fabric.type = type == QStringLiteral("rail-optimized") ? FabricType::RailOptimized
            : type == QStringLiteral("leaf-spine")                       ? FabricType::LeafSpine
                                                                         : FabricType::FatTree;
        s.cluster.fabric.switchRadix = radix;
        s.cluster.fabric.oversubscription = oversubscription;
        s.cluster.fabric.tiers = tiers;
        const ClusterGeometry g = ClusterGeometry::fromScenario(s, *m_catalog.findGpu(s.cluster.gpu));
        QCOMPARE(g.nodesPerLeaf, nodesPerLeaf);
        QCOMPARE(g.nodesPerPod, nodesPerPod);
        QCOMPARE(g.scaleUpDomainGpus, 8);
    }

    void groups_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<QString>("order");
        QTest::addColumn<QString>("which");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("ranksPerNode");
        QTest::addColumn<int>("nicsPerNode");
        QTest::addColumn<int>("spanTier");
        // 1024 H100, rail-optimized radix 64, 2 tiers: 32 nodes per rail leaf.
        const QString def = QStringLiteral("tp-cp-dp-pp");
        QTest::addRow("tp8 inside a node") << 8 << 1 << 4 << def << "tp" << 8 << 8 << 8 << 0;
        QTest::addRow("dp32 one rail, one leaf") << 8 << 1 << 4 << def << "dp" << 32 << 1 << 1 << 1;
        QTest::addRow("pp neighbours 32 nodes apart") << 8 << 1 << 4 << def << "pp" << 2 << 1 << 1 << 2;
        QTest::addRow("tp4 leaves 2 ranks of dp per node") << 4 << 1 << 1 << def << "dp" << 256 << 2 << 2 << 2;
        QTest::addRow("cp2 after tp4 in the node") << 4 << 2 << 4 << def << "cp" << 2 << 2 << 2 << 0;
        QTest::addRow("tp16 spans two nodes") << 16 << 1 << 1 << def << "tp" << 16 << 8 << 8 << 1;
        QTest::addRow("dp innermost puts tp across nodes")
            << 8 << 1 << 4 << QStringLiteral("dp-tp-cp-pp") << "tp" << 8 << 1 << 1 << 1;
        QTest::addRow("dp innermost: pp 8 x 32 GPUs apart")
            << 8 << 1 << 4 << QStringLiteral("dp-tp-cp-pp") << "pp" << 2 << 1 << 1 << 2;
        QTest::addRow("pp innermost inside the node")
            << 1 << 1 << 8 << QStringLiteral("pp-tp-cp-dp") << "pp" << 2 << 2 << 2 << 0;
    }
    void groups()
    {
        QFETCH(int, tp);
        QFETCH(int, cp);
        QFETCH(int, pp);
        QFETCH(QString, order);
        QFETCH(QString, which);
        QFETCH(int, ranks);
        QFETCH(int, ranksPerNode);
        QFETCH(int, nicsPerNode);
        QFETCH(int, spanTier);
        const Scenario s = example("llama3-70b-1024-h100.json");
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(evaluator.isOk());
        ParallelismSpec p;
        p.tp = tp;
        p.cp = cp;
        p.pp = pp;
        p.dp = 1024 / (tp * cp * pp);
        p.placementOrder = order.toStdString();
        const StrategyGroups g = evaluator->groups(p);
        const GroupPlacement& got = which == QStringLiteral("tp") ? g.tp
            : which == QStringLiteral("cp")                       ? g.cp
            : which == QStringLiteral("pp")                       ? g.ppPair
                                                                  : g.dp;
        QCOMPARE(got.ranks, ranks);
        QCOMPARE(got.ranksPerNode, ranksPerNode);
        QCOMPARE(got.nicsPerNode, nicsPerNode);
        QCOMPARE(got.spanTier, spanTier);
    }

    void pairTiers_data()
    {
        QTest::addColumn<int>("a");
        QTest::addColumn<int>("b");
        QTest::addColumn<int>("tier");
        QTest::addRow("same node") << 0 << 7 << 0;
        QTest::addRow("same leaf") << 0 << 8 * 31 << 1;
        QTest::addRow("through spines") << 0 << 8 * 32 << 2;
    }
    void pairTiers()
    {
        QFETCH(int, a);
        QFETCH(int, b);
        QFETCH(int, tier);
        const Scenario s = example("llama3-70b-1024-h100.json");
        const GroupPlacer placer(ClusterGeometry::fromScenario(s, *m_catalog.findGpu(s.cluster.gpu)));
        QCOMPARE(placer.pairTier(a, b), tier);
        QCOMPARE(placer.pairTier(b, a), tier);
    }

    // Every rule of TrainingEvaluator::invalidReason, one row each.
    void invalidStrategies_data()
    {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("pointer");
        const QString llama = QStringLiteral("llama3-70b-1024-h100.json");
        const QString mixtral = QStringLiteral("mixtral-8x7b-256-h200-roce.json");
        QTest::addRow("product") << llama << "dp=16"
                                 << "/parallelism: tp x pp x dp x cp";
        QTest::addRow("tp divides heads") << llama << "tp=16,dp=16,pp=4,heads"
                                          << "/parallelism/tp: heads";
        QTest::addRow("kv heads") << llama << "tp=16,dp=16,kv=6"
                                  << "/parallelism/tp: kv_heads";
        // Layer counts that do not divide pp x vpp are split the way Megatron does (uneven stages);
        // what is refused is a pipeline deeper than the layers and a stated split that cannot hold.
        QTest::addRow("pp above layers") << llama << "pp=128,dp=1"
                                         << "/parallelism/pp: pp cannot exceed";
        QTest::addRow("stated first stage") << llama << "first=90"
                                            << "/parallelism/first_stage_layers";
        QTest::addRow("batch") << llama << "mb=3"
                               << "/parallelism/dp";
        QTest::addRow("seq") << llama << "cp=2,seq=8191"
                             << "/parallelism/cp: seq_len";
        QTest::addRow("ulysses heads") << llama << "cp=16,dp=2,ulysses"
                                       << "/parallelism/cp: Ulysses needs heads";
        QTest::addRow("ulysses kv heads") << llama << "cp=2,ulysses"
                                          << "/parallelism/cp: Ulysses needs the kv heads";
        QTest::addRow("ep dense") << llama << "ep=2"
                                  << "/parallelism/ep: ep > 1 needs";
        QTest::addRow("ep experts") << mixtral << "ep=3"
                                    << "/parallelism/ep: experts";
        QTest::addRow("vpp without pp") << mixtral << "vpp=2"
                                        << "/parallelism/vpp: virtual";
        QTest::addRow("interleaved micro-batches") << llama << "vpp=2,batch=96"
                                                   << "/parallelism/vpp: the interleaved schedule needs at least pp";
        // Megatron-Core's interleaved schedule (schedules.py): micro-batches a multiple of pp by default;
        // otherwise a stated group G (pp <= G <= micro-batches, remainder 0 or >= pp). 192 / 32 = 6 on pp 4.
        QTest::addRow("interleaved not a multiple of pp") << llama << "vpp=2,batch=192"
                                                          << "/parallelism/vpp: the interleaved schedule needs "
                                                             "micro-batches divisible by pp, or a vpp_microbatch_group";
        QTest::addRow("group below pp") << llama << "vpp=2,batch=192,group=3"
                                        << "/parallelism/vpp_microbatch_group: the micro-batch group must lie";
        QTest::addRow("group above micro-batches")
            << llama << "vpp=2,batch=192,group=7"
            << "/parallelism/vpp_microbatch_group: the micro-batch group must lie";
        QTest::addRow("group leaves a short last group") << llama << "vpp=2,batch=192,group=5"
                                                         << "/parallelism/vpp_microbatch_group: the last group";
        QTest::addRow("group without interleaving") << llama << "group=4"
                                                    << "/parallelism/vpp_microbatch_group: a micro-batch group "
                                                       "applies to the interleaved schedule";
        QTest::addRow("interleaved vpp1") << llama << "interleaved"
                                          << "/parallelism/pipeline_schedule";
        QTest::addRow("zero2 with pp") << llama << "zero=2"
                                       << "/parallelism/zero";
    }
    void invalidStrategies()
    {
        QFETCH(QString, example);
        QFETCH(QString, change);
        QFETCH(QString, pointer);
        Scenario s = ::example(example.toLatin1().constData());
        TrainingStrategy t = TrainingStrategy::fromScenario(s);
        ParallelismSpec& p = t.parallelism;
        for (const QString& c : change.split(QLatin1Char(','))) {
            const QStringList kv = c.split(QLatin1Char('='));
            const int v = kv.size() > 1 ? kv[1].toInt() : 0;
            if (kv[0] == QStringLiteral("dp"))
                p.dp = v;
            else if (kv[0] == QStringLiteral("tp"))
                p.tp = v;
            else if (kv[0] == QStringLiteral("pp"))
                p.pp = v;
            else if (kv[0] == QStringLiteral("cp"))
                p.cp = v, p.dp = s.cluster.gpus / (p.tp * p.pp * v);
            else if (kv[0] == QStringLiteral("ep"))
                p.ep = v;
            else if (kv[0] == QStringLiteral("vpp"))
                p.vpp = v, p.schedule = PipelineSchedule::Interleaved;
            else if (kv[0] == QStringLiteral("zero"))
                p.zero = v;
            else if (kv[0] == QStringLiteral("first"))
                p.firstStageLayers = v;
            else if (kv[0] == QStringLiteral("mb"))
                t.microBatch = v;
            else if (kv[0] == QStringLiteral("heads"))
                s.model.heads = 72, s.model.kvHeads = 8;
            else if (kv[0] == QStringLiteral("kv"))
                s.model.kvHeads = v, s.model.heads = 96;
            else if (kv[0] == QStringLiteral("seq"))
                s.model.seqLen = v;
            else if (kv[0] == QStringLiteral("batch"))
                s.training.globalBatch = v;
            else if (kv[0] == QStringLiteral("ulysses"))
                p.cpKind = ContextParallelKind::Ulysses;
            else if (kv[0] == QStringLiteral("interleaved"))
                p.schedule = PipelineSchedule::Interleaved;
            else if (kv[0] == QStringLiteral("group"))
                p.vppMicrobatchGroup = v;
        }
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(evaluator.isOk());
        const char* reason = evaluator->invalidReason(t);
        QVERIFY2(reason, "expected the strategy to be rejected");
        QVERIFY2(std::strncmp(reason, pointer.toLatin1().constData(), pointer.size()) == 0, reason);
        QVERIFY(!evaluator->evaluate(t).valid);
    }

    void examplesAreValid_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("llama") << QStringLiteral("llama3-70b-1024-h100.json");
        QTest::addRow("gpt3") << QStringLiteral("gpt3-175b-1024-a100.json");
        QTest::addRow("mixtral") << QStringLiteral("mixtral-8x7b-256-h200-roce.json");
    }
    void examplesAreValid()
    {
        QFETCH(QString, name);
        const Scenario s = example(name.toLatin1().constData());
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(evaluator.isOk());
        const char* reason = evaluator->invalidReason(TrainingStrategy::fromScenario(s));
        QVERIFY2(!reason, reason);
    }

    // Megatron-Core runs micro-batches that are not a multiple of pp interleaved when given a micro-batch
    // group (--microbatch-group-size-per-virtual-pipeline-stage); a larger group keeps more activations
    // in flight: (vpp - 1) G chunks in warm-up instead of (vpp - 1) pp (schedules.py).
    void interleavingGroup()
    {
        Scenario s = example("llama3-70b-1024-h100.json"); // tp 8, pp 4, dp 32
        TrainingStrategy t = TrainingStrategy::fromScenario(s);
        t.microBatch = 1;
        t.parallelism.vpp = 2;
        t.parallelism.schedule = PipelineSchedule::Interleaved;
        // 8 micro-batches: Megatron's default group (pp = 4) and the whole iteration as one group.
        s.training.globalBatch = 256;
        auto eight = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(eight.isOk());
        QVERIFY2(!eight->invalidReason(t), eight->invalidReason(t));
        const TrainingEstimate byPp = eight->evaluate(t);
        t.parallelism.vppMicrobatchGroup = 8;
        QVERIFY2(!eight->invalidReason(t), eight->invalidReason(t));
        const TrainingEstimate byEight = eight->evaluate(t);
        QVERIFY(byPp.valid && byEight.valid);
        // First stage: pp (1 + (pp - 1) / (pp vpp)) = 5.5 micro-batches in flight; the group of 8 adds
        // (vpp - 1) (8 - pp) / vpp = 2: activations x 7.5 / 5.5. The pipeline bubble is the same.
        QCOMPARE_LE(std::abs(byEight.memory.activationsBytes / byPp.memory.activationsBytes - 7.5 / 5.5), 1e-9);
        QCOMPARE(byEight.breakdown.bubble, byPp.breakdown.bubble);
        // 6 micro-batches (not a multiple of pp 4): refused by default, run with a group of 6, where
        // every chunk is in flight after warm-up (min(6, 5.5 + 1) = 6 micro-batches' activations).
        s.training.globalBatch = 192;
        auto six = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(six.isOk());
        t.parallelism.vppMicrobatchGroup = 0;
        QVERIFY(six->invalidReason(t));
        t.parallelism.vppMicrobatchGroup = 6;
        QVERIFY2(!six->invalidReason(t), six->invalidReason(t));
        const TrainingEstimate grouped = six->evaluate(t);
        QVERIFY(grouped.valid);
        QCOMPARE_LE(std::abs(grouped.memory.activationsBytes / byPp.memory.activationsBytes - 6.0 / 5.5), 1e-9);
        // As many micro-batches as stages: every chunk is in flight (Megatron warms all of them up), not
        // the 5.5 the steady-state formula would give.
        s.training.globalBatch = 128;
        auto four = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(four.isOk());
        t.parallelism.vppMicrobatchGroup = 0;
        const TrainingEstimate allInFlight = four->evaluate(t);
        QVERIFY(allInFlight.valid);
        QCOMPARE_LE(std::abs(allInFlight.memory.activationsBytes / byPp.memory.activationsBytes - 4.0 / 5.5), 1e-9);
    }

    void fp8NeedsTensorCores()
    {
        Scenario s = example("gpt3-175b-1024-a100.json");
        s.training.dtype = DType::FP8;
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(!evaluator.isOk());
        QVERIFY(evaluator.message().find("/training/dtype") != std::string::npos);
        // On H100 FP8 doubles the GEMM peak.
        Scenario h = example("llama3-70b-1024-h100.json");
        auto bf16 = TrainingEvaluator::create(h, m_catalog);
        h.training.dtype = DType::FP8;
        auto fp8 = TrainingEvaluator::create(h, m_catalog);
        QVERIFY(fp8.isOk() && bf16.isOk());
        QCOMPARE(bf16->peakFlopsPerSecond(), m_catalog.findGpu(h.cluster.gpu)->bf16FlopsPerSecond);
        QCOMPARE(fp8->peakFlopsPerSecond(), *m_catalog.findGpu(h.cluster.gpu)->fp8FlopsPerSecond);
        // Same model FLOPs at up to twice the rate: the iteration gets faster.
        const TrainingStrategy t = TrainingStrategy::fromScenario(h);
        QVERIFY(fp8->evaluate(t).iterationSeconds < bf16->evaluate(t).iterationSeconds);
    }
};

QTEST_GUILESS_MAIN(TestTrainingPlacement)
#include "tst_trainingplacement.moc"
