#include "views/strategies/paretochart.h"

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
    QValueAxis* timeAxis = nullptr;
    QValueAxis* memoryAxis = nullptr;
    QScatterSeries* ranked = nullptr;
    QScatterSeries* pareto = nullptr;
    QLineSeries* front = nullptr;
    QScatterSeries* selected = nullptr;
    QLineSeries* capacity = nullptr;
};

namespace {

const QColor kFrontColor(0xC0, 0x39, 0x2B);

bool sameStrategy(const engine::TrainingStrategy& a, const engine::TrainingStrategy& b)
{
    return a.parallelism == b.parallelism && a.microBatch == b.microBatch && a.recompute == b.recompute;
}

QString usd(double v)
{
    return QStringLiteral("$") + QLocale().toString(v, 'f', v >= 100 ? 0 : 2);
}

} // namespace

ParetoChart::ParetoChart(QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->chart = new QChart;
    d->chart->setAnimationOptions(QChart::NoAnimation);
    d->chart->setTitle(tr("Iteration time vs memory per GPU"));
    d->chart->legend()->setAlignment(Qt::AlignRight);

    d->capacity = new QLineSeries;
    d->capacity->setName(tr("HBM capacity"));
    d->capacity->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.5, Qt::DashLine));

    d->ranked = new QScatterSeries;
    d->ranked->setName(tr("Ranked strategies"));
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

    d->timeAxis = new QValueAxis;
    d->timeAxis->setTitleText(tr("Iteration time (s)"));
    d->timeAxis->setLabelFormat(QStringLiteral("%.2f"));
    d->memoryAxis = new QValueAxis;
    d->memoryAxis->setTitleText(tr("Memory per GPU (GB)"));
    d->memoryAxis->setLabelFormat(QStringLiteral("%.0f"));
    d->chart->addAxis(d->timeAxis, Qt::AlignBottom);
    d->chart->addAxis(d->memoryAxis, Qt::AlignLeft);
    for (QXYSeries* s : { static_cast<QXYSeries*>(d->capacity), static_cast<QXYSeries*>(d->front),
             static_cast<QXYSeries*>(d->ranked), static_cast<QXYSeries*>(d->pareto), static_cast<QXYSeries*>(d->selected) }) {
        d->chart->addSeries(s);
        s->attachAxis(d->timeAxis);
        s->attachAxis(d->memoryAxis);
    }
    for (QLegendMarker* m : d->chart->legend()->markers(d->front))
        m->setVisible(false);

    connect(d->ranked, &QScatterSeries::hovered, this, [this](const QPointF& p, bool on) { on ? showPoint(p, false) : QToolTip::hideText(); });
    connect(d->pareto, &QScatterSeries::hovered, this, [this](const QPointF& p, bool on) { on ? showPoint(p, true) : QToolTip::hideText(); });
    auto click = [this](const QPointF& p, bool pareto) {
        const auto& list = pareto ? m_pareto : m_ranked;
        for (const engine::TrainingEstimate& e : list)
            if (pointOf(e) == p) {
                if (const int index = rankedIndexOf(e); index >= 0)
                    Q_EMIT pointClicked(index);
                return;
            }
    };
    connect(d->ranked, &QScatterSeries::clicked, this, [click](const QPointF& p) { click(p, false); });
    connect(d->pareto, &QScatterSeries::clicked, this, [click](const QPointF& p) { click(p, true); });

    d->view = new QChartView(d->chart, this);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->costLegend = new QLabel(this);
    d->costLegend->setTextFormat(Qt::RichText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->view, 1);
    layout->addWidget(d->costLegend, 0, Qt::AlignHCenter);
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
    const double t = maxUsd > minUsd ? std::clamp((usd - minUsd) / (maxUsd - minUsd), 0.0, 1.0) : 0.5;
    const QColor stops[3] = { QColor(0xFD, 0xE7, 0x25), QColor(0x21, 0x91, 0x8C), QColor(0x44, 0x01, 0x54) };
    const int i = t < 0.5 ? 0 : 1;
    const double u = (t - 0.5 * i) * 2;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * u), float(a.greenF() + (b.greenF() - a.greenF()) * u),
        float(a.blueF() + (b.blueF() - a.blueF()) * u));
}

QString ParetoChart::describe(const engine::TrainingEstimate& e)
{
    const QLocale l;
    return tr("%1, recompute %2\n%3 s per iteration, %4 GB per GPU (%5)\n%6 per iteration, network share %7%")
        .arg(StrategyTableModel::summary(e.strategy), QString::fromLatin1(engine::toString(e.strategy.recompute)),
            l.toString(e.iterationSeconds, 'f', 3), l.toString(e.memory.totalBytes() / 1e9, 'f', 1),
            e.memory.fits() ? tr("fits") : tr("out of memory"), usd(e.costPerIterationUsd),
            l.toString(e.networkShare * 100, 'f', 1));
}

int ParetoChart::rankedIndexOf(const engine::TrainingEstimate& e) const
{
    for (std::size_t i = 0; i < m_ranked.size(); ++i)
        if (sameStrategy(m_ranked[i].strategy, e.strategy))
            return int(i);
    return -1;
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
    std::sort(m_pareto.begin(), m_pareto.end(),
        [](const engine::TrainingEstimate& a, const engine::TrainingEstimate& b) { return a.iterationSeconds < b.iterationSeconds; });

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
        d->ranked->setPointConfiguration(int(i), QXYSeries::PointConfiguration::Color,
            costColor(m_ranked[i].costPerIterationUsd, minCost, maxCost));
    d->pareto->replace(paretoPoints);
    d->front->replace(paretoPoints);

    const double pad = std::max((maxTime - minTime) * 0.05, maxTime * 0.01);
    d->timeAxis->setRange(std::max(0.0, minTime - pad), maxTime + pad);
    d->timeAxis->applyNiceNumbers();
    d->memoryAxis->setRange(0, std::max(maxMemory, capacity) * 1.08);
    d->memoryAxis->applyNiceNumbers();
    d->capacity->clear();
    if (capacity > 0) {
        d->capacity->append(d->timeAxis->min(), capacity);
        d->capacity->append(d->timeAxis->max(), capacity);
        d->capacity->setName(tr("HBM capacity (%1 GB)").arg(capacity, 0, 'f', 0));
    }
    for (QLegendMarker* m : d->chart->legend()->markers(d->capacity))
        m->setVisible(capacity > 0);

    if (first)
        d->costLegend->setText(tr("No strategy to plot."));
    else
        d->costLegend->setText(tr("Point colour: cost per iteration, <span style=\"color:%1\">&#9632;</span> %2 (cheapest) "
                                  "to <span style=\"color:%3\">&#9632;</span> %4 (dearest). Hover a point for details, "
                                  "click it to select its row.")
                                   .arg(costColor(minCost, minCost, maxCost).name(), usd(minCost),
                                       costColor(maxCost, minCost, maxCost).name(), usd(maxCost)));
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
