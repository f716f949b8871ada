// The whole-scenario analysis the GUI runs on a worker: fabric, BOM, estimate, search, traffic and
// its routing on the fabric, each failing on its own; cancellation.

#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <numeric>

using namespace clusterscope::engine;

namespace {
Scenario example(const char* name)
{
    auto s = parseScenarioJson(clusterscope::resources::embeddedFile(std::string("examples/") + name), name);
    return s.isOk() ? *s : Scenario {};
}
}

class TestScenarioAnalysis : public QObject {
    Q_OBJECT
    Catalog m_catalog;
    PriceBook m_prices;

private Q_SLOTS:
    void initTestCase()
    {
        auto c = Catalog::builtin();
        auto p = PriceBook::builtin();
        QVERIFY(c.isOk() && p.isOk());
        m_catalog = *c;
        m_prices = *p;
    }

    void llamaExample()
    {
        std::vector<double> fractions;
        AnalysisOptions options;
        options.progress = [&fractions](double f) { fractions.push_back(f); };
        const ScenarioAnalysis a = analyseScenario(example("llama3-70b-1024-h100.json"), m_catalog, m_prices, options);
        QVERIFY(a.issues.empty());
        QVERIFY2(a.fabric, a.fabricError.c_str());
        QVERIFY2(a.bom, a.bomError.c_str());
        QVERIFY2(a.estimate, a.trainingError.c_str());
        QCOMPARE(a.estimateSource, EstimateSource::Scenario);
        QCOMPARE(a.estimate->strategy.parallelism.tp, 8);
        QVERIFY(a.search && !a.search->ranked.empty());
        // The search's best is at least as fast as the scenario's own strategy (both before contention).
        QVERIFY(a.search->ranked.front().iterationSeconds <= a.load.uncontendedIterationSeconds * 1.000001);
        QVERIFY(a.traffic);
        QCOMPARE(a.traffic->gpus(), 1024LL);
        QVERIFY2(a.load.error.empty(), a.load.error.c_str());
        QCOMPARE(a.load.linkUtilisation.size(), a.fabric->graph.linkCount());
        const float busiest = *std::max_element(a.load.linkUtilisation.begin(), a.load.linkUtilisation.end());
        QVERIFY(busiest > 0.0f);
        QVERIFY(a.load.timing.has_value());
        QVERIFY(!a.cancelled);
        QVERIFY(fractions.size() >= 3);
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
        QCOMPARE(fractions.back(), 1.0);
    }

    // Every byte of the traffic matrix becomes a flow: totals agree.
    void flowsCarryTheMatrixBytes()
    {
        const ScenarioAnalysis a = analyseScenario(example("mixtral-8x7b-256-h200-roce.json"), m_catalog, m_prices);
        QVERIFY2(a.traffic, a.trainingError.c_str());
        const std::vector<Flow> flows = flowsOfTraffic(*a.traffic);
        QVERIFY(!flows.empty());
        double flowBytes = 0;
        for (const Flow& f : flows) {
            QVERIFY(f.src != f.dst);
            QVERIFY(f.src < 256 && f.dst < 256);
            flowBytes += f.bytes;
        }
        double matrixBytes = 0;
        for (const auto& byClass : a.traffic->totalsByClass())
            matrixBytes += std::accumulate(byClass.begin(), byClass.end(), 0.0);
        QVERIFY2(std::abs(flowBytes - matrixBytes) <= 1e-9 * matrixBytes,
            qPrintable(QStringLiteral("%1 vs %2").arg(flowBytes).arg(matrixBytes)));
        // Spot check: the bytes of one flow equal the matrix's pair bytes.
        QCOMPARE(a.traffic->pairTotalBytes(flows.front().src, flows.front().dst) >= flows.front().bytes, true);
    }

    void withoutParallelismUsesTheSearch()
    {
        Scenario s = example("gpt3-175b-1024-a100.json");
        s.parallelism.reset();
        const ScenarioAnalysis a = analyseScenario(s, m_catalog, m_prices);
        QVERIFY2(a.estimate, a.trainingError.c_str());
        QCOMPARE(a.estimateSource, EstimateSource::Search);
        // The search's best, before fabric contention was fed back into it.
        QCOMPARE(a.load.uncontendedIterationSeconds, a.search->ranked.front().iterationSeconds);
        QCOMPARE(a.estimate->strategy.parallelism.tp, a.search->ranked.front().strategy.parallelism.tp);
        QVERIFY(a.estimate->iterationSeconds >= a.load.uncontendedIterationSeconds);
    }

    void invalidScenarioStopsEarly()
    {
        Scenario s = example("llama3-70b-1024-h100.json");
        s.cluster.gpu = "H900";
        const ScenarioAnalysis a = analyseScenario(s, m_catalog, m_prices);
        QCOMPARE(a.issues.size(), std::size_t(1));
        QVERIFY(issuesText(a.issues, true).rfind("/cluster/gpu: unknown GPU", 0) == 0);
        QVERIFY(!a.fabric && !a.estimate);
    }

    void strategyProblemKeepsTheFabric()
    {
        Scenario s = example("llama3-70b-1024-h100.json");
        s.parallelism->dp = 16;
        const ScenarioAnalysis a = analyseScenario(s, m_catalog, m_prices);
        QCOMPARE(a.issues.size(), std::size_t(1));
        QVERIFY(a.fabric && a.bom);
        // The search still runs: the views show its best strategy and offer to apply it.
        QVERIFY2(a.invalidStrategy.rfind("/parallelism: tp x pp x dp x cp", 0) == 0, a.invalidStrategy.c_str());
        QVERIFY(a.search && !a.search->ranked.empty());
        QVERIFY(a.estimate);
        QCOMPARE(a.estimateSource, EstimateSource::Search);
        QVERIFY(a.estimate->strategy.parallelism == a.search->ranked.front().strategy.parallelism);
        QVERIFY(a.trafficSource);

        // A problem beyond the strategy still stops the training analysis.
        s.model.kvHeads = 7;
        const ScenarioAnalysis b = analyseScenario(s, m_catalog, m_prices);
        QVERIFY(!b.estimate && !b.search && b.invalidStrategy.empty());
    }

    void fabricFailureKeepsTheEstimate()
    {
        Scenario s = example("llama3-70b-1024-h100.json");
        s.cluster.fabric.type = FabricType::Torus;
        s.cluster.fabric.torusDims = { 8, 16 }; // 128 nodes
        s.cluster.fabric.switchRadix = 64;
        ScenarioAnalysis a = analyseScenario(s, m_catalog, m_prices);
        QVERIFY(a.estimate.has_value());
        s.cluster.fabric.torusDims = { 4, 4 }; // 16 != 128 nodes: a validation problem, not a crash
        a = analyseScenario(s, m_catalog, m_prices);
        QVERIFY(!a.issues.empty());
    }

    void knownIssuesAreNotFoundAgain()
    {
        // The caller's validation is taken as is (the GUI validates each edit once).
        Scenario s = example("llama3-70b-1024-h100.json");
        s.cluster.gpu = "H900";
        AnalysisOptions options;
        options.knownIssues = std::vector<ValidationIssue> { { "/cluster/gpu", "unknown GPU" } };
        ScenarioAnalysis a = analyseScenario(s, m_catalog, m_prices, options);
        QCOMPARE(a.issues.size(), std::size_t(1));
        QCOMPARE(a.issues.front().pointer, std::string("/cluster/gpu"));
        QCOMPARE(issuesText(a.issues), std::string("/cluster/gpu: unknown GPU"));
        QVERIFY(!a.fabric);
    }

    void strategyRoundTripsThroughTheScenario()
    {
        Scenario s = example("llama3-70b-1024-h100.json");
        TrainingStrategy t = TrainingStrategy::fromScenario(s);
        t.parallelism.tp = 4;
        t.parallelism.dp *= 2;
        t.microBatch = 2;
        t.recompute = Recompute::Full;
        t.applyTo(s);
        const TrainingStrategy back = TrainingStrategy::fromScenario(s);
        QCOMPARE(back.parallelism, t.parallelism);
        QCOMPARE(back.microBatch, 2);
        QCOMPARE(back.recompute, Recompute::Full);
    }

    void optionsLeaveOutTheFabric()
    {
        AnalysisOptions options;
        options.buildFabric = false;
        options.runSearch = false;
        const ScenarioAnalysis a = analyseScenario(example("llama3-70b-1024-h100.json"), m_catalog, m_prices, options);
        QVERIFY(!a.fabric && !a.bom && !a.search);
        QVERIFY(a.estimate && a.evaluator);
        QVERIFY(!a.load.routed);
        QCOMPARE(a.load.uncontendedIterationSeconds, a.estimate->iterationSeconds);
        options.buildFabric = true;
        options.priceFabric = false;
        const ScenarioAnalysis b = analyseScenario(example("llama3-70b-1024-h100.json"), m_catalog, m_prices, options);
        QVERIFY(b.fabric && !b.bom && b.load.routed);
        QCOMPARE(b.estimateSource, EstimateSource::Scenario);
        QCOMPARE(std::string(toString(b.estimateSource)), std::string("scenario"));
    }

    void cancellation()
    {
        std::stop_source stop;
        stop.request_stop();
        AnalysisOptions options;
        options.stop = stop.get_token();
        const ScenarioAnalysis a = analyseScenario(example("llama3-70b-1024-h100.json"), m_catalog, m_prices, options);
        QVERIFY(a.cancelled);
        QVERIFY(!a.estimate);
    }
};

QTEST_GUILESS_MAIN(TestScenarioAnalysis)
#include "tst_scenarioanalysis.moc"
