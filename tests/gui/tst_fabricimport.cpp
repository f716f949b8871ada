// Import Fabric in the GUI: a generated 4,096-host three-tier dump with planted defects (a pulled
// leaf-spine cable, a cable trained to 1x, two swapped cables) is recognised by its content,
// imported on the worker, stored in the project, drawn in Fabric 3D with the flagged links and
// switches highlighted, listed in the flag table by pattern, and still there after reopening.

#include "app/gui/fabricimportcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/store/fabricstore.h"
#include "engine/store/projectstore.h"
#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"
#include "importers/ibnetdiscover/importedfabric.h"
#include "views/fabric/fabricscene.h"
#include "views/fabric/fabricview.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QListWidget>
#include <QMimeData>
#include <QTreeWidget>
#include <QtTest>

using namespace clusterscope;

namespace {

bool glAvailable()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

// A 4,096-host fat tree of 40-port HDR switches (three tiers, pods of leaves and spines) written
// as ibnetdiscover output with one missing, one degraded and two swapped leaf-spine cables.
std::string buildPlantedDump();

const std::string& plantedDump()
{
    static const std::string dump = buildPlantedDump();
    return dump;
}

std::string buildPlantedDump()
{
    engine::HostOptions ho;
    ho.hosts = 4096;
    ho.gpusPerNode = 1;
    ho.nicsPerNode = 1;
    ho.nicGbps = 200;
    engine::ClosOptions co;
    co.radix = 40;
    co.tiers = 3;
    auto d = engine::buildClos(ho, co);
    if (!d)
        qFatal("%s", d.message().c_str());
    engine::FabricGraph g = d->graph;
    std::vector<engine::LinkId> pod1, pod2;
    for (engine::LinkId l = 0; l < g.linkCount(); ++l)
        if (g.level(l) == engine::LinkLevel::LeafSpine) {
            if (g.node(g.link(l).a).group == 1)
                pod1.push_back(l);
            else if (g.node(g.link(l).a).group == 2)
                pod2.push_back(l);
        }
    if (pod1.size() < 10 || pod2.size() < 10)
        qFatal("the built fabric has no pods");
    engine::LinkId swapB = engine::kNoId;
    for (engine::LinkId l : pod2)
        if (l != pod2[3] && g.link(l).a != g.link(pod2[3]).a && g.link(l).b != g.link(pod2[3]).b) {
            swapB = l;
            break;
        }
    using K = importers::PlantedDefect::Kind;
    if (!importers::plantDefects(g,
            { { K::Remove, pod1[5], engine::kNoId }, { K::DegradeWidth, pod1[9], engine::kNoId },
                { K::Swap, pod2[3], swapB } }))
        qFatal("cannot plant the defects");
    importers::IbnetdiscoverWriteOptions o;
    o.sharpAggregationNodes = true;
    return importers::writeIbnetdiscover(g, o);
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()))
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// Top-level rows of the flag table: "kind: pattern" -> count.
QMap<QString, int> flagRows(const QTreeWidget& table)
{
    QMap<QString, int> rows;
    for (int i = 0; i < table.topLevelItemCount(); ++i)
        rows[table.topLevelItem(i)->text(0).section(QLatin1Char(':'), 0, 0)] += table.topLevelItem(i)->text(1).toInt();
    return rows;
}

} // namespace

class TestFabricImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void recognisedByContent()
    {
        QTemporaryDir dir;
        const QString dump = writeFile(dir, QStringLiteral("capture.log"),
            "#\n# Topology file: generated on Tue Dec  1 10:00:00 2026\n#\nvendid=0x2c9\ndevid=0xd2f0\n"
            "sysimgguid=0xb8599f0300000010\nswitchguid=0xb8599f0300000010(b8599f0300000010)\n"
            "Switch\t40 \"S-b8599f0300000010\"\t\t# \"leaf01\" enhanced port 0 lid 3 lmc 0\n");
        QVERIFY(app::FabricImportController::looksLikeIbnetdiscover(dump));
        // The same fabric listed port by port: ibnetdiscover --ports and iblinkinfo.
        const QString ports = writeFile(dir, QStringLiteral("ports.txt"),
            "SW  1719 10 0x7cfe9003009ce5b0 4x EDR - CA   134  1 0x7cfe9003003b4bde ( 'ib-i1l1s01' - 'o0001 HCA-1' "
            ")\n");
        QVERIFY(app::FabricImportController::looksLikeIbnetdiscover(ports));
        const QString linkinfo = writeFile(dir, QStringLiteral("iblinkinfo.out"),
            "CA: centos-data-200 HCA-1:\n    0x0002c903000d81f9      4    1[  ] ==( 4X          10.0 Gbps Active/ "
            "LinkUp)==>       2    3[  ] \"Infiniscale-IV Mellanox Technologies\" ( )\n");
        QVERIFY(app::FabricImportController::looksLikeIbnetdiscover(linkinfo));
        const QString json = writeFile(dir, QStringLiteral("scenario.topo"), "{ \"name\": \"not a dump\" }\n");
        QVERIFY(!app::FabricImportController::looksLikeIbnetdiscover(json));
        QVERIFY(!app::FabricImportController::looksLikeIbnetdiscover(dir.filePath(QStringLiteral("absent"))));
    }

    void importShowStoreReopen()
    {
        QTemporaryDir dir;
        const QString dump = writeFile(dir, QStringLiteral("cluster.ibnd"), plantedDump());
        const QString project = dir.filePath(QStringLiteral("P.csproj"));
        {
            app::MainWindow w;
            w.resize(1400, 900);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(!w.document()->saveAs(project));
            // As a drop or the command line does: recognised by content, imported on the worker.
            QCOMPARE(w.openPath(dump, true), std::nullopt);
            app::FabricImportController& c = *w.fabricImport();
            QVERIFY(!c.isBusy());
            QCOMPARE(c.fabricList()->count(), 1);
            QVERIFY(c.shownFabric());
            const importers::ImportedFabric& f = *c.shownFabric();
            std::map<std::string, int> kinds;
            for (const auto& flag : f.flags)
                ++kinds[importers::toString(flag.kind)];
            QCOMPARE(kinds, (std::map<std::string, int> { { "degraded", 1 }, { "miswired", 1 }, { "missing", 1 } }));
            // The flag table lists the planted rows, grouped by pattern.
            const auto rows = flagRows(*c.flagTable());
            QCOMPARE(rows.value(QStringLiteral("missing")), 1);
            QCOMPARE(rows.value(QStringLiteral("degraded")), 1);
            QCOMPARE(rows.value(QStringLiteral("miswired")), 1);
            // The scene: Fabric 3D current, switches in tiers, the flagged lines and switches marked.
            QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.fabricView()));
            const views::FabricSceneData& scene = w.fabricView()->sceneData();
            int flaggedLinks = 0, flaggedSwitches = 0, leaves = 0, spines = 0, cores = 0;
            for (const auto& l : scene.links)
                flaggedLinks += l.flagged;
            for (const auto& n : scene.nodes) {
                flaggedSwitches += n.flagged;
                leaves += n.kind == views::SceneNodeKind::Leaf;
                spines += n.kind == views::SceneNodeKind::Spine;
                cores += n.kind == views::SceneNodeKind::Core;
            }
            QVERIFY(leaves > 0 && spines > 0 && cores > 0);
            // missing + degraded + the two swapped cables (each joins two switches of the flag).
            QVERIFY2(flaggedLinks >= 4, qPrintable(QString::number(flaggedLinks)));
            QVERIFY2(flaggedLinks <= 8, qPrintable(QString::number(flaggedLinks)));
            QVERIFY(flaggedSwitches >= 4);
            QVERIFY(scene.serversPerGlyph > 1); // level of detail at 4,096 hosts
            if (glAvailable()) {
                QCOMPARE(w.fabricView()->scene().flaggedNodeCount(), flaggedSwitches);
                // Pixels in the flag colour (0.9, 0, 0.35) are on screen.
                const QImage picture = w.fabricView()->grabPicture();
                int flagPixels = 0;
                for (int y = 0; y < picture.height(); ++y)
                    for (int x = 0; x < picture.width(); ++x) {
                        const QColor p = picture.pixelColor(x, y);
                        flagPixels += p.red() > 150 && p.green() < 70 && p.blue() > 40 && p.blue() < 150;
                    }
                QVERIFY2(flagPixels > 50, qPrintable(QString::number(flagPixels)));
                // Clicking a flagged switch shows its flags among its details.
                bool clicked = false;
                for (std::size_t i = 0; i < scene.nodes.size() && !clicked; ++i) {
                    if (!scene.nodes[i].flagged)
                        continue;
                    const QPoint p = w.fabricView()->screenPositionOf(int(i)).toPoint();
                    const auto hit = w.fabricView()->pickAt(p);
                    if (hit && !hit->isLink && hit->index == int(i)) {
                        QTest::mouseClick(w.fabricView()->vtkWidget(), Qt::LeftButton, {}, p);
                        clicked = true;
                    }
                }
                if (clicked) {
                    const QString details = w.fabricView()->detailsText();
                    QVERIFY2(details.contains(QStringLiteral("switch")), qPrintable(details));
                    QVERIFY2(details.contains(QStringLiteral("missing")) || details.contains(QStringLiteral("degraded"))
                            || details.contains(QStringLiteral("miswired")),
                        qPrintable(details));
                } else {
                    QWARN("every flagged switch is covered by another glyph from this camera");
                }
            }
            // Stored in the project file beside the scenarios.
            auto stored = engine::importedFabrics(*w.document()->store());
            QVERIFY(stored);
            QCOMPARE(int(stored->size()), 1);
            QCOMPARE(QString::fromStdString(stored->front().name), QStringLiteral("cluster.ibnd"));
        }
        {
            // Reopened: the list shows it, selecting it re-imports the stored dump.
            app::MainWindow w;
            QCOMPARE(w.openPath(project, true), std::nullopt);
            app::FabricImportController& c = *w.fabricImport();
            QCOMPARE(c.fabricList()->count(), 1);
            QCOMPARE(c.showFabric(0), std::nullopt);
            QVERIFY(c.shownFabric());
            QCOMPARE(int(c.shownFabric()->flags.size()), 3);
            QCOMPARE(c.flagTable()->topLevelItemCount(), 3);
            QVERIFY(c.showFabric(1).has_value()); // no second fabric: an error, not a crash
        }
    }

    void fabricOnlyProjectShownAndExported()
    {
        // A project holding only an imported fabric (as import-fabric --project leaves it): opening
        // shows the fabric, --export-views renders it and its flag table.
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("fabric-only.csproj"));
        {
            auto store = engine::ProjectStore::create(project.toStdString());
            QVERIFY2(store, store.message().c_str());
            auto id = engine::storeImportedFabric(*store, "planted.topo", "planted.topo", plantedDump(), "{}");
            QVERIFY2(id, id.message().c_str());
        }
        app::MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.openPath(project, true), std::nullopt);
        QVERIFY(w.document()->scenarios().empty());
        QTRY_VERIFY(w.fabricImport()->shownFabric() != nullptr);
        QCOMPARE(int(w.fabricImport()->shownFabric()->flags.size()), 3);
        const auto written = w.exportViews(dir.filePath(QStringLiteral("views")));
        QVERIFY(written);
        // After the scenario tabs (however many there are): <nn>-fabric-planted.png and its flags.
        const QStringList pictures
            = written->filter(QRegularExpression(QStringLiteral("/[0-9]+-fabric-planted\\.png$")));
        QCOMPARE(pictures.size(), 1);
        QCOMPARE(written->filter(QRegularExpression(QStringLiteral("/[0-9]+-fabric-planted-flags\\.png$"))).size(), 1);
        QImage picture(pictures.front());
        QVERIFY(!picture.isNull() && picture.width() > 400);
    }

    void droppedDumpIsImported()
    {
        // A dump dropped on the window under a name that says nothing: recognised by content.
        QTemporaryDir dir;
        const QString dump = writeFile(dir, QStringLiteral("capture-from-ufm"), plantedDump());
        app::MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* mime = new QMimeData;
        mime->setUrls({ QUrl::fromLocalFile(dump) });
        QDropEvent drop(QPointF(200, 200), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        // QApplication delivers drops only during a real drag: call the window's handler as it does.
        struct Access : app::MainWindow {
            using app::MainWindow::dropEvent;
        };
        (w.*&Access::dropEvent)(&drop);
        QVERIFY(w.fabricImport()->isBusy() || w.fabricImport()->fabricList()->count() == 1);
        w.fabricImport()->waitUntilIdle();
        QCOMPARE(w.fabricImport()->fabricList()->count(), 1);
        QVERIFY(w.fabricImport()->shownFabric());
        QCOMPARE(int(w.fabricImport()->shownFabric()->flags.size()), 3);
        QCOMPARE(int(w.document()->scenarios().size()) > 0, true); // the scenarios are untouched
        delete mime;
    }

    void brokenDumpIsAnError()
    {
        QTemporaryDir dir;
        // Looks like a dump (vendid/sysimgguid/switchguid lines) but has no readable node header.
        const QString path
            = writeFile(dir, QStringLiteral("broken.topo"), "vendid=0x2c9\nsysimgguid=0x1\nswitchguid=0x1\n");
        app::MainWindow w;
        QSignalSpy failed(w.fabricImport(), &app::FabricImportController::failed);
        w.fabricImport()->importFile(path);
        w.fabricImport()->waitUntilIdle();
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.front().front().toString().contains(QStringLiteral("broken.topo")));
        QCOMPARE(w.fabricImport()->fabricList()->count(), 0);
    }
};

QTEST_MAIN(TestFabricImport)
#include "tst_fabricimport.moc"
