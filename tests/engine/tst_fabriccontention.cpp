// Contention on the fabric fed back into iteration time: the slowdown measure on hand-made loads,
// and on the example with static ECMP versus adaptive routing.

#include "engine/analysis/fabriccontention.h"
#include "engine/analysis/linkleveltext.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/fabricgraph.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "resources/embeddedresources.h"

#include <QtTest>

using namespace clusterscope::engine;

class TestFabricContention : public QObject {
    Q_OBJECT

    // Two leaves with four uplinks each to four spines.
    static FabricGraph twoLeaves()
    {
        FabricGraph g;
        std::vector<NodeId> leaves, spines;
        for (int i = 0; i < 2; ++i) {
            FabricNode n;
            n.kind = NodeKind::Switch;
            n.tier = kTierLeaf;
            leaves.push_back(g.addNode(n));
        }
        for (int i = 0; i < 4; ++i) {
            FabricNode n;
            n.kind = NodeKind::Switch;
            n.tier = kTierSpine;
            spines.push_back(g.addNode(n));
        }
        for (NodeId leaf : leaves)
            for (NodeId spine : spines) {
                FabricLink l;
                l.a = leaf;
                l.b = spine;
                l.gbps = 400;
                g.addLink(l);
            }
        return g;
    }

private Q_SLOTS:
    void slowdownFromLoads_data()
    {
        QTest::addColumn<QList<double>>("upBytes"); // upward bytes of the 8 links (leaf 0 first)
        QTest::addColumn<double>("expected");
        QTest::addRow("balanced") << QList<double> { 1, 1, 1, 1, 1, 1, 1, 1 } << 1.0;
        QTest::addRow("two flows on one uplink") << QList<double> { 2, 1, 1, 0, 1, 1, 1, 1 } << 2.0;
        QTest::addRow("all on one uplink") << QList<double> { 4, 0, 0, 0, 0, 0, 0, 0 } << 4.0;
        // Leaf 1 carries twice leaf 0's traffic, evenly: no imbalance, only more load.
        QTest::addRow("busier leaf, balanced") << QList<double> { 1, 1, 1, 1, 2, 2, 2, 2 } << 1.0;
        QTest::addRow("idle fabric") << QList<double> { 0, 0, 0, 0, 0, 0, 0, 0 } << 1.0;
    }
    void slowdownFromLoads()
    {
        QFETCH(QList<double>, upBytes);
        QFETCH(double, expected);
        const FabricGraph g = twoLeaves();
        std::vector<double> directed(2 * g.linkCount(), 0.0);
        for (int l = 0; l < upBytes.size(); ++l)
            directed[std::size_t(2 * l)] = upBytes[l];
        const TierContention c = contentionFromLinkLoads(g, directed);
        QCOMPARE(c.spineSlowdown, expected);
        QCOMPARE(c.coreSlowdown, expected); // no core: the core is never faster than the spines
    }

    // One big flow cannot be split over several uplinks without spraying: not a slowdown.
    void singleFlowIsNotContention()
    {
        const FabricGraph g = twoLeaves();
        std::vector<double> directed(2 * g.linkCount(), 0.0), largest(2 * g.linkCount(), 0.0);
        directed[0] = largest[0] = 4.0;
        QCOMPARE(contentionFromLinkLoads(g, directed, largest).spineSlowdown, 1.0);
        // Two flows of 2 hashed onto the same uplink while three stay idle: 2x.
        largest[0] = 2.0;
        QCOMPARE(contentionFromLinkLoads(g, directed, largest).spineSlowdown, 2.0);
    }

    void missingLinksIgnored()
    {
        FabricGraph g = twoLeaves();
        g.link(3).flags = kLinkMissing; // leaf 0 has 3 working uplinks
        std::vector<double> directed(2 * g.linkCount(), 0.0);
        for (int l : { 0, 1, 2 })
            directed[std::size_t(2 * l)] = 1.0;
        QCOMPARE(contentionFromLinkLoads(g, directed).spineSlowdown, 1.0);
    }

    // On a leaf-spine fabric where data-parallel rings cross the spines, static ECMP collides and
    // slows the iteration; adaptive routing balances (contention fed back into the iteration time).
    void ecmpVersusAdaptiveOnTheExample()
    {
        auto catalog = Catalog::builtin();
        auto prices = PriceBook::builtin();
        auto s = parseScenarioJson(clusterscope::resources::embeddedFile("examples/gpt3-175b-1024-a100.json"), "gpt3");
        QVERIFY(catalog.isOk() && prices.isOk() && s.isOk());
        AnalysisOptions options;
        options.runSearch = false;
        s->communication.routing = Routing::Ecmp;
        const ScenarioAnalysis ecmp = analyseScenario(*s, *catalog, *prices, options);
        s->communication.routing = Routing::Adaptive;
        const ScenarioAnalysis adaptive = analyseScenario(*s, *catalog, *prices, options);
        s->communication.routing = Routing::Spray;
        const ScenarioAnalysis spray = analyseScenario(*s, *catalog, *prices, options);
        QVERIFY2(ecmp.estimate && adaptive.estimate && spray.estimate, ecmp.trainingError.c_str());
        qInfo("GPT-3 example: spine/core slowdown ECMP %.2f/%.2f, adaptive %.2f/%.2f, spray %.2f/%.2f; iteration "
              "ECMP %.3f s (uncontended %.3f s), adaptive %.3f s, spray %.3f s",
            ecmp.load.spineSlowdown, ecmp.load.coreSlowdown, adaptive.load.spineSlowdown, adaptive.load.coreSlowdown,
            spray.load.spineSlowdown, spray.load.coreSlowdown, ecmp.estimate->iterationSeconds,
            ecmp.load.uncontendedIterationSeconds, adaptive.estimate->iterationSeconds,
            spray.estimate->iterationSeconds);
        QVERIFY(ecmp.load.coreSlowdown > 1.2); // hashing collides
        QVERIFY(ecmp.load.coreSlowdown >= adaptive.load.coreSlowdown);
        QVERIFY(adaptive.load.coreSlowdown >= spray.load.coreSlowdown - 1e-9);
        QVERIFY(spray.load.coreSlowdown < 1.05); // spraying balances perfectly
        QVERIFY(ecmp.estimate->iterationSeconds > adaptive.estimate->iterationSeconds);
        QVERIFY(adaptive.estimate->iterationSeconds >= spray.estimate->iterationSeconds);
        QCOMPARE(spray.estimate->iterationSeconds, spray.load.uncontendedIterationSeconds);
        QVERIFY(ecmp.estimate->iterationSeconds >= ecmp.load.uncontendedIterationSeconds);
        QCOMPARE(adaptive.load.uncontendedIterationSeconds > 0, true);
    }

    // The words every front end gives a link level (CLI text, report, Fabric 3D); the JSON keeps
    // toString's keys.
    void linkLevelText_data()
    {
        QTest::addColumn<int>("level");
        QTest::addColumn<QString>("words");
        QTest::addColumn<QString>("key");
        QTest::addRow("internal") << int(LinkLevel::Internal) << "inside a server"
                                  << "internal";
        QTest::addRow("node-leaf") << int(LinkLevel::NodeLeaf) << "server to leaf"
                                   << "node_leaf";
        QTest::addRow("leaf-spine") << int(LinkLevel::LeafSpine) << "leaf to spine"
                                    << "leaf_spine";
        QTest::addRow("spine-core") << int(LinkLevel::SpineCore) << "spine to core"
                                    << "spine_core";
        QTest::addRow("other") << int(LinkLevel::Other) << "other (same tier or direct)"
                               << "other";
    }
    void linkLevelText()
    {
        QFETCH(int, level);
        QFETCH(QString, words);
        QFETCH(QString, key);
        QCOMPARE(QString::fromStdString(clusterscope::engine::linkLevelText(LinkLevel(level))), words);
        QCOMPARE(QString::fromLatin1(toString(LinkLevel(level))), key);
    }
};

QTEST_GUILESS_MAIN(TestFabricContention)
#include "tst_fabriccontention.moc"
