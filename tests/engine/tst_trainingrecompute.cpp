// Full recomputation of some layers only (Megatron-Core --recompute-method block / uniform with
// --recompute-num-layers; training.recompute_method / recompute_num_layers): the keys load, save and are
// refused where Megatron-Core refuses them; block recomputation of n layers per pipeline chunk costs n of
// the chunk's layers' forward (and their collectives again) and keeps only their inputs; uniform units
// keep one input per unit; the search proposes the fewest recomputed layers that fit.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/memorymodel.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "tests/support/evaluatorfor.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace clusterscope::engine;
using nlohmann::json;

namespace {

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

// Llama 3 8B on one node of 8 H100 (Megatron-Bridge's DGX-H100 recipe shape), bf16.
json llama8b()
{
    return json::parse(R"({
      "format": "clusterscope-scenario", "version": 1, "name": "llama3-8b",
      "cluster": {"gpu": "H100-SXM-80GB", "gpus": 8, "gpus_per_node": 8, "nic": {"gbps": 400, "per_node": 8},
                  "transport": "infiniband", "fabric": {"type": "rail-optimized"}},
      "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "vocab": 128256,
                "seq_len": 8192, "dropout": false},
      "training": {"global_batch": 128, "micro_batch": 1, "dtype": "bf16", "recompute": "none"},
      "parallelism": {"tp": 1, "pp": 1, "dp": 8}
    })");
}

} // namespace

class TestTrainingRecompute : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    Scenario load(const json& j)
    {
        auto s = parseScenarioJson(j.dump(), "r.json");
        if (!s)
            qFatal("%s", s.message().c_str());
        return *s;
    }

    TrainingEstimate run(const Scenario& s, Recompute r, RecomputeMethod method = RecomputeMethod::Uniform, int n = 1)
    {
        TrainingStrategy t = TrainingStrategy::fromScenario(s);
        t.recompute = r;
        t.recomputeMethod = method;
        t.recomputeNumLayers = n;
        TrainingEstimate e = clusterscope::testsupport::evaluatorFor(s, m_catalog).evaluate(t);
        if (!e.valid)
            qFatal("strategy refused");
        return e;
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    void keysRoundTrip()
    {
        json j = llama8b();
        j["training"]["recompute"] = "full";
        j["training"]["recompute_method"] = "block";
        j["training"]["recompute_num_layers"] = 5;
        const Scenario s = load(j);
        QCOMPARE(s.training.recomputeMethod, RecomputeMethod::Block);
        QCOMPARE(s.training.recomputeNumLayers, 5);
        const Scenario again = load(json::parse(scenarioToJson(s)));
        QVERIFY(again == s);
        const TrainingStrategy t = TrainingStrategy::fromScenario(s);
        QVERIFY(t.blockRecompute());
        QCOMPARE(recomputeText(t), std::string("full (block 5)"));
        // Defaults: uniform, one layer per unit, written without the keys; a strategy applied with
        // another recomputation drops them.
        Scenario edited = s;
        TrainingStrategy selective = t;
        selective.recompute = Recompute::Selective;
        selective.applyTo(edited);
        const json written = json::parse(scenarioToJson(edited));
        QVERIFY(!written["training"].contains("recompute_method"));
        QVERIFY(!written["training"].contains("recompute_num_layers"));
        QCOMPARE(recomputeText(TrainingStrategy::fromScenario(edited)), std::string("selective"));
        j["training"]["recompute_method"] = "uniform";
        j["training"]["recompute_num_layers"] = 4;
        QCOMPARE(recomputeText(TrainingStrategy::fromScenario(load(j))), std::string("full (uniform 4)"));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("recompute");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::addRow("method under selective")
            << "selective"
            << "recompute_method"
            << "\"block\""
            << "r.json: /training/recompute_method: recompute_method applies to recompute \"full\"";
        QTest::addRow("layers under none") << "none"
                                           << "recompute_num_layers"
                                           << "2"
                                           << "r.json: /training/recompute_num_layers: recompute_num_layers applies";
        QTest::addRow("unknown method") << "full"
                                        << "recompute_method"
                                        << "\"blocks\""
                                        << "r.json: /training/recompute_method:";
        QTest::addRow("zero layers") << "full"
                                     << "recompute_num_layers"
                                     << "0"
                                     << "r.json: /training/recompute_num_layers:";
    }
    void errors()
    {
        QFETCH(QString, recompute);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, message);
        json j = llama8b();
        j["training"]["recompute"] = recompute.toStdString();
        j["training"][key.toStdString()] = json::parse(value.toStdString());
        auto s = parseScenarioJson(j.dump(), "r.json");
        QVERIFY(!s.isOk());
        QVERIFY2(s.message().rfind(message.toStdString(), 0) == 0, s.message().c_str());
    }

    // One stage: block n recomputes n of the 32 layers' forward; n >= 32 is full recomputation; the
    // tensor-parallel collectives of the recomputed layers run again.
    void blockTimeIsItsLayersShare()
    {
        json j = llama8b();
        j["parallelism"] = { { "tp", 2 }, { "pp", 1 }, { "dp", 4 }, { "sequence_parallel", true } };
        const Scenario s = load(j);
        const TrainingEstimate none = run(s, Recompute::None), full = run(s, Recompute::Full);
        QVERIFY(full.breakdown.recompute > 0.1 * full.breakdown.compute);
        for (int n : { 1, 5, 17 }) {
            const TrainingEstimate b = run(s, Recompute::Full, RecomputeMethod::Block, n);
            QVERIFY2(near(b.breakdown.recompute, n / 32.0 * full.breakdown.recompute, 1e-12),
                qPrintable(QStringLiteral("block %1: %2 vs %3")
                               .arg(n)
                               .arg(b.breakdown.recompute)
                               .arg(n / 32.0 * full.breakdown.recompute)));
            QCOMPARE(b.breakdown.compute, full.breakdown.compute);
            // 2 passes without recomputation, 3 with full recomputation of every layer (forward again)
            QVERIFY(near(b.communication.tp, none.communication.tp * (2.0 + n / 32.0) / 2.0, 1e-12));
            QVERIFY(b.iterationSeconds > none.iterationSeconds && b.iterationSeconds < full.iterationSeconds);
        }
        for (int n : { 32, 40 }) {
            const TrainingEstimate b = run(s, Recompute::Full, RecomputeMethod::Block, n);
            QCOMPARE(b.iterationSeconds, full.iterationSeconds);
            QCOMPARE(b.memory.activationsBytes, full.memory.activationsBytes);
        }
        // Uniform units recompute every layer: the time of full recomputation.
        QCOMPARE(run(s, Recompute::Full, RecomputeMethod::Uniform, 4).iterationSeconds, full.iterationSeconds);
        // The hardware FLOPs count the recomputed layers' share of full recomputation's extra FLOPs.
        const TrainingEstimate b8 = run(s, Recompute::Full, RecomputeMethod::Block, 8);
        QVERIFY(near(b8.hardwareFlopsPerIteration - none.hardwareFlopsPerIteration,
            0.25 * (full.hardwareFlopsPerIteration - none.hardwareFlopsPerIteration), 1e-9));
    }

    // With virtual stages Megatron-Core recomputes the first n layers of every chunk: on 2 stages of 2
    // chunks of 8 layers, block 3 recomputes 6 of a stage's 16 layers, block 8 all of them.
    void blockCountsPerChunk()
    {
        json j = llama8b();
        j["parallelism"]
            = { { "tp", 1 }, { "pp", 2 }, { "dp", 4 }, { "vpp", 2 }, { "pipeline_schedule", "interleaved" } };
        const Scenario s = load(j);
        const TrainingEstimate full = run(s, Recompute::Full);
        QVERIFY(near(run(s, Recompute::Full, RecomputeMethod::Block, 3).breakdown.recompute,
            6.0 / 16.0 * full.breakdown.recompute, 1e-12));
        QCOMPARE(run(s, Recompute::Full, RecomputeMethod::Block, 8).breakdown.recompute, full.breakdown.recompute);
    }

    // Memory on one stage (one micro-batch in flight): block n keeps the input of n layers and every
    // activation of the others; uniform n keeps one input per unit of n layers plus the unit's
    // activations while it is recomputed.
    void memoryKeepsTheOthersActivations()
    {
        const Scenario s = load(llama8b());
        const TrainingEstimate none = run(s, Recompute::None), full = run(s, Recompute::Full);
        const double keptLayer = none.memory.activationsBytes / 32.0;
        // full: 32 inputs + the one layer being recomputed
        const double input = (full.memory.activationsBytes - keptLayer) / 32.0;
        QVERIFY(input > 0 && input < 0.2 * keptLayer);
        double previous = none.memory.activationsBytes;
        for (int n : { 1, 5, 16, 31 }) {
            const TrainingEstimate b = run(s, Recompute::Full, RecomputeMethod::Block, n);
            QVERIFY2(near(b.memory.activationsBytes, (32.0 - n) * keptLayer + n * input, 1e-9),
                qPrintable(QStringLiteral("block %1: %2 GB").arg(n).arg(b.memory.activationsBytes / 1e9)));
            QVERIFY(b.memory.activationsBytes < previous);
            previous = b.memory.activationsBytes;
        }
        QVERIFY(near(run(s, Recompute::Full, RecomputeMethod::Uniform, 4).memory.activationsBytes,
            8.0 * input + 4.0 * keptLayer, 1e-9));
        QVERIFY(near(run(s, Recompute::Full, RecomputeMethod::Uniform, 5).memory.activationsBytes,
            7.0 * input + 5.0 * keptLayer, 1e-9)); // ceil(32 / 5) units
    }

    // Where selective recomputation does not fit and full does, the search offers block recomputation of
    // the fewest layers that fit.
    void searchOffersTheFewestLayersThatFit()
    {
        json j = llama8b();
        j["training"]["micro_batch"] = 2;
        j["training"]["global_batch"] = 16;
        j.erase("parallelism");
        const Scenario s = load(j);
        const auto evaluator = clusterscope::testsupport::evaluatorFor(s, m_catalog);
        const SearchResult r = StrategySearch::run(evaluator, { 100000, {}, {} });
        int blocks = 0;
        for (const TrainingEstimate& e : r.ranked) {
            if (!e.strategy.blockRecompute())
                continue;
            ++blocks;
            QVERIFY(e.memory.fits());
            QVERIFY(e.strategy.recomputeNumLayers >= 1);
            TrainingStrategy fewer = e.strategy;
            TrainingStrategy selective = e.strategy;
            selective.recompute = Recompute::Selective;
            QVERIFY(!evaluator.memory(selective).fits());
            if (--fewer.recomputeNumLayers >= 1)
                QVERIFY(!evaluator.memory(fewer).fits());
        }
        QVERIFY2(blocks > 0, "no block recomputation proposed");
    }
};

QTEST_GUILESS_MAIN(TestTrainingRecompute)
#include "tst_trainingrecompute.moc"
