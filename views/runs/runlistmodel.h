#pragma once

// The runs stored in the project (engine::StoredRunSummary), one row each.

#include "engine/store/runstore.h"

#include <QAbstractTableModel>

#include <vector>

namespace clusterscope::views {

class RunListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Ranks, Gpu, Steps, Collectives, Imported, ColumnCount };
    /// The run's id (qint64) on every cell.
    static constexpr int kRunIdRole = Qt::UserRole + 2;

    explicit RunListModel(QObject* parent = nullptr);

    void setRuns(const std::vector<engine::StoredRunSummary>& runs);
    const std::vector<engine::StoredRunSummary>& runs() const { return m_runs; }
    /// Row of the run with `id`, or -1.
    int rowOf(std::int64_t id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<engine::StoredRunSummary> m_runs;
};

} // namespace clusterscope::views
