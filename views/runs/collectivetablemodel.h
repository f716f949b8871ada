#pragma once

// The run's collectives summarised per kind: one row per (operation, process group, bytes, group
// size) with how often it ran, its mean duration and the bandwidths of that mean (nccl-tests
// definitions: algbw = bytes / time, busbw = algbw x the operation's bus factor).

#include "engine/run/runanalysis.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace clusterscope::views {

struct CollectiveRow {
    engine::RunCollectiveOp op = engine::RunCollectiveOp::Unknown;
    QString processGroup;       ///< "" = default group
    std::int64_t bytes = -1;    ///< -1 unknown
    std::int32_t groupSize = 0;
    int count = 0;
    double meanDurationUs = 0;
    double algbwGbps = 0;       ///< bytes / meanDuration (GB/s, 1e9 B/s); 0 when bytes are unknown
    double busbwGbps = 0;       ///< algbw x busBandwidthFactor(op, groupSize)
    double totalWaitUs = 0;     ///< sum of CollectiveSummary::totalWaitUs
};

class CollectiveTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Operation, Group, Bytes, Ranks, Count, MeanDuration, AlgBw, BusBw, TotalWait, ColumnCount };
    /// Raw numbers (bytes, µs, GB/s) or the text for sorting; unknown bytes sort first as -1.
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit CollectiveTableModel(QObject* parent = nullptr);

    /// Groups `collectives` into rows, in order of first appearance.
    void setCollectives(const std::vector<engine::CollectiveSummary>& collectives);
    static std::vector<CollectiveRow> summarize(const std::vector<engine::CollectiveSummary>& collectives);
    const std::vector<CollectiveRow>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<CollectiveRow> m_rows;
};

} // namespace clusterscope::views
