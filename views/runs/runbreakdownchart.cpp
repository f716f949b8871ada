#include "views/runs/runbreakdownchart.h"

#include "views/runs/runpalette.h"
#include "views/widgets/emptystatewidget.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLegend>
#include <QLocale>
#include <QStackedBarSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <map>

namespace clusterscope::views {

struct RunBreakdownChart::Private {
    QStackedWidget* stack = nullptr;
    EmptyStateWidget* empty = nullptr;
    QChartView* view = nullptr;
    QChart* chart = nullptr;
};

RunBreakdownChart::RunBreakdownChart(QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    d->stack = new QStackedWidget(this);
    d->empty = new EmptyStateWidget(
        tr("Per-rank breakdown"), tr("Import a run to see where each rank's time went."), d->stack);
    d->chart = new QChart;
    d->chart->setAnimationOptions(QChart::NoAnimation);
    d->chart->legend()->setAlignment(Qt::AlignBottom);
    d->chart->setTitle(tr("Per-rank breakdown"));
    QFont titleFont = d->chart->titleFont();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    d->chart->setTitleFont(titleFont);
    d->view = new QChartView(d->chart, d->stack);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->stack->addWidget(d->empty);
    d->stack->addWidget(d->view);
    layout->addWidget(d->stack);
}

RunBreakdownChart::~RunBreakdownChart() = default;

QChart* RunBreakdownChart::chart() const { return d->chart; }
QChartView* RunBreakdownChart::chartView() const { return d->view; }
bool RunBreakdownChart::isShowingEmptyState() const { return d->stack->currentWidget() == d->empty; }

void RunBreakdownChart::setEmptyState(const QString& message)
{
    m_bars.clear();
    d->chart->removeAllSeries();
    d->empty->setText(message);
    d->stack->setCurrentWidget(d->empty);
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
            sum.durationSeconds += r.durationSeconds;
            sum.computeSeconds += r.computeSeconds;
            sum.commExposedSeconds += r.commExposedSeconds;
            sum.commOverlappedSeconds += r.commOverlappedSeconds;
            sum.memcpySeconds += r.memcpySeconds;
            sum.idleSeconds += r.idleSeconds;
            ++count;
        }
    }
    std::vector<engine::RankStepBreakdown> out;
    for (auto& [rank, entry] : byRank) {
        auto [b, n] = entry;
        for (double* v : { &b.durationSeconds, &b.computeSeconds, &b.commExposedSeconds, &b.commOverlappedSeconds,
                 &b.memcpySeconds, &b.idleSeconds })
            *v /= n;
        out.push_back(b);
    }
    return out;
}

QString RunBreakdownChart::segmentText(int bar, int component) const
{
    if (bar < 0 || bar >= int(m_bars.size()) || component < 0 || component >= kRunComponentCount)
        return {};
    const engine::RankStepBreakdown& b = m_bars[std::size_t(bar)];
    const RunComponent c = RunPalette::components()[std::size_t(component)];
    const double seconds = RunPalette::seconds(b, c);
    const QLocale l;
    return tr("Rank %1, %2\n%3: %4 ms (%5% of the %6 ms step)\n%7")
        .arg(b.rank)
        .arg(m_scope, RunPalette::name(c), l.toString(seconds * 1e3, 'f', 3),
            l.toString(b.durationSeconds > 0 ? seconds / b.durationSeconds * 100 : 0.0, 'f', 1),
            l.toString(b.durationSeconds * 1e3, 'f', 3), RunPalette::description(c));
}

void RunBreakdownChart::setSteps(const std::vector<engine::StepBreakdown>& steps, int stepIndex)
{
    m_bars = perRank(steps, stepIndex);
    if (m_bars.empty()) {
        setEmptyState(tr("The run has no ProfilerStep to break down."));
        return;
    }
    m_scope = stepIndex >= 0 && stepIndex < int(steps.size()) ? tr("step %1").arg(steps[std::size_t(stepIndex)].step)
                                                              : tr("mean of %n step(s)", nullptr, int(steps.size()));
    QChart* chart = d->chart;
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    auto* series = new QStackedBarSeries;
    series->setBarWidth(0.7);
    double maxTotal = 0;
    for (const auto& b : m_bars)
        maxTotal = std::max(maxTotal, (b.durationSeconds + b.commOverlappedSeconds) * 1e3);
    for (int ci = 0; ci < kRunComponentCount; ++ci) {
        const RunComponent c = RunPalette::components()[std::size_t(ci)];
        auto* set = new QBarSet(RunPalette::name(c));
        set->setColor(RunPalette::color(c));
        set->setBorderColor(RunPalette::color(c)); // no border: the segments' pixel heights match their values
        for (const auto& b : m_bars)
            *set << RunPalette::seconds(b, c) * 1e3;
        connect(set, &QBarSet::hovered, this, [this, ci](bool status, int index) {
            if (status)
                QToolTip::showText(QCursor::pos(), segmentText(index, ci), d->view);
            else
                QToolTip::hideText();
        });
        series->append(set);
    }
    chart->addSeries(series);
    auto* xAxis = new QBarCategoryAxis;
    QStringList categories;
    for (const auto& b : m_bars)
        categories << QString::number(b.rank);
    xAxis->setCategories(categories);
    xAxis->setTitleText(tr("Rank"));
    auto* yAxis = new QValueAxis;
    yAxis->setRange(0, maxTotal > 0 ? maxTotal * 1.08 : 1.0);
    yAxis->applyNiceNumbers();
    yAxis->setLabelFormat(QStringLiteral("%.3g"));
    yAxis->setTitleText(tr("Time per step (ms)"));
    chart->setTitle(tr("Per-rank breakdown, %1").arg(m_scope));
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    series->attachAxis(xAxis);
    series->attachAxis(yAxis);
    d->stack->setCurrentWidget(d->view);
}

} // namespace clusterscope::views
