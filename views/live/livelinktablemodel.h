#pragma once

// The Live tab's per-link table: one row per measured link direction with average, p99 and 1-s peak
// utilisation, error events, PFC paused fraction and the model's utilisation. Sortable through a
// proxy on LiveLinkTableModel::SortRole (numbers, gaps last).

#include "views/live/livedata.h"

#include <QAbstractTableModel>

#include <vector>

namespace clusterscope::views {

class LiveLinkTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Link, Tier, Direction, Average, P99, Peak, Errors, PfcPaused, Modelled, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit LiveLinkTableModel(QObject* parent = nullptr);

    void setRows(std::vector<LiveLinkRow> rows);
    const std::vector<LiveLinkRow>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<LiveLinkRow> m_rows;
};

} // namespace clusterscope::views
