#include "views/strategies/paretochart.h"
#include "views/presentation/strategylabel.h"

#include "engine/training/strategysearch.h"
#include "views/models/strategytablemodel.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace clusterscope::views {

struct ParetoChart::Private {
    QChart* chart = nullptr;
    QChartView* view = nullptr;
    QLabel* costLegend = nullptr;
    QAbstractAxis* timeAxis = nullptr; ///< the one shown: linearTime, or logTime when the times span more than 4x
    QValueAxis* linearTime = nullptr;
    QLogValueAxis* logTime = nullptr;
    QValueAxis* memoryAxis = nullptr;
    QScatterSeries* ranked = nullptr;
    QScatterSeries* pareto = nullptr;
    QLineSeries* front = nullptr;
    QScatterSeries* selected = nullptr;
    QLineSeries* capacity = nullptr;
};

namespace {

    const QColor kFrontColor(0xC0, 0x39, 0x2B);

    QString usd(double v) { return QStringLiteral("$") + QLocale().toString(v, 'f', v >= 100 ? 0 : 2); }

} // namespace

ParetoChart::ParetoChart(QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->chart = new QChart;
    d->chart->setAnimationOptions(QChart::NoAnimation);
    d->chart->setTitle(tr("Iteration time vs memory per GPU"));
    QFont titleFont = d->chart->titleFont();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    d->chart->setTitleFont(titleFont);
    d->chart->legend()->setAlignment(Qt::AlignRight);
    d->chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);

    d->capacity = new QLineSeries;
    d->capacity->setName(tr("HBM capacity"));
    d->capacity->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.5, Qt::DashLine));

    d->ranked = new QScatterSeries;
    d->ranked->setName(tr("Ranked (colour: cost)"));
    d->ranked->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    d->ranked->setMarkerSize(11);
    d->ranked->setColor(costColor(0.5, 0, 1));
    d->ranked->setBorderColor(QColor(0x33, 0x33, 0x33));

    d->front = new QLineSeries;
    d->front->setName(tr("Pareto front line"));
    d->front->setPen(QPen(kFrontColor, 1.5));

    d->pareto = new QScatterSeries;
    d->pareto->setName(tr("Pareto front"));
    d->pareto->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
    d->pareto->setMarkerSize(13);
    d->pareto->setColor(QColor(0, 0, 0, 0));
    d->pareto->setBorderColor(kFrontColor);
    d->pareto->setPen(QPen(kFrontColor, 2));

    d->selected = new QScatterSeries;
    d->selected->setName(tr("Selected"));
    d->selected->setMarkerSize(22);
    d->selected->setColor(QColor(0, 0, 0, 0));
    d->selected->setPen(QPen(Qt::black, 2.5));

    // Both time axes live as long as the chart; the one not used is hidden and detached. (Replacing
    // the axis with removeAxis + delete left the old one drawn as a tiny inset axis.)
    d->linearTime = new QValueAxis;
    d->linearTime->setLabelFormat(QStringLiteral("%.3g"));
    d->linearTime->setTitleText(tr("Iteration time (s)"));
    d->logTime = new QLogValueAxis;
    d->logTime->setBase(2);
    d->logTime->setMinorTickCount(-1);
    d->logTime->setLabelFormat(QStringLiteral("%g"));
    d->logTime->setTitleText(tr("Iteration time (s, log scale)"));
    d->logTime->setVisible(false);
    d->chart->addAxis(d->logTime, Qt::AlignBottom);
    d->timeAxis = d->linearTime;
    d->memoryAxis = new QValueAxis;
    d->memoryAxis->setTitleText(tr("Memory per GPU (GB)"));
    d->memoryAxis->setLabelFormat(QStringLiteral("%.0f"));
    d->chart->addAxis(d->timeAxis, Qt::AlignBottom);
    d->chart->addAxis(d->memoryAxis, Qt::AlignLeft);
    for (QXYSeries* s :
        { static_cast<QXYSeries*>(d->capacity), static_cast<QXYSeries*>(d->front), static_cast<QXYSeries*>(d->pareto),
            static_cast<QXYSeries*>(d->ranked), static_cast<QXYSeries*>(d->selected) }) {
        d->chart->addSeries(s);
        s->attachAxis(d->timeAxis);
        s->attachAxis(d->memoryAxis);
    }
    for (QLegendMarker* m : d->chart->legend()->markers(d->front))
        m->setVisible(false);

    connect(d->ranked, &QScatterSeries::hovered, this,
        [this](const QPointF& p, bool on) { on ? showPoint(p, false) : QToolTip::hideText(); });
    connect(d->pareto, &QScatterSeries::hovered, this,
        [this](const QPointF& p, bool on) { on ? showPoint(p, true) : QToolTip::hideText(); });
    d->view = new QChartView(d->chart, this);
    d->view->setRenderHint(QPainter::Antialiasing);
    // Clicks are resolved here rather than through QScatterSeries::clicked: the front's markers
    // lie over the ranked points they coincide with and would swallow the click.
    d->view->viewport()->installEventFilter(this);
    d->costLegend = new QLabel(this);
    d->costLegend->setTextFormat(Qt::RichText);
    d->costLegend->setWordWrap(true);
    d->costLegend->setAlignment(Qt::AlignHCenter);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->view, 1);
    layout->addWidget(d->costLegend);
    clear();
}

ParetoChart::~ParetoChart() = default;

QChart* ParetoChart::chart() const { return d->chart; }
QChartView* ParetoChart::chartView() const { return d->view; }
QScatterSeries* ParetoChart::rankedSeries() const { return d->ranked; }
QScatterSeries* ParetoChart::paretoSeries() const { return d->pareto; }
QScatterSeries* ParetoChart::selectedSeries() const { return d->selected; }
QString ParetoChart::costLegendText() const { return d->costLegend->text(); }

QPointF ParetoChart::pointOf(const engine::TrainingEstimate& e)
{
    return { e.iterationSeconds, e.memory.totalBytes() / 1e9 };
}

QColor ParetoChart::costColor(double usd, double minUsd, double maxUsd)
{
    // Three stops of the viridis map (van der Walt and Smith, matplotlib 2015): light = cheap.
    // Costs spanning more than 4x are mapped on a log scale (the front's slow end costs 30x more).
    double t = 0.5;
    if (minUsd > 0 && maxUsd / minUsd > 4)
        t = std::clamp(std::log(usd / minUsd) / std::log(maxUsd / minUsd), 0.0, 1.0);
    else if (maxUsd > minUsd)
        t = std::clamp((usd - minUsd) / (maxUsd - minUsd), 0.0, 1.0);
    const QColor stops[3] = { QColor(0xFD, 0xE7, 0x25), QColor(0x21, 0x91, 0x8C), QColor(0x44, 0x01, 0x54) };
    const int i = t < 0.5 ? 0 : 1;
    const double u = (t - 0.5 * i) * 2;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * u),
        float(a.greenF() + (b.greenF() - a.greenF()) * u), float(a.blueF() + (b.blueF() - a.blueF()) * u));
}

QString ParetoChart::describe(const engine::TrainingEstimate& e)
{
    const QLocale l;
    return tr("%1, recompute %2\n%3 s per iteration, %4 GB per GPU (%5)\n%6 per iteration, network share %7%")
        .arg(strategyLabel(e.strategy), QString::fromStdString(engine::recomputeText(e.strategy)),
            l.toString(e.iterationSeconds, 'f', 3), l.toString(e.memory.totalBytes() / 1e9, 'f', 1),
            e.memory.fits() ? tr("fits") : tr("out of memory"), usd(e.costPerIterationUsd),
            l.toString(e.networkShare * 100, 'f', 1));
}

int ParetoChart::rankedIndexAt(const QPoint& viewportPos, double radiusPixels) const
{
    int best = -1;
    double bestDistance = radiusPixels * radiusPixels;
    for (std::size_t i = 0; i < m_ranked.size(); ++i) {
        const QPointF scene = d->chart->mapToScene(d->chart->mapToPosition(pointOf(m_ranked[i]), d->ranked));
        const QPointF delta = QPointF(d->view->mapFromScene(scene)) - QPointF(viewportPos);
        const double distance = delta.x() * delta.x() + delta.y() * delta.y();
        if (distance < bestDistance) {
            bestDistance = distance;
            best = int(i);
        }
    }
    return best;
}

bool ParetoChart::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == d->view->viewport() && event->type() == QEvent::MouseButtonRelease) {
        auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() == Qt::LeftButton)
            if (const int index = rankedIndexAt(mouse->position().toPoint()); index >= 0)
                Q_EMIT pointClicked(index);
    }
    return QWidget::eventFilter(watched, event);
}

void ParetoChart::showPoint(const QPointF& point, bool pareto)
{
    const auto& list = pareto ? m_pareto : m_ranked;
    for (const engine::TrainingEstimate& e : list)
        if (pointOf(e) == point) {
            QToolTip::showText(QCursor::pos(), (pareto ? tr("Pareto front: ") : QString()) + describe(e), d->view);
            return;
        }
}

void ParetoChart::clear()
{
    engine::SearchResult none;
    setResult(none);
}

void ParetoChart::setResult(const engine::SearchResult& result)
{
    m_ranked = result.ranked;
    m_pareto = result.pareto;
    std::sort(
        m_pareto.begin(), m_pareto.end(), [](const engine::TrainingEstimate& a, const engine::TrainingEstimate& b) {
            return a.iterationSeconds < b.iterationSeconds;
        });

    double minCost = 0, maxCost = 0, minTime = 0, maxTime = 1, maxMemory = 1, capacity = 0;
    bool first = true;
    for (const auto* list : { &m_ranked, &m_pareto })
        for (const engine::TrainingEstimate& e : *list) {
            const QPointF p = pointOf(e);
            minCost = first ? e.costPerIterationUsd : std::min(minCost, e.costPerIterationUsd);
            maxCost = first ? e.costPerIterationUsd : std::max(maxCost, e.costPerIterationUsd);
            minTime = first ? p.x() : std::min(minTime, p.x());
            maxTime = first ? p.x() : std::max(maxTime, p.x());
            maxMemory = std::max(maxMemory, p.y());
            capacity = std::max(capacity, e.memory.capacityBytes / 1e9);
            first = false;
        }

    QList<QPointF> rankedPoints, paretoPoints;
    for (const engine::TrainingEstimate& e : m_ranked)
        rankedPoints << pointOf(e);
    for (const engine::TrainingEstimate& e : m_pareto)
        paretoPoints << pointOf(e);
    d->ranked->clearPointsConfiguration();
    d->ranked->replace(rankedPoints);
    for (std::size_t i = 0; i < m_ranked.size(); ++i)
        d->ranked->setPointConfiguration(
            int(i), QXYSeries::PointConfiguration::Color, costColor(m_ranked[i].costPerIterationUsd, minCost, maxCost));
    d->pareto->clearPointsConfiguration();
    d->pareto->replace(paretoPoints);
    for (std::size_t i = 0; i < m_pareto.size(); ++i)
        d->pareto->setPointConfiguration(
            int(i), QXYSeries::PointConfiguration::Color, costColor(m_pareto[i].costPerIterationUsd, minCost, maxCost));
    d->front->replace(paretoPoints);

    // The front often runs from the fastest strategy to ones 30x slower that save memory: a log
    // axis keeps the fast, interesting end readable.
    double timeMin = 0, timeMax = 1;
    QAbstractAxis* timeAxis = nullptr;
    if (!first && minTime > 0 && maxTime / minTime > 4) {
        timeMin = minTime / 1.1;
        timeMax = maxTime * 1.1;
        d->logTime->setRange(timeMin, timeMax);
        timeAxis = d->logTime;
    } else {
        QValueAxis* linear = d->linearTime;
        const double pad = std::max((maxTime - minTime) * 0.05, maxTime * 0.01);
        linear->setRange(std::max(0.0, minTime - pad), maxTime + pad);
        linear->applyNiceNumbers();
        timeMin = linear->min();
        timeMax = linear->max();
        timeAxis = linear;
    }
    if (timeAxis != d->timeAxis) {
        for (QAbstractSeries* s : d->chart->series()) {
            s->detachAxis(d->timeAxis);
            s->attachAxis(timeAxis);
        }
        d->timeAxis->setVisible(false);
        timeAxis->setVisible(true);
        d->timeAxis = timeAxis;
    }
    d->memoryAxis->setRange(0, std::max(maxMemory, capacity) * 1.08);
    d->memoryAxis->applyNiceNumbers();
    d->capacity->clear();
    if (capacity > 0) {
        d->capacity->append(timeMin, capacity);
        d->capacity->append(timeMax, capacity);
        d->capacity->setName(tr("HBM capacity (%1 GB)").arg(capacity, 0, 'f', 0));
    }
    for (QLegendMarker* m : d->chart->legend()->markers(d->capacity))
        m->setVisible(capacity > 0);

    if (first)
        d->costLegend->setText(tr("No strategy to plot."));
    else
        d->costLegend->setText(
            tr("Point colour: cost per iteration%5, <span style=\"color:%1\">&#9632;</span> %2 (cheapest) "
               "to <span style=\"color:%3\">&#9632;</span> %4 (dearest). Hover a point for details, "
               "click it to select its row.")
                .arg(costColor(minCost, minCost, maxCost).name(), usd(minCost),
                    costColor(maxCost, minCost, maxCost).name(), usd(maxCost),
                    minCost > 0 && maxCost / minCost > 4 ? tr(" (log scale)") : QString()));
    m_selected = -1;
    d->selected->clear();
}

void ParetoChart::setSelectedIndex(int rankedIndex)
{
    m_selected = rankedIndex >= 0 && rankedIndex < int(m_ranked.size()) ? rankedIndex : -1;
    d->selected->clear();
    if (m_selected >= 0)
        d->selected->append(pointOf(m_ranked[std::size_t(m_selected)]));
}

} // namespace clusterscope::views
