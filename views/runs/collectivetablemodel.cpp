#include "views/runs/collectivetablemodel.h"

#include <QLocale>

#include <map>
#include <tuple>

namespace clusterscope::views {

CollectiveTableModel::CollectiveTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

std::vector<CollectiveRow> CollectiveTableModel::summarize(const std::vector<engine::CollectiveSummary>& collectives)
{
    std::vector<CollectiveRow> rows;
    std::map<std::tuple<int, std::string, std::int64_t, std::int32_t>, std::size_t> rowOf;
    std::vector<double> totalUs;
    for (const auto& c : collectives) {
        const auto key = std::make_tuple(int(c.op), c.processGroup, c.bytes, c.groupSize);
        auto [it, added] = rowOf.emplace(key, rows.size());
        if (added) {
            CollectiveRow r;
            r.op = c.op;
            r.processGroup = QString::fromStdString(c.processGroup);
            r.bytes = c.bytes;
            r.groupSize = c.groupSize;
            rows.push_back(r);
            totalUs.push_back(0);
        }
        CollectiveRow& r = rows[it->second];
        ++r.count;
        totalUs[it->second] += c.durationUs;
        r.totalWaitUs += c.totalWaitUs;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CollectiveRow& r = rows[i];
        r.meanDurationUs = totalUs[i] / r.count;
        // nccl-tests (src/common.cu, notes/collectives.md): algbw = S / t, busbw = algbw x factor.
        if (r.bytes >= 0 && r.meanDurationUs > 0) {
            r.algbwGbps = double(r.bytes) / (r.meanDurationUs * 1e-6) / 1e9;
            r.busbwGbps = r.algbwGbps * engine::busBandwidthFactor(r.op, r.groupSize);
        }
    }
    return rows;
}

void CollectiveTableModel::setCollectives(const std::vector<engine::CollectiveSummary>& collectives)
{
    beginResetModel();
    m_rows = summarize(collectives);
    endResetModel();
}

int CollectiveTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int CollectiveTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CollectiveTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CollectiveRow& r = m_rows[std::size_t(index.row())];
    const QLocale l;
    const QString group = r.processGroup.isEmpty() ? tr("default") : r.processGroup;
    const bool known = r.bytes >= 0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Operation: return QString::fromLatin1(engine::toString(r.op));
        case Group: return group;
        case Bytes: return known ? l.formattedDataSize(r.bytes, 2, QLocale::DataSizeSIFormat) : tr("?");
        case Ranks: return r.groupSize;
        case Count: return r.count;
        case MeanDuration: return l.toString(r.meanDurationUs, 'f', 1);
        case AlgBw: return known ? l.toString(r.algbwGbps, 'f', 2) : tr("?");
        case BusBw: return known ? l.toString(r.busbwGbps, 'f', 2) : tr("?");
        case TotalWait: return l.toString(r.totalWaitUs, 'f', 1);
        }
    } else if (role == kSortRole) {
        switch (index.column()) {
        case Operation: return QString::fromLatin1(engine::toString(r.op));
        case Group: return group;
        case Bytes: return qlonglong(r.bytes);
        case Ranks: return r.groupSize;
        case Count: return r.count;
        case MeanDuration: return r.meanDurationUs;
        case AlgBw: return known ? r.algbwGbps : -1.0;
        case BusBw: return known ? r.busbwGbps : -1.0;
        case TotalWait: return r.totalWaitUs;
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
        return tr("nccl-tests definitions: algbw = bytes / mean duration; busbw = algbw x bus factor of the operation.");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Operation: return tr("Operation");
    case Group: return tr("Group");
    case Bytes: return tr("Bytes");
    case Ranks: return tr("Ranks");
    case Count: return tr("Count");
    case MeanDuration: return tr("Mean duration (µs)");
    case AlgBw: return tr("algbw (GB/s)");
    case BusBw: return tr("busbw (GB/s)");
    case TotalWait: return tr("Total wait (µs)");
    }
    return {};
}

} // namespace clusterscope::views
