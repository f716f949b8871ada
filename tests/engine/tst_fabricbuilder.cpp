// Fabric builders against the published sizes: the DGX SuperPOD reference tables, the
// k-ary fat-tree and dragonfly formulas, the 512-GPU leaf-spine regression, torus and NVLink domains.

#include "engine/catalog/catalog.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/scenario/scenario.h"

#include <QtTest>

using namespace clusterscope::engine;

namespace {
HostOptions dgx(int hosts)
{
    HostOptions h;
    h.hosts = hosts;
    return h;
}
std::size_t tierCount(const FabricGraph& g, int tier)
{
    const auto t = g.switchesPerTier();
    return static_cast<std::size_t>(tier) < t.size() ? t[tier] : 0;
}
} // namespace

class TestFabricBuilder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void superPod_data()
    {
        QTest::addColumn<int>("su");
        QTest::addColumn<bool>("ufm");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("leaf");
        QTest::addColumn<int>("spine");
        QTest::addColumn<int>("core");
        QTest::addColumn<int>("nodeCables");
        QTest::addColumn<int>("leafSpineCables");
        QTest::addColumn<int>("spineCoreCables");
        // NVIDIA DGX SuperPOD reference architecture with DGX H100, compute fabric table (UFM in one node slot).
        QTest::addRow("H100 1 SU") << 1 << true << 31 << 8 << 4 << 0 << 252 << 256 << 0;
        QTest::addRow("H100 2 SU") << 2 << true << 63 << 16 << 8 << 0 << 508 << 512 << 0;
        QTest::addRow("H100 3 SU") << 3 << true << 95 << 24 << 16 << 0 << 764 << 768 << 0;
        QTest::addRow("H100 4 SU") << 4 << true << 127 << 32 << 16 << 0 << 1020 << 1024 << 0;
        // B200 reference, 32-node SU, cables per tier = GPUs, core tier above 8 SU.
        QTest::addRow("B200 8 SU") << 8 << false << 256 << 64 << 32 << 0 << 2048 << 2048 << 0;
        QTest::addRow("B200 16 SU") << 16 << false << 512 << 128 << 128 << 64 << 4096 << 4096 << 4096;
        QTest::addRow("B200 32 SU") << 32 << false << 1024 << 256 << 256 << 128 << 8192 << 8192 << 8192;
        QTest::addRow("B200 64 SU") << 64 << false << 2048 << 512 << 512 << 256 << 16384 << 16384 << 16384;
    }
    void superPod()
    {
        QFETCH(int, su);
        QFETCH(bool, ufm);
        QFETCH(int, nodes);
        QFETCH(int, leaf);
        QFETCH(int, spine);
        QFETCH(int, core);
        QFETCH(int, nodeCables);
        QFETCH(int, leafSpineCables);
        QFETCH(int, spineCoreCables);
        ClosOptions co;
        co.railOptimized = true;
        co.ufmSlot = ufm;
        co.tiers = su > 8 ? 3 : 2;
        auto d = buildClos(dgx(nodes), co);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(d->scalableUnits, su);
        QCOMPARE(d->gpus.size(), std::size_t(nodes) * 8);
        QCOMPARE(tierCount(d->graph, kTierLeaf), std::size_t(leaf));
        QCOMPARE(tierCount(d->graph, kTierSpine), std::size_t(spine));
        QCOMPARE(tierCount(d->graph, kTierCore), std::size_t(core));
        QCOMPARE(d->graph.countLinks(LinkLevel::NodeLeaf), std::size_t(nodeCables));
        QCOMPARE(d->graph.countLinks(LinkLevel::LeafSpine), std::size_t(leafSpineCables));
        QCOMPARE(d->graph.countLinks(LinkLevel::SpineCore), std::size_t(spineCoreCables));
        // Rail optimisation: every leaf serves one rail only.
        for (const FabricLink& l : d->graph.links())
            if (d->graph.node(l.a).kind == NodeKind::Nic)
                QCOMPARE(int(d->graph.node(l.b).group), d->graph.node(l.a).host / 32);
    }

    void superPodRoundsToWholeSus_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("su");
        QTest::addRow("32 nodes + UFM need 2 SU") << 32 << 2;
        QTest::addRow("127 nodes fit 4 SU") << 127 << 4;
        QTest::addRow("128 nodes need 5 SU") << 128 << 5;
    }
    void superPodRoundsToWholeSus()
    {
        QFETCH(int, nodes);
        QFETCH(int, su);
        ClosOptions co;
        co.railOptimized = true;
        co.ufmSlot = true;
        auto d = buildClos(dgx(nodes), co);
        QVERIFY(d.isOk());
        QCOMPARE(d->scalableUnits, su);
        QCOMPARE(tierCount(d->graph, kTierLeaf), std::size_t(su) * 8);
    }

    void fatTreeFormula_data()
    {
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("tiers");
        QTest::addRow("k=4 two tiers") << 4 << 2;
        QTest::addRow("k=8 two tiers") << 8 << 2;
        QTest::addRow("k=64 two tiers") << 64 << 2;
        QTest::addRow("k=4 three tiers") << 4 << 3;
        QTest::addRow("k=8 three tiers") << 8 << 3;
        QTest::addRow("k=16 three tiers") << 16 << 3;
    }
    void fatTreeFormula()
    {
        QFETCH(int, k);
        QFETCH(int, tiers);
        // Al-Fares et al., SIGCOMM 2008 (generalised to n tiers): hosts 2 (k/2)^n, switches (2n - 1)(k/2)^(n-1).
        long long hosts = 2, switches = 2 * tiers - 1;
        for (int i = 0; i < tiers; ++i)
            hosts *= k / 2;
        for (int i = 0; i < tiers - 1; ++i)
            switches *= k / 2;
        HostOptions h;
        h.hosts = static_cast<int>(hosts);
        h.gpusPerNode = 1;
        h.nicsPerNode = 1;
        h.nvlinkDomainGpus = 1;
        ClosOptions co;
        co.radix = k;
        co.tiers = tiers;
        auto d = buildClos(h, co);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(d->graph.countNodes(NodeKind::Switch), std::size_t(switches));
        QCOMPARE(d->tiers, tiers);
        if (tiers == 3)
            QCOMPARE(d->pods, k);
        // One more host does not fit this many tiers.
        h.hosts += 1;
        co.tiers = tiers;
        auto over = buildClos(h, co);
        if (tiers == 2)
            QVERIFY(over.isOk() && over->tiers == 3);
        else
            QVERIFY(!over.isOk());
    }

    void leafSpine_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("oversub");
        QTest::addColumn<int>("leaves");
        QTest::addColumn<int>("spines");
        // Regression: 512 GPUs at 400G, 1:1, 64 ports need 8 spines (16 leaves x 32 uplinks / 64), not 56.
        QTest::addRow("512 GPUs 1:1") << 512 << 1.0 << 16 << 8;
        // 3:1: 48 down + 16 up; 1024 ports -> 22 leaves x 16 up / 64 -> 5.5 -> divisor of 16 -> 8.
        QTest::addRow("1024 GPUs 3:1") << 1024 << 3.0 << 22 << 8;
        QTest::addRow("2048 GPUs 1:1") << 2048 << 1.0 << 64 << 32;
    }
    void leafSpine()
    {
        QFETCH(int, gpus);
        QFETCH(double, oversub);
        QFETCH(int, leaves);
        QFETCH(int, spines);
        ClosOptions co;
        co.oversubscription = oversub;
        auto d = buildClos(dgx(gpus / 8), co);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(tierCount(d->graph, kTierLeaf), std::size_t(leaves));
        QCOMPARE(tierCount(d->graph, kTierSpine), std::size_t(spines));
        QCOMPARE(d->leafUpPorts * oversub, double(d->leafDownPorts));
    }

    void dragonflyFormula_data()
    {
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("a");
        QTest::addColumn<int>("h");
        QTest::addRow("balanced p=2 a=4 h=2") << 2 << 4 << 2;
        QTest::addRow("balanced p=4 a=8 h=4") << 4 << 8 << 4;
        QTest::addRow("unbalanced p=3 a=4 h=1") << 3 << 4 << 1;
    }
    void dragonflyFormula()
    {
        QFETCH(int, p);
        QFETCH(int, a);
        QFETCH(int, h);
        // Kim et al., "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008:
        // groups = a h + 1, hosts = a p (a h + 1).
        const int groups = a * h + 1;
        HostOptions ho;
        ho.hosts = a * p * groups;
        ho.gpusPerNode = 1;
        ho.nicsPerNode = 1;
        ho.nvlinkDomainGpus = 1;
        auto d = buildDragonfly(ho, p, a, h);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(d->graph.countNodes(NodeKind::Switch), std::size_t(a * groups));
        // Every router uses exactly its radix p + a - 1 + h.
        std::vector<int> degree(d->graph.nodeCount(), 0);
        for (const FabricLink& l : d->graph.links()) {
            ++degree[l.a];
            ++degree[l.b];
        }
        for (NodeId sw : d->graph.nodesOfKind(NodeKind::Switch))
            QCOMPARE(degree[sw], p + a - 1 + h);
        ho.hosts += 1;
        QVERIFY(!buildDragonfly(ho, p, a, h).isOk());
    }

    void torus_data()
    {
        QTest::addColumn<QList<int>>("dims");
        QTest::addColumn<int>("links");
        QTest::addRow("4x4x4 cube") << QList<int> { 4, 4, 4 } << 192;
        QTest::addRow("8x8 2D") << QList<int> { 8, 8 } << 128;
        QTest::addRow("2x4 (extent 2: one link)") << QList<int> { 2, 4 } << 12;
    }
    void torus()
    {
        QFETCH(QList<int>, dims);
        QFETCH(int, links);
        std::vector<int> d(dims.begin(), dims.end());
        int hosts = 1;
        for (int x : d)
            hosts *= x;
        HostOptions ho = dgx(hosts);
        ho.gpusPerNode = 4;
        ho.nicsPerNode = 4;
        ho.nvlinkDomainGpus = 4;
        auto t = buildTorus(ho, d);
        QVERIFY2(t.isOk(), t.message().c_str());
        QCOMPARE(t->graph.countLinks(LinkLevel::Other), std::size_t(links));
        QVERIFY(t->nicsForward);
        d.back() += 1;
        QVERIFY(!buildTorus(ho, d).isOk());
    }

    void nvlinkDomains_data()
    {
        QTest::addColumn<int>("domain");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<int>("hosts");
        QTest::addColumn<int>("nvswitches");
        QTest::addRow("HGX H100 8-GPU") << 8 << 8 << 16 << 16;
        QTest::addRow("GB200 NVL72 (18 trays of 4)") << 72 << 4 << 36 << 2;
    }
    void nvlinkDomains()
    {
        QFETCH(int, domain);
        QFETCH(int, gpusPerNode);
        QFETCH(int, hosts);
        QFETCH(int, nvswitches);
        HostOptions ho = dgx(hosts);
        ho.gpusPerNode = gpusPerNode;
        ho.nicsPerNode = gpusPerNode;
        ho.nvlinkDomainGpus = domain;
        const FabricDesign d = buildHosts(ho);
        QCOMPARE(d.graph.countNodes(NodeKind::NvSwitch), std::size_t(nvswitches));
        QCOMPARE(d.graph.node(d.gpus[domain - 1]).group, 0);
        QCOMPARE(d.graph.node(d.gpus[domain]).group, 1);
    }

    void railMapping_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("nics");
        QTest::addColumn<QList<int>>("nicOfGpu");
        QTest::addRow("8 GPUs 8 NICs") << 8 << 8 << QList<int> { 0, 1, 2, 3, 4, 5, 6, 7 };
        QTest::addRow("8 GPUs 4 NICs") << 8 << 4 << QList<int> { 0, 0, 1, 1, 2, 2, 3, 3 };
        QTest::addRow("4 GPUs 8 NICs") << 4 << 8 << QList<int> { 0, 2, 4, 6 };
    }
    void railMapping()
    {
        QFETCH(int, gpus);
        QFETCH(int, nics);
        QFETCH(QList<int>, nicOfGpu);
        HostOptions ho = dgx(2);
        ho.gpusPerNode = gpus;
        ho.nicsPerNode = nics;
        const FabricDesign d = buildHosts(ho);
        for (int l = 0; l < gpus; ++l) {
            QCOMPARE(d.nicOfGpu[l], nicOfGpu[l]);
            QCOMPARE(d.nicOfGpu[gpus + l], nics + nicOfGpu[l]);
        }
        QCOMPARE(d.graph.countLinks(LinkLevel::Internal) - d.graph.countNodes(NodeKind::Gpu) /* NVLink */,
            std::size_t(2 * std::max(gpus, nics)));
    }

    void multiPlaneAndDualTor_data()
    {
        QTest::addColumn<int>("planes");
        QTest::addColumn<bool>("dualTor");
        QTest::addColumn<int>("leaves");
        QTest::addColumn<double>("linkGbps");
        QTest::addRow("single plane") << 1 << false << 16 << 400.0;
        QTest::addRow("two planes") << 2 << false << 32 << 200.0;
        QTest::addRow("dual-ToR") << 1 << true << 32 << 200.0;
        QTest::addRow("dual-plane dual-ToR (HPN)") << 2 << true << 64 << 100.0;
    }
    void multiPlaneAndDualTor()
    {
        QFETCH(int, planes);
        QFETCH(bool, dualTor);
        QFETCH(int, leaves);
        QFETCH(double, linkGbps);
        ClosOptions co;
        co.planes = planes;
        co.dualTor = dualTor;
        auto d = buildClos(dgx(64), co);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(tierCount(d->graph, kTierLeaf), std::size_t(leaves));
        QCOMPARE(d->graph.planeCount(), planes);
        QCOMPARE(d->graph.countLinks(LinkLevel::NodeLeaf), std::size_t(512 * planes * (dualTor ? 2 : 1)));
        for (const FabricLink& l : d->graph.links())
            if (d->graph.level(static_cast<LinkId>(&l - d->graph.links().data())) == LinkLevel::NodeLeaf)
                QCOMPARE(double(l.gbps), linkGbps);
    }

    void railOptimizedVariants_data()
    {
        QTest::addColumn<int>("planes");
        QTest::addColumn<bool>("dualTor");
        QTest::addColumn<int>("leaves");
        QTest::addColumn<int>("spines");
        // 1 SU of 32 nodes: 8 rails x (dual-ToR ? 2 : 1) leaves per plane.
        QTest::addRow("rail-optimized") << 1 << false << 8 << 4;
        QTest::addRow("rail-optimized dual-ToR") << 1 << true << 16 << 8;
        QTest::addRow("rail-optimized two planes") << 2 << false << 16 << 8;
    }
    void railOptimizedVariants()
    {
        QFETCH(int, planes);
        QFETCH(bool, dualTor);
        QFETCH(int, leaves);
        QFETCH(int, spines);
        ClosOptions co;
        co.railOptimized = true;
        co.planes = planes;
        co.dualTor = dualTor;
        auto d = buildClos(dgx(32), co);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(d->scalableUnits, 1);
        QCOMPARE(tierCount(d->graph, kTierLeaf), std::size_t(leaves));
        QCOMPARE(tierCount(d->graph, kTierSpine), std::size_t(spines));
        // Every NIC port of rail r lands on a leaf that serves rail r only.
        std::vector<int> railOfLeaf(d->graph.nodeCount(), -1);
        for (const FabricLink& l : d->graph.links()) {
            const FabricNode& a = d->graph.node(l.a);
            if (a.kind != NodeKind::Nic)
                continue;
            int& r = railOfLeaf[l.b];
            QVERIFY(r == -1 || r == a.rail);
            r = a.rail;
            QCOMPARE(int(l.plane), int(d->graph.node(l.b).plane));
        }
    }

    void scenarioErrors_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("expected");
        QTest::addRow("no NIC at 123G") << "nic123"
                                        << "/cluster/nic/gbps: the catalog has no infiniband NIC at 123 Gb/s";
        QTest::addRow("no 512-port switch")
            << "radix512"
            << "/cluster/fabric/switch_radix: the catalog has no infiniband switch with 512 ports";
        QTest::addRow("oversubscribed fat-tree") << "fatTree3to1"
                                                 << "/cluster/fabric/oversubscription";
        QTest::addRow("dragonfly too small") << "dragonflySmall"
                                             << "/cluster/fabric: 1024 NIC ports need";
    }
    void scenarioErrors()
    {
        QFETCH(QString, change);
        QFETCH(QString, expected);
        auto catalog = Catalog::builtin();
        QVERIFY(catalog.isOk());
        Scenario s;
        s.cluster.gpus = 1024;
        if (change == QLatin1String("nic123"))
            s.cluster.nic.gbps = 123;
        if (change == QLatin1String("radix512"))
            s.cluster.fabric.switchRadix = 512;
        if (change == QLatin1String("fatTree3to1")) {
            s.cluster.fabric.type = FabricType::FatTree;
            s.cluster.fabric.oversubscription = 3;
        }
        if (change == QLatin1String("dragonflySmall")) {
            s.cluster.fabric.type = FabricType::Dragonfly;
            s.cluster.fabric.dragonflyP = 2;
            s.cluster.fabric.dragonflyA = 4;
            s.cluster.fabric.dragonflyH = 2;
        }
        auto d = buildFabric(s, *catalog);
        QVERIFY(!d.isOk());
        QVERIFY2(d.message().rfind(expected.toStdString(), 0) == 0, d.message().c_str());
    }

    void scenarioFollowsTheGenerationsReference_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("su");
        QTest::addColumn<int>("leaf");
        QTest::addColumn<int>("spine");
        QTest::addColumn<int>("core");
        // H100 reference: UFM in a node slot (127 nodes in 4 SU); B200 reference: 32 nodes per SU,
        // core tier above 8 SU (NVIDIA DGX SuperPOD reference architectures).
        QTest::addRow("H100 1016 GPUs") << "H100-SXM-80GB" << 1016 << 4 << 32 << 16 << 0;
        QTest::addRow("B200 2048 GPUs") << "B200" << 2048 << 8 << 64 << 32 << 0;
        QTest::addRow("B200 4096 GPUs") << "B200" << 4096 << 16 << 128 << 128 << 64;
        QTest::addRow("B200 16384 GPUs") << "B200" << 16384 << 64 << 512 << 512 << 256;
    }
    void scenarioFollowsTheGenerationsReference()
    {
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(int, su);
        QFETCH(int, leaf);
        QFETCH(int, spine);
        QFETCH(int, core);
        auto catalog = Catalog::builtin();
        Scenario s;
        s.cluster.gpu = gpu.toStdString();
        s.cluster.gpus = gpus;
        auto d = buildFabric(s, *catalog);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(d->scalableUnits, su);
        QCOMPARE(tierCount(d->graph, kTierLeaf), std::size_t(leaf));
        QCOMPARE(tierCount(d->graph, kTierSpine), std::size_t(spine));
        QCOMPARE(tierCount(d->graph, kTierCore), std::size_t(core));
    }

    void scenarioDefaultsBuild()
    {
        auto catalog = Catalog::builtin();
        QVERIFY(catalog.isOk());
        Scenario s;
        s.cluster.gpus = 1024; // 128 nodes + UFM -> 5 SU, 40 leaves, 32 spines
        auto d = buildFabric(s, *catalog);
        QVERIFY2(d.isOk(), d.message().c_str());
        QCOMPARE(d->switchModel, std::string("QM9700"));
        QCOMPARE(d->nicModel, std::string("CX7-NDR-400"));
        QCOMPARE(d->scalableUnits, 5);
        QCOMPARE(tierCount(d->graph, kTierLeaf), std::size_t(40));
        QCOMPARE(tierCount(d->graph, kTierSpine), std::size_t(32));
    }
};

QTEST_GUILESS_MAIN(TestFabricBuilder)
#include "tst_fabricbuilder.moc"
