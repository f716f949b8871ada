// Exhaustive strategy search: only valid, fitting strategies are ranked, fastest first; the Pareto
// front is non-dominated; the search beats or matches the scenario's own strategy; cancellation and
// progress work.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <stop_token>

using namespace clusterscope::engine;

namespace {
Scenario example(const char* name)
{
    return *parseScenarioJson(clusterscope::resources::embeddedFile(std::string("examples/") + name), name);
}

// A small dense model on `gpus` GPUs, one sequence per GPU per iteration, no fixed strategy: the search
// space is small enough to enumerate exhaustively.
Scenario smallModel(int gpus, int layers)
{
    Scenario s = example("llama3-70b-1024-h100.json");
    s.cluster.gpus = gpus;
    s.model = ModelSpec {};
    s.model.layers = layers;
    s.model.hidden = 1024;
    s.model.heads = 8;
    s.model.kvHeads = 8;
    s.model.ffnHidden = 4096;
    s.model.vocab = 32000;
    s.model.seqLen = 2048;
    s.model.moe = std::nullopt;
    s.model.gatedMlp = false;
    s.training.globalBatch = gpus;
    s.parallelism.reset();
    return s;
}
} // namespace

class TestSearchStrategies : public QObject {
    Q_OBJECT

    Catalog m_catalog;

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    void rankedAndPareto_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("llama") << QStringLiteral("llama3-70b-1024-h100.json");
        QTest::addRow("gpt3") << QStringLiteral("gpt3-175b-1024-a100.json");
        QTest::addRow("mixtral") << QStringLiteral("mixtral-8x7b-256-h200-roce.json");
    }
    void rankedAndPareto()
    {
        QFETCH(QString, name);
        const Scenario s = example(name.toLatin1().constData());
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(evaluator.isOk());
        SearchOptions options;
        options.topK = 25;
        double lastProgress = -1;
        bool monotonic = true;
        options.progress = [&](double f) {
            monotonic = monotonic && f >= lastProgress;
            lastProgress = f;
        };
        const SearchResult r = StrategySearch::run(*evaluator, options);
        QVERIFY(!r.cancelled);
        QVERIFY(monotonic);
        QCOMPARE(lastProgress, 1.0);
        QVERIFY(r.candidates >= r.valid && r.valid >= r.fitting && r.fitting > 0);
        QCOMPARE(int(r.ranked.size()), 25);
        for (std::size_t i = 0; i < r.ranked.size(); ++i) {
            const TrainingEstimate& e = r.ranked[i];
            QVERIFY(e.valid);
            QVERIFY(!evaluator->invalidReason(e.strategy));
            QVERIFY(e.memory.fits());
            const ParallelismSpec& p = e.strategy.parallelism;
            QCOMPARE(p.tp * p.pp * p.dp * p.cp, s.cluster.gpus);
            if (i > 0)
                QVERIFY(r.ranked[i - 1].iterationSeconds <= e.iterationSeconds);
        }
        // The scenario's own strategy is in the search space: the best is at least as fast.
        const TrainingEstimate own = evaluator->evaluate(TrainingStrategy::fromScenario(s));
        if (own.memory.fits())
            QVERIFY(r.ranked.front().iterationSeconds <= own.iterationSeconds * (1 + 1e-12));
        // Pareto: nobody on the front dominates anybody else on it; the fastest is on it.
        QVERIFY(!r.pareto.empty());
        QCOMPARE(r.pareto.front().iterationSeconds, r.ranked.front().iterationSeconds);
        for (const TrainingEstimate& a : r.pareto)
            for (const TrainingEstimate& b : r.pareto) {
                const bool dominates = a.iterationSeconds <= b.iterationSeconds
                    && a.memory.totalBytes() <= b.memory.totalBytes() && a.costPerIterationUsd <= b.costPerIterationUsd
                    && (a.iterationSeconds < b.iterationSeconds || a.memory.totalBytes() < b.memory.totalBytes());
                QVERIFY(!dominates);
            }
        // The least-memory fitting strategy the ranking saw cannot beat the front's memory minimum.
        double frontMinMemory = 1e300;
        for (const TrainingEstimate& e : r.pareto)
            frontMinMemory = std::min(frontMinMemory, e.memory.totalBytes());
        for (const TrainingEstimate& e : r.ranked)
            QVERIFY(e.memory.totalBytes() >= frontMinMemory);
    }

    void counts()
    {
        // 64 GPUs, a small dense model: count the enumeration by hand for one (tp, cp, pp) cell.
        const Scenario s = smallModel(64, 8);
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(evaluator.isOk());
        const SearchResult r = StrategySearch::run(*evaluator, {});
        // Every candidate is either invalid, out of memory or timed.
        QVERIFY(r.fitting == r.valid); // the small model fits everywhere
        QVERIFY(r.candidates > r.valid);
        QCOMPARE(int(r.ranked.size()), 10);
    }

    // MoE with tensor parallelism: the search also enumerates MoE parallel folding (etp 1), where ep
    // may exceed dp x cp; never for tp 1, where etp 1 is tp.
    void foldedMoeStrategies()
    {
        Scenario s = smallModel(16, 4);
        MoeSpec moe;
        moe.experts = 16;
        moe.topK = 2;
        moe.expertFfnHidden = 1024;
        s.model.moe = moe;
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY2(evaluator.isOk(), evaluator.message().c_str());
        SearchOptions options;
        options.topK = 1 << 20; // every fitting strategy
        const SearchResult r = StrategySearch::run(*evaluator, options);
        QCOMPARE(static_cast<long long>(r.ranked.size()), r.fitting);
        int folded = 0, beyondDpCp = 0;
        for (const TrainingEstimate& e : r.ranked) {
            const ParallelismSpec& p = e.strategy.parallelism;
            QVERIFY(p.etp == 0 || (p.etp == 1 && p.tp > 1));
            if (p.etp == 1) {
                ++folded;
                QVERIFY(p.sequenceParallel);
                beyondDpCp += (p.dp * p.cp) % p.ep != 0 ? 1 : 0;
            }
        }
        QVERIFY(folded > 0);
        QVERIFY(beyondDpCp > 0); // e.g. tp 4, dp 4, ep 16
    }

    void nothingFits()
    {
        Scenario s = example("gpt3-175b-1024-a100.json");
        s.cluster.gpus = 8;
        s.training.globalBatch = 8;
        s.parallelism.reset();
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(evaluator.isOk());
        const SearchResult r = StrategySearch::run(*evaluator, {});
        QVERIFY(r.valid > 0);
        QCOMPARE(r.fitting, 0LL);
        QVERIFY(r.ranked.empty());
        QVERIFY(r.pareto.empty());
    }

    void cancellation()
    {
        const Scenario s = example("llama3-70b-1024-h100.json");
        auto evaluator = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(evaluator.isOk());
        std::stop_source source;
        SearchOptions options;
        options.stop = source.get_token();
        int calls = 0;
        options.progress = [&](double) {
            if (++calls == 3)
                source.request_stop();
        };
        const SearchResult r = StrategySearch::run(*evaluator, options);
        QVERIFY(r.cancelled);
        const SearchResult full = StrategySearch::run(*evaluator, {});
        QVERIFY(r.candidates < full.candidates);
    }
};

QTEST_GUILESS_MAIN(TestSearchStrategies)
#include "tst_searchstrategies.moc"
