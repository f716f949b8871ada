#include "views/charts/breakdownchart.h"
#include "views/presentation/strategylabel.h"

#include "engine/training/strategysearch.h"
#include "views/models/strategytablemodel.h"
#include "views/presentation/breakdownpalette.h"
#include "views/widgets/emptystatewidget.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFontMetrics>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace clusterscope::views {

struct BreakdownChart::Private {
    QStackedWidget* stack = nullptr;
    EmptyStateWidget* empty = nullptr;
    QChartView* view = nullptr;
    QChart* chart = nullptr;
    QBarCategoryAxis* xAxis = nullptr;
    int labelDetail = -1; ///< 0: full label lines, 1: long lines split in two, 2: first line only
};

namespace {

    bool sameStrategy(const engine::TrainingStrategy& a, const engine::TrainingStrategy& b) { return a == b; }

    // Upper end of the share axis in percent: at least 50% so the 25% guideline sits mid-height, and
    // rounded up to a multiple of 10 above the largest share.
    double shareAxisMaxPercent(const std::vector<LabelledBreakdown>& bars)
    {
        double maxShare = 0;
        for (const LabelledBreakdown& b : bars)
            maxShare = std::max(maxShare, b.networkShare * 100);
        return std::max(50.0, std::ceil(maxShare * 1.15 / 10) * 10);
    }

    QString recomputeLabel(const engine::TrainingStrategy& s)
    {
        if (s.recompute == engine::Recompute::None)
            return BreakdownChart::tr("no recompute");
        return BreakdownChart::tr("recompute %1").arg(QString::fromStdString(engine::recomputeText(s)));
    }

} // namespace

BreakdownChart::BreakdownChart(QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    d->stack = new QStackedWidget(this);
    d->empty = new EmptyStateWidget(
        tr("Iteration breakdown"), tr("Evaluate the scenario to see where each iteration's time goes."), d->stack);
    d->chart = new QChart;
    d->chart->setAnimationOptions(QChart::NoAnimation);
    d->chart->legend()->setAlignment(Qt::AlignRight);
    d->chart->setTitle(tr("Iteration breakdown"));
    QFont titleFont = d->chart->titleFont();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    d->chart->setTitleFont(titleFont);
    connect(d->chart, &QChart::plotAreaChanged, this, [this] { updateCategoryLabels(); });
    d->view = new QChartView(d->chart, d->stack);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->stack->addWidget(d->empty);
    d->stack->addWidget(d->view);
    layout->addWidget(d->stack);
}

BreakdownChart::~BreakdownChart() = default;

QChart* BreakdownChart::chart() const { return d->chart; }
QChartView* BreakdownChart::chartView() const { return d->view; }
bool BreakdownChart::isShowingEmptyState() const { return d->stack->currentWidget() == d->empty; }

void BreakdownChart::setEmptyState(const QString& message)
{
    m_breakdowns.clear();
    d->chart->removeAllSeries();
    d->xAxis = nullptr;
    d->empty->setText(message);
    d->stack->setCurrentWidget(d->empty);
}

LabelledBreakdown BreakdownChart::fromEstimate(const QString& label, const engine::TrainingEstimate& estimate)
{
    return { label, estimate.breakdown, estimate.networkShare };
}

void BreakdownChart::setTitle(const QString& title)
{
    d->chart->setTitle(title.isEmpty() ? tr("Iteration breakdown") : title);
}

std::vector<LabelledBreakdown> BreakdownChart::fromEstimates(const engine::TrainingEstimate& current,
    const engine::SearchResult* search, int topCount, const QString& currentName)
{
    std::vector<LabelledBreakdown> bars;
    if (current.valid)
        bars.push_back(fromEstimate((currentName.isEmpty() ? tr("Current") : currentName) + QLatin1Char('\n')
                + strategyLabel(current.strategy) + QLatin1Char('\n') + recomputeLabel(current.strategy),
            current));
    if (!search)
        return bars;
    int added = 0;
    for (std::size_t i = 0; i < search->ranked.size() && added < topCount; ++i) {
        const engine::TrainingEstimate& e = search->ranked[i];
        if (current.valid && sameStrategy(e.strategy, current.strategy))
            continue;
        bars.push_back(fromEstimate(QStringLiteral("#%1\n").arg(i + 1) + strategyLabel(e.strategy) + QLatin1Char('\n')
                + recomputeLabel(e.strategy),
            e));
        ++added;
    }
    return bars;
}

QString BreakdownChart::segmentText(int bar, int component) const
{
    if (bar < 0 || bar >= int(m_breakdowns.size()) || component < 0 || component >= kBreakdownComponentCount)
        return {};
    const LabelledBreakdown& b = m_breakdowns[std::size_t(bar)];
    const BreakdownComponent c = BreakdownPalette::components()[std::size_t(component)];
    const double seconds = BreakdownPalette::seconds(b.breakdown, c);
    const double total = b.breakdown.total();
    const QLocale l;
    QString label = b.label;
    label.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return tr("%1: %2 s (%3% of the %4 s iteration)\n%5\n%6")
        .arg(BreakdownPalette::name(c), l.toString(seconds, 'f', 3),
            l.toString(total > 0 ? seconds / total * 100 : 0.0, 'f', 1), l.toString(total, 'f', 3), label,
            BreakdownPalette::description(c));
}

QStringList BreakdownChart::labelLines(const LabelledBreakdown& b, int detail)
{
    QStringList lines = b.label.split(QLatin1Char('\n'));
    if (detail >= 2) {
        lines = lines.mid(0, 1);
    } else if (detail == 1) {
        QStringList split;
        for (const QString& line : std::as_const(lines)) {
            // Break at the space nearest the middle.
            int best = -1;
            for (int i = 0; i < line.size(); ++i)
                if (line[i] == QLatin1Char(' ')
                    && (best < 0 || std::abs(i - line.size() / 2) < std::abs(best - line.size() / 2)))
                    best = i;
            if (line.size() > 12 && best > 0)
                split << line.left(best) << line.mid(best + 1);
            else
                split << line;
        }
        lines = split;
    }
    lines << tr("network %1%").arg(QLocale().toString(b.networkShare * 100, 'f', 1));
    return lines;
}

void BreakdownChart::updateCategoryLabels()
{
    if (!d->xAxis || m_breakdowns.empty())
        return;
    // As much of each label as fits in the width of a category (Qt Charts hides labels that
    // collide); the full label is always in the segment tooltips.
    const QRectF plot = d->chart->plotArea();
    const double categoryWidth = plot.width() / double(m_breakdowns.size());
    const QFontMetrics metrics(d->xAxis->labelsFont());
    int detail = 0;
    if (plot.width() > 0) {
        for (; detail < 2; ++detail) {
            int widest = 0;
            for (const LabelledBreakdown& b : m_breakdowns)
                for (const QString& line : labelLines(b, detail))
                    widest = std::max(widest, metrics.horizontalAdvance(line));
            if (widest <= categoryWidth * 0.92)
                break;
        }
    }
    if (detail == d->labelDetail)
        return;
    d->labelDetail = detail;
    // Category labels are rich text in Qt Charts: centred lines.
    QStringList categories;
    for (const LabelledBreakdown& b : m_breakdowns) {
        QStringList lines = labelLines(b, detail);
        for (QString& line : lines)
            line = line.toHtmlEscaped();
        categories << QLatin1String("<div align=\"center\">") + lines.join(QLatin1String("<br>"))
                + QLatin1String("</div>");
    }
    d->xAxis->setCategories(categories);
}

int BreakdownChart::labelDetail() const { return d->labelDetail; }

void BreakdownChart::setBreakdowns(const std::vector<LabelledBreakdown>& breakdowns)
{
    if (breakdowns.empty()) {
        setEmptyState(tr("No valid strategy to show for this scenario."));
        return;
    }
    m_breakdowns = breakdowns;
    QChart* chart = d->chart;
    chart->removeAllSeries();
    d->xAxis = nullptr;
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }

    auto* bars = new QStackedBarSeries;
    bars->setBarWidth(0.55);
    std::vector<bool> used(kBreakdownComponentCount, false);
    for (int ci = 0; ci < kBreakdownComponentCount; ++ci) {
        const BreakdownComponent c = BreakdownPalette::components()[std::size_t(ci)];
        auto* set = new QBarSet(BreakdownPalette::name(c));
        set->setColor(BreakdownPalette::color(c));
        set->setBorderColor(Qt::white);
        for (const LabelledBreakdown& b : breakdowns) {
            const double s = BreakdownPalette::seconds(b.breakdown, c);
            *set << s;
            used[std::size_t(ci)] = used[std::size_t(ci)] || s > 0;
        }
        connect(set, &QBarSet::hovered, this, [this, ci](bool status, int index) {
            if (status)
                QToolTip::showText(QCursor::pos(), segmentText(index, ci), d->view);
            else
                QToolTip::hideText();
        });
        bars->append(set);
    }
    chart->addSeries(bars);

    double maxTotal = 0;
    for (const LabelledBreakdown& b : breakdowns)
        maxTotal = std::max(maxTotal, b.breakdown.total());
    auto* xAxis = new QBarCategoryAxis;
    d->xAxis = xAxis;
    d->labelDetail = -1;
    updateCategoryLabels();
    xAxis->setTitleText(tr("Strategy"));
    xAxis->setTruncateLabels(false); // rich-text labels are truncated by their markup length
    auto* secondsAxis = new QValueAxis;
    secondsAxis->setRange(0, maxTotal > 0 ? maxTotal * 1.1 : 1.0);
    secondsAxis->applyNiceNumbers();
    secondsAxis->setLabelFormat(QStringLiteral("%.3g"));
    secondsAxis->setTitleText(tr("Time per iteration (s)"));
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(secondsAxis, Qt::AlignLeft);
    bars->attachAxis(xAxis);
    bars->attachAxis(secondsAxis);

    // Network share on the right axis: a line through the bar centres and the dashed guideline.
    auto* shareAxis = new QValueAxis;
    shareAxis->setRange(0, shareAxisMaxPercent(breakdowns));
    shareAxis->setTickCount(6);
    shareAxis->setGridLineVisible(false); // the seconds axis draws the grid
    shareAxis->setLabelFormat(QStringLiteral("%.0f%"));
    shareAxis->setTitleText(tr("Network share (% of iteration)"));
    shareAxis->setTitleBrush(BreakdownPalette::networkShareColor());
    chart->addAxis(shareAxis, Qt::AlignRight);

    auto* guideline = new QLineSeries;
    guideline->setName(tr("%1% guideline").arg(engine::kNetworkShareGuideline * 100));
    QPen dashed(BreakdownPalette::guidelineColor(), 2, Qt::DashLine);
    guideline->setPen(dashed);
    guideline->append(-0.5, engine::kNetworkShareGuideline * 100);
    guideline->append(double(breakdowns.size()) - 0.5, engine::kNetworkShareGuideline * 100);
    chart->addSeries(guideline);
    guideline->attachAxis(xAxis);
    guideline->attachAxis(shareAxis);

    auto* share = new QLineSeries;
    share->setName(tr("Network share"));
    share->setPen(QPen(BreakdownPalette::networkShareColor(), 2));
    share->setPointsVisible(true);
    share->setMarkerSize(8);
    for (std::size_t i = 0; i < breakdowns.size(); ++i)
        share->append(double(i), breakdowns[i].networkShare * 100);
    chart->addSeries(share);
    share->attachAxis(xAxis);
    share->attachAxis(shareAxis);

    // Components that are zero in every bar (e.g. EP for a dense model) stay out of the legend.
    const QList<QLegendMarker*> markers = chart->legend()->markers(bars);
    for (int i = 0; i < markers.size() && i < kBreakdownComponentCount; ++i)
        markers[i]->setVisible(used[std::size_t(i)]);
    d->stack->setCurrentWidget(d->view);
}

} // namespace clusterscope::views
