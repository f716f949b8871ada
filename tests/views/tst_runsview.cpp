// The Runs tab with real data: the DLRM sample (8 ranks, tests/data/kineto/param_dlrm_8rank) is
// imported by clusterscope-cli import-trace --project into a project, read back with RunStore
// (no re-parse, as when a project is reopened) and shown: the straggler table starts with 7, 4, 5
// (ranked by the tail of the waits they cause); the per-rank chart has one bar per rank whose segment heights in pixels
// are proportional to the breakdown; collectives sort by number. A generated run with events
// fills the timeline. Signals, progress area, drop and the heatmap slot. Screenshots in tests/common/screenshots.h's
// folder.

#include "engine/analysis/rungeometry.h"
#include "engine/run/runanalysis.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"
#include "tests/common/generatedrun.h"
#include "tests/common/screenshots.h"
#include "views/heatmap/trafficheatmapcanvas.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include "views/runs/collectivetablemodel.h"
#include "views/runs/runbreakdownchart.h"
#include "views/runs/runheatmap.h"
#include "views/runs/runlistmodel.h"
#include "views/runs/runpalette.h"
#include "views/runs/runsview.h"
#include "views/runs/stragglertablemodel.h"
#include "views/runs/timelinedata.h"
#include "views/runs/timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QValueAxis>
#include <QtTest>

#include <optional>

using namespace clusterscope::views;
using namespace clusterscope::engine;

namespace {

bool canGrab()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

int coloredRun(const QImage& image, int x, const QColor& color)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        const QColor c = image.pixelColor(x, y);
        if (std::abs(c.red() - color.red()) <= 3 && std::abs(c.green() - color.green()) <= 3
            && std::abs(c.blue() - color.blue()) <= 3)
            ++count;
    }
    return count;
}

QStackedBarSeries* barSeries(const RunBreakdownChart& chart)
{
    for (QAbstractSeries* s : chart.chart()->series())
        if (auto* bars = qobject_cast<QStackedBarSeries*>(s))
            return bars;
    return nullptr;
}

// `ranks` ranks, 3 steps of 10 ms: compute 0..6 ms, an all-reduce after it (rank `late` 0.8 ms
// late), a copy; plenty of small kernels so that the timeline has something to summarise.
Run generatedRun(int ranks, int late)
{
    Run run;
    for (int r = 0; r < ranks; ++r) {
        RankTrace t;
        t.rank = r;
        t.worldSize = ranks;
        t.gpuName = "NVIDIA H100 80GB HBM3";
        for (int s = 0; s < 3; ++s) {
            const std::int64_t base = std::int64_t(s) * 10'000'000;
            t.steps.push_back({ s, base, base + 10'000'000 });
            for (int k = 0; k < 200; ++k)
                t.activities.push_back(
                    { base + k * 30'000, base + k * 30'000 + 25'000, 7, GpuActivityKind::Compute, -1, -1 });
            CollectiveCall c;
            c.op = CollectiveOp::AllReduce;
            c.startNs = base + 6'200'000 + (r == late ? 800'000 : r * 20'000);
            c.endNs = base + 8'500'000;
            c.bytes = 100'000'000;
            c.groupSize = ranks;
            c.sequence = s;
            t.activities.push_back(
                { c.startNs, c.endNs, 20, GpuActivityKind::Communication, std::int32_t(t.collectives.size()), -1 });
            t.collectives.push_back(c);
            t.activities.push_back({ base + 9'000'000, base + 9'300'000, 3, GpuActivityKind::Memcpy, -1, -1 });
        }
        std::sort(t.activities.begin(), t.activities.end(),
            [](const GpuActivity& a, const GpuActivity& b) { return a.startNs < b.startNs; });
        run.ranks.push_back(std::move(t));
    }
    return run;
}

} // namespace

class TestRunsView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void stragglerTableStartsWithTheGroundTruth();
    void chartHasOneBarPerRankWithTheBreakdown();
    void barHeightsAreProportional();
    void collectivesSortByNumbers();
    void timelineNeedsEvents();
    void signalsAndSelection();
    void importProgressArea();
    void dropOffersImport();
    void heatmapSlot();
    void screenshots();
    void ranksPerBar_data();
    void ranksPerBar();
    void blocksAggregateMeanMinMax();
    void sixteenThousandRanksInBlocks();
    void sixteenThousandRanksHeatmap();
    void runActionsRow();
    void panesTabbedWhenShort();

private:
    QTemporaryDir m_dir;
    std::optional<StoredRun> m_dlrm;
    std::vector<StoredRunSummary> m_runs;
};

void TestRunsView::initTestCase()
{
    QVERIFY2(
        QFile::exists(QStringLiteral(CLUSTERSCOPE_CLI_PATH)), "build clusterscope-cli first (cmake --build build)");
    const QString project = m_dir.filePath(QStringLiteral("runs.cscp"));
    QProcess cli;
    cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
        { QStringLiteral("import-trace"), QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/kineto/param_dlrm_8rank"),
            QStringLiteral("--project"), project });
    QVERIFY(cli.waitForFinished(60000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    auto store = ProjectStore::open(project.toStdString());
    QVERIFY2(store, store.message().c_str());
    RunStore runs(*store);
    // A second run so that the list has a choice.
    const Run generated = generatedRun(16, 11);
    QVERIFY(runs.add("generated-16", { "/generated" }, generated, analyseRun(generated)));
    auto list = runs.list();
    QVERIFY(list);
    QCOMPARE(int(list->size()), 2);
    m_runs = *list;
    auto loaded = runs.load(m_runs.front().id);
    QVERIFY2(loaded, loaded.message().c_str());
    m_dlrm = std::move(*loaded);
}

void TestRunsView::stragglerTableStartsWithTheGroundTruth()
{
    RunsView view;
    QAbstractItemModelTester t1(view.stragglerModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(view.collectiveModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(view.collectiveProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t4(view.runListModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setRuns(m_runs);
    view.showRun(m_dlrm->analysis, nullptr, QStringLiteral("param_dlrm_8rank"));
    QVERIFY(view.isShowingRun());
    QAbstractItemModel* model = view.stragglerTable()->model();
    QVERIFY(model->rowCount() >= 3);
    QCOMPARE(model->index(0, StragglerTableModel::Rank).data().toInt(), 7);
    QCOMPARE(model->index(1, StragglerTableModel::Rank).data().toInt(), 4);
    QCOMPARE(model->index(2, StragglerTableModel::Rank).data().toInt(), 5);
    // Ranked by the tail they cause (p99 of the waits), not by the sum.
    for (int r = 1; r < model->rowCount(); ++r)
        QVERIFY(model->index(r - 1, StragglerTableModel::P99Wait).data(StragglerTableModel::kSortRole).toDouble()
            >= model->index(r, StragglerTableModel::P99Wait).data(StragglerTableModel::kSortRole).toDouble());
    QVERIFY2(view.headerText().contains(QStringLiteral("param_dlrm_8rank")), qPrintable(view.headerText()));
    QVERIFY2(view.headerText().contains(QStringLiteral("rank 7")), qPrintable(view.headerText()));
}

void TestRunsView::chartHasOneBarPerRankWithTheBreakdown()
{
    RunsView view;
    view.showRun(m_dlrm->analysis);
    RunBreakdownChart* chart = view.breakdownChart();
    QVERIFY(!chart->isShowingEmptyState());
    QStackedBarSeries* series = barSeries(*chart);
    QVERIFY(series);
    QCOMPARE(series->count(), kRunComponentCount);
    auto* categories = qobject_cast<QBarCategoryAxis*>(chart->chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(categories);
    QCOMPARE(categories->count(), 8);
    const auto& steps = m_dlrm->analysis.steps;
    QCOMPARE(int(steps.size()), 1);
    for (int c = 0; c < kRunComponentCount; ++c) {
        QBarSet* set = series->barSets()[c];
        const RunComponent component = RunPalette::components()[std::size_t(c)];
        QCOMPARE(set->label(), RunPalette::name(component));
        QCOMPARE(set->color(), RunPalette::color(component));
        QCOMPARE(set->count(), 8);
        for (int i = 0; i < 8; ++i) {
            const RankStepBreakdown& r = steps[0].ranks[std::size_t(i)];
            QCOMPARE(categories->at(i), QString::number(r.rank));
            QCOMPARE(set->at(i), RunPalette::seconds(r, component) * 1e3);
        }
    }
    QVERIFY(chart->segmentText(7, 0).contains(QStringLiteral("Rank 7")));
    // Compute + exposed + memcpy + idle is each rank's step.
    for (const auto& b : chart->bars()) {
        double sum = 0;
        for (RunComponent c : RunPalette::components())
            if (RunPalette::addsToDuration(c))
                sum += RunPalette::seconds(b, c);
        QVERIFY(std::abs(sum - b.durationSeconds) <= 1e-9);
    }
    // The step selector: one step shown as itself.
    QCOMPARE(view.stepSelector()->count(), 2);
    QCOMPARE(view.stepSelector()->currentIndex(), 1);
}

void TestRunsView::barHeightsAreProportional()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    RunBreakdownChart chart;
    chart.resize(1000, 650);
    chart.setSteps(m_dlrm->analysis.steps, 0);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCoreApplication::processEvents();
    const QImage image = chart.grab().toImage();
    image.save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-breakdown-dlrm.png")));
    QChart* c = chart.chart();
    QStackedBarSeries* series = barSeries(chart);
    auto* axis = qobject_cast<QValueAxis*>(c->axes(Qt::Vertical, series).value(0));
    QVERIFY(axis);
    const qreal ratio = image.width() / qreal(chart.width());
    const qreal pixelsPerMs = c->plotArea().height() * ratio / (axis->max() - axis->min());
    int checked = 0;
    for (int bar = 0; bar < 8; ++bar) {
        const QPointF scene = c->mapToScene(c->mapToPosition(QPointF(bar, 0.0), series));
        const int x = int(chart.chartView()->mapFromScene(scene).x() * ratio);
        const RankStepBreakdown& b = chart.bars()[std::size_t(bar)];
        for (RunComponent component : RunPalette::components()) {
            const double expected = RunPalette::seconds(b, component) * 1e3 * pixelsPerMs;
            if (expected < 15)
                continue; // too thin to measure to 10%
            const int got = coloredRun(image, x, RunPalette::color(component));
            QVERIFY2(std::abs(got / expected - 1.0) <= 0.10,
                qPrintable(QStringLiteral("rank %1 %2: %3 px, expected %4 px")
                               .arg(b.rank)
                               .arg(RunPalette::name(component))
                               .arg(got)
                               .arg(expected)));
            ++checked;
        }
    }
    qInfo("%d segments checked, %.2f px/ms", checked, pixelsPerMs);
    QVERIFY(checked >= 8);
}

void TestRunsView::collectivesSortByNumbers()
{
    RunsView view;
    view.showRun(m_dlrm->analysis);
    QAbstractItemModel* proxy = view.collectiveTable()->model();
    QVERIFY(proxy->rowCount() >= 2);
    int total = 0;
    for (int r = 0; r < proxy->rowCount(); ++r)
        total += proxy->index(r, CollectiveTableModel::Count).data().toInt();
    QCOMPARE(total, int(m_dlrm->analysis.collectives.size()));
    view.collectiveTable()->sortByColumn(CollectiveTableModel::BusBw, Qt::DescendingOrder);
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(proxy->index(r - 1, CollectiveTableModel::BusBw).data(CollectiveTableModel::kSortRole).toDouble()
            >= proxy->index(r, CollectiveTableModel::BusBw).data(CollectiveTableModel::kSortRole).toDouble());
    view.collectiveTable()->sortByColumn(CollectiveTableModel::MeanDuration, Qt::AscendingOrder);
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(proxy->index(r - 1, CollectiveTableModel::MeanDuration).data(CollectiveTableModel::kSortRole).toDouble()
            <= proxy->index(r, CollectiveTableModel::MeanDuration).data(CollectiveTableModel::kSortRole).toDouble());
}

void TestRunsView::timelineNeedsEvents()
{
    RunsView view;
    view.showRun(m_dlrm->analysis); // from the store: no events
    QVERIFY(!view.timeline()->data());
    const Run run = generatedRun(16, 11);
    const RunAnalysis analysis = analyseRun(run);
    view.showRun(analysis, &run, QStringLiteral("generated"));
    QVERIFY(view.timeline()->data());
    QCOMPARE(view.timeline()->data()->rankCount(), 16);
    QCOMPARE(int(view.timeline()->data()->lanes().size()), 48);
    QCOMPARE(view.stragglerModel()->index(0, 0).data().toInt(), 11);
    QCOMPARE(view.stepSelector()->count(), 4);
    QCOMPARE(view.stepSelector()->currentIndex(), 0); // mean of all steps
    view.stepSelector()->setCurrentIndex(2);
    QCOMPARE(view.breakdownChart()->bars().front().durationSeconds, analysis.steps[1].ranks.front().durationSeconds);
    view.clearRun(QStringLiteral("Nothing selected."));
    QVERIFY(!view.isShowingRun());
    QVERIFY(!view.timeline()->data());
}

void TestRunsView::signalsAndSelection()
{
    RunsView view;
    QSignalSpy selected(&view, &RunsView::runSelected);
    QSignalSpy deleted(&view, &RunsView::deleteRequested);
    QSignalSpy import(&view, &RunsView::importRequested);
    view.setRuns(m_runs);
    QCOMPARE(view.currentRunId(), std::int64_t(0));
    QVERIFY(!view.deleteButton()->isEnabled());
    view.setCurrentRunId(m_runs.back().id); // programmatic: no signal
    QCOMPARE(view.currentRunId(), m_runs.back().id);
    QCOMPARE(selected.count(), 0);
    view.runTable()->selectRow(0); // as the user does
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.front().front().toLongLong(), m_runs.front().id);
    QVERIFY(view.deleteButton()->isEnabled());
    view.deleteButton()->click();
    QCOMPARE(deleted.count(), 1);
    QCOMPARE(deleted.front().front().toLongLong(), m_runs.front().id);
    // The application deletes it and lists again: the selection goes, no signal.
    view.setRuns({ m_runs.back() });
    QCOMPARE(view.currentRunId(), std::int64_t(0));
    QCOMPARE(selected.count(), 1);
    view.setCurrentRunId(m_runs.back().id);
    view.setRuns(m_runs); // still listed: stays selected
    QCOMPARE(view.currentRunId(), m_runs.back().id);
    view.importButton()->click();
    QCOMPARE(import.count(), 1);
}

void TestRunsView::importProgressArea()
{
    RunsView view;
    view.show();
    QSignalSpy cancel(&view, &RunsView::cancelImportRequested);
    QVERIFY(!view.isImporting());
    QVERIFY(!view.cancelButton()->isVisible());
    view.setImporting(true);
    QVERIFY(view.isImporting());
    QVERIFY(view.cancelButton()->isVisible());
    QVERIFY(!view.importButton()->isEnabled());
    view.setImportProgress(0.375);
    QCOMPARE(view.findChild<QProgressBar*>()->value(), 375);
    view.setImportProgress(7);
    QCOMPARE(view.findChild<QProgressBar*>()->value(), 1000);
    view.setImportStatus(QStringLiteral("Parsing rank 5 of 8"));
    view.cancelButton()->click();
    QCOMPARE(cancel.count(), 1);
    view.setImporting(false);
    QVERIFY(!view.cancelButton()->isVisible());
    QVERIFY(view.importButton()->isEnabled());
}

void TestRunsView::dropOffersImport()
{
    RunsView view;
    QSignalSpy dropped(&view, &RunsView::importPathsDropped);
    QMimeData mime;
    mime.setUrls({ QUrl::fromLocalFile(QStringLiteral("/data/run1")),
        QUrl::fromLocalFile(QStringLiteral("/data/rank0.json.gz")) });
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &drop);
    QCOMPARE(dropped.count(), 1);
    QCOMPARE(dropped.front().front().toStringList(),
        (QStringList { QStringLiteral("/data/run1"), QStringLiteral("/data/rank0.json.gz") }));
    // Not while an import runs, and not for remote URLs.
    view.setImporting(true);
    QDropEvent again(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &again);
    QCOMPARE(dropped.count(), 1);
    view.setImporting(false);
    QMimeData remote;
    remote.setUrls({ QUrl(QStringLiteral("https://example.org/trace.json")) });
    QDragEnterEvent remoteEnter(QPoint(10, 10), Qt::CopyAction, &remote, Qt::LeftButton, Qt::NoModifier);
    remoteEnter.setAccepted(false);
    QApplication::sendEvent(&view, &remoteEnter);
    QVERIFY(!remoteEnter.isAccepted());
}

void TestRunsView::heatmapSlot()
{
    RunsView view;
    QVERIFY(view.heatmapSlot());
    QPointer<QLabel> first = new QLabel(QStringLiteral("heatmap 1"));
    view.setHeatmapWidget(first);
    QCOMPARE(first->parentWidget(), view.heatmapSlot());
    QCOMPARE(view.heatmapWidget(), first.data());
    auto* second = new QLabel(QStringLiteral("heatmap 2"));
    view.setHeatmapWidget(second);
    QVERIFY(first.isNull()); // the previous one is deleted
    QCOMPARE(second->parentWidget(), view.heatmapSlot());
}

void TestRunsView::screenshots()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    {
        RunsView view;
        view.resize(1600, 1000);
        view.setRuns(m_runs);
        view.setCurrentRunId(m_runs.front().id);
        view.showRun(m_dlrm->analysis, nullptr, QString::fromStdString(m_runs.front().name));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();
        QVERIFY(view.grab().save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-view-dlrm.png"))));
    }
    {
        RunsView view;
        view.resize(1600, 1000);
        const Run run = generatedRun(16, 11);
        const RunAnalysis analysis = analyseRun(run);
        view.setRuns(m_runs);
        view.setCurrentRunId(m_runs.back().id);
        view.showRun(analysis, &run, QStringLiteral("generated-16 (fresh import with events)"));
        view.setImporting(true);
        view.setImportProgress(0.6);
        view.setImportStatus(QStringLiteral("Parsing rank 5 of 8"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();
        QVERIFY(
            view.grab().save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-view-generated.png"))));
    }
    {
        RunsView view;
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.grab().save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-view-empty.png"))));
    }
}

void TestRunsView::ranksPerBar_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("perBar");
    QTest::addRow("8: one per rank") << 8 << 1;
    QTest::addRow("512: one per rank") << 512 << 1;
    QTest::addRow("513: pairs") << 513 << 4; // 513 / 2 > 256 bars
    QTest::addRow("4096") << 4096 << 16;
    QTest::addRow("16384") << 16384 << 64;
    QTest::addRow("100000") << 100000 << 512;
}

void TestRunsView::ranksPerBar()
{
    QFETCH(int, ranks);
    QFETCH(int, perBar);
    QCOMPARE(RunBreakdownChart::ranksPerBarFor(std::size_t(ranks)), perBar);
    if (perBar > 1)
        QVERIFY((ranks + perBar - 1) / perBar <= RunBreakdownChart::kTargetBlockBars);
}

void TestRunsView::blocksAggregateMeanMinMax()
{
    // Ranks 0..5 in blocks of 4: [0..3] and [4..5] (rank 6 and 7 absent).
    std::vector<RankStepBreakdown> ranks;
    for (int r = 0; r < 6; ++r) {
        RankStepBreakdown b;
        b.rank = r;
        b.durationSeconds = 1.0;
        b.computeSeconds = 0.5 + 0.1 * r;
        b.commOverlappedSeconds = r == 2 ? 0.3 : 0.0;
        b.idleSeconds = 1.0 - b.computeSeconds;
        ranks.push_back(b);
    }
    const std::vector<RankBarBlock> blocks = RunBreakdownChart::aggregate(ranks, 4);
    QCOMPARE(int(blocks.size()), 2);
    QCOMPARE(blocks[0].firstRank, 0);
    QCOMPARE(blocks[0].lastRank, 3);
    QCOMPARE(blocks[0].ranks, 4);
    QCOMPARE(blocks[0].mean.computeSeconds, (0.5 + 0.6 + 0.7 + 0.8) / 4);
    QCOMPARE(blocks[0].min.computeSeconds, 0.5);
    QCOMPARE(blocks[0].max.computeSeconds, 0.8);
    QCOMPARE(blocks[0].maxTotalSeconds, 1.3);
    QCOMPARE(blocks[0].minTotalSeconds, 1.0);
    QCOMPARE(blocks[1].firstRank, 4);
    QCOMPARE(blocks[1].ranks, 2);
    QCOMPARE(blocks[1].mean.computeSeconds, (0.9 + 1.0) / 2);
}

void TestRunsView::sixteenThousandRanksInBlocks()
{
    Run run;
    const RunAnalysis analysis = clusterscope::testsupport::generatedRunAnalysis(16384, run);
    RunsView view;
    view.resize(1600, 1000);
    view.showRun(analysis, nullptr, QStringLiteral("16k"));
    RunBreakdownChart* chart = view.breakdownChart();
    QCOMPARE(chart->ranksPerBar(), 64);
    QCOMPARE(chart->barCount(), 256);
    QCOMPARE(barSeries(*chart)->barSets().front()->count(), 256);
    QVERIFY(chart->titleText().contains(QStringLiteral("256 bars of 64 ranks")));
    auto* axis = qobject_cast<QCategoryAxis*>(chart->chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(axis);
    QVERIFY(axis->titleText().contains(QStringLiteral("64 per bar")));
    QVERIFY(axis->count() >= 2);
    // The planted straggler (rank 16384 / 3 = 5461 computed 60 ms longer) is the spike of the
    // max-compute line, in bar 5461 / 64 = 85; the mean hides most of it.
    QLineSeries* maxLine = nullptr;
    for (QAbstractSeries* s : chart->chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && line->name().contains(QStringLiteral("max")))
            maxLine = line;
    QVERIFY(maxLine);
    QCOMPARE(maxLine->count(), 256);
    int highest = 0;
    for (int i = 0; i < maxLine->count(); ++i)
        if (maxLine->at(i).y() > maxLine->at(highest).y())
            highest = i;
    QCOMPARE(highest, 5461 / 64);
    QCOMPARE(maxLine->at(highest).y(), 840.0);
    QVERIFY(chart->bars()[std::size_t(highest)].computeSeconds * 1e3 < 800);
    const QString tip = chart->segmentText(highest, 0);
    QVERIFY2(
        tip.contains(QStringLiteral("Ranks 5440–5503 (64 ranks)")) && tip.contains(QStringLiteral("max 840.000 ms")),
        qPrintable(tip));
    // Stragglers in order of the tail they cause.
    QCOMPARE(view.stragglerModel()->index(0, 0).data().toInt(), 5461);
}

void TestRunsView::sixteenThousandRanksHeatmap()
{
    // The measured heatmap of the generated 16,384-rank run in a 1600x1000 Runs view: a plot big
    // enough to read, opened at a level that shows blocks of ranks rather than one cell.
    Run run;
    const RunAnalysis analysis = clusterscope::testsupport::generatedRunAnalysis(16384, run);
    QVERIFY(analysis.traffic.ranks == 16384 && !analysis.traffic.pairs.empty());
    RunsView view;
    view.resize(1600, 1000);
    view.showRun(analysis, nullptr, QStringLiteral("16k"));
    TrafficHeatmapWidget* heatmap = makeRunHeatmap(analysis);
    view.setHeatmapWidget(heatmap);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QVERIFY(!heatmap->isShowingEmptyState());
    TrafficHeatmapCanvas* canvas = heatmap->canvas();
    QTRY_VERIFY(canvas->plotRect().width() > 0);
    QVERIFY(view.grab().save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-runs-view-16k.png"))));
    QVERIFY2(canvas->plotRect().height() >= 256 && canvas->plotRect().width() >= 256,
        qPrintable(
            QStringLiteral("heatmap plot %1x%2").arg(canvas->plotRect().width()).arg(canvas->plotRect().height())));
    // Pods of 32 servers (256 ranks): 64 x 64 cells at 256-511 px, racks of 32 ranks from 512 px.
    const TrafficHeatmapGeometry geometry = runHeatmapGeometry(measuredRunGeometry(16384));
    QCOMPARE(geometry.gpusPerBlock(HeatmapLevel::Pod), 256LL);
    QCOMPARE(geometry.gpusPerBlock(HeatmapLevel::Rack), 32LL);
    const long long perCell = geometry.gpusPerBlock(canvas->level());
    QVERIFY2(perCell <= 256 && 16384 / perCell >= 64,
        qPrintable(QStringLiteral("%1 ranks per cell at %2 px").arg(perCell).arg(canvas->plotRect().width())));
    QVERIFY2(canvas->statusText().contains(levelName(canvas->level())), qPrintable(canvas->statusText()));
    // A small run keeps one pod: the whole run (no empty pods beyond its ranks).
    QCOMPARE(runHeatmapGeometry(measuredRunGeometry(64)).gpusPerBlock(HeatmapLevel::Pod), 64LL);
}

void TestRunsView::runActionsRow()
{
    // The row above the run holds the stored-runs toggle and the step selector; an action added by
    // the application lines up after them.
    RunsView view;
    view.resize(1600, 1000);
    auto* action = new QPushButton(QStringLiteral("Do something with this run"));
    view.addRunAction(action);
    QCOMPARE(action->parentWidget()->parentWidget(), view.stepSelector()->parentWidget()->parentWidget());
    QVERIFY(view.runActionsLayout()->indexOf(action) > view.runActionsLayout()->indexOf(view.stepSelector()));
    // A narrow view hides the stored-runs pane while a run is shown; the toggle brings it back.
    // So does a wide one while the project stores no run (the list would be empty).
    view.showRun(m_dlrm->analysis, nullptr, QStringLiteral("dlrm"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QVERIFY(!view.isStoredRunsPaneShown());
    StoredRunSummary stored;
    stored.id = 1;
    stored.name = "dlrm";
    stored.rankCount = 8;
    view.setRuns({ stored });
    QVERIFY(view.isStoredRunsPaneShown());
    view.resize(900, 700);
    QCoreApplication::processEvents();
    QVERIFY(!view.isStoredRunsPaneShown());
    view.storedRunsToggle()->click();
    QVERIFY(view.isStoredRunsPaneShown());
    view.resize(800, 700);
    QCoreApplication::processEvents();
    QVERIFY(view.isStoredRunsPaneShown()); // the user's choice holds
}

QTEST_MAIN(TestRunsView)
// A short tab makes the run's three panes tabs (each with the whole height), a tall one stacks
// them; resizing goes back and forth, every pane shown again, the timeline only with events.
void TestRunsView::panesTabbedWhenShort()
{
    RunsView view;
    const Run run = generatedRun(16, 11);
    const RunAnalysis analysis = analyseRun(run);
    view.showRun(analysis, &run, QStringLiteral("generated"));
    view.resize(1100, RunsView::kShortHeightPx - 100);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QVERIFY(view.isPaneTabbed());
    QVERIFY(view.paneTabs()->isVisible());
    QCOMPARE(view.paneTabs()->count(), 3);
    QVERIFY(view.paneTabs()->isTabVisible(view.paneTabs()->indexOf(view.timelinePane())));
    view.revealPane(view.tablesPane());
    QCoreApplication::processEvents();
    QVERIFY(view.stragglerTable()->isVisible() && !view.timeline()->isVisible());
    // Tall: stacked, all three visible at once, the tabs gone.
    view.resize(1100, RunsView::kShortHeightPx + 200);
    QCoreApplication::processEvents();
    QVERIFY(!view.isPaneTabbed());
    QVERIFY(!view.paneTabs()->isVisible());
    QVERIFY(view.breakdownChart()->isVisible() && view.stragglerTable()->isVisible() && view.timeline()->isVisible());
    // The stacked tables keep four rows' room.
    QVERIFY2(view.tablesPane()->height() >= 4 * view.collectiveTable()->verticalHeader()->defaultSectionSize(),
        qPrintable(QString::number(view.tablesPane()->height())));
    // A run without events: no timeline, stacked or tabbed.
    view.showRun(m_dlrm->analysis);
    QCoreApplication::processEvents();
    QVERIFY(!view.timelinePane()->isVisible());
    view.resize(1100, RunsView::kShortHeightPx - 100);
    QCoreApplication::processEvents();
    QVERIFY(view.isPaneTabbed());
    QVERIFY(!view.paneTabs()->isTabVisible(view.paneTabs()->indexOf(view.timelinePane())));
    QVERIFY(view.breakdownChart()->isVisible());
}

#include "tst_runsview.moc"
