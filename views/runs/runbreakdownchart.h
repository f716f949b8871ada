#pragma once

// Measured breakdown per rank: one stacked bar per rank (compute, exposed communication,
// memcpy/memset, idle, and overlapped communication on top; RunPalette colours), in milliseconds
// per step, for one ProfilerStep or the mean over all steps. Hovering a segment shows its name,
// milliseconds and share of the rank's step. Qt Charts stays out of this header.

#include "engine/run/runanalysis.h"

#include <QWidget>

#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace clusterscope::views {

class RunBreakdownChart : public QWidget {
    Q_OBJECT
public:
    explicit RunBreakdownChart(QWidget* parent = nullptr);
    ~RunBreakdownChart() override;

    /// Shows step `stepIndex` of `steps` (index into the vector), or with -1 the mean over all
    /// steps per rank. Empty `steps` shows the empty state.
    void setSteps(const std::vector<engine::StepBreakdown>& steps, int stepIndex = -1);
    void setEmptyState(const QString& message);
    bool isShowingEmptyState() const;

    /// The bars shown, one per rank in rank order (seconds).
    const std::vector<engine::RankStepBreakdown>& bars() const { return m_bars; }
    /// Per-rank breakdown of step `stepIndex` or (-1) the mean over steps, sorted by rank.
    static std::vector<engine::RankStepBreakdown> perRank(
        const std::vector<engine::StepBreakdown>& steps, int stepIndex);
    /// Tooltip text of component `component` (index into RunPalette::components()) of bar `bar`.
    QString segmentText(int bar, int component) const;

    QChart* chart() const;
    QChartView* chartView() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
    std::vector<engine::RankStepBreakdown> m_bars;
    QString m_scope;
};

} // namespace clusterscope::views
