// What-if failures: removing a spine, a leaf, a plane or a link changes bisection, connectivity and
// the probe traffic as the topology dictates; bad failure specs are refused.

#include "engine/fabric/bisection.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/failureanalysis.h"
#include "engine/fabric/trafficpatterns.h"

#include <QtTest>

using namespace clusterscope::engine;

namespace {
FabricDesign leafSpine512(int planes = 1, bool dualTor = false)
{
    HostOptions ho;
    ho.hosts = 64; // 512 GPUs
    ClosOptions co;
    co.planes = planes;
    co.dualTor = dualTor;
    return buildClos(ho, co).value();
}
NodeId findSwitch(const FabricDesign& d, const std::string& label)
{
    for (NodeId id : d.graph.nodesOfKind(NodeKind::Switch))
        if (d.graph.label(id) == label)
            return id;
    return kNoId;
}
} // namespace

class TestFabricFailures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void failures_data()
    {
        QTest::addColumn<int>("planes");
        QTest::addColumn<bool>("dualTor");
        QTest::addColumn<QString>("failSwitch");
        QTest::addColumn<int>("failPlane");
        QTest::addColumn<double>("bisectionAfterTbps");
        QTest::addColumn<int>("disconnected");
        QTest::addColumn<int>("linksRemoved");
        // 512 x 400G, 16 leaves, 8 spines (the leaf-spine regression case): bisection 102.4 Tb/s.
        QTest::addRow("one of 8 spines") << 1 << false << "spine-3" << -1 << 102.4 * 7 / 8 << 0 << 64;
        QTest::addRow("a leaf: its 32 GPUs cut off") << 1 << false << "leaf-0" << -1 << 102.4 - 12.8 << 32 << 64;
        QTest::addRow("a plane of two") << 2 << false << "" << 0 << 51.2 << 0 << 512 + 512;
        QTest::addRow("dual-ToR leaf: nobody cut off") << 1 << true << "leaf-0" << -1 << 102.4 - 6.4 << 0 << 64;
    }
    void failures()
    {
        QFETCH(int, planes);
        QFETCH(bool, dualTor);
        QFETCH(QString, failSwitch);
        QFETCH(int, failPlane);
        QFETCH(double, bisectionAfterTbps);
        QFETCH(int, disconnected);
        QFETCH(int, linksRemoved);
        const FabricDesign d = leafSpine512(planes, dualTor);
        FailureSpec f;
        f.plane = failPlane;
        if (!failSwitch.isEmpty()) {
            const NodeId s = findSwitch(d, failSwitch.toStdString());
            QVERIFY(s != kNoId);
            f.switches.push_back(s);
        }
        // Probe: every GPU of the first half to its mirror in the second half.
        std::vector<Flow> probe;
        for (std::uint32_t r = 0; r < 256; ++r)
            probe.push_back({ r, r + 256, 1e9 });
        FlowOptions o;
        o.routing = RoutingMode::Adaptive;
        auto rep = analyseFailures(d, f, probe, o, 5);
        QVERIFY2(rep.isOk(), rep.message().c_str());
        QCOMPARE(rep->bisectionBeforeGbps, 102400.0);
        QVERIFY2(std::abs(rep->bisectionAfterGbps / 1000 - bisectionAfterTbps) < 1e-6,
            qPrintable(QString::number(rep->bisectionAfterGbps)));
        QCOMPARE(int(rep->disconnectedGpus.size()), disconnected);
        QCOMPARE(int(rep->linksRemoved), linksRemoved);
        if (disconnected > 0) {
            QCOMPARE(rep->disconnectedGpus.front(), 0u); // leaf-0 serves the first four servers
            QCOMPARE(rep->after.unroutableFlows, std::size_t(32));
            QCOMPARE(rep->worstPairs.front().rateAfterGbps, 0.0);
        }
        if (!rep->worstPairs.empty())
            QVERIFY(rep->worstPairs.front().rateAfterGbps < rep->worstPairs.front().rateBeforeGbps);
    }

    void singleLink()
    {
        const FabricDesign d = leafSpine512();
        LinkId uplink = kNoId;
        for (LinkId l = 0; l < d.graph.linkCount() && uplink == kNoId; ++l)
            if (d.graph.level(l) == LinkLevel::LeafSpine)
                uplink = l;
        FailureSpec f;
        f.links = { uplink };
        auto failed = applyFailures(d, f);
        QVERIFY(failed.isOk());
        QCOMPARE(failed->graph.countLinks(LinkLevel::LeafSpine), std::size_t(511));
        QVERIFY(bisectionGbps(*failed) < bisectionGbps(d));
        QVERIFY(disconnectedGpus(*failed).empty());
    }

    void importedGraphWithAMissingUplink()
    {
        // A hand-made "imported" fabric: 2 leaves x 3 HCAs, 3 uplinks each to one spine, one of them
        // flagged missing (as ibnetdiscover against a plan reports it); tiers unknown.
        FabricGraph g;
        std::vector<NodeId> leaves, cas;
        for (int i = 0; i < 2; ++i) {
            FabricNode sw;
            sw.kind = NodeKind::Switch;
            sw.ports = 8;
            leaves.push_back(g.addNode(sw));
        }
        FabricNode spineNode;
        spineNode.kind = NodeKind::Switch;
        const NodeId spine = g.addNode(spineNode);
        for (int i = 0; i < 6; ++i) {
            FabricNode ca;
            ca.kind = NodeKind::Nic;
            cas.push_back(g.addNode(ca));
            FabricLink l;
            l.a = cas.back();
            l.b = leaves[i / 3];
            l.gbps = 400;
            g.addLink(l);
        }
        for (int i = 0; i < 6; ++i) {
            FabricLink l;
            l.a = leaves[i / 3];
            l.b = spine;
            l.gbps = 400;
            l.flags = i == 0 ? kLinkMissing : 0;
            g.addLink(l);
        }
        const FabricDesign d = designFromGraph(g);
        QCOMPARE(d.hosts, 6);
        QCOMPARE(d.gpus.size(), std::size_t(6));
        QCOMPARE(bisectionGbps(d), 800.0); // leaf 0 keeps 2 of its 3 uplinks
        QVERIFY(disconnectedGpus(d).empty());
        const FlowModel model(d);
        std::vector<Flow> probe = { { 0, 3, 1e9 }, { 1, 4, 1e9 }, { 2, 5, 1e9 } };
        FlowOptions o;
        o.routing = RoutingMode::Adaptive;
        auto t = model.time(probe, o);
        QVERIFY(t.isOk());
        QVERIFY(std::abs(t->slowdown - 2.0) < 1e-9); // 3 unsplit flows on 2 uplinks: one link carries 2
        o.routing = RoutingMode::Spray;
        t = model.time(probe, o);
        QVERIFY(t.isOk());
        QVERIFY(std::abs(t->slowdown - 1.5) < 1e-6); // sprayed: 3 flows share 2 links evenly
    }

    void badSpecs_data()
    {
        QTest::addColumn<int>("link");
        QTest::addColumn<int>("node");
        QTest::addColumn<int>("plane");
        QTest::addColumn<QString>("message");
        QTest::addRow("link out of range") << 999999 << -1 << -1 << "failure: link 999999 does not exist";
        QTest::addRow("GPU is not a switch") << -1 << 0 << -1 << "failure: node 0 is not a switch";
        QTest::addRow("plane 3 of 1") << -1 << -1 << 3 << "failure: plane 3 does not exist (the fabric has 1)";
    }
    void badSpecs()
    {
        QFETCH(int, link);
        QFETCH(int, node);
        QFETCH(int, plane);
        QFETCH(QString, message);
        FailureSpec f;
        if (link >= 0)
            f.links.push_back(static_cast<LinkId>(link));
        if (node >= 0)
            f.switches.push_back(static_cast<NodeId>(node));
        f.plane = plane;
        auto r = applyFailures(leafSpine512(), f);
        QVERIFY(!r.isOk());
        QVERIFY2(QString::fromStdString(r.message()).startsWith(message), r.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestFabricFailures)
#include "tst_fabricfailures.moc"
