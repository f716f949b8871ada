#include "views/runs/runbreakdownchart.h"

#include "views/runs/runpalette.h"
#include "views/widgets/emptystatewidget.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

namespace clusterscope::views {

namespace {
    // Bars up to this count are labelled one by one (rank numbers); more get a few rank ticks.
    constexpr int kLabelEveryBar = 64;
    const QColor kMaxLineColor(0x30, 0x30, 0x30);
    const QColor kMinLineColor(0x80, 0x80, 0x80);

    double barTotal(const engine::RankStepBreakdown& b) { return b.durationSeconds + b.commOverlappedSeconds; }

    constexpr std::array<double engine::RankStepBreakdown::*, 8> kFields { &engine::RankStepBreakdown::durationSeconds,
        &engine::RankStepBreakdown::computeSeconds, &engine::RankStepBreakdown::commExposedSeconds,
        &engine::RankStepBreakdown::commOverlappedSeconds, &engine::RankStepBreakdown::memcpySeconds,
        &engine::RankStepBreakdown::idleSeconds, &engine::RankStepBreakdown::idleHostWaitSeconds,
        &engine::RankStepBreakdown::idleKernelWaitSeconds };

    QString swatch(const QColor& color, const QString& name, bool line = false)
    {
        // Non-breaking inside an entry: the label wraps between entries only.
        QString text = name.toHtmlEscaped();
        text.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
        // Nor after a slash ("Memcpy/memset"): Qt's line breaking allows a break there despite
        // nowrap; a word joiner (U+2060) forbids it.
        text.replace(QLatin1Char('/'), QStringLiteral("/&#8288;"));
        return QStringLiteral("<span style=\"white-space:nowrap\"><span style=\"background-color:%1\">%2</span>&nbsp;%3"
                              "&nbsp;&nbsp;</span> ")
            .arg(
                color.name(), line ? QStringLiteral("&nbsp;&nbsp;") : QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp;"), text);
    }

    // One row of the legend beside the plot: the swatch, then the name on at most two lines (broken
    // at the space nearest its middle), so the column stays narrow.
    QString swatchRow(const QColor& color, const QString& name, bool line)
    {
        QString text = name.toHtmlEscaped();
        if (name.size() > 12) {
            const int middle = int(text.size()) / 2;
            int best = -1;
            for (int i = 0; i < int(text.size()); ++i)
                if (text[i] == QLatin1Char(' ') && (best < 0 || std::abs(i - middle) < std::abs(best - middle)))
                    best = i;
            if (best > 0)
                text = text.left(best) + QStringLiteral("<br>") + text.mid(best + 1);
        }
        return QStringLiteral("<tr><td valign=\"top\"><span style=\"background-color:%1\">%2</span></td>"
                              "<td style=\"padding-left:4px; padding-bottom:3px\">%3</td></tr>")
            .arg(
                color.name(), line ? QStringLiteral("&nbsp;&nbsp;") : QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp;"), text);
    }

    // Below this height of the plot's view (a plot of ~100 px: Qt Charts takes ~95 px for its
    // margins, the rank labels and the axis title) the legend moves beside the plot.
    constexpr int kMinViewHeight = 200;
    // Beside the legend the view keeps at least this width.
    constexpr int kMinBesideViewWidth = 180;
}

struct RunBreakdownChart::Private {
    QLabel* title = nullptr;
    QLabel* legend = nullptr; ///< below the plot, wrapping between entries
    QLabel* sideLegend = nullptr; ///< beside the plot, one entry per row (short windows)
    bool beside = false;
    QStackedWidget* stack = nullptr;
    EmptyStateWidget* empty = nullptr;
    QChartView* view = nullptr;
    QChart* chart = nullptr;
    QCategoryAxis* ranges = nullptr; ///< the x axis of blocks of ranks (null with one bar per rank)
    int rangeCount = 0; ///< labelled ranges on it
};

RunBreakdownChart::RunBreakdownChart(QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    d->title = new QLabel(tr("Per-rank breakdown"), this);
    QFont titleFont = d->title->font();
    titleFont.setBold(true);
    d->title->setFont(titleFont);
    d->title->setWordWrap(true);
    d->title->setAlignment(Qt::AlignHCenter);
    d->legend = new QLabel(this);
    d->legend->setTextFormat(Qt::RichText);
    d->legend->setWordWrap(true);
    d->legend->setAlignment(Qt::AlignHCenter);
    d->stack = new QStackedWidget(this);
    d->empty = new EmptyStateWidget(
        tr("Per-rank breakdown"), tr("Import a run to see where each rank's time went."), d->stack);
    d->chart = new QChart;
    d->chart->setAnimationOptions(QChart::NoAnimation);
    // Title and legend are the wrapping labels above and below: Qt Charts elides both.
    d->chart->legend()->hide();
    d->chart->setMargins(QMargins(4, 4, 4, 4));
    d->view = new QChartView(d->chart, d->stack);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->stack->addWidget(d->empty);
    d->stack->addWidget(d->view);
    d->sideLegend = new QLabel(this);
    d->sideLegend->setTextFormat(Qt::RichText);
    auto* body = new QHBoxLayout;
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(4);
    body->addWidget(d->stack, 1);
    body->addWidget(d->sideLegend, 0, Qt::AlignVCenter);
    layout->addWidget(d->title);
    layout->addLayout(body, 1);
    layout->addWidget(d->legend);
    d->title->hide();
    d->legend->hide();
    d->sideLegend->hide();
}

RunBreakdownChart::~RunBreakdownChart() = default;

QChart* RunBreakdownChart::chart() const { return d->chart; }
QChartView* RunBreakdownChart::chartView() const { return d->view; }
QLabel* RunBreakdownChart::titleLabel() const { return d->title; }
QLabel* RunBreakdownChart::legendLabel() const { return d->beside ? d->sideLegend : d->legend; }
bool RunBreakdownChart::isLegendBeside() const { return d->beside; }
int RunBreakdownChart::besideLegendWidth() const
{
    // The view around a 200 px plot: the value labels, the axis title and Qt Charts' margins.
    return d->sideLegend->sizeHint().width() + layout()->spacing() + 260;
}
QString RunBreakdownChart::titleText() const { return d->title->text(); }
bool RunBreakdownChart::isShowingEmptyState() const { return d->stack->currentWidget() == d->empty; }

void RunBreakdownChart::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    placeLegend();
    labelRanges();
}

void RunBreakdownChart::placeLegend()
{
    if (m_legendEntries.isEmpty() || isShowingEmptyState()) {
        d->legend->hide();
        d->sideLegend->hide();
        d->beside = false;
        return;
    }
    // Below the plot while that leaves the plot's view kMinViewHeight; on a short pane (a laptop's
    // Runs tab) beside it, one entry per row, as long as the view keeps its width there.
    const int spacing = layout()->spacing();
    const int titleHeight = d->title->heightForWidth(width());
    const int belowHeight = d->legend->heightForWidth(width());
    const bool roomBelow = height() - titleHeight - belowHeight - 2 * spacing >= kMinViewHeight;
    const int sideWidth = d->sideLegend->sizeHint().width();
    const bool beside = !roomBelow && width() - sideWidth - spacing >= kMinBesideViewWidth;
    d->beside = beside;
    d->legend->setVisible(!beside);
    d->sideLegend->setVisible(beside);
}

void RunBreakdownChart::labelRanges()
{
    if (!d->ranges || m_blocks.empty())
        return;
    // One label ("4096–8191") per ~130 px of chart, 2 to 8 of them.
    const int count = int(m_blocks.size());
    const int wanted = std::clamp(d->view->width() / 130, 2, 8);
    if (wanted == d->rangeCount)
        return;
    d->rangeCount = wanted;
    for (const QString& label : d->ranges->categoriesLabels())
        d->ranges->remove(label);
    const int every = (count + wanted - 1) / wanted;
    for (int i = 0; i < count; i += every) {
        const int last = std::min(count, i + every) - 1;
        d->ranges->append(
            QStringLiteral("%1–%2").arg(m_blocks[std::size_t(i)].firstRank).arg(m_blocks[std::size_t(last)].lastRank),
            double(last) + 0.5);
    }
}

void RunBreakdownChart::setEmptyState(const QString& message)
{
    d->ranges = nullptr;
    m_bars.clear();
    m_blocks.clear();
    d->chart->removeAllSeries();
    d->empty->setText(message);
    d->stack->setCurrentWidget(d->empty);
    d->title->hide();
    m_legendEntries.clear();
    placeLegend();
}

std::vector<engine::RankStepBreakdown> RunBreakdownChart::perRank(
    const std::vector<engine::StepBreakdown>& steps, int stepIndex)
{
    std::map<std::int32_t, std::pair<engine::RankStepBreakdown, int>> byRank;
    for (int si = 0; si < int(steps.size()); ++si) {
        if (stepIndex >= 0 && si != stepIndex)
            continue;
        for (const engine::RankStepBreakdown& r : steps[std::size_t(si)].ranks) {
            auto& [sum, count] = byRank[r.rank];
            sum.rank = r.rank;
            for (auto field : kFields)
                sum.*field += r.*field;
            ++count;
        }
    }
    std::vector<engine::RankStepBreakdown> out;
    out.reserve(byRank.size());
    for (auto& [rank, entry] : byRank) {
        auto [b, n] = entry;
        for (auto field : kFields)
            b.*field /= n;
        out.push_back(b);
    }
    return out;
}

int RunBreakdownChart::ranksPerBarFor(std::size_t ranks)
{
    if (ranks <= std::size_t(kMaxRankBars))
        return 1;
    std::size_t perBar = 2;
    while ((ranks + perBar - 1) / perBar > std::size_t(kTargetBlockBars))
        perBar *= 2;
    return int(perBar);
}

std::vector<RankBarBlock> RunBreakdownChart::aggregate(
    const std::vector<engine::RankStepBreakdown>& perRank, int ranksPerBar)
{
    std::vector<RankBarBlock> out;
    const std::int32_t width = std::max(1, ranksPerBar);
    for (const engine::RankStepBreakdown& r : perRank) {
        const std::int32_t first = r.rank >= 0 ? r.rank / width * width : r.rank;
        if (out.empty() || out.back().firstRank != first) {
            RankBarBlock block;
            block.firstRank = first;
            block.lastRank = width == 1 ? first : first + width - 1;
            block.mean.rank = first;
            block.min = r;
            block.max = r;
            block.min.rank = block.max.rank = first;
            block.minTotalSeconds = block.maxTotalSeconds = barTotal(r);
            out.push_back(block);
        }
        RankBarBlock& b = out.back();
        ++b.ranks;
        for (auto field : kFields) {
            b.mean.*field += r.*field;
            b.min.*field = std::min(b.min.*field, r.*field);
            b.max.*field = std::max(b.max.*field, r.*field);
        }
        b.minTotalSeconds = std::min(b.minTotalSeconds, barTotal(r));
        b.maxTotalSeconds = std::max(b.maxTotalSeconds, barTotal(r));
    }
    for (RankBarBlock& b : out)
        for (auto field : kFields)
            b.mean.*field /= b.ranks;
    return out;
}

QString RunBreakdownChart::segmentText(int bar, int component) const
{
    if (bar < 0 || bar >= int(m_blocks.size()) || component < 0 || component >= kRunComponentCount)
        return {};
    const RankBarBlock& block = m_blocks[std::size_t(bar)];
    const engine::RankStepBreakdown& b = block.mean;
    const RunComponent c = RunPalette::components()[std::size_t(component)];
    const double seconds = RunPalette::seconds(b, c);
    const QLocale l;
    if (m_ranksPerBar == 1)
        return tr("Rank %1, %2\n%3: %4 ms (%5% of the %6 ms step)\n%7")
            .arg(b.rank)
            .arg(m_scope, RunPalette::name(c), l.toString(seconds * 1e3, 'f', 3),
                l.toString(b.durationSeconds > 0 ? seconds / b.durationSeconds * 100 : 0.0, 'f', 1),
                l.toString(b.durationSeconds * 1e3, 'f', 3), RunPalette::description(c));
    return tr("Ranks %1–%2 (%3 ranks), %4\n%5: mean %6 ms (%7% of the mean %8 ms step), min %9 ms, max %10 ms\n"
              "Bar total over the block's ranks: min %11 ms, max %12 ms\n%13")
        .arg(block.firstRank)
        .arg(block.lastRank)
        .arg(block.ranks)
        .arg(m_scope, RunPalette::name(c), l.toString(seconds * 1e3, 'f', 3),
            l.toString(b.durationSeconds > 0 ? seconds / b.durationSeconds * 100 : 0.0, 'f', 1),
            l.toString(b.durationSeconds * 1e3, 'f', 3), l.toString(RunPalette::seconds(block.min, c) * 1e3, 'f', 3),
            l.toString(RunPalette::seconds(block.max, c) * 1e3, 'f', 3),
            l.toString(block.minTotalSeconds * 1e3, 'f', 3), l.toString(block.maxTotalSeconds * 1e3, 'f', 3),
            RunPalette::description(c));
}

void RunBreakdownChart::setSteps(const std::vector<engine::StepBreakdown>& steps, int stepIndex)
{
    const std::vector<engine::RankStepBreakdown> ranks = perRank(steps, stepIndex);
    if (ranks.empty()) {
        setEmptyState(tr("The run has no ProfilerStep to break down."));
        return;
    }
    m_ranksPerBar = ranksPerBarFor(ranks.size());
    m_blocks = aggregate(ranks, m_ranksPerBar);
    m_bars.clear();
    m_bars.reserve(m_blocks.size());
    for (const RankBarBlock& b : m_blocks)
        m_bars.push_back(b.mean);
    const bool blocks = m_ranksPerBar > 1;
    m_scope = stepIndex >= 0 && stepIndex < int(steps.size()) ? tr("step %1").arg(steps[std::size_t(stepIndex)].step)
                                                              : tr("mean of %n step(s)", nullptr, int(steps.size()));
    QChart* chart = d->chart;
    d->ranges = nullptr;
    d->rangeCount = 0;
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    auto* series = new QStackedBarSeries;
    series->setBarWidth(blocks ? 0.9 : 0.7);
    double maxTotal = 0;
    for (const auto& b : m_blocks)
        maxTotal = std::max(maxTotal, b.maxTotalSeconds * 1e3);
    QString legend;
    QString column;
    m_legendEntries.clear();
    for (int ci = 0; ci < kRunComponentCount; ++ci) {
        const RunComponent c = RunPalette::components()[std::size_t(ci)];
        auto* set = new QBarSet(RunPalette::name(c));
        set->setColor(RunPalette::color(c));
        set->setBorderColor(RunPalette::color(c)); // no border: the segments' pixel heights match their values
        QList<qreal> values;
        values.reserve(qsizetype(m_bars.size()));
        for (const auto& b : m_bars)
            values << RunPalette::seconds(b, c) * 1e3;
        set->append(values);
        connect(set, &QBarSet::hovered, this, [this, ci](bool status, int index) {
            if (status)
                QToolTip::showText(QCursor::pos(), segmentText(index, ci), d->view);
            else
                QToolTip::hideText();
        });
        series->append(set);
        legend += swatch(RunPalette::color(c), RunPalette::name(c));
        column += swatchRow(RunPalette::color(c), RunPalette::name(c), false);
        m_legendEntries << RunPalette::name(c);
    }
    chart->addSeries(series);
    QAbstractAxis* xAxis = nullptr;
    if (int(m_bars.size()) <= kLabelEveryBar) {
        auto* categories = new QBarCategoryAxis;
        QStringList labels;
        for (const auto& b : m_bars)
            labels << QString::number(b.rank);
        categories->setCategories(labels);
        xAxis = categories;
    } else {
        // A few labelled ranges of ranks (a bar at x = its index), as many as the width holds.
        auto* ranges = new QCategoryAxis;
        ranges->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
        ranges->setStartValue(-0.5);
        ranges->setRange(-0.5, double(m_bars.size()) - 0.5);
        d->ranges = ranges;
        labelRanges();
        xAxis = ranges;
    }
    const QLocale l;
    xAxis->setTitleText(blocks ? tr("Rank (%1 per bar)").arg(m_ranksPerBar) : tr("Rank"));
    auto* yAxis = new QValueAxis;
    yAxis->setRange(0, maxTotal > 0 ? maxTotal * 1.08 : 1.0);
    yAxis->applyNiceNumbers();
    yAxis->setLabelFormat(QStringLiteral("%.3g"));
    yAxis->setTitleText(tr("ms per step"));
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    series->attachAxis(xAxis);
    series->attachAxis(yAxis);
    if (blocks) {
        // The band of the block's compute: its slowest and fastest rank. Ranks of a synchronous
        // step share its duration; the one that computed longest is the one the others wait for,
        // so one slow rank among 64 still shows as a spike of the max line.
        auto* maxLine = new QLineSeries;
        auto* minLine = new QLineSeries;
        // Short names: the title says what the lines are; a short legend leaves the plot its height.
        maxLine->setName(tr("Compute, bar max"));
        minLine->setName(tr("Compute, bar min"));
        QList<QPointF> maxPoints, minPoints;
        for (int i = 0; i < int(m_blocks.size()); ++i) {
            maxPoints << QPointF(i, m_blocks[std::size_t(i)].max.computeSeconds * 1e3);
            minPoints << QPointF(i, m_blocks[std::size_t(i)].min.computeSeconds * 1e3);
        }
        maxLine->replace(maxPoints);
        minLine->replace(minPoints);
        maxLine->setPen(QPen(kMaxLineColor, 1.5));
        minLine->setPen(QPen(kMinLineColor, 1.5, Qt::DashLine));
        for (QLineSeries* line : { maxLine, minLine }) {
            chart->addSeries(line);
            line->attachAxis(xAxis);
            line->attachAxis(yAxis);
        }
        legend += swatch(kMaxLineColor, maxLine->name(), true) + swatch(kMinLineColor, minLine->name(), true);
        column += swatchRow(kMaxLineColor, maxLine->name(), true) + swatchRow(kMinLineColor, minLine->name(), true);
        m_legendEntries << maxLine->name() << minLine->name();
    }
    // Short enough for two lines over a laptop's chart: the legend names the lines.
    d->title->setText(blocks ? tr("Per-rank breakdown, %1: %2 ranks in %3 bars of %4 ranks (their mean)")
                                   .arg(m_scope, l.toString(qlonglong(ranks.size())),
                                       l.toString(qlonglong(m_bars.size())), l.toString(m_ranksPerBar))
                             : tr("Per-rank breakdown, %1").arg(m_scope));
    d->legend->setText(legend);
    d->sideLegend->setText(QStringLiteral("<table cellspacing=\"0\">") + column + QStringLiteral("</table>"));
    d->title->show();
    d->stack->setCurrentWidget(d->view);
    placeLegend();
}

} // namespace clusterscope::views
