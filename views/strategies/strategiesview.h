#pragma once

// The Strategies tab: the search's ranked strategies in a sortable table, the Pareto chart of
// iteration time vs memory per GPU (coloured by cost), the search counts as a caption, an Apply
// button that hands the selected strategy to the application, and a progress/cancel area that the
// application drives while a search runs. Selecting a row rings its point and clicking a point
// selects its row.

#include "engine/training/trainingstrategy.h"

#include <QWidget>

class QAction;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace clusterscope::engine {
struct SearchResult;
}

namespace clusterscope::views {

class EmptyStateWidget;
class ParetoChart;
class StrategyTableModel;

class StrategiesView : public QWidget {
    Q_OBJECT
public:
    explicit StrategiesView(QWidget* parent = nullptr);

    /// Shows the ranked strategies and the Pareto front; `title` names the scenario.
    void setResult(const engine::SearchResult& result, const QString& title = {});
    /// Shows `message` instead of the table and chart.
    void setEmptyState(const QString& message);
    /// A notice above the ranking (empty: none). With `offerBest`, a button applies the fastest
    /// ranked strategy (used when the scenario's own strategy cannot run).
    void setNotice(const QString& text, bool offerBest = false);
    QString noticeText() const;
    QPushButton* applyBestButton() const { return m_applyBest; }

    /// While busy the progress bar and the Cancel button are shown (results stay visible).
    void setBusy(bool busy);
    bool isBusy() const;
    /// Fraction of the search done, 0..1.
    void setProgress(double fraction);

    /// Row of the model (search rank, 0 = fastest) of the selected strategy, or -1.
    int selectedRow() const;
    /// Selects model row `row` (search rank) in the table, whatever the sort order.
    void selectRow(int row);

    StrategyTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    ParetoChart* paretoChart() const { return m_pareto; }
    QAction* applyAction() const { return m_applyAction; }
    QString captionText() const;
    bool isShowingEmptyState() const;

public Q_SLOTS:
    /// Emits applyRequested with the selected row's strategy (nothing when no row is selected).
    void applySelected();

Q_SIGNALS:
    void applyRequested(const clusterscope::engine::TrainingStrategy& strategy);
    void cancelRequested();

private:
    void onSelectionChanged();

    StrategyTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    ParetoChart* m_pareto;
    QLabel* m_title;
    QLabel* m_caption;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QPushButton* m_apply;
    QAction* m_applyAction;
    QStackedWidget* m_stack;
    EmptyStateWidget* m_empty;
    QWidget* m_content;
    QWidget* m_notice;
    QLabel* m_noticeText;
    QPushButton* m_applyBest;
};

} // namespace clusterscope::views
