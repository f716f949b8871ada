// Flow-level model: ECMP collisions on a real fabric match the balls-into-bins expectation,
// adaptive routing and spraying balance, max-min fair sharing, oversubscription slowdown, rail
// locality of ring AllReduce, torus and dragonfly minimal routing, and bad input.

#include "engine/fabric/ecmpstats.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/flowmodel.h"
#include "engine/fabric/trafficpatterns.h"
#include "engine/scenario/scenario.h"

#include <QtTest>

using namespace clusterscope::engine;

namespace {
HostOptions singles(int hosts)
{
    HostOptions h;
    h.hosts = hosts;
    h.gpusPerNode = 1;
    h.nicsPerNode = 1;
    h.nvlinkDomainGpus = 1;
    return h;
}
// Two leaves of radix 2n (n down, n up): n flows from every NIC of leaf 0 to a NIC of leaf 1.
FabricDesign twoLeaves(int n, double oversub = 1.0)
{
    ClosOptions co;
    co.radix = 2 * n;
    co.oversubscription = oversub;
    const int down = 2 * n - static_cast<int>(std::lround(2 * n / (1 + oversub)));
    return buildClos(singles(2 * down), co).value();
}
std::vector<Flow> leafToLeaf(const FabricDesign& d)
{
    std::vector<Flow> f;
    const std::uint32_t half = static_cast<std::uint32_t>(d.gpus.size() / 2);
    for (std::uint32_t i = 0; i < half; ++i)
        f.push_back({ i, half + i, 1e9 });
    return f;
}
// Largest number of sub-flows on one leaf-0 uplink.
double maxUplinkFlows(const FabricDesign& d, const FlowPlacement& p)
{
    std::vector<double> count(d.graph.linkCount() * 2, 0);
    for (std::size_t sf = 0; sf < p.bytes.size(); ++sf)
        for (std::uint32_t e = p.start[sf]; e < p.start[sf] + p.length[sf]; ++e) {
            const LinkId l = p.dlinks[e] / 2;
            if (d.graph.level(l) == LinkLevel::LeafSpine && d.graph.node(d.graph.link(l).a).group <= 0
                && (p.dlinks[e] & 1) == 0 && d.graph.label(d.graph.link(l).a) == "leaf-0")
                count[p.dlinks[e]] += p.weights[e];
        }
    return *std::max_element(count.begin(), count.end());
}
} // namespace

class TestFabricFlow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ecmpCollisionsMatchBallsIntoBins_data()
    {
        QTest::addColumn<int>("n");
        QTest::addRow("8 uplinks") << 8;
        QTest::addRow("32 uplinks") << 32;
    }
    void ecmpCollisionsMatchBallsIntoBins()
    {
        QFETCH(int, n);
        const FabricDesign d = twoLeaves(n);
        const FlowModel model(d);
        const auto flows = leafToLeaf(d);
        QCOMPARE(flows.size(), std::size_t(n));
        const int trials = 400;
        double sum = 0;
        FlowOptions o;
        for (int s = 0; s < trials; ++s) {
            o.hashSeed = 1000 + s;
            sum += maxUplinkFlows(d, model.route(flows, o).value());
        }
        // Sampled on the fabric vs exact expectation (balls into bins, Raab and Steger 1998: ~2.6 for 8, ~3.5 for 32).
        const double expected = expectedMaxLoad(n, n);
        QVERIFY2(std::abs(sum / trials - expected) < 0.15,
            qPrintable(QStringLiteral("sampled %1 expected %2").arg(sum / trials).arg(expected)));
        // Adaptive routing and spraying put exactly one flow's worth on each uplink.
        o.routing = RoutingMode::Adaptive;
        QCOMPARE(maxUplinkFlows(d, model.route(flows, o).value()), 1.0);
        o.routing = RoutingMode::Spray;
        QVERIFY(std::abs(maxUplinkFlows(d, model.route(flows, o).value()) - 1.0) < 1e-5);
    }

    void slowdown_data()
    {
        QTest::addColumn<double>("oversub");
        QTest::addColumn<int>("routing");
        QTest::addColumn<double>("slowdown");
        QTest::addRow("1:1 adaptive") << 1.0 << int(RoutingMode::Adaptive) << 1.0;
        QTest::addRow("1:1 spray") << 1.0 << int(RoutingMode::Spray) << 1.0;
        QTest::addRow("3:1 spray") << 3.0 << int(RoutingMode::Spray) << 3.0;
        QTest::addRow("3:1 adaptive") << 3.0 << int(RoutingMode::Adaptive) << 3.0;
    }
    void slowdown()
    {
        QFETCH(double, oversub);
        QFETCH(int, routing);
        QFETCH(double, slowdown);
        const FabricDesign d = twoLeaves(4, oversub); // radix 8: 4/4 or 6/2
        const FlowModel model(d);
        FlowOptions o;
        o.routing = static_cast<RoutingMode>(routing);
        auto t = model.time(leafToLeaf(d), o);
        QVERIFY(t.isOk());
        QVERIFY2(std::abs(t->slowdown - slowdown) < 1e-6, qPrintable(QString::number(t->slowdown)));
        QVERIFY(t->maxUtilisation <= 1.0 + 1e-9);
        QVERIFY(t->linkBoundSeconds <= t->seconds * (1 + 1e-9));
    }

    void ecmpSlowdownIsWorstLinkLoad()
    {
        // With equal flows, the ECMP slowdown is the most loaded link's flow count (both stages).
        const FabricDesign d = twoLeaves(8);
        const FlowModel model(d);
        FlowOptions o;
        o.hashSeed = 7;
        const auto flows = leafToLeaf(d);
        auto p = model.route(flows, o);
        auto t = model.time(flows, o);
        QVERIFY(p.isOk() && t.isOk());
        double worst = 0;
        for (double b : model.linkBytes(*p))
            worst = std::max(worst, b / 1e9);
        QVERIFY2(
            std::abs(t->slowdown - worst) < 1e-6, qPrintable(QStringLiteral("%1 vs %2").arg(t->slowdown).arg(worst)));
        QVERIFY(t->slowdown > 1.0);
    }

    void sampledEcmpSlowdown_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("queuePairs");
        QTest::addRow("8 flows, 8 uplinks") << 8 << 1;
        QTest::addRow("32 flows, 32 uplinks") << 32 << 1;
        QTest::addRow("32 flows x 4 QPs") << 32 << 4;
    }
    void sampledEcmpSlowdown()
    {
        QFETCH(int, n);
        QFETCH(int, queuePairs);
        const FabricDesign d = twoLeaves(n);
        const FlowModel model(d);
        FlowOptions o;
        o.queuePairs = queuePairs;
        auto s = model.sampleEcmpSlowdown(leafToLeaf(d), o, 200);
        QVERIFY(s.isOk());
        // Two hashing stages (leaf up, spine down): at least the one-stage expectation
        // q / efficiency, and below twice it.
        const double oneStage = 1.0 / ecmpCollectiveEfficiency(n, queuePairs);
        QVERIFY2(s->mean >= oneStage - 0.1 && s->mean < 2 * oneStage,
            qPrintable(QStringLiteral("%1 vs %2").arg(s->mean).arg(oneStage)));
        QVERIFY(s->min >= 1.0 && s->min <= s->mean && s->mean <= s->max);
        QVERIFY(!model.sampleEcmpSlowdown(leafToLeaf(d), o, 0).isOk());
    }

    void maxMinSharing()
    {
        // Three NICs on leaf 0 send to one NIC on leaf 1 (incast) and one more flow goes the other
        // way: the incast link (400G) is shared 3 ways; the reverse flow gets the full rate.
        const FabricDesign d = twoLeaves(4);
        const FlowModel model(d);
        std::vector<Flow> flows = { { 0, 4, 1e9 }, { 1, 4, 1e9 }, { 2, 4, 1e9 }, { 5, 3, 1e9 } };
        FlowOptions o;
        o.routing = RoutingMode::Adaptive;
        auto p = model.route(flows, o);
        QVERIFY(p.isOk());
        const auto rates = model.maxMinRatesGbps(*p);
        for (int i = 0; i < 3; ++i)
            QVERIFY(std::abs(rates[i] - 400.0 / 3) < 1e-6);
        QVERIFY(std::abs(rates[3] - 400.0) < 1e-6);
    }

    void ringAllReduceStaysOnRails()
    {
        HostOptions ho;
        ho.hosts = 31;
        ClosOptions co;
        co.railOptimized = true;
        co.ufmSlot = true;
        auto d = buildClos(ho, co);
        QVERIFY(d.isOk());
        const auto flows = ringAllReduceFlows(*d, 1e9);
        // 8 channels x 31 servers x (7 NVLink hops + 1 PXN hop + 1 network hop).
        QCOMPARE(flows.size(), std::size_t(8 * 31 * 9));
        const FlowModel model(*d);
        auto p = model.route(flows, FlowOptions {});
        QVERIFY(p.isOk());
        const auto bytes = model.linkBytes(*p);
        double spine = 0, edge = 0;
        for (LinkId l = 0; l < d->graph.linkCount(); ++l) {
            const double b = bytes[2 * l] + bytes[2 * l + 1];
            if (d->graph.level(l) == LinkLevel::LeafSpine)
                spine += b;
            if (d->graph.level(l) == LinkLevel::NodeLeaf)
                edge += b;
        }
        QCOMPARE(spine, 0.0);
        // Every network hop carries 2 (N-1)/N x 1 GB / 8 channels, up and down the leaf.
        const double n = 248;
        QVERIFY(std::abs(edge - 2 * 248 * (2 * (n - 1) / n * 1e9 / 8)) < 1);
    }

    // PXN: an all-to-all between the servers of a rail-optimized fabric never crosses rails. A GPU
    // sending to another server's GPU on another rail moves the data over NVLink to its server's GPU
    // on that rail, whose NIC sends it; only the rail's leaf carries it.
    void allToAllStaysOnRailsThroughPxn()
    {
        HostOptions ho;
        ho.hosts = 4;
        ClosOptions co;
        co.railOptimized = true;
        auto d = buildClos(ho, co);
        QVERIFY(d.isOk());
        const double bytesPerFlow = 1e6;
        const auto flows = allToAllFlows(*d, bytesPerFlow);
        const FlowModel model(*d);
        auto p = model.route(flows, FlowOptions {});
        QVERIFY(p.isOk());
        QVERIFY(p->unroutable.empty());
        const auto bytes = model.linkBytes(*p);
        double spine = 0, edge = 0, scaleUp = 0;
        for (LinkId l = 0; l < d->graph.linkCount(); ++l) {
            const double b = bytes[2 * l] + bytes[2 * l + 1];
            if (d->graph.level(l) == LinkLevel::LeafSpine)
                spine += b;
            else if (d->graph.level(l) == LinkLevel::NodeLeaf)
                edge += b;
            else if (d->graph.level(l) == LinkLevel::Internal)
                scaleUp += b;
        }
        QCOMPARE(spine, 0.0);
        const double ranks = double(d->gpus.size()), perHost = ho.gpusPerNode;
        const double interHostFlows = ranks * (ranks - perHost);
        // Up to the rail's leaf and down to the destination NIC.
        QVERIFY(std::abs(edge - 2 * interHostFlows * bytesPerFlow) < 1);
        // NVLink: every flow inside a server (GPU to switch, switch to GPU) and the PXN hop of the
        // 7 in 8 flows between servers that change rail; GPU-to-NIC (PCIe) links once at each end.
        const double intraHostFlows = ranks * (perHost - 1);
        const double pxnFlows = interHostFlows * (perHost - 1) / perHost;
        const double pcie = 2 * interHostFlows * bytesPerFlow;
        QVERIFY2(std::abs(scaleUp - (2 * intraHostFlows + 2 * pxnFlows) * bytesPerFlow - pcie) < 1,
            qPrintable(QString::number(scaleUp)));
    }

    void patterns_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<int>("flows");
        QTest::addColumn<double>("totalBytes");
        // 4 servers x 8 GPUs = 32 ranks, 1 GB.
        QTest::addRow("hierarchical") << "hier" << (4 * 8 + 8 * 4)
                                      << (32 * 2 * 7 / 8.0 * 1e9 + 32 * 2 * 3 / 4.0 * 1e9 / 8);
        QTest::addRow("all-to-all") << "a2a" << 32 * 31 << 32 * 31 * 1e6;
        QTest::addRow("parameter server, 2 hubs") << "ps" << 30 * 2 * 2 << 30 * 2 * 1e9;
    }
    void patterns()
    {
        QFETCH(QString, pattern);
        QFETCH(int, flows);
        QFETCH(double, totalBytes);
        HostOptions ho;
        ho.hosts = 4;
        auto d = buildClos(ho, ClosOptions {});
        QVERIFY(d.isOk());
        std::vector<Flow> f = pattern == QLatin1String("hier") ? hierarchicalAllReduceFlows(*d, 1e9)
            : pattern == QLatin1String("a2a")                  ? allToAllFlows(*d, 1e6)
                                                               : parameterServerFlows(*d, 1e9, 2);
        QCOMPARE(int(f.size()), flows);
        double sum = 0;
        for (const Flow& x : f)
            sum += x.bytes;
        QVERIFY(std::abs(sum - totalBytes) < 1);
        const FlowModel model(*d);
        auto t = model.time(f, FlowOptions {});
        QVERIFY(t.isOk());
        QCOMPARE(t->unroutableFlows, std::size_t(0));
        QVERIFY(t->slowdown >= 1.0 - 1e-9);
    }

    void torusAndDragonflyRouteMinimally_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("maxNetworkHops");
        QTest::addRow("4x4x4 torus") << "torus" << 6 + 2 * 2; // 6 torus hops + NIC-to-NIC inside hosts
        QTest::addRow("dragonfly p=2 a=4 h=2") << "dragonfly" << 5; // NIC-r, local, global, local, r-NIC
    }
    void torusAndDragonflyRouteMinimally()
    {
        QFETCH(QString, kind);
        QFETCH(int, maxNetworkHops);
        auto d = kind == QLatin1String("torus") ? buildTorus(singles(64), { 4, 4, 4 })
                                                : buildDragonfly(singles(72), 2, 4, 2);
        QVERIFY2(d.isOk(), d.message().c_str());
        const FlowModel model(*d);
        const auto flows = allToAllFlows(*d, 1e6);
        auto p = model.route(flows, FlowOptions {});
        QVERIFY(p.isOk());
        QVERIFY(p->unroutable.empty());
        std::uint32_t longest = 0;
        for (std::uint32_t len : p->length)
            longest = std::max(longest, len);
        QVERIFY2(int(longest) - 2 <= maxNetworkHops, qPrintable(QString::number(longest)));
    }

    void linkEfficiency_data()
    {
        QTest::addColumn<double>("lossRate");
        QTest::addColumn<int>("routing");
        QTest::addColumn<double>("efficiency");
        // Go-back-N, 1 / (1 + p W) (lossmodel.h): 400G, 10 us, 4 KB -> W ~ 122; 1e-3 loss -> 0.89, 1e-2 -> 0.45.
        QTest::addRow("no loss, ecmp") << 0.0 << int(Routing::Ecmp) << 1.0;
        QTest::addRow("1e-3, adaptive") << 1e-3 << int(Routing::Adaptive) << 0.8912;
        QTest::addRow("1e-2, spray") << 1e-2 << int(Routing::Spray) << 0.4503;
    }
    void linkEfficiency()
    {
        QFETCH(double, lossRate);
        QFETCH(int, routing);
        QFETCH(double, efficiency);
        Scenario s;
        s.communication.lossRate = lossRate;
        s.communication.routing = static_cast<Routing>(routing);
        const FlowOptions o = flowOptionsFor(s);
        QCOMPARE(int(o.routing), routing); // the enums share their order
        QVERIFY2(std::abs(o.linkEfficiency - efficiency) < 1e-4, qPrintable(QString::number(o.linkEfficiency)));
        // On a non-blocking fabric with perfect balance, the slowdown is 1 / efficiency.
        const FabricDesign d = twoLeaves(4);
        const FlowModel model(d);
        FlowOptions balanced = o;
        balanced.routing = RoutingMode::Adaptive;
        auto t = model.time(leafToLeaf(d), balanced);
        QVERIFY(t.isOk());
        QVERIFY(std::abs(t->slowdown - 1 / efficiency) < 1e-3);
        balanced.linkEfficiency = 0;
        auto bad = model.time(leafToLeaf(d), balanced);
        QVERIFY(!bad.isOk());
        QCOMPARE(
            QString::fromStdString(bad.message()), QStringLiteral("link efficiency must be in (0, 1], got 0.000000"));
    }

    void halfShiftCrossesBisection()
    {
        const FabricDesign d = twoLeaves(8);
        const auto flows = shiftFlows(d, 8, 1e9);
        QCOMPARE(flows.size(), std::size_t(16));
        QCOMPARE(flows[3].dst, 11u);
        QCOMPARE(flows[12].dst, 4u);
        QVERIFY(shiftFlows(d, 16, 1e9).empty());
        const FlowModel model(d);
        FlowOptions o;
        o.routing = RoutingMode::Spray;
        auto t = model.time(flows, o);
        QVERIFY(t.isOk());
        QVERIFY(std::abs(t->slowdown - 1.0) < 1e-6); // non-blocking and sprayed: line rate
    }

    void badRank()
    {
        const FabricDesign d = twoLeaves(4);
        const FlowModel model(d);
        std::vector<Flow> flows = { { 0, 99, 1 } };
        auto p = model.route(flows, FlowOptions {});
        QVERIFY(!p.isOk());
        QCOMPARE(QString::fromStdString(p.message()),
            QStringLiteral("flow 0: rank 99 is out of range (the fabric has 8 GPUs)"));
    }
};

QTEST_GUILESS_MAIN(TestFabricFlow)
#include "tst_fabricflow.moc"
