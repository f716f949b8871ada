#pragma once

// The straggler ranking of a run: the ranks the others waited for, ranked by the tail of the waits
// they caused (p99, then max; engine/run/runanalysis.h Straggler).

#include "engine/run/runanalysis.h"

#include <QAbstractTableModel>

#include <vector>

namespace clusterscope::views {

class StragglerTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, LastArrivals, P99Wait, MaxWait, WaitCaused, ColumnCount };
    /// Role with the raw number of a cell (rank, count, wait in µs) for sorting.
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit StragglerTableModel(QObject* parent = nullptr);

    /// Rows in the given order (engine::RunAnalysis::stragglers: by the tail they cause, largest first).
    void setStragglers(const std::vector<engine::Straggler>& stragglers);
    const std::vector<engine::Straggler>& stragglers() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<engine::Straggler> m_rows;
    double m_totalWaitUs = 0;
};

} // namespace clusterscope::views
