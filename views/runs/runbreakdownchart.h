#pragma once

// Measured breakdown per rank: one stacked bar per rank (compute, exposed communication,
// memcpy/memset, idle, and overlapped communication on top; RunPalette colours), in milliseconds
// per step, for one ProfilerStep or the mean over all steps. Above kMaxRankBars ranks the bars
// aggregate blocks of consecutive ranks (a power of two, so blocks hold whole servers): each bar is
// the block's mean breakdown and two lines mark the block's smallest and largest compute time, so a
// 16,384-rank run is drawn with 256 bars and a slow rank still shows as a spike of the max line.
// Hovering a segment shows its name, milliseconds and share of the step (with the block's min and
// max). The title and the legend are wrapping labels: they never elide on a narrow window; on a
// short one the legend stands beside the plot, one entry per row. Qt Charts stays out of this header.

#include "engine/run/runanalysis.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QLabel;
QT_END_NAMESPACE

namespace clusterscope::views {

/// One bar: the ranks [firstRank, lastRank] it stands for and their mean, min and max per part.
struct RankBarBlock {
    std::int32_t firstRank = 0;
    std::int32_t lastRank = 0;
    std::int32_t ranks = 0; ///< ranks present in the block (a run may skip numbers)
    engine::RankStepBreakdown mean; ///< rank = firstRank
    engine::RankStepBreakdown min; ///< per field, over the block's ranks
    engine::RankStepBreakdown max;
    double minTotalSeconds = 0; ///< smallest bar total (duration + overlapped) of a rank in the block
    double maxTotalSeconds = 0; ///< largest
};

class RunBreakdownChart : public QWidget {
    Q_OBJECT
public:
    /// Runs with more ranks than this are drawn as blocks of ranks.
    static constexpr int kMaxRankBars = 512;
    /// Blocks are sized so that at most this many bars are drawn.
    static constexpr int kTargetBlockBars = 256;

    explicit RunBreakdownChart(QWidget* parent = nullptr);
    ~RunBreakdownChart() override;

    /// Shows step `stepIndex` of `steps` (index into the vector), or with -1 the mean over all
    /// steps per rank. Empty `steps` shows the empty state.
    void setSteps(const std::vector<engine::StepBreakdown>& steps, int stepIndex = -1);
    void setEmptyState(const QString& message);
    bool isShowingEmptyState() const;

    /// The bars shown, in rank order (seconds): one per rank, or per block of ranksPerBar() ranks
    /// (the block's mean, rank = its first rank).
    const std::vector<engine::RankStepBreakdown>& bars() const { return m_bars; }
    const std::vector<RankBarBlock>& blocks() const { return m_blocks; }
    int barCount() const { return int(m_bars.size()); }
    /// 1, or the ranks per bar when the run has more than kMaxRankBars ranks.
    int ranksPerBar() const { return m_ranksPerBar; }
    /// Per-rank breakdown of step `stepIndex` or (-1) the mean over steps, sorted by rank.
    static std::vector<engine::RankStepBreakdown> perRank(
        const std::vector<engine::StepBreakdown>& steps, int stepIndex);
    /// Ranks per bar for a run of `ranks` ranks: 1 up to kMaxRankBars, else the smallest power of
    /// two that keeps the bars at or below kTargetBlockBars.
    static int ranksPerBarFor(std::size_t ranks);
    /// Consecutive ranks of `perRank` (sorted by rank) in blocks of `ranksPerBar` rank numbers.
    static std::vector<RankBarBlock> aggregate(const std::vector<engine::RankStepBreakdown>& perRank, int ranksPerBar);
    /// Tooltip text of component `component` (index into RunPalette::components()) of bar `bar`.
    QString segmentText(int bar, int component) const;
    /// The chart's title (the label above the plot) and legend: the label below the plot, or on a
    /// pane too short for it (the plot's view would get less than 200 px) the one beside the plot,
    /// one entry per row.
    QString titleText() const;
    QLabel* titleLabel() const;
    QLabel* legendLabel() const;
    bool isLegendBeside() const;
    /// The width (px) at which a short pane shows the legend beside a plot of ~200 px.
    int besideLegendWidth() const;
    /// The names the legend shows, in order: the components, then (with blocks) the compute lines.
    QStringList legendEntries() const { return m_legendEntries; }

    QChart* chart() const;
    QChartView* chartView() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    /// Shows the legend below the plot or, on a short pane, beside it.
    void placeLegend();
    /// Labels the x axis of blocks with as many rank ranges as its width holds.
    void labelRanges();

    struct Private;
    std::unique_ptr<Private> d;
    std::vector<engine::RankStepBreakdown> m_bars;
    std::vector<RankBarBlock> m_blocks;
    int m_ranksPerBar = 1;
    QString m_scope;
    QStringList m_legendEntries;
};

} // namespace clusterscope::views
