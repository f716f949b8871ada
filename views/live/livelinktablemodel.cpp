#include "views/live/livelinktablemodel.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace clusterscope::views {

namespace {

    QString percent(double v)
    {
        return std::isnan(v) ? QStringLiteral("–") : QString::number(v * 100.0, 'f', 1) + QStringLiteral(" %");
    }

    double value(const LiveLinkRow& r, int column)
    {
        switch (column) {
        case LiveLinkTableModel::Average:
            return r.average;
        case LiveLinkTableModel::P99:
            return r.p99;
        case LiveLinkTableModel::Peak:
            return r.peak;
        case LiveLinkTableModel::Errors:
            return r.errors;
        case LiveLinkTableModel::PfcPaused:
            return r.pfcPaused;
        case LiveLinkTableModel::Modelled:
            return r.modelled;
        default:
            return std::nan("");
        }
    }

} // namespace

LiveLinkTableModel::LiveLinkTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void LiveLinkTableModel::setRows(std::vector<LiveLinkRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int LiveLinkTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int LiveLinkTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LiveLinkTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const LiveLinkRow& r = m_rows[std::size_t(index.row())];
    const int c = index.column();
    if (role == Qt::DisplayRole) {
        switch (c) {
        case Link:
            return r.name;
        case Tier:
            return r.tier;
        case Direction:
            return r.direction == 0 ? tr("up") : tr("down");
        case Errors:
            return QString::number(r.errors, 'f', 0);
        default:
            return percent(value(r, c));
        }
    }
    if (role == SortRole) {
        if (c == Link)
            return r.name;
        if (c == Tier)
            return r.tier;
        if (c == Direction)
            return r.direction;
        const double v = value(r, c);
        return std::isnan(v) ? -1.0 : v; // gaps sort below every measured value
    }
    if (role == Qt::TextAlignmentRole && c >= Average)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole) {
        // The guideline: peaks under 95 %, averages within 60-80 %.
        if ((c == Peak && r.peak >= 0.95) || (c == Errors && r.errors > 0))
            return QBrush(QColor(255, 190, 190));
        if (c == Average && r.average > 0.80)
            return QBrush(QColor(255, 235, 170));
    }
    if (role == Qt::ToolTipRole && c == Peak)
        return tr("Largest utilisation over one sample interval (a 1-s peak at a 1 s scrape); counters cannot "
                  "see microbursts shorter than the scrape interval.");
    return {};
}

QVariant LiveLinkTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Link:
        return tr("Link");
    case Tier:
        return tr("Tier");
    case Direction:
        return tr("Dir");
    case Average:
        return tr("Average");
    case P99:
        return tr("p99");
    case Peak:
        return tr("1-s peak");
    case Errors:
        return tr("Errors");
    case PfcPaused:
        return tr("PFC paused");
    case Modelled:
        return tr("Modelled");
    default:
        return {};
    }
}

} // namespace clusterscope::views
