// The Muon optimizer (training.optimizer "muon"; Megatron-Core optimizer/muon.py through the layer-wise
// distributed optimizer): Newton-Schulz work per matrix and per GPU (and in the executed FLOPs), the
// optimizer state it keeps, the weight gather after the step, and the scenario key.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/computeefficiency.h"
#include "engine/training/memorymodel.h"
#include "engine/training/muonstep.h"
#include "engine/training/trainingevaluator.h"
#include "engine/training/transformershape.h"
#include "resources/embeddedresources.h"
#include "tests/support/evaluatorfor.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace clusterscope::engine;

namespace {

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

} // namespace

class TestTrainingMuon : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    TrainingEvaluator evaluator(const Scenario& s) { return clusterscope::testsupport::evaluatorFor(s, m_catalog); }

    Scenario mixtral(bool muon)
    {
        auto s = parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "mixtral");
        s->parallelism = ParallelismSpec {};
        s->parallelism->ep = 8;
        s->parallelism->dp = s->cluster.gpus;
        s->parallelism->zero = 0;
        s->training.muon = muon;
        return *s;
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    // Five iterations of A = X X^T, B = b A + c A A, X = a X + B X on the short side s and long side l:
    // 20 s^2 l + 10 s^3, whichever way the matrix lies.
    void newtonSchulzFlops()
    {
        QCOMPARE(clusterscope::engine::newtonSchulzFlops(4096.0, 7168.0),
            20.0 * 4096 * 4096 * 7168 + 10.0 * 4096.0 * 4096 * 4096);
        QCOMPARE(clusterscope::engine::newtonSchulzFlops(7168.0, 4096.0),
            clusterscope::engine::newtonSchulzFlops(4096.0, 7168.0));
        QCOMPARE(clusterscope::engine::newtonSchulzFlops(64.0, 64.0, 1), 6.0 * 64 * 64 * 64);
    }

    // The Newton-Schulz time of a GPU is its stage's matrices over the data-parallel ranks (experts over
    // the expert-data-parallel ranks).
    void newtonSchulzPerGpu()
    {
        const Scenario s = mixtral(true);
        const TrainingEvaluator ev = evaluator(s);
        const TransformerShape m = TransformerShape::fromModel(s.model);
        ParallelismSpec p = *s.parallelism;
        const double all = muonNewtonSchulzSeconds(m, p, ev.efficiency(), m.layers);
        QVERIFY(all > 0);
        // Twice the layers, twice the work.
        QVERIFY(near(muonNewtonSchulzSeconds(m, p, ev.efficiency(), 2 * m.layers), 2 * all, 1e-12));
        // Whole matrices are dealt over the data-parallel ranks (experts over the expert-data-parallel
        // ones): twice the ranks, half the work each; ep 4 holds twice the experts per rank but deals
        // them over twice the expert-data-parallel ranks.
        ParallelismSpec wider = p;
        wider.dp *= 2;
        QVERIFY(near(muonNewtonSchulzSeconds(m, wider, ev.efficiency(), m.layers), all / 2, 1e-12));
        ParallelismSpec fewer = p;
        fewer.ep = 4;
        QVERIFY(near(muonNewtonSchulzSeconds(m, fewer, ev.efficiency(), m.layers), all, 1e-12));
    }

    // Against Adam on the same strategy: the optimizer step grows by exactly the Newton-Schulz seconds,
    // the state shrinks from 12 bytes per parameter (replicated without ZeRO) to 8 owned per rank
    // (Adam's 12 for the embedding and output layer), and without ZeRO the updated weights are gathered
    // after the step, exposed.
    void againstAdam()
    {
        const Scenario adamScenario = mixtral(false), muonScenario = mixtral(true);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(adamScenario);
        const TrainingEvaluator adamEv = evaluator(adamScenario), muonEv = evaluator(muonScenario);
        const TrainingEstimate adam = adamEv.evaluate(strategy), muon = muonEv.evaluate(strategy);
        QVERIFY(adam.valid && muon.valid);
        const TransformerShape m = TransformerShape::fromModel(muonScenario.model);
        const double ns = muonNewtonSchulzSeconds(m, *muonScenario.parallelism, muonEv.efficiency(), m.layers);
        const ParallelismSpec& p = *muonScenario.parallelism;
        const LocalParams local = localParams(m, p);
        const double ownedParams = local.dense / (double(p.dp) * p.cp) + local.expert / expertDataParallel(p);
        const double elementwise
            = muonEv.efficiency().memoryBoundSeconds(ownedParams * muonEv.efficiency().params().optimizerBytesPerParam);
        QVERIFY(near(muon.breakdown.optimizer, elementwise + ns, 1e-12));
        QVERIFY(near(adam.memory.optimizerBytes, 12.0 * local.total(), 1e-12));
        const double expected = 8.0 * ownedParams + 4.0 * local.vocab / (double(p.dp) * p.cp);
        QVERIFY(near(muon.memory.optimizerBytes, expected, 1e-12));
        QVERIFY(muon.bytesSent.dp > adam.bytesSent.dp); // the weight gather
        QVERIFY(muon.breakdown.dpExposed > adam.breakdown.dpExposed);
        // The executed FLOPs count the Newton-Schulz GEMMs of every matrix once (Mixtral 8x7B, tp 1:
        // per layer QKV 6144 x 4096, output 4096 x 4096, router 8 x 4096, and per expert the fused gate
        // and up 28672 x 4096 and down 4096 x 14336); the model FLOPs do not.
        QCOMPARE(muon.modelFlopsPerIteration, adam.modelFlopsPerIteration);
        const double perLayer = clusterscope::engine::newtonSchulzFlops(6144, 4096)
            + clusterscope::engine::newtonSchulzFlops(4096, 4096) + clusterscope::engine::newtonSchulzFlops(8, 4096)
            + 8.0
                * (clusterscope::engine::newtonSchulzFlops(28672, 4096)
                    + clusterscope::engine::newtonSchulzFlops(4096, 14336));
        QVERIFY(near(muon.hardwareFlopsPerIteration - adam.hardwareFlopsPerIteration, 32.0 * perLayer, 1e-12));
    }

    void scenarioKey()
    {
        nlohmann::json j
            = nlohmann::json::parse(clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"));
        j["training"]["optimizer"] = "muon";
        const auto s = parseScenarioJson(j.dump(), "m.json");
        QVERIFY2(s, s.message().c_str());
        QVERIFY(s->training.muon);
        const auto back = parseScenarioJson(scenarioToJson(*s), "back.json");
        QVERIFY(back && back->training.muon);
        j["training"]["optimizer"] = "lion";
        const auto refused = parseScenarioJson(j.dump(), "m.json");
        QVERIFY(!refused);
        QVERIFY2(
            refused.message().find("m.json: /training/optimizer:") != std::string::npos, refused.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTrainingMuon)
#include "tst_trainingmuon.moc"
