// The Iteration breakdown chart: one bar set per component and one category per strategy, filled
// from real evaluations of the example scenarios; under Xvfb the grabbed picture must show bars
// whose pixel heights are proportional to the seconds of a hand-built breakdown.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "tests/common/screenshots.h"
#include "views/charts/breakdownchart.h"
#include "views/presentation/breakdownpalette.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <QtTest>

#include <optional>
#include <set>

using namespace clusterscope::views;
using namespace clusterscope::engine;

namespace {

bool canGrab()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

struct Evaluated {
    TrainingEstimate current;
    SearchResult search;
};

Evaluated evaluateExample(const char* file)
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
    options.topK = 10;
    return { evaluator->evaluate(TrainingStrategy::fromScenario(*scenario)), StrategySearch::run(*evaluator, options) };
}

QStackedBarSeries* barSeries(const BreakdownChart& chart)
{
    for (QAbstractSeries* s : chart.chart()->series())
        if (auto* bars = qobject_cast<QStackedBarSeries*>(s))
            return bars;
    return nullptr;
}

QLineSeries* lineSeries(const BreakdownChart& chart, const QString& name)
{
    for (QAbstractSeries* s : chart.chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && line->name() == name)
            return line;
    return nullptr;
}

// Rows of column x whose colour is exactly `color` (the bars are flat-filled; edges are blended
// by antialiasing and not counted).
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

} // namespace

class TestBreakdownChart : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void paletteCoversEveryComponent();
    void paletteSecondsAddUpToTotal();
    void oneBarSetPerComponentOneCategoryPerStrategy_data();
    void oneBarSetPerComponentOneCategoryPerStrategy();
    void currentStrategyIsNotRepeated();
    void segmentTextGivesNameSecondsAndShare();
    void unusedComponentsLeaveTheLegend();
    void hoverShowsTheSegment();
    void emptyState();
    void barHeightsAreProportional();
    void screenshots();

private:
    std::optional<Evaluated> m_llama;
    std::optional<Evaluated> m_mixtral;
    std::optional<Evaluated> m_gpt3;
};

void TestBreakdownChart::initTestCase()
{
    m_llama = evaluateExample("llama3-70b-1024-h100.json");
    m_mixtral = evaluateExample("mixtral-8x7b-256-h200-roce.json");
    m_gpt3 = evaluateExample("gpt3-175b-1024-a100.json");
    QVERIFY(m_llama->current.valid);
    QVERIFY(m_llama->search.ranked.size() >= 4);
    QVERIFY(m_mixtral->search.ranked.size() >= 4);
}

void TestBreakdownChart::paletteCoversEveryComponent()
{
    std::set<QRgb> colors;
    std::set<QString> names;
    for (BreakdownComponent c : BreakdownPalette::components()) {
        colors.insert(BreakdownPalette::color(c).rgb());
        names.insert(BreakdownPalette::name(c));
        QVERIFY(!BreakdownPalette::description(c).isEmpty());
    }
    QCOMPARE(int(colors.size()), kBreakdownComponentCount);
    QCOMPARE(int(names.size()), kBreakdownComponentCount);
    QVERIFY(!colors.count(BreakdownPalette::networkShareColor().rgb()));
}

void TestBreakdownChart::paletteSecondsAddUpToTotal()
{
    IterationBreakdown b { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    double sum = 0;
    int index = 1;
    for (BreakdownComponent c : BreakdownPalette::components()) {
        QCOMPARE(BreakdownPalette::seconds(b, c), double(index++)); // the stacking order is the struct's order
        sum += BreakdownPalette::seconds(b, c);
    }
    QCOMPARE(sum, b.total());
}

void TestBreakdownChart::oneBarSetPerComponentOneCategoryPerStrategy_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<int>("top");
    QTest::addRow("llama3-70b current + 4") << QStringLiteral("llama") << 4;
    QTest::addRow("llama3-70b current + 1") << QStringLiteral("llama") << 1;
    QTest::addRow("mixtral-8x7b current + 6") << QStringLiteral("mixtral") << 6;
    QTest::addRow("gpt3-175b current + 3") << QStringLiteral("gpt3") << 3;
}

void TestBreakdownChart::oneBarSetPerComponentOneCategoryPerStrategy()
{
    QFETCH(QString, example);
    QFETCH(int, top);
    const Evaluated& e = example == QLatin1String("llama") ? *m_llama
        : example == QLatin1String("mixtral")              ? *m_mixtral
                                                           : *m_gpt3;
    const std::vector<LabelledBreakdown> bars = BreakdownChart::fromEstimates(e.current, &e.search, top);
    QCOMPARE(int(bars.size()), (e.current.valid ? 1 : 0) + top);

    BreakdownChart chart;
    chart.setBreakdowns(bars);
    QVERIFY(!chart.isShowingEmptyState());
    QStackedBarSeries* series = barSeries(chart);
    QVERIFY(series);
    QCOMPARE(series->count(), kBreakdownComponentCount);
    for (int c = 0; c < kBreakdownComponentCount; ++c) {
        QBarSet* set = series->barSets()[c];
        const BreakdownComponent component = BreakdownPalette::components()[std::size_t(c)];
        QCOMPARE(set->label(), BreakdownPalette::name(component));
        QCOMPARE(set->color(), BreakdownPalette::color(component));
        QCOMPARE(set->count(), int(bars.size()));
        for (int i = 0; i < set->count(); ++i)
            QCOMPARE(set->at(i), BreakdownPalette::seconds(bars[std::size_t(i)].breakdown, component));
    }
    auto* categories = qobject_cast<QBarCategoryAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(categories);
    QCOMPARE(categories->count(), int(bars.size()));
    if (e.current.valid)
        QVERIFY(categories->at(0).contains(QLatin1String(">Current<br>")));
    QVERIFY(
        categories->at(int(bars.size()) - 1).contains(QStringLiteral(">#%1<br>").arg(top + (e.current.valid ? 0 : 1)))
        || categories->at(int(bars.size()) - 1).contains(QStringLiteral(">#%1<br>").arg(top + 1)));
    // Each category names the strategy and its network share.
    for (int i = 0; i < categories->count(); ++i)
        QVERIFY2(
            categories->at(i).contains(
                QStringLiteral("network %1%").arg(QLocale().toString(bars[std::size_t(i)].networkShare * 100, 'f', 1))),
            qPrintable(categories->at(i)));

    // The network share line: one point per strategy, in percent; the guideline at 25%.
    QLineSeries* share = lineSeries(chart, QStringLiteral("Network share"));
    QVERIFY(share);
    QCOMPARE(share->count(), int(bars.size()));
    for (int i = 0; i < share->count(); ++i)
        QVERIFY(std::abs(share->at(i).y() - bars[std::size_t(i)].networkShare * 100) <= 1e-9);
    QLineSeries* guideline = lineSeries(chart, QStringLiteral("25% guideline"));
    QVERIFY(guideline);
    QCOMPARE(guideline->at(0).y(), 25.0);
    QCOMPARE(guideline->pen().style(), Qt::DashLine);
    // Seconds axis tall enough for the tallest bar.
    auto* seconds = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical, series).value(0));
    QVERIFY(seconds);
    for (const LabelledBreakdown& b : bars)
        QVERIFY(seconds->max() >= b.breakdown.total());
    QVERIFY(seconds->titleText().contains(QLatin1String("(s)")));
}

void TestBreakdownChart::currentStrategyIsNotRepeated()
{
    // Make the current strategy the search's fastest: it must appear once, as "Current".
    TrainingEstimate current = m_llama->search.ranked.front();
    const auto bars = BreakdownChart::fromEstimates(current, &m_llama->search, 3);
    QCOMPARE(int(bars.size()), 4);
    QVERIFY(bars[0].label.startsWith(QLatin1String("Current")));
    QVERIFY(bars[1].label.startsWith(QLatin1String("#2")));
    // Without a search only the current strategy; an invalid current strategy is left out.
    QCOMPARE(int(BreakdownChart::fromEstimates(current, nullptr).size()), 1);
    TrainingEstimate invalid;
    QCOMPARE(int(BreakdownChart::fromEstimates(invalid, &m_llama->search, 2).size()), 2);
}

void TestBreakdownChart::segmentTextGivesNameSecondsAndShare()
{
    IterationBreakdown b;
    b.compute = 3.0;
    b.dpExposed = 0.75;
    b.bubble = 0.25;
    BreakdownChart chart;
    chart.setBreakdowns({ { QStringLiteral("hand-built"), b, 0.1875 } });
    const QString dp = chart.segmentText(0, int(BreakdownComponent::DpExposed));
    QVERIFY2(dp.contains(QLatin1String("Exposed DP")), qPrintable(dp));
    QVERIFY2(dp.contains(QLatin1String("0.750 s")), qPrintable(dp));
    QVERIFY2(dp.contains(QLatin1String("18.8%")), qPrintable(dp)); // 0.75 / 4
    QVERIFY2(dp.contains(QLatin1String("4.000 s iteration")), qPrintable(dp));
    QVERIFY(chart.segmentText(0, int(BreakdownComponent::Compute)).contains(QLatin1String("75.0%")));
    QVERIFY(chart.segmentText(1, 0).isEmpty());
    QVERIFY(chart.segmentText(0, kBreakdownComponentCount).isEmpty());
}

void TestBreakdownChart::unusedComponentsLeaveTheLegend()
{
    BreakdownChart chart;
    chart.setBreakdowns(BreakdownChart::fromEstimates(m_llama->current, &m_llama->search, 3));
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QList<QLegendMarker*> markers = chart.chart()->legend()->markers(barSeries(chart));
    QCOMPARE(markers.size(), kBreakdownComponentCount);
    // Llama-3-70B is dense: no expert parallelism, so no EP marker; compute is always there.
    QVERIFY(!markers[int(BreakdownComponent::EpExposed)]->isVisible());
    QVERIFY(markers[int(BreakdownComponent::Compute)]->isVisible());
}

void TestBreakdownChart::hoverShowsTheSegment()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    BreakdownChart chart;
    chart.resize(900, 600);
    const auto bars = BreakdownChart::fromEstimates(m_mixtral->current, &m_mixtral->search, 2);
    chart.setBreakdowns(bars);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    // Qt Charts emits QBarSet::hovered when the pointer enters a segment; the chart answers with a
    // tooltip naming the component with its seconds and share of that bar's iteration.
    QBarSet* ep = barSeries(chart)->barSets()[int(BreakdownComponent::EpExposed)];
    Q_EMIT ep->hovered(true, 1);
    QTRY_VERIFY(QToolTip::isVisible());
    const QString text = QToolTip::text();
    QCOMPARE(text, chart.segmentText(1, int(BreakdownComponent::EpExposed)));
    const double seconds = bars[1].breakdown.epExposed;
    QVERIFY(seconds > 0); // Mixtral is a mixture of experts: EP all-to-all is exposed
    QVERIFY2(text.contains(QLocale().toString(seconds, 'f', 3) + QLatin1String(" s")), qPrintable(text));
    QVERIFY2(text.contains(QLocale().toString(seconds / bars[1].breakdown.total() * 100, 'f', 1) + QLatin1Char('%')),
        qPrintable(text));
    Q_EMIT ep->hovered(false, 1);
    QTRY_VERIFY(!QToolTip::isVisible());
}

void TestBreakdownChart::emptyState()
{
    BreakdownChart chart;
    QVERIFY(chart.isShowingEmptyState());
    chart.setBreakdowns(BreakdownChart::fromEstimates(m_llama->current, &m_llama->search, 2));
    QVERIFY(!chart.isShowingEmptyState());
    chart.setBreakdowns({});
    QVERIFY(chart.isShowingEmptyState());
    QVERIFY(chart.breakdowns().empty());
    chart.setEmptyState(QStringLiteral("The scenario has no parallelism section."));
    QVERIFY(chart.isShowingEmptyState());
}

void TestBreakdownChart::barHeightsAreProportional()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    IterationBreakdown a;
    a.compute = 4.0;
    a.dpExposed = 1.0;
    IterationBreakdown b;
    b.compute = 2.0; // half of a's
    b.dpExposed = 1.0;
    BreakdownChart chart;
    chart.resize(900, 600);
    chart.setBreakdowns({ { QStringLiteral("A"), a, 0.2 }, { QStringLiteral("B"), b, 1.0 / 3 } });
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCoreApplication::processEvents();
    const QImage image = chart.grab().toImage();
    QVERIFY(!image.isNull());

    QChart* c = chart.chart();
    QStackedBarSeries* series = barSeries(chart);
    auto* axis = qobject_cast<QValueAxis*>(c->axes(Qt::Vertical, series).value(0));
    QVERIFY(axis);
    const qreal ratio = image.width() / qreal(chart.width()); // device pixel ratio
    auto columnX = [&](int bar) {
        // Centre of bar `bar`, nudged left of the share line's marker in the middle.
        const QPointF scene = c->mapToScene(c->mapToPosition(QPointF(bar - 0.15, 1.0), series));
        return int(chart.chartView()->mapFromScene(scene).x() * ratio);
    };
    const qreal pixelsPerSecond = c->plotArea().height() * ratio / (axis->max() - axis->min());
    const QColor compute = BreakdownPalette::color(BreakdownComponent::Compute);
    const QColor dp = BreakdownPalette::color(BreakdownComponent::DpExposed);
    const int computeA = coloredRun(image, columnX(0), compute);
    const int computeB = coloredRun(image, columnX(1), compute);
    const int dpA = coloredRun(image, columnX(0), dp);
    const int dpB = coloredRun(image, columnX(1), dp);
    image.save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-breakdown-proportions.png")));
    qInfo("compute %d vs %d px, dp %d vs %d px, %.1f px/s", computeA, computeB, dpA, dpB, pixelsPerSecond);
    QVERIFY(computeB > 20);
    QVERIFY2(std::abs(double(computeA) / computeB - 2.0) <= 0.2, "compute bars must be in a 2:1 ratio");
    QVERIFY2(std::abs(double(dpA) / dpB - 1.0) <= 0.1, "equal DP segments must be equally tall");
    QVERIFY2(std::abs(computeA / (4.0 * pixelsPerSecond) - 1.0) <= 0.1, "4 s of compute on the seconds axis");
    QVERIFY2(std::abs(dpB / (1.0 * pixelsPerSecond) - 1.0) <= 0.1, "1 s of DP on the seconds axis");
}

void TestBreakdownChart::screenshots()
{
    if (!canGrab())
        QSKIP("needs a real display (run under xvfb-run)");
    const std::pair<const Evaluated*, QString> cases[] = {
        { &*m_llama, clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-breakdown-llama3.png")) },
        { &*m_mixtral, clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-breakdown-mixtral.png")) },
        { &*m_gpt3, clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-breakdown-gpt3.png")) }
    };
    for (const auto& [evaluated, path] : cases) {
        BreakdownChart chart;
        chart.resize(1200, 700);
        chart.setBreakdowns(BreakdownChart::fromEstimates(evaluated->current, &evaluated->search, 4));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const QImage image = chart.grab().toImage();
        QVERIFY(image.save(path));
        // The compute blue fills a good part of the picture.
        const QColor compute = BreakdownPalette::color(BreakdownComponent::Compute);
        int blue = 0;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2)
                blue += image.pixelColor(x, y) == compute ? 1 : 0;
        QVERIFY2(blue > image.width() * image.height() / 4 / 50, qPrintable(path));
    }
    // A narrow window (the tab beside a docked editor): labels must not run into each other.
    BreakdownChart narrow;
    narrow.resize(820, 520);
    narrow.setBreakdowns(BreakdownChart::fromEstimates(m_llama->current, &m_llama->search, 4));
    narrow.show();
    QVERIFY(QTest::qWaitForWindowExposed(&narrow));
    QVERIFY(narrow.grab().save(
        clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-breakdown-narrow.png"))));
    QVERIFY(narrow.labelDetail() > 0); // 820 px cannot hold "TP1 DP256 CP4 Z3 mb1" five times
    BreakdownChart wide;
    wide.resize(1400, 700);
    wide.setBreakdowns(BreakdownChart::fromEstimates(m_llama->current, &m_llama->search, 4));
    wide.show();
    QVERIFY(QTest::qWaitForWindowExposed(&wide));
    QCOMPARE(wide.labelDetail(), 0);
    BreakdownChart empty;
    empty.resize(900, 500);
    empty.show();
    QVERIFY(QTest::qWaitForWindowExposed(&empty));
    QVERIFY(
        empty.grab().save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-charts-breakdown-empty.png"))));
}

QTEST_MAIN(TestBreakdownChart)
#include "tst_breakdownchart.moc"
