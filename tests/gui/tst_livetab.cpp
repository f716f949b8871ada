// The Live tab on real components: a 1,024-GPU cluster's counters with planted faults (the H100
// example's fabric, the generator the telemetry integration tests use) are backfilled with Debian's
// promtool and served by a real prometheus on a free loopback port. The tab tests the connection
// (and a refused one), fetches and analyses a fixed window on its worker, lists the planted alerts,
// ranks the hot uplink first by average in the sortable link table, draws the fabric coloured by
// MEASURED utilisation (the hot uplink's line at its 97 % peak, the links with errors flagged),
// charts the chosen link against its tier, records the window into the project, and follows live.
// With CLUSTERSCOPE_SCREENSHOT_DIR set it saves the window (1600x1000) there.

#include "app/gui/analysisrunner.h"
#include "app/gui/livecontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "engine/store/projectstore.h"
#include "engine/telemetry/telemetryrecord.h"
#include "tests/importers/backfilledprometheus.h"
#include "views/fabric/fabricview.h"
#include "views/live/livechart.h"
#include "views/live/livelinktablemodel.h"
#include "views/live/liveview.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QDockWidget>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <vtkCamera.h>
#include <vtkRenderer.h>

#include <ctime>

using namespace clusterscope;
using namespace clusterscope::engine;

class TestLiveTab : public QObject {
    Q_OBJECT
    telemetrytest::BackfilledPrometheus m_server;
    const int m_seconds = 90;
    FabricDesign m_design;

    static bool glAvailable()
    {
        const QString platform = QGuiApplication::platformName();
        return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
    }

private slots:
    void initTestCase()
    {
        QSettings().clear();
        m_design = telemetrytest::exampleFabric();
        const QString failed = m_server.start(m_design.graph, m_seconds);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }

    void cleanupTestCase() { m_server.stop(); }

    void liveTabShowsThePlantedFaults()
    {
        app::MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.analysisRunner()->waitUntilIdle();
        QCOMPARE(
            QString::fromStdString(w.document()->scenarios().front().name), QStringLiteral("Llama-3-70B on 1024 H100"));
        auto* live = w.findChild<views::LiveView*>();
        auto* controller = w.findChild<app::LiveController*>();
        QVERIFY2(live, "no LiveView");
        QVERIFY2(controller, "no LiveController");
        w.tabs()->setCurrentWidget(live);
        QCOMPARE(w.tabs()->tabText(w.tabs()->currentIndex()), QStringLiteral("Live"));

        // A refused connection is a clear message, and the state says so.
        QSignalSpy tested(controller, &app::LiveController::connectionTested);
        live->setUrl(QStringLiteral("http://127.0.0.1:%1").arg(telemetrytest::freeLoopbackPort()));
        live->testButton()->click();
        QVERIFY(tested.wait(30000));
        QCOMPARE(tested.last().at(0).toBool(), false);
        QCOMPARE(live->connectionState(), views::LiveView::Connection::Failed);
        QVERIFY2(live->connectionText().contains(QStringLiteral("127.0.0.1")), qPrintable(live->connectionText()));

        live->setUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.port()));
        live->testButton()->click();
        QVERIFY(tested.wait(30000));
        QVERIFY2(tested.last().at(0).toBool(), qPrintable(tested.last().at(1).toString()));
        QCOMPARE(live->connectionState(), views::LiveView::Connection::Connected);
        QVERIFY2(live->connectionText().contains(QStringLiteral("2.")), qPrintable(live->connectionText()));

        // The window, fetched and analysed on the worker: the click returns at once.
        live->setFixedWindow(double(m_server.startS()), double(m_server.startS() + m_seconds - 1));
        QSignalSpy refreshed(controller, &app::LiveController::refreshed);
        live->refreshButton()->click();
        QVERIFY(controller->isBusy());
        QVERIFY(live->cancelButton()->isEnabled());
        QVERIFY(refreshed.wait(120000));
        QVERIFY2(refreshed.last().at(0).toBool(), qPrintable(refreshed.last().at(1).toString()));
        QVERIFY(!controller->isBusy());
        const auto snap = controller->latest();
        QVERIFY(snap);

        // Cancel: a refresh abandoned at once reports "cancelled" and keeps the last window.
        live->refreshButton()->click();
        QVERIFY(controller->isBusy());
        live->cancelButton()->click();
        QVERIFY(refreshed.wait(60000));
        QCOMPARE(refreshed.last().at(0).toBool(), false);
        QVERIFY2(refreshed.last().at(1).toString().contains(QStringLiteral("cancelled")),
            qPrintable(refreshed.last().at(1).toString()));
        QCOMPARE(controller->latest(), snap);
        QVERIFY(!controller->isBusy());

        // Raw query time in the same run: every byte counter's samples of the window in one GET.
        const auto raw = telemetrytest::client(m_server.port());
        QElapsedTimer t;
        t.start();
        auto rawAnswer = raw.get(QStringLiteral("/api/v1/query").toStdString(),
            { { "query",
                  "{__name__=~\"PortXmitDataExtended|node_infiniband_port_data_transmitted_bytes_total\"}["
                      + std::to_string(m_seconds) + "s]" },
                { "time", std::to_string(m_server.startS() + m_seconds - 1) } });
        const double rawS = t.elapsed() / 1000.0;
        QVERIFY2(rawAnswer, rawAnswer.message().c_str());
        qInfo("live refresh of the 1,024-GPU fabric: %.2f s end to end (fetch %.2f s in %d requests, analysis %.2f "
              "s); one raw GET of the byte counters: %.2f s (%.1f MB); ratio %.2f",
            controller->lastRefreshS(), snap->fetchS, snap->fetch.requests, snap->analyseS, rawS,
            rawAnswer->body.size() / 1e6, controller->lastRefreshS() / rawS);

        // The alerts: the ten planted ones (the engine's tests check each attribution).
        QCOMPARE(live->alertList()->topLevelItemCount(), 10);
        const QString hotName = QString::fromStdString(linkName(*snap->graph, m_server.faults().hotUplink));
        const QString symbolName = QString::fromStdString(linkName(*snap->graph, m_server.faults().symbolLink));
        QStringList alertLinks;
        for (int i = 0; i < live->alertList()->topLevelItemCount(); ++i)
            alertLinks << live->alertList()->topLevelItem(i)->text(2);
        QVERIFY(alertLinks.contains(hotName));
        QVERIFY(alertLinks.contains(symbolName));
        QCOMPARE(live->alertList()->topLevelItem(0)->text(0), QStringLiteral("critical"));

        // The link table: sortable; by average the hot uplink (upwards) comes first.
        QAbstractItemModelTester tester(live->linkModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(live->linkModel()->rowCount() > 2000);
        live->linkTable()->sortByColumn(views::LiveLinkTableModel::Average, Qt::DescendingOrder);
        auto cell = [&](int row, int column) { return live->sortedLinks()->index(row, column).data().toString(); };
        QCOMPARE(cell(0, views::LiveLinkTableModel::Link), hotName);
        QCOMPARE(cell(0, views::LiveLinkTableModel::Direction), QStringLiteral("up"));
        QCOMPARE(cell(0, views::LiveLinkTableModel::Peak), QStringLiteral("97.0 %"));
        live->linkTable()->sortByColumn(views::LiveLinkTableModel::Errors, Qt::DescendingOrder);
        QVERIFY(cell(0, views::LiveLinkTableModel::Errors).toDouble() > 0);
        // Measured beside modelled: the example's analysis routes its traffic.
        QVERIFY(!snap->modelled.empty());
        QVERIFY(!cell(0, views::LiveLinkTableModel::Modelled).startsWith(QStringLiteral("–")));
        QVERIFY2(live->summary().contains(QStringLiteral("measured vs modelled: server to leaf 29.9 %")),
            qPrintable(live->summary()));

        // The fabric coloured by measured utilisation: the hot uplink's line at its peak, the links
        // with errors flagged, a "measured" colour bar.
        const auto& scene = live->fabricView()->sceneData();
        QVERIFY(scene.valueTitle.find("Measured") != std::string::npos);
        QVERIFY(scene.title.find("MEASURED") != std::string::npos);
        const auto& hotLink = m_design.graph.link(m_server.faults().hotUplink);
        int flagged = 0;
        bool hotSeen = false;
        for (const auto& l : scene.links) {
            flagged += l.flagged ? 1 : 0;
            if (l.graphLink < 0)
                continue;
            const auto& gl = m_design.graph.link(LinkId(l.graphLink));
            if (gl.a == hotLink.a && gl.b == hotLink.b) {
                hotSeen = true;
                QVERIFY2(std::abs(l.value - 0.97f) < 0.01f, qPrintable(QString::number(l.value)));
            }
        }
        QVERIFY(hotSeen);
        QCOMPARE(flagged, 3); // symbol errors at both ends, at one end, and the link that went down

        // The chart of the first alert's link against its tier.
        QVERIFY(live->chart()->linkPointCount() > m_seconds / 2);
        live->linkTable()->sortByColumn(views::LiveLinkTableModel::Average, Qt::DescendingOrder);
        live->linkTable()->selectRow(0);
        QVERIFY(live->chart()->data().linkLabel.startsWith(hotName));
        QVERIFY(!live->chart()->data().tierPeak.empty());

        // A refresh (as follow mode makes every few seconds) keeps the camera where the user put it
        // and the chosen row; refreshing the same window fetches only the newest samples.
        vtkCamera* camera = live->fabricView()->vtkWidget()->renderer()->GetActiveCamera();
        camera->Azimuth(40);
        camera->Elevation(15);
        camera->Zoom(1.7);
        double position[3], focal[3], up[3];
        camera->GetPosition(position);
        camera->GetFocalPoint(focal);
        camera->GetViewUp(up);
        const double angle = camera->GetViewAngle();
        live->refreshButton()->click();
        QVERIFY(refreshed.wait(120000));
        QVERIFY2(refreshed.last().at(0).toBool(), qPrintable(refreshed.last().at(1).toString()));
        QVERIFY2(live->summary().contains(QStringLiteral("only the new samples fetched")), qPrintable(live->summary()));
        qInfo("refresh of the same window with the cache (follow mode): %.2f s end to end (fetch %.2f s in %d "
              "requests, analysis %.2f s)",
            controller->lastRefreshS(), controller->latest()->fetchS, controller->latest()->fetch.requests,
            controller->latest()->analyseS);
        double position2[3], focal2[3], up2[3];
        camera = live->fabricView()->vtkWidget()->renderer()->GetActiveCamera();
        camera->GetPosition(position2);
        camera->GetFocalPoint(focal2);
        camera->GetViewUp(up2);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(position2[i], position[i]);
            QCOMPARE(focal2[i], focal[i]);
            QCOMPARE(up2[i], up[i]);
        }
        QCOMPARE(camera->GetViewAngle(), angle);
        QVERIFY(live->linkTable()->selectionModel()->currentIndex().isValid());
        QCOMPARE(live->sortedLinks()
                     ->index(live->linkTable()->selectionModel()->currentIndex().row(), views::LiveLinkTableModel::Link)
                     .data()
                     .toString(),
            hotName);
        QVERIFY(live->chart()->data().linkLabel.startsWith(hotName));
        // "Reset camera" still brings the whole fabric back.
        live->fabricView()->resetCamera();
        camera->GetPosition(position2);
        QVERIFY(std::abs(position2[0] - position[0]) + std::abs(position2[1] - position[1]) > 1e-6);

        if (glAvailable()) {
            QTest::qWait(300);
            const QImage picture = live->fabricView()->grabPicture();
            int flagPixels = 0, hotPixels = 0;
            for (int y = 0; y < picture.height(); ++y)
                for (int x = 0; x < picture.width(); ++x) {
                    const QColor c = picture.pixelColor(x, y);
                    flagPixels += c.red() > 190 && c.green() < 40 && c.blue() > 50 && c.blue() < 130;
                    hotPixels += c.red() > 190 && c.green() < 60 && c.blue() < 45;
                }
            QVERIFY2(flagPixels > 50, qPrintable(QString::number(flagPixels)));
            QVERIFY2(hotPixels > 20, qPrintable(QString::number(hotPixels)));
        }
        if (const QByteArray dir = qgetenv("CLUSTERSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            // The Live tab at the full window width (docks closed, as a user watching a cluster would).
            for (auto* dock : w.findChildren<QDockWidget*>())
                dock->hide();
            QTest::qWait(300);
            QDir().mkpath(QString::fromLocal8Bit(dir));
            QVERIFY(w.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/live-tab-1024gpu.png")));
            // The bad link: its alert chosen in the list charts it.
            for (int i = 0; i < live->alertList()->topLevelItemCount(); ++i)
                if (live->alertList()->topLevelItem(i)->text(2) == symbolName)
                    live->alertList()->setCurrentItem(live->alertList()->topLevelItem(i));
            QVERIFY(live->chart()->data().linkLabel.startsWith(symbolName));
            live->linkTable()->sortByColumn(views::LiveLinkTableModel::Errors, Qt::DescendingOrder);
            QTest::qWait(300);
            QVERIFY(w.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/live-tab-bad-link.png")));
        }

        // Record the window into the project (a saved project).
        QVERIFY(!controller->recordWindow().isEmpty()); // untitled: asks to save first
        QVERIFY(!w.document()->saveAs(m_server.filePath(QStringLiteral("project.csproj"))));
        QCOMPARE(controller->recordWindow(), QString());
        auto names = w.document()->store()->documentNames(std::string(kTelemetryWindowKind));
        QVERIFY(names && names->size() == 1);
        auto stored = w.document()->store()->document(std::string(kTelemetryWindowKind), names->front());
        QVERIFY(stored);
        const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(*stored)).object();
        QCOMPARE(doc.value(QStringLiteral("alerts")).toArray().size(), 10);
        bool leafSpineUpPeak = false;
        for (const auto& tier : doc.value(QStringLiteral("tiers")).toArray()) {
            const QJsonObject o = tier.toObject();
            if (o.value(QStringLiteral("level")).toString() != QStringLiteral("leaf_spine")
                || o.value(QStringLiteral("direction")).toString() != QStringLiteral("up"))
                continue;
            double peak = 0;
            for (const auto& v : o.value(QStringLiteral("peak")).toArray())
                peak = std::max(peak, v.toDouble());
            leafSpineUpPeak = std::abs(peak - 0.97) < 1e-6; // the 1-s peak survives downsampling
        }
        QVERIFY(leafSpineUpPeak);

        // Follow live: refreshes come by themselves at the chosen interval (the window is "now", where
        // this backfilled server has no samples: the tab says so instead of showing zeros).
        QVERIFY(!live->follow());
        const int before = int(refreshed.size());
        live->setWindowSeconds(60);
        live->setFollow(true);
        QVERIFY(refreshed.wait(20000));
        QVERIFY(refreshed.wait(20000));
        QVERIFY(int(refreshed.size()) >= before + 2);
        live->setFollow(false);
    }
};

QTEST_MAIN(TestLiveTab)
#include "tst_livetab.moc"
