#pragma once

// The run's collectives folded per kind (engine/run/collectivefold.h): one row per (operation,
// process group, bytes, group size) with how often it ran, its mean duration and tail (p50, p99,
// max) and the measured bandwidths as collectivefold.h defines them (nccl-tests': algbw = bytes /
// mean duration, busbw = algbw x the operation's bus factor).

#include "engine/run/collectivefold.h"
#include "engine/run/runanalysis.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace clusterscope::views {

class CollectiveTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Operation,
        Group,
        Bytes,
        Ranks,
        Count,
        MeanDuration,
        P50Duration,
        P99Duration,
        MaxDuration,
        AlgBw,
        BusBw,
        TotalWait,
        ColumnCount
    };
    /// Raw numbers (bytes, µs, GB/s) or the text for sorting; unknown bytes sort first as -1.
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit CollectiveTableModel(QObject* parent = nullptr);

    /// Folds `collectives` into rows (engine::foldCollectives), in order of first appearance.
    void setCollectives(const std::vector<engine::CollectiveSummary>& collectives);
    const std::vector<engine::CollectiveFold>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<engine::CollectiveFold> m_rows;
};

} // namespace clusterscope::views
