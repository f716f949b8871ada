#include "views/models/bomtablemodel.h"

#include <QLocale>

namespace clusterscope::views {

void BomTableModel::setBom(const engine::FabricBom& bom)
{
    beginResetModel();
    m_bom = bom;
    endResetModel();
}

int BomTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_bom.lines.size());
}

int BomTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BomTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::BomLine& line = m_bom.lines[std::size_t(index.row())];
    const QLocale locale;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Category:
            return QString::fromStdString(line.category);
        case Item:
            return QString::fromStdString(line.item);
        case Description:
            return QString::fromStdString(line.description);
        case Length:
            return line.lengthMetres > 0 ? QStringLiteral("%1 m").arg(line.lengthMetres) : QString();
        case Quantity:
            return locale.toString(line.quantity);
        case UnitPrice:
            return QStringLiteral("$%1").arg(locale.toString(line.unitPriceUsd, 'f', 0));
        case Total:
            return QStringLiteral("$%1").arg(locale.toString(line.totalUsd(), 'f', 0));
        case UnitPower:
            return line.unitPowerWatts > 0 ? QStringLiteral("%1 W").arg(locale.toString(line.unitPowerWatts, 'f', 1))
                                           : QString();
        case TotalPower:
            return line.totalWatts() > 0
                ? QStringLiteral("%1 kW").arg(locale.toString(line.totalWatts() / 1000, 'f', 2))
                : QString();
        case Source:
            return QStringLiteral("%1 (%2)").arg(
                QString::fromStdString(line.priceSource), QString::fromStdString(line.priceDate));
        default:
            return {};
        }
    }
    // Raw numbers for sorting and tests.
    if (role == Qt::UserRole) {
        switch (index.column()) {
        case Length:
            return line.lengthMetres;
        case Quantity:
            return line.quantity;
        case UnitPrice:
            return line.unitPriceUsd;
        case Total:
            return line.totalUsd();
        case UnitPower:
            return line.unitPowerWatts;
        case TotalPower:
            return line.totalWatts();
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Length && index.column() <= TotalPower)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Source)
        return QString::fromStdString(line.priceSource);
    return {};
}

QVariant BomTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Category:
        return tr("Category");
    case Item:
        return tr("Item");
    case Description:
        return tr("Description");
    case Length:
        return tr("Length");
    case Quantity:
        return tr("Quantity");
    case UnitPrice:
        return tr("Unit price");
    case Total:
        return tr("Total");
    case UnitPower:
        return tr("Unit power");
    case TotalPower:
        return tr("Total power");
    case Source:
        return tr("Price source");
    default:
        return {};
    }
}

} // namespace clusterscope::views
