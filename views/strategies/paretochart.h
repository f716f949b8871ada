#pragma once

// The Pareto chart of the Strategies tab: iteration time (s) against memory per GPU (GB) for every
// ranked strategy, coloured by cost per iteration, with the Pareto front of the search (time,
// memory, cost) highlighted and joined, the HBM capacity as a dashed line and the selected
// strategy ringed. Qt Charts stays out of this header.

#include "engine/training/trainingestimate.h"

#include <QPointF>
#include <QWidget>

#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QLabel;
class QScatterSeries;
QT_END_NAMESPACE

namespace clusterscope::engine {
struct SearchResult;
}

namespace clusterscope::views {

class ParetoChart : public QWidget {
    Q_OBJECT
public:
    explicit ParetoChart(QWidget* parent = nullptr);
    ~ParetoChart() override;

    /// Plots result.ranked and result.pareto; the selection is cleared.
    void setResult(const engine::SearchResult& result);
    void clear();
    /// Rings ranked strategy `rankedIndex` (-1: none). Does not emit pointClicked.
    void setSelectedIndex(int rankedIndex);
    int selectedIndex() const { return m_selected; }

    /// Chart coordinates of an estimate: (iteration seconds, memory per GPU in GB).
    static QPointF pointOf(const engine::TrainingEstimate& e);
    /// Colour of a cost on the scale from `minUsd` (light) to `maxUsd` (dark); logarithmic when the
    /// costs span more than 4x.
    static QColor costColor(double usd, double minUsd, double maxUsd);
    /// Tooltip text of one estimate.
    static QString describe(const engine::TrainingEstimate& e);

    QChart* chart() const;
    QChartView* chartView() const;
    QScatterSeries* rankedSeries() const;
    QScatterSeries* paretoSeries() const;
    QScatterSeries* selectedSeries() const;
    QString costLegendText() const;
    /// Ranked strategy whose point is nearest to `viewportPos` (chart view viewport pixels) within
    /// `radiusPixels`, or -1. Among equal points the fastest rank wins.
    int rankedIndexAt(const QPoint& viewportPos, double radiusPixels = 9) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    /// The user clicked the point of ranked strategy `rankedIndex`.
    void pointClicked(int rankedIndex);

private:
    void showPoint(const QPointF& point, bool pareto);

    struct Private;
    std::unique_ptr<Private> d;
    std::vector<engine::TrainingEstimate> m_ranked;
    std::vector<engine::TrainingEstimate> m_pareto;
    int m_selected = -1;
};

} // namespace clusterscope::views
