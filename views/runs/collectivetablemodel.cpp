#include "views/runs/collectivetablemodel.h"

#include <QLocale>

namespace clusterscope::views {

CollectiveTableModel::CollectiveTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CollectiveTableModel::setCollectives(const std::vector<engine::CollectiveSummary>& collectives)
{
    beginResetModel();
    m_rows = engine::foldCollectives(collectives);
    endResetModel();
}

int CollectiveTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CollectiveTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CollectiveTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::CollectiveFold& r = m_rows[std::size_t(index.row())];
    const QLocale l;
    const QString group = r.processGroup.empty() ? tr("default") : QString::fromStdString(r.processGroup);
    const bool known = r.bytes >= 0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Operation:
            return QString::fromLatin1(engine::toString(r.op));
        case Group:
            return group;
        case Bytes:
            return known ? l.formattedDataSize(r.bytes, 2, QLocale::DataSizeSIFormat) : tr("?");
        case Ranks:
            return r.groupSize;
        case Count:
            return r.calls;
        case MeanDuration:
            return l.toString(r.durationUs.mean, 'f', 1);
        case P50Duration:
            return l.toString(r.durationUs.p50, 'f', 1);
        case P99Duration:
            return l.toString(r.durationUs.p99, 'f', 1);
        case MaxDuration:
            return l.toString(r.durationUs.max, 'f', 1);
        case AlgBw:
            return known ? l.toString(r.algbwGbps, 'f', 2) : tr("?");
        case BusBw:
            return known ? l.toString(r.busbwGbps, 'f', 2) : tr("?");
        case TotalWait:
            return l.toString(r.totalWaitUs, 'f', 1);
        }
    } else if (role == kSortRole) {
        switch (index.column()) {
        case Operation:
            return QString::fromLatin1(engine::toString(r.op));
        case Group:
            return group;
        case Bytes:
            return qlonglong(r.bytes);
        case Ranks:
            return r.groupSize;
        case Count:
            return r.calls;
        case MeanDuration:
            return r.durationUs.mean;
        case P50Duration:
            return r.durationUs.p50;
        case P99Duration:
            return r.durationUs.p99;
        case MaxDuration:
            return r.durationUs.max;
        case AlgBw:
            return known ? r.algbwGbps : -1.0;
        case BusBw:
            return known ? r.busbwGbps : -1.0;
        case TotalWait:
            return r.totalWaitUs;
        }
    } else if (role == Qt::TextAlignmentRole) {
        return index.column() <= Group ? QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter)
                                       : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::ToolTipRole && index.column() == Bytes && known) {
        return tr("%1 bytes (S of the nccl-tests definitions)").arg(l.toString(qlonglong(r.bytes)));
    }
    return {};
}

QVariant CollectiveTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole && (section == AlgBw || section == BusBw))
        return tr(
            "nccl-tests definitions: algbw = bytes / mean duration; busbw = algbw x bus factor of the operation.");
    if (role == Qt::ToolTipRole && section >= P50Duration && section <= MaxDuration)
        return tr("Tail of the call durations (nearest-rank percentiles: every figure is a measured call). "
                  "A synchronised collective is as slow as its slowest call.");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Operation:
        return tr("Operation");
    case Group:
        return tr("Group");
    case Bytes:
        return tr("Bytes");
    case Ranks:
        return tr("Ranks");
    case Count:
        return tr("Count");
    case MeanDuration:
        return tr("Mean duration (µs)");
    case P50Duration:
        return tr("p50 (µs)");
    case P99Duration:
        return tr("p99 (µs)");
    case MaxDuration:
        return tr("Max (µs)");
    case AlgBw:
        return tr("algbw (GB/s)");
    case BusBw:
        return tr("busbw (GB/s)");
    case TotalWait:
        return tr("Total wait (µs)");
    }
    return {};
}

} // namespace clusterscope::views
