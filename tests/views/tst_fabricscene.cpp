// The VTK bridge and the fabric scene under Xvfb: the grabbed picture must show the glyphs in their
// tier colours, the utilisation colours of the links and the scalar bar, not just "no crash".

#include "engine/fabric/fabricgraph.h"
#include "views/fabric/fabricscene.h"
#include "views/fabric/fabricview.h"
#include "views/presentation/fabricscenebuilder.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QtTest>

using namespace clusterscope::views;
using namespace clusterscope::engine;

namespace {

bool glAvailable()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

// Pixels close (per channel) to a glyph colour; shading changes brightness, so compare hue-ish by
// normalising to the brightest channel.
int countPixelsNear(const QImage& image, const std::array<double, 3>& rgb, QRect area = {})
{
    if (area.isNull())
        area = image.rect();
    const QColor target = QColor::fromRgbF(float(rgb[0]), float(rgb[1]), float(rgb[2]));
    int count = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (c.saturationF() < 0.35f || c.valueF() < 0.25f)
                continue;
            const float dh = std::abs(c.hueF() - target.hueF());
            if (std::min(dh, 1.0f - dh) < 0.03f)
                ++count;
        }
    return count;
}

FabricSceneData smallScene()
{
    FabricSceneData d;
    d.title = "test fabric";
    for (int i = 0; i < 8; ++i)
        d.nodes.push_back({ float(i) * 1.2f - 4.2f, 0, 0, SceneNodeKind::Node, {} });
    for (int i = 0; i < 2; ++i)
        d.nodes.push_back({ float(i) * 4.0f - 2.0f, 0, 4, SceneNodeKind::Leaf, {} });
    d.nodes.push_back({ 0, 0, 8, SceneNodeKind::Spine, {} });
    for (int i = 0; i < 8; ++i)
        d.links.push_back({ i, 8 + i / 4, 0.1f, false }); // cool links
    d.links.push_back({ 8, 10, 0.95f, false }); // a hot uplink
    d.links.push_back({ 9, 10, -1.0f, true }); // a flagged (missing) uplink
    return d;
}

} // namespace

class TestFabricScene : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rendersGlyphsLinksAndScalarBar()
    {
        if (!glAvailable())
            QSKIP("needs an X server with GL (run under xvfb-run)");
        FabricView view;
        view.resize(900, 700);
        view.setScene(smallScene());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy frames(view.vtkWidget(), &VtkOpenGLWidget::frameRendered);
        view.vtkWidget()->update();
        QVERIFY(frames.wait(10000) || frames.count() > 0);

        QCOMPARE(view.scene().glyphCounts()[int(SceneNodeKind::Node)], 8);
        QCOMPARE(view.scene().glyphCounts()[int(SceneNodeKind::Leaf)], 2);
        QCOMPARE(view.scene().glyphCounts()[int(SceneNodeKind::Spine)], 1);
        QCOMPARE(view.scene().linkCount(), 10);

        const QImage image = view.grabPicture();
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 800);
        image.save(QDir::temp().filePath(QStringLiteral("clusterscope-tst_fabricscene.png")));
        // Glyphs in their tier colours: nodes (green), leaves (blue), spine (orange).
        const int nodes = countPixelsNear(image, FabricScene::kindColour(SceneNodeKind::Node));
        const int leaves = countPixelsNear(image, FabricScene::kindColour(SceneNodeKind::Leaf));
        const int spines = countPixelsNear(image, FabricScene::kindColour(SceneNodeKind::Spine));
        QVERIFY2(nodes > 400, qPrintable(QString::number(nodes)));
        QVERIFY2(leaves > 200, qPrintable(QString::number(leaves)));
        QVERIFY2(spines > 100, qPrintable(QString::number(spines)));
        // Eight node glyphs outweigh two leaves, which outweigh one spine.
        QVERIFY(nodes > leaves && leaves > spines);
        // The scalar bar occupies the right edge and runs from blue to red.
        const QRect bar(
            int(image.width() * 0.88), int(image.height() * 0.1), int(image.width() * 0.1), int(image.height() * 0.8));
        QVERIFY(countPixelsNear(image, { 0.9, 0.1, 0.1 }, bar) > 50);
        QVERIFY(countPixelsNear(image, { 0.1, 0.2, 0.9 }, bar) > 50);
        // The flagged link is drawn in its highlight colour.
        QVERIFY(countPixelsNear(image, { 0.9, 0.0, 0.35 }) > 20);
    }

    // A click on a glyph or a line picks it and shows its details; a drag does not.
    void clickPicksAndShowsDetails()
    {
        if (!glAvailable())
            QSKIP("needs an X server with GL (run under xvfb-run)");
        FabricView view;
        view.resize(900, 700);
        view.setScene(smallScene());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.grabPicture(); // render once so the camera matrices are current
        // Where the spine (node 10) and the hot uplink (link 8, leaf 8 -> spine 10) appear on screen.
        const QPoint spine = view.screenPositionOf(10).toPoint();
        const auto pick = view.pickAt(spine);
        QVERIFY(pick.has_value());
        QCOMPARE(pick->isLink, false);
        QCOMPARE(pick->index, 10);
        const QPoint leaf = view.screenPositionOf(8).toPoint();
        const QPoint middle = (leaf + spine) / 2;
        const auto linkPick = view.pickAt(middle);
        QVERIFY(linkPick.has_value());
        QVERIFY(linkPick->isLink);
        QCOMPARE(linkPick->index, 8);
        QVERIFY(!view.pickAt(QPoint(5, view.vtkWidget()->height() - 5)).has_value());

        view.setDetailsProvider([](const FabricSceneData& d, const ScenePick& p) {
            return QStringLiteral("picked %1 %2 of %3")
                .arg(p.isLink ? QStringLiteral("link") : QStringLiteral("node"))
                .arg(p.index)
                .arg(d.nodes.size());
        });
        QSignalSpy picked(&view, &FabricView::picked);
        QTest::mouseClick(view.vtkWidget(), Qt::LeftButton, {}, middle);
        QCOMPARE(picked.count(), 1);
        QCOMPARE(view.detailsText(), QStringLiteral("picked link 8 of 11"));
        QTest::mouseClick(view.vtkWidget(), Qt::LeftButton, {}, QPoint(5, view.vtkWidget()->height() - 5));
        QVERIFY(view.detailsText().isEmpty());
    }

    void emptyStateHidesPicture()
    {
        FabricView view;
        view.setEmptyState(QStringLiteral("nothing"));
        QVERIFY(!view.hasScene());
    }

    // The scene builder folds each server's GPUs and NICs into one glyph and drops internal links.
    void sceneFromGraph()
    {
        FabricGraph g;
        std::vector<NodeId> leaves;
        for (int l = 0; l < 2; ++l) {
            FabricNode leaf;
            leaf.kind = NodeKind::Switch;
            leaf.tier = kTierLeaf;
            leaves.push_back(g.addNode(leaf));
        }
        FabricNode spine;
        spine.kind = NodeKind::Switch;
        spine.tier = kTierSpine;
        const NodeId spineId = g.addNode(spine);
        for (int host = 0; host < 4; ++host) {
            FabricNode gpu;
            gpu.kind = NodeKind::Gpu;
            gpu.host = host;
            const NodeId gpuId = g.addNode(gpu);
            FabricNode nic;
            nic.kind = NodeKind::Nic;
            nic.host = host;
            const NodeId nicId = g.addNode(nic);
            FabricLink pcie;
            pcie.a = gpuId;
            pcie.b = nicId;
            pcie.medium = LinkMedium::Pcie;
            g.addLink(pcie);
            FabricLink up;
            up.a = nicId;
            up.b = leaves[std::size_t(host / 2)];
            g.addLink(up);
        }
        for (NodeId leaf : leaves) {
            FabricLink up;
            up.a = leaf;
            up.b = spineId;
            up.flags = leaf == leaves[1] ? kLinkMissing : 0;
            g.addLink(up);
        }
        const std::vector<float> utilisation(g.linkCount(), 0.5f);
        const FabricSceneData scene = clusterscope::views::sceneFromGraph(g, SceneLayout::Tiers, utilisation, "t");
        int servers = 0, leafCount = 0, spineCount = 0;
        for (const auto& n : scene.nodes) {
            servers += n.kind == SceneNodeKind::Node;
            leafCount += n.kind == SceneNodeKind::Leaf;
            spineCount += n.kind == SceneNodeKind::Spine;
        }
        QCOMPARE(servers, 4);
        QCOMPARE(leafCount, 2);
        QCOMPARE(spineCount, 1);
        QCOMPARE(scene.links.size(), std::size_t(6)); // 4 NIC-leaf + 2 leaf-spine; PCIe dropped
        int flagged = 0;
        for (const auto& l : scene.links)
            flagged += l.flagged;
        QCOMPARE(flagged, 1);
        // Tiers stack upwards: servers below leaves below the spine.
        float serverZ = 0, leafZ = 0, spineZ = 0;
        for (const auto& n : scene.nodes) {
            if (n.kind == SceneNodeKind::Node)
                serverZ = n.z;
            if (n.kind == SceneNodeKind::Leaf)
                leafZ = n.z;
            if (n.kind == SceneNodeKind::Spine)
                spineZ = n.z;
        }
        QVERIFY(serverZ < leafZ && leafZ < spineZ);
    }
};

int main(int argc, char** argv)
{
    VtkOpenGLWidget::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    TestFabricScene test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_fabricscene.moc"
