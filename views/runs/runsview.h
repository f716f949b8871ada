#pragma once

// The Runs tab: the runs stored in the project on the left (import, delete, select), and for the
// run shown: the per-rank breakdown chart, a slot for the measured traffic heatmap, the straggler
// table, the collectives table (sortable) and the timeline of ranks x streams. An import progress
// area with Cancel is shown while the application imports. Files and directories dropped on the
// tab are offered for import. The view holds no project: the application reads and writes the
// RunStore and calls setRuns / showRun.

#include "engine/store/runstore.h"

#include <QWidget>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QToolButton;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QVBoxLayout;

namespace clusterscope::engine {
struct Run;
}

namespace clusterscope::views {

class CollectiveTableModel;
class EmptyStateWidget;
class NicOverlay;
class RunBreakdownChart;
class RunListModel;
class StragglerTableModel;
class TimelineWidget;

class RunsView : public QWidget {
    Q_OBJECT
public:
    explicit RunsView(QWidget* parent = nullptr);
    ~RunsView() override;

    /// The runs stored in the project (RunStore::list()); keeps the selected run selected when it
    /// is still listed.
    void setRuns(const std::vector<engine::StoredRunSummary>& runs);
    /// Selects the run with `id` in the list without emitting runSelected; 0 clears the selection.
    void setCurrentRunId(std::int64_t id);
    /// Id of the selected run, 0 when none.
    std::int64_t currentRunId() const;

    /// Shows a run's analysis (from a fresh import or RunStore::load). `events` (may be null, e.g.
    /// for a run read back from the project) feeds the timeline; it is copied into a compact form
    /// and need not outlive the call. `title` names the run in the header.
    void showRun(const engine::RunAnalysis& analysis, const engine::Run* events = nullptr, const QString& title = {});
    /// Shows the empty state (no run selected) with `message`.
    void clearRun(const QString& message = {});
    bool isShowingRun() const;

    /// Where the measured traffic heatmap goes: setHeatmapWidget() puts `widget` there (the view
    /// takes ownership and deletes a previous one). Until then the slot shows a placeholder.
    QWidget* heatmapSlot() const { return m_heatmapSlot; }
    void setHeatmapWidget(QWidget* widget);
    QWidget* heatmapWidget() const { return m_heatmapWidget; }

    /// While importing, the progress bar, its status text and the Cancel button are shown and the
    /// Import button is disabled.
    void setImporting(bool importing);
    bool isImporting() const;
    /// Fraction of the import done, 0..1.
    void setImportProgress(double fraction);
    /// Text beside the progress bar, e.g. "Parsing rank 5 of 8".
    void setImportStatus(const QString& text);

    // Parts, for the application and tests.
    RunListModel* runListModel() const { return m_runs; }
    QTableView* runTable() const { return m_runTable; }
    StragglerTableModel* stragglerModel() const { return m_stragglers; }
    QTableView* stragglerTable() const { return m_stragglerTable; }
    CollectiveTableModel* collectiveModel() const { return m_collectives; }
    QSortFilterProxyModel* collectiveProxy() const { return m_collectiveProxy; }
    QTableView* collectiveTable() const { return m_collectiveTable; }
    RunBreakdownChart* breakdownChart() const { return m_chart; }
    QComboBox* stepSelector() const { return m_stepSelector; }
    TimelineWidget* timeline() const { return m_timeline; }
    /// Host NIC throughput under the timeline, on its time axis (fed by the application).
    NicOverlay* nicOverlay() const { return m_nicOverlay; }
    /// The button that shows or hides the NIC throughput strip.
    QToolButton* nicOverlayToggle() const { return m_nicToggle; }
    /// The host of each rank (index = rank; empty = unknown): selecting a rank in the straggler
    /// table draws its host bold in the NIC overlay.
    void setRankHosts(std::vector<QString> hosts);
    QPushButton* importButton() const { return m_import; }
    QPushButton* deleteButton() const { return m_delete; }
    QPushButton* cancelButton() const { return m_cancel; }
    QString headerText() const;
    /// The row of run actions above the run shown (the step selector is its first item): widgets
    /// added here (e.g. an action that uses the run) line up after it.
    void addRunAction(QWidget* widget);
    QHBoxLayout* runActionsLayout() const { return m_runActions; }

Q_SIGNALS:
    /// The user asked to import traces (Import button): the application shows a file dialog.
    void importRequested();
    /// Files or directories were dropped on the tab: import them as one run.
    void importPathsDropped(const QStringList& paths);
    /// The user selected a stored run: load it (RunStore::load) and call showRun.
    void runSelected(qint64 id);
    /// The user asked to delete a stored run (Delete button or key): confirm, RunStore::remove, setRuns.
    void deleteRequested(qint64 id);
    /// The Cancel button of the import progress area.
    void cancelImportRequested();
    /// A run with GPU events is shown (emitted by showRun; `events` lives only during the call).
    void eventsShown(const engine::Run& events);
    /// The run shown has no events any more (another run without events, or none).
    void eventsCleared();

public:
    /// Below this width the stored-runs pane starts hidden while a run is shown (as it does while
    /// the project stores no run).
    static constexpr int kNarrowWidthPx = 1000;
    /// Below this height of the tab the run's three panes (breakdown chart and heatmap, timeline,
    /// straggler and collective tables) are tabs of their own instead of stacked rows: stacked on
    /// a short window (a 1366x768 laptop's ~600 px) each would get too little to read.
    static constexpr int kShortHeightPx = 760;
    /// Whether the panes are tabs (a short window) rather than stacked rows.
    bool isPaneTabbed() const { return m_short; }
    /// The tabs holding the panes on a short window (hidden on a tall one).
    QTabWidget* paneTabs() const { return m_paneTabs; }
    /// The straggler and collective tables with their titles (a row, or a tab when short).
    QWidget* tablesPane() const { return m_tablesBox; }
    /// The timeline with its header, NIC strip and legend (a row, or a tab when short).
    QWidget* timelinePane() const { return m_timelineBox; }
    /// Shows `pane` (one of the panes above or the chart | heatmap row): brings its tab to the
    /// front when tabbed.
    void revealPane(QWidget* pane);
    /// The button that shows or hides the stored-runs pane.
    QToolButton* storedRunsToggle() const { return m_runsToggle; }
    bool isStoredRunsPaneShown() const { return !m_left->isHidden(); }

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void onRunSelectionChanged();
    void onStepChanged(int index);
    void fitToWidth();
    void setPanesTabbed(bool tabbed);
    void showTimelinePane();
    /// Splits the chart | heatmap row for the width it has now (no-op while hidden).
    void splitTop();
    void syncNicAxis();
    void highlightSelectedRankHost();

    RunListModel* m_runs;
    QTableView* m_runTable;
    StragglerTableModel* m_stragglers;
    QTableView* m_stragglerTable;
    CollectiveTableModel* m_collectives;
    QSortFilterProxyModel* m_collectiveProxy;
    QTableView* m_collectiveTable;
    RunBreakdownChart* m_chart;
    QComboBox* m_stepSelector;
    TimelineWidget* m_timeline;
    QWidget* m_timelineBox = nullptr; ///< the timeline with its header and legend (hidden without events)
    NicOverlay* m_nicOverlay = nullptr;
    QToolButton* m_nicToggle = nullptr;
    std::vector<QString> m_rankHosts;
    QHBoxLayout* m_runActions;
    QWidget* m_heatmapSlot;
    QVBoxLayout* m_heatmapLayout;
    QLabel* m_heatmapPlaceholder;
    QWidget* m_heatmapWidget = nullptr;
    QLabel* m_title;
    QLabel* m_caption;
    QProgressBar* m_progress;
    QLabel* m_importStatus;
    QPushButton* m_cancel;
    QPushButton* m_import;
    QPushButton* m_delete;
    QStackedWidget* m_stack;
    EmptyStateWidget* m_empty;
    QWidget* m_content;
    std::vector<engine::StepBreakdown> m_steps;
    bool m_silentSelection = false;
    QWidget* m_left = nullptr; ///< the stored-runs pane
    QSplitter* m_top = nullptr; ///< chart | heatmap
    QToolButton* m_runsToggle = nullptr;
    bool m_runsPaneChosen = false; ///< the user showed or hid the pane: keep it so
    bool m_narrow = false;
    bool m_topSized = false; ///< the chart | heatmap split was set for the current width class
    QSplitter* m_vertical = nullptr; ///< the panes as stacked rows (a tall window)
    QTabWidget* m_paneTabs = nullptr; ///< the panes as tabs (a short window)
    QWidget* m_tablesBox = nullptr; ///< the straggler and collective tables
    bool m_short = false;
    bool m_hasEvents = false; ///< the run shown has GPU events (the timeline pane is shown)
};

} // namespace clusterscope::views
