// The Runs tab's NIC overlay on real components: the 1,024-GPU cluster's counters backfilled into a
// real prometheus (the Live tab's fixture), a 16-rank run whose wall-clock window falls inside the
// backfilled data and whose trace files name their hosts the way torch.profiler's
// tensorboard_trace_handler does. Without a connection the overlay says so; once the Live tab is
// connected the run's two hosts get lines (read on a worker), the straggler's host is drawn bold
// when its rank is selected, zooming the timeline moves the overlay's axis with it, and a run with
// relative times or unknown hosts says why there is nothing. With CLUSTERSCOPE_SCREENSHOT_DIR set
// it saves the window (1600x1000) there.

#include "app/gui/analysisrunner.h"
#include "app/gui/livecontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/runniccontroller.h"
#include "engine/run/runanalysis.h"
#include "tests/importers/backfilledprometheus.h"
#include "views/live/liveview.h"
#include "views/runs/nicoverlay.h"
#include "views/runs/runsview.h"
#include "views/runs/stragglertablemodel.h"
#include "views/runs/timelinewidget.h"

#include <QItemSelectionModel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

#include <cmath>

using namespace clusterscope;
using namespace clusterscope::engine;

namespace {
// 16 ranks on hosts node001 (ranks 0-7) and node002 (8-15), three 20 s steps from `t0S`: compute,
// then an all-reduce that waits for rank 9 (2 s late every step).
Run makeRun(long long t0S, const char* hostA, const char* hostB)
{
    Run run;
    constexpr std::int64_t kS = 1000000000LL;
    for (int r = 0; r < 16; ++r) {
        RankTrace rank;
        rank.rank = r;
        rank.worldSize = 16;
        rank.sourceFile = QStringLiteral("/traces/%1_%2.1700000000123.pt.trace.json")
                              .arg(QString::fromLatin1(r < 8 ? hostA : hostB))
                              .arg(4000 + r)
                              .toStdString();
        for (int s = 0; s < 3; ++s) {
            const std::int64_t start = (t0S + 20 * s) * kS;
            const std::int64_t computeEnd = start + (r == 9 ? 12 : 10) * kS;
            const std::int64_t commEnd = start + 13 * kS;
            rank.steps.push_back({ s + 1, start, start + 20 * kS });
            GpuActivity compute;
            compute.startNs = start;
            compute.endNs = computeEnd;
            rank.activities.push_back(compute);
            CollectiveCall call;
            call.op = CollectiveOp::AllReduce;
            call.startNs = computeEnd;
            call.endNs = commEnd;
            call.bytes = 1000000000;
            call.groupSize = 16;
            call.sequence = s;
            call.dtype = "bf16";
            rank.collectives.push_back(call);
            GpuActivity comm;
            comm.startNs = computeEnd;
            comm.endNs = commEnd;
            comm.stream = 1;
            comm.kind = GpuActivityKind::Communication;
            comm.collectiveIndex = s;
            rank.activities.push_back(comm);
        }
        run.ranks.push_back(rank);
    }
    return run;
}
} // namespace

class TestRunNicOverlay : public QObject {
    Q_OBJECT
    telemetrytest::BackfilledPrometheus m_server;
    const int m_seconds = 90;

private slots:
    void initTestCase()
    {
        QSettings().clear();
        const QString failed = m_server.start(telemetrytest::exampleFabric().graph, m_seconds);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }

    void cleanupTestCase() { m_server.stop(); }

    void overlayFollowsTheRunAndTheTimeline()
    {
        app::MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.analysisRunner()->waitUntilIdle();
        auto* live = w.findChild<views::LiveView*>();
        auto* nic = w.findChild<app::RunNicController*>();
        QVERIFY(live);
        QVERIFY2(nic, "no RunNicController");
        views::RunsView* runs = w.runsView();
        views::NicOverlay* overlay = runs->nicOverlay();
        views::TimelineWidget* timeline = runs->timeline();

        // A run inside the backfilled window (its last 20 s after the data: a gap, not zeros).
        const long long t0 = m_server.startS() + 40; // to +100 s; the data ends at +89 s
        const Run run = makeRun(t0, "node001", "node002");
        const RunAnalysis analysis = analyseRun(run);
        QVERIFY(!analysis.stragglers.empty());
        QCOMPARE(analysis.stragglers.front().rank, 9);
        w.tabs()->setCurrentWidget(runs);
        runs->showRun(analysis, &run, QStringLiteral("nic-run"));
        QVERIFY(overlay->isVisible());
        QVERIFY(overlay->hosts().empty());
        QVERIFY2(overlay->message().contains(QStringLiteral("No telemetry source connected")),
            qPrintable(overlay->message()));
        // Only a strip of text while there is nothing to draw.
        QVERIFY2(overlay->height() < 3 * overlay->fontMetrics().lineSpacing() + 10,
            qPrintable(QString::number(overlay->height())));

        // Connecting in the Live tab fetches on the worker; the click and the test return at once.
        QSignalSpy tested(w.findChild<app::LiveController*>(), &app::LiveController::connectionTested);
        QSignalSpy fetched(nic, &app::RunNicController::fetched);
        live->setUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.port()));
        live->testButton()->click();
        QVERIFY(tested.wait(30000));
        QVERIFY2(tested.last().at(0).toBool(), qPrintable(tested.last().at(1).toString()));
        QVERIFY(nic->isBusy());
        QVERIFY(fetched.wait(60000));
        QVERIFY2(fetched.last().at(0).toBool(), qPrintable(fetched.last().at(1).toString()));
        QVERIFY(overlay->message().isEmpty());
        QCOMPARE(overlay->hosts().size(), std::size_t(2));
        QCOMPARE(overlay->hosts()[0].host, QStringLiteral("node001"));
        QCOMPARE(overlay->hosts()[1].host, QStringLiteral("node002"));
        // Samples inside the data, gaps after it (the run's last step outlives the backfill).
        const auto& line = overlay->hosts()[0].bytesPerS;
        QVERIFY(line.size() >= 60);
        QVERIFY(std::isfinite(line[5]) && line[5] > 0);
        QVERIFY2(std::isnan(line.back()), "after the data ends the points are gaps, not zeros");
        QTest::qWait(50);
        QVERIFY(overlay->height() >= 100);

        // The straggler's rank selected: its host bold.
        QTableView* stragglers = runs->stragglerTable();
        stragglers->selectRow(0);
        QCOMPARE(stragglers->model()
                     ->index(0, views::StragglerTableModel::Rank)
                     .data(views::StragglerTableModel::kSortRole)
                     .toInt(),
            9);
        QCOMPARE(overlay->highlightedHost(), QStringLiteral("node002"));

        // One instant, one x: the overlay's axis is the timeline's, before and after a zoom.
        const double tS = double(t0 + 30);
        auto timelineX = [&] {
            const QRect lanes = timeline->lanesRect();
            return lanes.left()
                + (tS * 1e9 - timeline->viewStartNs()) / (timeline->viewEndNs() - timeline->viewStartNs())
                * lanes.width();
        };
        QVERIFY(std::abs(overlay->xOf(tS) - timelineX()) < 1.0);
        const double before = overlay->xOf(tS);
        timeline->zoomAt(4.0, timeline->lanesRect().left() + 10);
        QVERIFY2(std::abs(overlay->xOf(tS) - before) > 50,
            qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(overlay->xOf(tS))));
        QVERIFY(std::abs(overlay->xOf(tS) - timelineX()) < 1.0);
        timeline->panByPixels(-120);
        QVERIFY(std::abs(overlay->xOf(tS) - timelineX()) < 1.0);
        timeline->fitAll();
        QTest::qWait(100);
        if (const QByteArray dir = qgetenv("CLUSTERSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(w.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/runs-nic-overlay.png")));

        // On a laptop screen the strip keeps its lines and the timeline its lanes.
        w.resize(1366, 768);
        QTest::qWait(200);
        // There the run's panes are tabs: the timeline's tab in front.
        QVERIFY(runs->isPaneTabbed());
        runs->revealPane(runs->timelinePane());
        QTest::qWait(100);
        if (const QByteArray dir = qgetenv("CLUSTERSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(w.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/runs-nic-overlay-1366.png")));
        QVERIFY2(overlay->height() >= 60, qPrintable(QString::number(overlay->height())));
        QVERIFY2(timeline->lanesRect().height() >= 60, qPrintable(QString::number(timeline->lanesRect().height())));
        QVERIFY(std::abs(overlay->xOf(tS) - timelineX()) < 1.0);

        // The strip collapses on request.
        runs->nicOverlayToggle()->click();
        QVERIFY(!overlay->isVisible());
        runs->nicOverlayToggle()->click();
        QVERIFY(overlay->isVisible());

        // Another run: hosts the server does not know; said so, after a fresh fetch.
        const Run elsewhere = makeRun(t0, "gpu-a17", "gpu-a18");
        runs->showRun(analyseRun(elsewhere), &elsewhere, QStringLiteral("elsewhere"));
        QVERIFY(nic->isBusy());
        QVERIFY(fetched.wait(60000));
        QCOMPARE(fetched.last().at(0).toBool(), false);
        QVERIFY2(overlay->message().contains(QStringLiteral("No NIC series for this run's hosts (gpu-a17, gpu-a18)")),
            qPrintable(overlay->message()));

        // A run with relative times: no window to read, said so at once.
        Run relative = makeRun(0, "node001", "node002");
        runs->showRun(analyseRun(relative), &relative, QStringLiteral("relative"));
        QVERIFY(!nic->isBusy());
        QVERIFY2(overlay->message().contains(QStringLiteral("relative")), qPrintable(overlay->message()));

        // Changing runs while a fetch is in flight: the old answer never lands on the new run.
        runs->showRun(analysis, &run, QStringLiteral("nic-run"));
        QVERIFY(nic->isBusy());
        runs->showRun(analyseRun(relative), &relative, QStringLiteral("relative"));
        QVERIFY(!nic->isBusy());
        QTest::qWait(2000);
        QVERIFY(overlay->hosts().empty());
        QVERIFY2(overlay->message().contains(QStringLiteral("relative")), qPrintable(overlay->message()));
    }
};

QTEST_MAIN(TestRunNicOverlay)
#include "tst_runnicoverlay.moc"
