#include "views/live/livechart.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace clusterscope::views {

namespace {

    // Splits a series at gaps into runs of finite points (x: seconds since the window start, y: %).
    std::vector<QList<QPointF>> runs(const std::vector<double>& v, double stepS)
    {
        std::vector<QList<QPointF>> out(1);
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (std::isnan(v[i])) {
                if (!out.back().isEmpty())
                    out.emplace_back();
                continue;
            }
            out.back().append(QPointF(double(i) * stepS, v[i] * 100.0));
        }
        if (out.back().isEmpty())
            out.pop_back();
        return out;
    }

} // namespace

LiveChart::LiveChart(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view = new QChartView(new QChart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(220);
    layout->addWidget(m_view);
    clear(tr("Select a link in the table to chart it"));
}

LiveChart::~LiveChart() = default;

QChart* LiveChart::chart() const { return m_view->chart(); }

void LiveChart::clear(const QString& message)
{
    m_data = {};
    m_linkPoints = 0;
    QChart* c = m_view->chart();
    c->removeAllSeries();
    for (auto* a : c->axes())
        c->removeAxis(a);
    c->setTitle(message);
}

void LiveChart::setData(const LiveChartData& data)
{
    clear({});
    m_data = data;
    QChart* c = m_view->chart();
    c->setTitle(tr("%1 — against its tier, %2").arg(data.linkLabel, data.tierLabel));
    auto* x = new QValueAxis;
    x->setTitleText(tr("seconds since the window start"));
    x->setLabelFormat(QStringLiteral("%.0f"));
    auto* y = new QValueAxis;
    y->setTitleText(tr("utilisation (%)"));
    y->setRange(0, 100);
    y->setTickCount(6);
    y->setLabelFormat(QStringLiteral("%.0f"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    const std::size_t bins = std::max({ data.link.size(), data.tierAverage.size(), data.tierPeak.size() });
    x->setRange(0, std::max(1.0, double(bins > 0 ? bins - 1 : 0) * data.stepS));

    auto attach = [&](QAbstractSeries* s) {
        c->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    };
    // The tier band: from the tier's mean to its largest link, per interval.
    if (data.tierAverage.size() == data.tierPeak.size()) {
        std::vector<double> lowerV = data.tierAverage, upperV = data.tierPeak;
        for (std::size_t i = 0; i < lowerV.size(); ++i)
            if (std::isnan(lowerV[i]) || std::isnan(upperV[i]))
                lowerV[i] = upperV[i] = std::nan("");
        const auto lowers = runs(lowerV, data.stepS);
        const auto uppers = runs(upperV, data.stepS);
        for (std::size_t r = 0; r < lowers.size() && r < uppers.size(); ++r) {
            auto* lower = new QLineSeries;
            auto* upper = new QLineSeries;
            lower->append(lowers[r]);
            upper->append(uppers[r]);
            auto* band = new QAreaSeries(upper, lower);
            band->setName(r == 0 ? tr("tier mean to tier peak") : QString());
            band->setColor(QColor(120, 150, 220, 70));
            band->setBorderColor(QColor(120, 150, 220, 140));
            attach(band);
        }
    }
    bool first = true;
    for (const auto& run : runs(data.tierAverage, data.stepS)) {
        auto* s = new QLineSeries;
        s->append(run);
        s->setName(first ? tr("tier mean") : QString());
        s->setPen(QPen(QColor(40, 70, 160), 1.5));
        attach(s);
        first = false;
    }
    first = true;
    for (const auto& run : runs(data.link, data.stepS)) {
        auto* s = new QLineSeries;
        s->append(run);
        m_linkPoints += int(run.size());
        s->setName(first ? tr("selected link") : QString());
        s->setPen(QPen(QColor(210, 40, 40), 2.0));
        attach(s);
        first = false;
    }
    auto* guide = new QLineSeries;
    guide->append(0, 95);
    guide->append(x->max(), 95);
    guide->setName(tr("95 % peak guideline"));
    QPen dashed(QColor(90, 90, 90), 1.0, Qt::DashLine);
    guide->setPen(dashed);
    attach(guide);
    // Unnamed series (continuations after a gap) stay out of the legend.
    for (auto* marker : c->legend()->markers())
        if (marker->label().isEmpty())
            marker->setVisible(false);
}

} // namespace clusterscope::views
