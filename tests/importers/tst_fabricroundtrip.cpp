// Round trip at scale: a built fabric (engine/fabric builders) written as an ibnetdiscover dump with
// SHARP aggregation nodes and a management network, known cables removed, degraded and swapped,
// imported again: exactly the planted defects come back, with the right tiers, pods and parts.

#include "engine/fabric/fabricbuilder.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"
#include "importers/ibnetdiscover/planfromdesign.h"

#include <QtTest>

#include <map>
#include <set>

using namespace clusterscope;
using namespace clusterscope::importers;
using engine::LinkId;
using engine::NodeId;
using engine::NodeKind;

namespace {

struct Built {
    engine::FabricDesign design;
    int expectedTiers[3] = { 0, 0, 0 };
};

engine::FabricDesign build(bool railOptimized)
{
    engine::HostOptions ho;
    engine::ClosOptions co;
    co.radix = 40; // NVIDIA Quantum QM8700: 40 HDR ports
    co.tiers = 3;
    if (railOptimized) {
        ho.hosts = 512; // 8 rails: 4,096 CAs in 16 scalable units of 32 nodes
        ho.gpusPerNode = 8;
        ho.nicsPerNode = 8;
        co.railOptimized = true;
        co.nodesPerSu = 20;
    } else {
        ho.hosts = 4096;
        ho.gpusPerNode = 1;
        ho.nicsPerNode = 1;
    }
    ho.nicGbps = 200; // HDR 4x
    auto d = engine::buildClos(ho, co);
    if (!d)
        qFatal("%s", d.message().c_str());
    return std::move(*d);
}

// Links of one level, in id order: (lower tier switch or NIC, upper switch).
std::vector<LinkId> linksAt(const engine::FabricGraph& g, engine::LinkLevel level)
{
    std::vector<LinkId> out;
    for (LinkId l = 0; l < g.linkCount(); ++l)
        if (g.level(l) == level)
            out.push_back(l);
    return out;
}

std::string guidText(std::uint64_t guid, char type)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%c-%016llx", type, static_cast<unsigned long long>(guid));
    return buf;
}

// A flag's identity for comparison: kind and the set of switch/CA GUIDs its ports name.
using FlagKey = std::pair<std::string, std::set<std::string>>;

FlagKey keyOf(const FabricFlag& f)
{
    std::set<std::string> nodes;
    for (const auto& p : f.ports)
        nodes.insert(p.substr(0, p.find('/')));
    return { toString(f.kind), nodes };
}

std::string nodeName(const engine::FabricGraph& g, NodeId n)
{
    return guidText(writtenGuid(g, n), g.node(n).kind == NodeKind::Switch ? 'S' : 'H');
}

} // namespace

class TestFabricRoundTrip : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void healthy_data()
    {
        QTest::addColumn<bool>("rail");
        QTest::addColumn<bool>("terminal");
        QTest::addRow("fat-tree 4096 hosts") << false << false;
        QTest::addRow("rail-optimized 512x8, terminal capture") << true << true;
    }
    void healthy()
    {
        QFETCH(bool, rail);
        QFETCH(bool, terminal);
        const engine::FabricDesign d = build(rail);
        IbnetdiscoverWriteOptions o;
        o.sharpAggregationNodes = true;
        o.managementSwitches = 2;
        o.managementHosts = 6;
        o.crlf = terminal;
        if (terminal)
            o.trailingPrompt = "[root@ufm01 ~]# ";
        std::string text = writeIbnetdiscover(d.graph, o);
        if (terminal)
            text.erase(std::remove(text.begin(), text.end(), '\t'), text.end()); // tabs lost in the capture
        auto f = parseIbnetdiscover(text, "built.topo");
        QVERIFY2(f, f.message().c_str());
        for (const auto& x : f->flags)
            qWarning("unexpected flag: %s", x.message.c_str());
        QCOMPARE(int(f->flags.size()), 0);
        QVERIFY(!f->diagnostics.find("ibnetdiscover.unrecognised_line"));
        QCOMPARE(bool(f->diagnostics.find("ibnetdiscover.trailing_prompt")), terminal);

        // Switches and tiers as built (+ 2 management switches at tier 0).
        const auto built = d.graph.switchesPerTier();
        auto got = f->graph.switchesPerTier();
        QCOMPARE(int(got.size()), 3);
        got[0] -= 2;
        QCOMPARE(got, built);
        // Aggregation nodes set apart; hosts = the built NICs + the management hosts.
        QCOMPARE(int(f->structure.embedded.size()), int(d.graph.countNodes(NodeKind::Switch)) + 2);
        for (const auto& e : f->structure.embedded) {
            QCOMPARE(int(e.kind), int(EmbeddedCa::Kind::SharpAggregationNode));
            QVERIFY(e.hostSwitch != engine::kNoId);
        }
        QCOMPARE(f->graph.countNodes(NodeKind::Nic),
            d.graph.countNodes(NodeKind::Nic) + d.graph.countNodes(NodeKind::Host) + 6);
        // Parts: the compute fabric and the management network.
        QCOMPARE(int(f->structure.parts.size()), 2);
        QCOMPARE(int(f->structure.parts[0].role), int(FabricPart::Role::Compute));
        QCOMPARE(int(f->structure.parts[1].role), int(FabricPart::Role::Management));
        QCOMPARE(int(f->structure.parts[1].switches.size()), 2);
        QVERIFY(f->structure.tierConfidence > 0.99);
        QCOMPARE(f->structure.switchesNamingTier, int(d.graph.countNodes(NodeKind::Switch)));

        // Pods: the imported leaf groups are the built pods (same partition of the leaves).
        std::map<std::uint64_t, int> builtPod;
        for (NodeId n = 0; n < d.graph.nodeCount(); ++n)
            if (d.graph.node(n).kind == NodeKind::Switch && d.graph.node(n).tier == engine::kTierLeaf)
                builtPod[writtenGuid(d.graph, n)] = d.graph.node(n).group;
        std::map<int, int> podMap;
        std::set<int> importedPods;
        for (NodeId n = 0; n < f->graph.nodeCount(); ++n) {
            const auto it = builtPod.find(f->graph.node(n).guid);
            if (it == builtPod.end())
                continue;
            const int imported = f->graph.node(n).group;
            QVERIFY(imported >= 0);
            auto [m, fresh] = podMap.emplace(imported, it->second);
            QCOMPARE(m->second, it->second);
            importedPods.insert(imported);
        }
        QCOMPARE(int(importedPods.size()), d.pods);
    }

    void plantedDefects_data()
    {
        QTest::addColumn<bool>("rail");
        QTest::addRow("fat-tree 4096 hosts") << false;
        QTest::addRow("rail-optimized 512x8") << true;
    }
    void plantedDefects()
    {
        QFETCH(bool, rail);
        engine::FabricDesign d = build(rail);
        engine::FabricGraph& g = d.graph;
        const auto leafSpine = linksAt(g, engine::LinkLevel::LeafSpine);
        const auto spineCore = linksAt(g, engine::LinkLevel::SpineCore);
        const auto nodeLeaf = linksAt(g, engine::LinkLevel::NodeLeaf);
        QVERIFY(d.pods >= 4);
        // Leaf-spine links of one pod, and of another.
        auto inPod = [&](int pod) {
            std::vector<LinkId> out;
            for (LinkId l : leafSpine)
                if (g.node(g.link(l).a).group == pod)
                    out.push_back(l);
            return out;
        };
        const auto pod1 = inPod(1), pod2 = inPod(2), pod3 = inPod(3);
        // Two links of pod 3 with different leaves and different spines.
        LinkId swapA = pod3.front(), swapB = kNo;
        for (LinkId l : pod3)
            if (g.link(l).a != g.link(swapA).a && g.link(l).b != g.link(swapA).b) {
                swapB = l;
                break;
            }
        QVERIFY(swapB != kNo);
        const std::vector<PlantedDefect> defects {
            { PlantedDefect::Kind::Remove, pod1[5], kNo }, { PlantedDefect::Kind::Remove, spineCore[17], kNo },
            { PlantedDefect::Kind::DegradeWidth, pod2[7], kNo },
            { PlantedDefect::Kind::DegradeWidth, nodeLeaf[1234], kNo },
            { PlantedDefect::Kind::DegradeSpeed, spineCore[301], kNo }, { PlantedDefect::Kind::Swap, swapA, swapB },
            { PlantedDefect::Kind::Swap, pod1[40], pod2[61] }, // across pods
        };
        // Expected flags, by kind and the nodes their ports name (read before the swaps move ends).
        std::multiset<FlagKey> expected;
        auto ends = [&](LinkId l) {
            return std::set<std::string> { nodeName(g, g.link(l).a), nodeName(g, g.link(l).b) };
        };
        expected.insert({ "missing", ends(pod1[5]) });
        expected.insert({ "missing", ends(spineCore[17]) });
        expected.insert({ "degraded", ends(pod2[7]) });
        expected.insert({ "degraded", ends(nodeLeaf[1234]) });
        expected.insert({ "degraded", ends(spineCore[301]) });
        for (const auto& [x, y] : { std::pair { swapA, swapB }, std::pair { pod1[40], pod2[61] } }) {
            std::set<std::string> four = ends(x);
            for (const auto& s : ends(y))
                four.insert(s);
            expected.insert({ "miswired", four });
        }
        QVERIFY(plantDefects(g, defects));
        IbnetdiscoverWriteOptions o;
        o.sharpAggregationNodes = true;
        o.managementSwitches = 2;
        o.managementHosts = 4;
        auto f = parseIbnetdiscover(writeIbnetdiscover(g, o), "planted.topo");
        QVERIFY2(f, f.message().c_str());
        std::multiset<FlagKey> got;
        for (const auto& x : f->flags) {
            got.insert(keyOf(x));
            QVERIFY(!x.pattern.empty());
            QVERIFY(!x.switches.empty());
        }
        if (got != expected)
            for (const auto& x : f->flags)
                qWarning("flag: %s %s", toString(x.kind), x.message.c_str());
        QCOMPARE(got, expected);
        // Tiers still right despite the defects.
        auto tiers = f->graph.switchesPerTier();
        tiers[0] -= 2;
        QCOMPARE(tiers, d.graph.switchesPerTier());
        // The removed cables come back as links flagged missing.
        int missing = 0;
        for (const auto& l : f->graph.links())
            missing += (l.flags & engine::kLinkMissing) != 0;
        QCOMPARE(missing, 2);
    }

    void countsAgainstPlan()
    {
        // A dump whose names do not follow the plan is compared by counts: one pulled leaf-spine
        // cable is one cable short at that level, nothing else.
        const engine::FabricDesign d = build(false);
        IbnetdiscoverWriteOptions o;
        o.sharpAggregationNodes = true;
        o.managementSwitches = 2;
        o.managementHosts = 4;
        auto clean = parseIbnetdiscover(writeIbnetdiscover(d.graph, o), "clean.topo");
        QVERIFY(clean);
        QCOMPARE(int(compareCountsWithPlan(*clean, d.graph).size()), 0);
        engine::FabricGraph damaged = d.graph;
        QVERIFY(plantDefects(
            damaged, { { PlantedDefect::Kind::Remove, linksAt(damaged, engine::LinkLevel::LeafSpine)[99], kNo } }));
        auto f = parseIbnetdiscover(writeIbnetdiscover(damaged, o), "damaged.topo");
        QVERIFY(f);
        const auto flags = compareCountsWithPlan(*f, d.graph);
        QCOMPARE(int(flags.size()), 1);
        QCOMPARE(int(flags[0].kind), int(FabricFlag::Kind::Missing));
        QCOMPARE(QString::fromStdString(flags[0].pattern), QStringLiteral("leaf-spine cables vs plan"));
        QCOMPARE(planNameCoverage(*f, planFromGraph(d.graph, false)), 1.0);
    }

    void writerErrors()
    {
        engine::FabricDesign d = build(false);
        QVERIFY(!plantDefects(d.graph, { { PlantedDefect::Kind::Remove, LinkId(d.graph.linkCount()), kNo } }));
        const auto s = plantDefects(d.graph, { { PlantedDefect::Kind::Swap, 3, 3 } });
        QVERIFY(!s);
        QVERIFY(QString::fromStdString(s.message()).contains(QStringLiteral("planted defect 0")));
    }

private:
    static constexpr LinkId kNo = engine::kNoId;
};

QTEST_GUILESS_MAIN(TestFabricRoundTrip)
#include "tst_fabricroundtrip.moc"
