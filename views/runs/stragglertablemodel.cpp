#include "views/runs/stragglertablemodel.h"

#include <QLocale>

namespace clusterscope::views {

StragglerTableModel::StragglerTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void StragglerTableModel::setStragglers(const std::vector<engine::Straggler>& stragglers)
{
    beginResetModel();
    m_rows = stragglers;
    m_totalWaitUs = 0;
    for (const auto& s : m_rows)
        m_totalWaitUs += s.waitCausedUs;
    endResetModel();
}

int StragglerTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int StragglerTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StragglerTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::Straggler& s = m_rows[std::size_t(index.row())];
    const QLocale l;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Rank:
            return s.rank;
        case LastArrivals:
            return s.lastArrivals;
        case P99Wait:
            return l.toString(s.waitTailUs.p99 / 1e3, 'f', 3);
        case MaxWait:
            return l.toString(s.waitTailUs.max / 1e3, 'f', 3);
        case WaitCaused:
            return l.toString(s.waitCausedUs / 1e3, 'f', 3);
        }
        break;
    case kSortRole:
        switch (index.column()) {
        case Rank:
            return s.rank;
        case LastArrivals:
            return s.lastArrivals;
        case P99Wait:
            return s.waitTailUs.p99;
        case MaxWait:
            return s.waitTailUs.max;
        case WaitCaused:
            return s.waitCausedUs;
        }
        break;
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return tr("Rank %1 arrived last at %2 collectives; the other ranks waited %3 ms for it in total (%4% of all "
                  "waiting).")
            .arg(s.rank)
            .arg(s.lastArrivals)
            .arg(l.toString(s.waitCausedUs / 1e3, 'f', 3))
            .arg(l.toString(m_totalWaitUs > 0 ? 100 * s.waitCausedUs / m_totalWaitUs : 0.0, 'f', 1));
    }
    return {};
}

QVariant StragglerTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && (section == P99Wait || section == MaxWait))
        return tr("The waits this rank caused, one per collective it arrived last at (last minus first arrival): "
                  "the tail it adds to synchronised operations. Rows are ranked by p99, then max.");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Rank:
        return tr("Rank");
    case LastArrivals:
        return tr("Last arrivals");
    case P99Wait:
        return tr("p99 wait (ms)");
    case MaxWait:
        return tr("Max wait (ms)");
    case WaitCaused:
        return tr("Wait caused (ms)");
    }
    return {};
}

} // namespace clusterscope::views
