// The Strategies tab on real searches of the example scenarios: caption counts, Apply emits the
// selected row's strategy (whatever the sort order), table and Pareto chart selections follow each
// other, the Pareto series hold every ranked strategy and the front, the busy area, and (under
// Xvfb) a picture with the front's colour and the cost colours.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "tests/common/screenshots.h"
#include "views/models/strategytablemodel.h"
#include "views/presentation/strategylabel.h"
#include "views/strategies/paretochart.h"
#include "views/strategies/strategiesview.h"

#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLegend>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolTip>
#include <QtTest>

using namespace clusterscope::views;
using namespace clusterscope::engine;

namespace {

bool canGrab()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

SearchResult searchExample(const char* file, int topK)
{
    const std::string path = std::string(CLUSTERSCOPE_SOURCE_DIR) + "/resources/examples/" + file;
    auto scenario = loadScenarioFile(path);
    if (!scenario)
        qFatal("%s", scenario.message().c_str());
    static const Catalog catalog = Catalog::builtin().value();
    auto evaluator = TrainingEvaluator::create(*scenario, catalog);
    if (!evaluator)
        qFatal("%s", evaluator.message().c_str());
    SearchOptions options;
    options.topK = topK;
    return StrategySearch::run(*evaluator, options);
}

bool sameStrategy(const TrainingStrategy& a, const TrainingStrategy& b)
{
    return a.parallelism == b.parallelism && a.microBatch == b.microBatch && a.recompute == b.recompute;
}

// Pixels whose colour is within `tolerance` per channel of `color`.
int countNear(const QImage& image, const QColor& color, int tolerance = 6)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - color.red()) <= tolerance && std::abs(c.green() - color.green()) <= tolerance
                && std::abs(c.blue() - color.blue()) <= tolerance)
                ++count;
        }
    return count;
}

} // namespace

class TestStrategiesView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void captionGivesTheCounts();
    void timesBesideTheRank();
    void applyEmitsTheSelectedStrategy_data();
    void applyEmitsTheSelectedStrategy();
    void applyWithoutSelectionDoesNothing();
    void tableSelectionRingsThePoint();
    void clickingAPointSelectsItsRow();
    void paretoSeriesHoldEveryStrategy();
    void hoverDescribesThePoint();
    void busyAreaAndCancel();
    void emptyState();
    void picture();

private:
    SearchResult m_llama;
    SearchResult m_mixtral;
};

void TestStrategiesView::initTestCase()
{
    m_llama = searchExample("llama3-70b-1024-h100.json", 30);
    m_mixtral = searchExample("mixtral-8x7b-256-h200-roce.json", 30);
    QVERIFY(m_llama.ranked.size() >= 10);
    QVERIFY(!m_llama.pareto.empty());
}

void TestStrategiesView::captionGivesTheCounts()
{
    StrategiesView view;
    view.setResult(m_llama, QStringLiteral("Llama-3-70B on 1024 H100"));
    const QLocale l;
    const QString caption = view.captionText();
    QVERIFY2(caption.contains(l.toString(m_llama.candidates)), qPrintable(caption));
    QVERIFY2(caption.contains(l.toString(m_llama.valid)), qPrintable(caption));
    QVERIFY2(caption.contains(l.toString(m_llama.fitting)), qPrintable(caption));
    QVERIFY(!view.isShowingEmptyState());
}

// The two iteration times come first after the rank, so a laptop-wide table shows them whole
// without scrolling; the pending contended times read "…" until they arrive.
void TestStrategiesView::timesBesideTheRank()
{
    StrategiesView view;
    view.resize(760, 600);
    view.setResult(m_llama, QStringLiteral("Llama-3-70B on 1024 H100"));
    view.model()->setContendedPending(5);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QHeaderView* header = view.table()->horizontalHeader();
    QCOMPARE(header->visualIndex(StrategyTableModel::Rank), 0);
    QCOMPARE(header->visualIndex(StrategyTableModel::IterationSeconds), 1);
    QCOMPARE(header->visualIndex(StrategyTableModel::IterationWithContention), 2);
    const int right = header->sectionViewportPosition(StrategyTableModel::IterationWithContention)
        + header->sectionSize(StrategyTableModel::IterationWithContention);
    QVERIFY2(right <= header->viewport()->width(), qPrintable(QString::number(right)));
    const QModelIndex pending = view.proxy()->index(4, StrategyTableModel::IterationWithContention);
    QCOMPARE(pending.data().toString(), QStringLiteral("…"));
    QCOMPARE(
        view.proxy()->index(5, StrategyTableModel::IterationWithContention).data().toString(), QStringLiteral("–"));
    view.model()->setContendedSeconds({ 1.0, 2.0 });
    QCOMPARE(view.proxy()->index(1, StrategyTableModel::IterationWithContention).data().toString(),
        QLocale().toString(2.0, 'f', 3));
    QCOMPARE(pending.data().toString(), QStringLiteral("–"));
}

void TestStrategiesView::applyEmitsTheSelectedStrategy_data()
{
    QTest::addColumn<int>("sortColumn");
    QTest::addColumn<int>("order");
    QTest::addColumn<int>("proxyRow");
    QTest::addRow("fastest, search order") << int(StrategyTableModel::Rank) << int(Qt::AscendingOrder) << 0;
    QTest::addRow("slowest by iteration time")
        << int(StrategyTableModel::IterationSeconds) << int(Qt::DescendingOrder) << 0;
    QTest::addRow("most memory") << int(StrategyTableModel::MemoryPerGpu) << int(Qt::DescendingOrder) << 0;
    QTest::addRow("third by tokens/s") << int(StrategyTableModel::TokensPerSecond) << int(Qt::AscendingOrder) << 2;
}

void TestStrategiesView::applyEmitsTheSelectedStrategy()
{
    QFETCH(int, sortColumn);
    QFETCH(int, order);
    QFETCH(int, proxyRow);
    StrategiesView view;
    view.setResult(m_mixtral);
    view.table()->sortByColumn(sortColumn, Qt::SortOrder(order));
    const QModelIndex proxyIndex = view.proxy()->index(proxyRow, 0);
    view.table()->selectionModel()->select(proxyIndex, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const int sourceRow = view.proxy()->mapToSource(proxyIndex).row();
    QCOMPARE(view.selectedRow(), sourceRow);
    // The expected strategy, found from the raw search result rather than through the view.
    const TrainingEstimate& expected = m_mixtral.ranked[std::size_t(sourceRow)];
    if (sortColumn == StrategyTableModel::MemoryPerGpu && order == Qt::DescendingOrder)
        for (const TrainingEstimate& e : m_mixtral.ranked)
            QVERIFY(e.memory.totalBytes() <= expected.memory.totalBytes());

    QSignalSpy spy(&view, &StrategiesView::applyRequested);
    auto* apply = view.findChild<QPushButton*>();
    const QList<QPushButton*> buttons = view.findChildren<QPushButton*>();
    for (QPushButton* b : buttons)
        if (b->text() == QLatin1String("Apply to scenario")) // not the notice's "Apply the best valid strategy"
            apply = b;
    QVERIFY(apply && apply->isEnabled());
    QTest::mouseClick(apply, Qt::LeftButton);
    QCOMPARE(spy.count(), 1);
    const auto strategy = spy.at(0).at(0).value<TrainingStrategy>();
    QVERIFY(sameStrategy(strategy, expected.strategy));
    // The action (context menu) does the same.
    view.applyAction()->trigger();
    QCOMPARE(spy.count(), 2);
    QVERIFY(sameStrategy(spy.at(1).at(0).value<TrainingStrategy>(), expected.strategy));
}

void TestStrategiesView::applyWithoutSelectionDoesNothing()
{
    StrategiesView view;
    view.setResult(m_llama);
    QSignalSpy spy(&view, &StrategiesView::applyRequested);
    QCOMPARE(view.selectedRow(), -1);
    QVERIFY(!view.applyAction()->isEnabled());
    view.applySelected();
    QCOMPARE(spy.count(), 0);
}

void TestStrategiesView::tableSelectionRingsThePoint()
{
    StrategiesView view;
    view.setResult(m_llama);
    view.table()->sortByColumn(StrategyTableModel::MemoryPerGpu, Qt::AscendingOrder);
    view.selectRow(3);
    QCOMPARE(view.selectedRow(), 3);
    QCOMPARE(view.paretoChart()->selectedIndex(), 3);
    QScatterSeries* ring = view.paretoChart()->selectedSeries();
    QCOMPARE(ring->count(), 1);
    QCOMPARE(ring->at(0), ParetoChart::pointOf(m_llama.ranked[3]));
    view.table()->clearSelection();
    QCOMPARE(view.paretoChart()->selectedIndex(), -1);
    QCOMPARE(ring->count(), 0);
}

void TestStrategiesView::clickingAPointSelectsItsRow()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    StrategiesView view;
    view.resize(1400, 900);
    view.setResult(m_mixtral);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // Pick a ranked point far from the others so the click is unambiguous: the one with most memory.
    int target = 0;
    for (std::size_t i = 0; i < m_mixtral.ranked.size(); ++i)
        if (m_mixtral.ranked[i].memory.totalBytes() > m_mixtral.ranked[std::size_t(target)].memory.totalBytes())
            target = int(i);
    ParetoChart* chart = view.paretoChart();
    QTest::qWait(50); // let the chart lay out its series
    const QPointF scene = chart->chart()->mapToScene(chart->chart()->mapToPosition(
        ParetoChart::pointOf(m_mixtral.ranked[std::size_t(target)]), chart->rankedSeries()));
    const QPoint pos = chart->chartView()->mapFromScene(scene);
    QSignalSpy clicked(chart, &ParetoChart::pointClicked);
    QTest::mouseClick(chart->chartView()->viewport(), Qt::LeftButton, {}, pos);
    QCOMPARE(clicked.count(), 1);
    const int row = view.selectedRow();
    QVERIFY(row >= 0);
    // Several strategies can share a point (e.g. recompute none/selective with equal time and memory).
    QCOMPARE(ParetoChart::pointOf(m_mixtral.ranked[std::size_t(row)]),
        ParetoChart::pointOf(m_mixtral.ranked[std::size_t(target)]));
    QCOMPARE(chart->selectedIndex(), row);
    // A click on empty plot area selects nothing new.
    QTest::mouseClick(
        chart->chartView()->viewport(), Qt::LeftButton, {}, chart->chartView()->viewport()->rect().center());
    QCOMPARE(clicked.count(), 1);
}

void TestStrategiesView::paretoSeriesHoldEveryStrategy()
{
    for (const SearchResult* result : { &m_llama, &m_mixtral }) {
        ParetoChart chart;
        chart.setResult(*result);
        QScatterSeries* ranked = chart.rankedSeries();
        QCOMPARE(ranked->count(), int(result->ranked.size()));
        for (std::size_t i = 0; i < result->ranked.size(); ++i)
            QCOMPARE(ranked->at(int(i)), ParetoChart::pointOf(result->ranked[i]));
        QScatterSeries* front = chart.paretoSeries();
        QCOMPARE(front->count(), int(result->pareto.size()));
        for (const TrainingEstimate& e : result->pareto)
            QVERIFY(front->points().contains(ParetoChart::pointOf(e)));
        for (int i = 1; i < front->count(); ++i) // joined left to right
            QVERIFY(front->at(i - 1).x() <= front->at(i).x());
        // The cost colours: the cheapest ranked point is the light end of the scale.
        QVERIFY(chart.costLegendText().contains(QLatin1String("cost per iteration")));
    }
}

void TestStrategiesView::hoverDescribesThePoint()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    ParetoChart chart;
    chart.resize(900, 500);
    chart.setResult(m_llama);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const TrainingEstimate& e = m_llama.ranked[2];
    Q_EMIT chart.rankedSeries()->hovered(ParetoChart::pointOf(e), true);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), ParetoChart::describe(e));
    QVERIFY(QToolTip::text().contains(strategyLabel(e.strategy)));
    QVERIFY(QToolTip::text().contains(QLocale().toString(e.iterationSeconds, 'f', 3) + QLatin1String(" s")));
    const TrainingEstimate& slowest = m_llama.pareto.back();
    Q_EMIT chart.paretoSeries()->hovered(ParetoChart::pointOf(slowest), true);
    QTRY_VERIFY(QToolTip::text().startsWith(QLatin1String("Pareto front: ")));
    Q_EMIT chart.paretoSeries()->hovered(ParetoChart::pointOf(slowest), false);
    QTRY_VERIFY(!QToolTip::isVisible());
}

void TestStrategiesView::busyAreaAndCancel()
{
    StrategiesView view;
    QVERIFY(!view.isBusy());
    view.setBusy(true);
    QVERIFY(view.isBusy());
    view.setProgress(0.42);
    auto* bar = view.findChild<QProgressBar*>();
    QVERIFY(bar);
    QCOMPARE(double(bar->value()) / bar->maximum(), 0.42);
    QSignalSpy cancel(&view, &StrategiesView::cancelRequested);
    for (QPushButton* b : view.findChildren<QPushButton*>())
        if (b->text() == QLatin1String("Cancel"))
            QTest::mouseClick(b, Qt::LeftButton);
    QCOMPARE(cancel.count(), 1);
    view.setBusy(false);
    QVERIFY(!view.isBusy());
}

void TestStrategiesView::emptyState()
{
    StrategiesView view;
    QVERIFY(view.isShowingEmptyState());
    view.setResult(m_llama);
    QVERIFY(!view.isShowingEmptyState());
    view.setEmptyState(QStringLiteral("The scenario is invalid."));
    QVERIFY(view.isShowingEmptyState());
    QCOMPARE(view.model()->rowCount(), 0);
    QCOMPARE(view.paretoChart()->rankedSeries()->count(), 0);
    SearchResult none;
    none.candidates = 10;
    view.setResult(none);
    QVERIFY(view.isShowingEmptyState());
}

void TestStrategiesView::picture()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    const std::pair<const SearchResult*, QString> cases[]
        = { { &m_llama, QStringLiteral("llama3") }, { &m_mixtral, QStringLiteral("mixtral") } };
    for (const auto& [result, name] : cases) {
        StrategiesView view;
        view.resize(1500, 950);
        view.setResult(*result, name);
        view.selectRow(1);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage image = view.grab().toImage();
        QVERIFY(image.save(
            clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-strategies-%1.png").arg(name))));
        QVERIFY(view.paretoChart()->grab().save(
            clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-pareto-%1.png").arg(name))));
        // The front's red outline and the cost colours of the points are drawn.
        const QImage chart = view.paretoChart()->chartView()->grab().toImage();
        QVERIFY2(countNear(chart, QColor(0xC0, 0x39, 0x2B), 20) > 20, "the Pareto front is drawn");
        double minCost = result->ranked.front().costPerIterationUsd, maxCost = minCost;
        for (const TrainingEstimate& e : result->ranked) {
            minCost = std::min(minCost, e.costPerIterationUsd);
            maxCost = std::max(maxCost, e.costPerIterationUsd);
        }
        QVERIFY2(
            countNear(chart, ParetoChart::costColor(minCost, minCost, maxCost), 8) > 10, "the cheapest point's colour");
    }
    StrategiesView empty;
    empty.resize(1000, 600);
    empty.setBusy(true);
    empty.setProgress(0.3);
    empty.show();
    QVERIFY(QTest::qWaitForWindowExposed(&empty));
    QVERIFY(empty.grab().save(
        clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-strategies-empty-busy.png"))));
}

QTEST_MAIN(TestStrategiesView)
#include "tst_strategiesview.moc"
