// The Runs tab's timeline: lanes per (rank, stream) aligned with the analysis' clock offsets, the
// per-pixel-column binning (exact occupancy fractions), rendering of a generated run of 2 million
// events (every rank's lanes drawn; zoomed out the image shows occupancy, zoomed in the kernels and
// the gaps), zoom/pan keeping the time under the cursor, and the hover text of an event.

#include "tests/common/screenshots.h"
#include "views/runs/runpalette.h"
#include "views/runs/timelinedata.h"
#include "views/runs/timelinewidget.h"

#include <QElapsedTimer>
#include <QHelpEvent>
#include <QtTest>

using namespace clusterscope::views;
using namespace clusterscope::engine;

namespace {

// Per rank and 100 ms step: 1780 compute kernels of 40 us every 50 us on stream 7 (0..89 ms),
// 160 all-reduces of 200 us every 560 us on stream 20, 20 copies of 100 us on stream 3; the
// last 10 ms of each step are idle. 1960 events per rank and step.
constexpr std::int64_t kStepNs = 100'000'000;

Run generatedRun(int ranks, int steps)
{
    Run run;
    for (int r = 0; r < ranks; ++r) {
        RankTrace t;
        t.rank = r;
        t.worldSize = ranks;
        t.activities.reserve(std::size_t(steps) * 1960);
        for (int s = 0; s < steps; ++s) {
            const std::int64_t base = s * kStepNs;
            for (int k = 0; k < 1780; ++k)
                t.activities.push_back(
                    { base + k * 50'000, base + k * 50'000 + 40'000, 7, GpuActivityKind::Compute, -1, -1 });
            for (int k = 0; k < 160; ++k) {
                CollectiveCall c;
                c.op = CollectiveOp::AllReduce;
                c.startNs = base + k * 560'000;
                c.endNs = c.startNs + 200'000;
                c.bytes = 25'000'000;
                c.groupSize = ranks;
                c.processGroup = "dp";
                t.activities.push_back(
                    { c.startNs, c.endNs, 20, GpuActivityKind::Communication, std::int32_t(t.collectives.size()), -1 });
                t.collectives.push_back(std::move(c));
            }
            for (int k = 0; k < 20; ++k)
                t.activities.push_back({ base + k * 4'000'000 + 1'000, base + k * 4'000'000 + 101'000, 3,
                    GpuActivityKind::Memcpy, -1, -1 });
        }
        std::sort(t.activities.begin(), t.activities.end(),
            [](const GpuActivity& a, const GpuActivity& b) { return a.startNs < b.startNs; });
        run.ranks.push_back(std::move(t));
    }
    return run;
}

bool isBackground(QRgb p, const QColor& base, const QColor& alternate)
{
    return p == base.rgb() || p == alternate.rgb();
}

bool canGrab()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

} // namespace

class TestRunsTimeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lanesAndAlignment()
    {
        const Run run = generatedRun(3, 1);
        const auto data = TimelineData::fromRun(run, { 0, 1'000, -2'000 });
        QCOMPARE(int(data->lanes().size()), 9); // 3 ranks x streams 3, 7, 20
        QCOMPARE(data->lanes()[0].rank, 0);
        QCOMPARE(data->lanes()[0].stream, 3);
        QCOMPARE(data->lanes()[1].stream, 7);
        QVERIFY(data->lanes()[1].dominant == GpuActivityKind::Compute);
        QVERIFY(data->lanes()[2].dominant == GpuActivityKind::Communication);
        QCOMPARE(data->lanes()[4].rank, 1);
        QCOMPARE(data->lanes()[4].startNs.front(), std::int64_t(-1'000)); // aligned = own - offset
        QCOMPARE(data->lanes()[7].startNs.front(), std::int64_t(2'000));
        QCOMPARE(data->eventCount(), std::size_t(3 * 1960));
        QCOMPARE(data->beginNs(), std::int64_t(-1'000));
        QVERIFY(data->laneLabel(2).contains(QStringLiteral("rank 0")));
    }

    void binningIsExact_data()
    {
        QTest::addColumn<double>("t0");
        QTest::addColumn<double>("nsPerColumn");
        QTest::addColumn<int>("column");
        QTest::addColumn<double>("compute");
        // Compute kernels: 40 us busy of every 50 us, for 89 ms of each 100 ms step.
        QTest::addRow("1 us columns, inside a kernel") << 0.0 << 1'000.0 << 10 << 1.0;
        QTest::addRow("1 us columns, in a gap") << 0.0 << 1'000.0 << 45 << 0.0;
        QTest::addRow("column straddling a kernel end") << 39'500.0 << 1'000.0 << 0 << 0.5;
        QTest::newRow("50 us columns: 80% busy") << 0.0 << 50'000.0 << 3 << 0.8;
        QTest::newRow("1 ms columns: 80% busy") << 0.0 << 1'000'000.0 << 20 << 0.8;
        QTest::addRow("1 ms column in the idle tail") << 0.0 << 1'000'000.0 << 95 << 0.0;
        QTest::addRow("10 ms columns: 89 ms x 0.8 / 100") << 0.0 << 10'000'000.0 << 8 << 0.8 * 0.9;
    }
    void binningIsExact()
    {
        QFETCH(double, t0);
        QFETCH(double, nsPerColumn);
        QFETCH(int, column);
        QFETCH(double, compute);
        static const Run run = generatedRun(1, 2);
        static const auto data = TimelineData::fromRun(run, {});
        const int columns = 100;
        std::vector<float> occupancy(std::size_t(columns) * kTimelineKinds);
        data->binLane(1, t0, nsPerColumn, columns, occupancy.data()); // lane 1 = stream 7, compute
        const double got = occupancy[std::size_t(column) * kTimelineKinds + int(GpuActivityKind::Compute)];
        QVERIFY2(std::abs(got - compute) <= 1e-4, qPrintable(QString::number(got)));
        QCOMPARE(occupancy[std::size_t(column) * kTimelineKinds + int(GpuActivityKind::Communication)], 0.0f);
    }

    void twoMillionEventsRenderAndSummarise()
    {
        QElapsedTimer timer;
        timer.start();
        const Run run = generatedRun(32, 32);
        const qint64 generateMs = timer.restart();
        const auto data = TimelineData::fromRun(run, {});
        const qint64 buildMs = timer.restart();
        QVERIFY(data->eventCount() >= 2'000'000);
        // Baseline in the same run: one pass over every event's start and end.
        std::int64_t sum = 0;
        for (const auto& lane : data->lanes())
            for (std::size_t i = 0; i < lane.startNs.size(); ++i)
                sum += lane.endNs[i] - lane.startNs[i];
        const double baselineMs = double(timer.nsecsElapsed()) / 1e6;
        QVERIFY(sum > 0);

        TimelineWidget widget;
        widget.resize(1600, 900);
        widget.setData(data);
        const QSize size = widget.lanesRect().size();
        const QImage image = widget.renderLanes(size);
        const double renderMs = widget.lastRenderMilliseconds();
        qInfo("%zu events, %d lanes: generated in %lld ms, timeline data built in %lld ms, zoomed-out render of %dx%d "
              "px in "
              "%.1f ms (%.1f M events/s; one bare pass over the events %.1f ms, ratio %.1f)",
            data->eventCount(), int(data->lanes().size()), generateMs, buildMs, size.width(), size.height(), renderMs,
            double(data->eventCount()) / renderMs / 1e3, baselineMs, renderMs / std::max(0.001, baselineMs));
        image.save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-timeline-2M-lanes.png")));

        // Every rank's lanes are drawn; the compute lanes show ~72% occupancy when zoomed out.
        const QColor base = widget.palette().color(QPalette::Base);
        const QColor alternate = widget.palette().color(QPalette::AlternateBase);
        const int laneH = widget.laneHeight();
        QVERIFY(laneH >= 4);
        QCOMPARE(int(data->lanes().size()), 96);
        for (int lane = 0; lane < int(data->lanes().size()) && (lane + 1) * laneH <= size.height(); ++lane) {
            const int y = lane * laneH + laneH / 2;
            int busy = 0;
            for (int x = 0; x < size.width(); ++x)
                busy += !isBackground(image.pixel(x, y), base, alternate);
            // Compute and communication are busy for 89 of every 100 ms; the 20 copies per step
            // light up about 20 of the ~46 columns of a step.
            const bool copies = data->lanes()[std::size_t(lane)].stream == 3;
            QVERIFY2(busy > size.width() * (copies ? 0.3 : 0.8),
                qPrintable(QStringLiteral("lane %1 has %2 busy columns").arg(lane).arg(busy)));
            if (copies)
                QVERIFY2(busy < size.width() * 0.6,
                    qPrintable(QStringLiteral("copy lane %1 has %2 busy columns").arg(lane).arg(busy)));
        }
        std::vector<float> occupancy(std::size_t(size.width()) * kTimelineKinds);
        data->binLane(1, widget.viewStartNs(), (widget.viewEndNs() - widget.viewStartNs()) / size.width(), size.width(),
            occupancy.data());
        double total = 0;
        int columns = 0;
        for (int x = 0; x < size.width(); ++x) {
            const double t
                = widget.viewStartNs() + (x + 0.5) * (widget.viewEndNs() - widget.viewStartNs()) / size.width();
            if (t < 0 || t >= 32 * kStepNs)
                continue;
            total += occupancy[std::size_t(x) * kTimelineKinds];
            ++columns;
        }
        QVERIFY2(std::abs(total / columns - 0.712) < 0.02,
            qPrintable(QString::number(total / columns))); // 1780 x 40 us / 100 ms

        // Zoomed to one step's tail: the idle 10 ms show as background in every lane.
        widget.setViewRange(85'000'000, 100'000'000);
        const QImage tail = widget.renderLanes(size);
        qInfo("zoomed to 15 ms: render %.1f ms", widget.lastRenderMilliseconds());
        const int idleX = int(size.width() * (95.0 - 85.0) / 15.0);
        for (int lane = 0; lane * laneH + laneH / 2 < size.height(); ++lane)
            QVERIFY(isBackground(tail.pixel(idleX, lane * laneH + laneH / 2), base, alternate));
        // ...and the compute kernels are resolved: busy and gap columns alternate in lane 1.
        widget.setViewRange(0, 500'000);
        const QImage zoomed = widget.renderLanes(size);
        const QColor compute = RunPalette::activityColor(GpuActivityKind::Compute);
        int computeColumns = 0, gapColumns = 0;
        for (int x = 0; x < size.width(); ++x) {
            const QRgb p = zoomed.pixel(x, laneH + laneH / 2);
            computeColumns += p == compute.rgb();
            gapColumns += isBackground(p, base, alternate);
        }
        QVERIFY2(
            std::abs(double(computeColumns) / size.width() - 0.8) < 0.02, qPrintable(QString::number(computeColumns)));
        QVERIFY2(std::abs(double(gapColumns) / size.width() - 0.2) < 0.02, qPrintable(QString::number(gapColumns)));
    }

    void zoomKeepsTheTimeUnderTheCursor()
    {
        const Run run = generatedRun(2, 2);
        TimelineWidget widget;
        widget.resize(1130, 300);
        widget.setData(TimelineData::fromRun(run, {}));
        widget.setViewRange(0, 100'000'000);
        const int x = TimelineWidget::kLabelWidth + 250;
        const double before = widget.viewStartNs() + 250 * (widget.viewEndNs() - widget.viewStartNs()) / 1000;
        widget.zoomAt(4.0, x);
        QVERIFY(std::abs((widget.viewEndNs() - widget.viewStartNs()) - 25'000'000) < 1);
        const double after = widget.viewStartNs() + 250 * (widget.viewEndNs() - widget.viewStartNs()) / 1000;
        QVERIFY(std::abs(after - before) < 1);
        widget.panByPixels(100);
        QVERIFY(std::abs(widget.viewStartNs() - (after - 250 * 25'000.0 - 100 * 25'000.0)) < 1);
        widget.fitAll();
        QVERIFY(widget.viewStartNs() < double(widget.data()->beginNs())
            && widget.viewEndNs() > double(widget.data()->endNs()));
    }

    void hoverShowsTheEvent()
    {
        const Run run = generatedRun(2, 1);
        TimelineWidget widget;
        widget.resize(1130, 300);
        widget.setData(TimelineData::fromRun(run, {}));
        widget.setViewRange(0, 1'000'000); // 1 us per pixel
        const int laneH = widget.laneHeight();
        // Lane 2 = rank 0, stream 20 (communication): the first all-reduce spans 0..200 us.
        const QPoint onComm(TimelineWidget::kLabelWidth + 100, TimelineWidget::kAxisHeight + 2 * laneH + laneH / 2);
        const QString text = widget.eventTextAt(onComm);
        QVERIFY2(text.contains(QStringLiteral("Rank 0, stream 20")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("allreduce")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("25")) && text.contains(QStringLiteral("MB")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("dp")), qPrintable(text));
        // Lane 1 = compute; x = 45 us is a gap 5 us from kernels at both sides: within 3 px tolerance.
        const QString compute = widget.eventTextAt(
            QPoint(TimelineWidget::kLabelWidth + 42, TimelineWidget::kAxisHeight + laneH + laneH / 2));
        QVERIFY2(compute.contains(QStringLiteral("compute")), qPrintable(compute));
        QVERIFY(
            widget
                .eventTextAt(QPoint(TimelineWidget::kLabelWidth + 45, TimelineWidget::kAxisHeight + laneH + laneH / 2))
                .isEmpty());
        QVERIFY(widget.eventTextAt(QPoint(10, 50)).isEmpty()); // label gutter
    }

    void screenshotOfTheWidget()
    {
        if (!canGrab())
            QSKIP("needs a real display (run under xvfb-run)");
        const Run run = generatedRun(16, 4);
        TimelineWidget widget;
        widget.resize(1400, 700);
        widget.setData(TimelineData::fromRun(run, {}));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QVERIFY(widget.grab().save(
            clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-timeline-zoomed-out.png"))));
        widget.setViewRange(88'000'000, 101'000'000);
        QVERIFY(widget.grab().save(
            clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-timeline-step-tail.png"))));
        widget.setViewRange(0, 600'000);
        QVERIFY(widget.grab().save(
            clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-timeline-kernels.png"))));
    }
};

QTEST_MAIN(TestRunsTimeline)
#include "tst_runstimeline.moc"
