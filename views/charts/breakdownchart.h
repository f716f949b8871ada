#pragma once

// The Iteration breakdown: one stacked bar per strategy (compute, recompute, exposed TP/PP/DP/CP/EP
// communication, pipeline bubble, optimizer, other; seconds on the left axis) with the network share
// of each strategy as a line (percent, right axis) against the dashed 25% guideline. Hovering a
// segment shows its name, seconds and share of the iteration. Qt Charts stays out of this header.

#include "engine/training/trainingestimate.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace clusterscope::engine {
struct SearchResult;
}

namespace clusterscope::views {

/// One bar of the chart.
struct LabelledBreakdown {
    QString label; ///< category label, e.g. "Current" or "#1 TP8 PP4 DP32"
    engine::IterationBreakdown breakdown; ///< seconds per component
    double networkShare = 0; ///< exposed communication / iteration time (0..1)
};

class BreakdownChart : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownChart(QWidget* parent = nullptr);
    ~BreakdownChart() override;

    /// Shows the bars left to right in the given order; an empty vector shows the empty state.
    void setBreakdowns(const std::vector<LabelledBreakdown>& breakdowns);
    /// Shows `message` instead of the chart (e.g. "The scenario has no parallelism section").
    void setEmptyState(const QString& message);

    /// The usual content: the current strategy first, then the search's `topCount` fastest
    /// strategies (labelled "#1 TP.. PP.."), skipping a ranked strategy equal to the current one.
    /// `currentName` names the first bar (empty: "Current").
    static std::vector<LabelledBreakdown> fromEstimates(const engine::TrainingEstimate& current,
        const engine::SearchResult* search, int topCount = 4, const QString& currentName = {});
    /// The chart's title (default "Iteration breakdown"; empty restores it).
    void setTitle(const QString& title);
    static LabelledBreakdown fromEstimate(const QString& label, const engine::TrainingEstimate& estimate);

    const std::vector<LabelledBreakdown>& breakdowns() const { return m_breakdowns; }
    bool isShowingEmptyState() const;
    /// Text of the hover tooltip of component `component` (BreakdownComponent as int) of bar `bar`.
    QString segmentText(int bar, int component) const;
    /// The Qt Charts objects, for tests and PNG export.
    QChart* chart() const;
    QChartView* chartView() const;
    /// How much of the labels the category axis shows: 0 all lines, 1 long lines split in two,
    /// 2 the first line only (narrow charts); each with the network share as last line.
    int labelDetail() const;
    static QStringList labelLines(const LabelledBreakdown& b, int detail);

private:
    void updateCategoryLabels();

    struct Private;
    std::unique_ptr<Private> d;
    std::vector<LabelledBreakdown> m_breakdowns;
};

} // namespace clusterscope::views
