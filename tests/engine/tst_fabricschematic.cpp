// The blocks model of the report's fabric schematic (engine/fabric/fabricschematic.h) on the
// example scenarios' fabrics: every switch and server lands in exactly one block, every cable
// between blocks in one bundle, rows run from the highest tier down to the servers, blocks of a
// row do not overlap and stay on the canvas, wide rows fold into a "more" slot, and bundle ends
// lie on their blocks' edges.

#include "engine/catalog/catalog.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/fabricschematic.h"
#include "engine/scenario/scenariojson.h"

#include <QtTest>

using namespace clusterscope::engine;

class TestFabricSchematic : public QObject {
    Q_OBJECT
    Catalog m_catalog;

    FabricDesign fabricOf(const char* file, int gpus = 0)
    {
        auto s = loadScenarioFile(std::string(CLUSTERSCOPE_SOURCE_DIR) + "/resources/examples/" + file);
        if (!s)
            qFatal("%s", s.message().c_str());
        if (gpus > 0) {
            s->cluster.gpus = gpus;
            s->cluster.fabric.tiers = 3;
        }
        auto d = buildFabric(*s, m_catalog);
        if (!d)
            qFatal("%s", d.message().c_str());
        return std::move(*d);
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = Catalog::builtin().value(); }

    void blocksHoldEverything_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("llama leaf-spine") << QStringLiteral("llama3-70b-1024-h100.json");
        QTest::addRow("gpt3 fat-tree") << QStringLiteral("gpt3-175b-1024-a100.json");
        QTest::addRow("mixtral roce") << QStringLiteral("mixtral-8x7b-256-h200-roce.json");
    }
    void blocksHoldEverything()
    {
        QFETCH(QString, file);
        const FabricDesign d = fabricOf(file.toLatin1().constData());
        const FabricGraph& g = d.graph;
        std::vector<float> utilisation(g.linkCount(), 0.0f);
        for (LinkId l = 0; l < g.linkCount(); ++l)
            if (g.level(l) == LinkLevel::NodeLeaf) {
                utilisation[l] = 0.75f; // one server-to-leaf cable
                break;
            }
        const FabricSchematic s = fabricSchematic(d, utilisation);
        QVERIFY(s.utilisationKnown);

        long long switches = 0, hosts = 0;
        for (const SchematicBlock& b : s.blocks) {
            switches += b.switches;
            hosts += b.hosts;
            QVERIFY(b.row == SchematicBlock::kHostRow ? b.switches == 0 : b.hosts == 0 && b.appliances == 0);
        }
        long long graphSwitches = 0;
        for (const FabricNode& n : g.nodes())
            graphSwitches += n.kind == NodeKind::Switch;
        QCOMPARE(switches, graphSwitches);
        QCOMPARE(hosts, (long long)(d.nics.size() / std::size_t(std::max(1, d.nicsPerNode))));

        long long cables = s.sameRowCables;
        float busiest = 0;
        for (const SchematicBundle& b : s.bundles) {
            cables += b.cables;
            busiest = std::max(busiest, b.maxUtilisation);
            QVERIFY(s.blocks[std::size_t(b.upper)].row > s.blocks[std::size_t(b.lower)].row
                || s.blocks[std::size_t(b.lower)].row == SchematicBlock::kHostRow);
            if (!b.drawn)
                continue;
            const SchematicRect& up = s.blocks[std::size_t(b.upper)].rect;
            const SchematicRect& down = s.blocks[std::size_t(b.lower)].rect;
            QCOMPARE(b.from.y, up.bottom());
            QCOMPARE(b.to.y, down.y);
            QVERIFY(b.from.x > up.x && b.from.x < up.x + up.width);
            QVERIFY(b.to.x > down.x && b.to.x < down.x + down.width);
        }
        long long fabricCables = 0;
        for (LinkId l = 0; l < g.linkCount(); ++l) {
            const FabricLink& link = g.link(l);
            fabricCables += !(link.flags & kLinkMissing) && link.medium != LinkMedium::Pcie
                && link.medium != LinkMedium::NvLink && g.node(link.a).kind != NodeKind::Gpu
                && g.node(link.b).kind != NodeKind::Gpu;
        }
        QCOMPARE(cables, fabricCables);
        QCOMPARE(busiest, 0.75f);

        // Rows: highest tier first, servers last; within a row left to right without overlap.
        QVERIFY(s.rows.size() >= 2);
        QCOMPARE(s.rows.back(), SchematicBlock::kHostRow);
        QVERIFY(std::is_sorted(s.rows.begin(), s.rows.end() - 1, std::greater<int>()));
        double rowTop = -1;
        for (const int row : s.rows) {
            const std::vector<int>& ids = s.blocksOfRow.at(row);
            QVERIFY(ids.size() <= SchematicLayout::kMaxBlocksPerRow || s.hiddenBlocks.count(row));
            double right = 0;
            const double top = s.blocks[std::size_t(ids.front())].rect.y;
            QVERIFY(top > rowTop);
            rowTop = top;
            for (const int id : ids) {
                const SchematicBlock& b = s.blocks[std::size_t(id)];
                if (!b.visible)
                    continue;
                QCOMPARE(b.rect.y, top);
                QVERIFY(b.rect.x >= right);
                right = b.rect.x + b.rect.width;
            }
            QVERIFY(right <= SchematicLayout::kCanvasWidth - SchematicLayout::kMargin + 1e-9);
        }
        QVERIFY(s.height > rowTop);
    }

    void wideRowsFold()
    {
        // 4,096 H100 in DGX SuperPOD scalable units of 32 servers: 16 SUs, more leaf blocks than a row holds.
        const FabricDesign d = fabricOf("llama3-70b-1024-h100.json", 4096);
        const FabricSchematic s = fabricSchematic(d, {});
        QVERIFY(!s.utilisationKnown);
        bool folded = false;
        for (const auto& [row, hidden] : s.hiddenBlocks) {
            folded = true;
            const auto& ids = s.blocksOfRow.at(row);
            QCOMPARE(hidden, int(ids.size()) - int(SchematicLayout::kMaxBlocksPerRow) + 1);
            int invisible = 0;
            for (const int id : ids)
                invisible += !s.blocks[std::size_t(id)].visible;
            QCOMPARE(invisible, hidden);
        }
        QVERIFY(folded);
    }
};

QTEST_GUILESS_MAIN(TestFabricSchematic)
#include "tst_fabricschematic.moc"
