#pragma once

// The ranked strategies of a search as a table: one row per engine::TrainingEstimate (fastest
// first), sortable through a QSortFilterProxyModel on kSortRole (raw numbers, not display text).

#include "engine/training/trainingestimate.h"

#include <QAbstractTableModel>

#include <vector>

namespace clusterscope::views {

class StrategyTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Rank,
        Tp,
        Pp,
        Vpp,
        Dp,
        Cp,
        Ep,
        MicroBatch,
        Zero,
        Recompute,
        IterationSeconds,
        IterationWithContention,
        TflopsPerGpu,
        Mfu,
        TokensPerSecond,
        MemoryPerGpu,
        NetworkShare,
        CostPerIteration,
        CostToTrain,
        ColumnCount
    };
    /// Raw value for sorting: int, double (seconds, fraction, bytes, USD) or QString.
    static constexpr int kSortRole = Qt::UserRole;
    /// The row's rank in the search (0 = fastest), whatever the proxy's order.
    static constexpr int kRankRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    void setEstimates(const std::vector<engine::TrainingEstimate>& estimates);
    /// Seconds per iteration of the first rows with the contention of their traffic routed on the
    /// scenario's fabric (row i: seconds[i]); the other rows show none. Cleared by setEstimates.
    void setContendedSeconds(std::vector<double> seconds);
    /// The first `rows` rows' contended times are being computed: they show "…" until
    /// setContendedSeconds (which ends the wait). Cleared by setEstimates.
    void setContendedPending(int rows);
    int contendedPending() const { return m_pending; }
    const std::vector<double>& contendedSeconds() const { return m_contended; }
    const std::vector<engine::TrainingEstimate>& estimates() const { return m_estimates; }
    const engine::TrainingEstimate& estimate(int row) const { return m_estimates[std::size_t(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVariant display(const engine::TrainingEstimate& e, int column) const;
    QVariant sortValue(const engine::TrainingEstimate& e, int row, int column) const;

    std::vector<engine::TrainingEstimate> m_estimates;
    std::vector<double> m_contended;
    int m_pending = 0;
};

} // namespace clusterscope::views
