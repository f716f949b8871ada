#include "views/runs/runlistmodel.h"

#include <QLocale>

namespace clusterscope::views {

RunListModel::RunListModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RunListModel::setRuns(const std::vector<engine::StoredRunSummary>& runs)
{
    beginResetModel();
    m_runs = runs;
    endResetModel();
}

int RunListModel::rowOf(std::int64_t id) const
{
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].id == id)
            return int(i);
    return -1;
}

int RunListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_runs.size()); }

int RunListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::StoredRunSummary& r = m_runs[std::size_t(index.row())];
    if (role == kRunIdRole)
        return qlonglong(r.id);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(r.name);
        case Ranks:
            return r.rankCount;
        case Gpu:
            return r.gpuName.empty() ? tr("unknown") : QString::fromStdString(r.gpuName);
        case Steps:
            return r.stepCount;
        case Collectives:
            return r.collectiveCount;
        case Imported:
            return QString(QString::fromStdString(r.importedUtc) + QStringLiteral(" UTC"));
        }
    }
    if (role == Qt::ToolTipRole) {
        QStringList sources;
        for (const auto& s : r.sources)
            sources << QString::fromStdString(s);
        QString text = tr("Imported from:\n%1").arg(sources.join(QLatin1Char('\n')));
        if (!r.ncclVersion.empty())
            text += tr("\nNCCL %1").arg(QString::fromStdString(r.ncclVersion));
        if (r.errorCount || r.warningCount)
            text += tr("\n%1 errors, %2 warnings while importing").arg(r.errorCount).arg(r.warningCount);
        return text;
    }
    if (role == Qt::TextAlignmentRole
        && (index.column() == Ranks || index.column() == Steps || index.column() == Collectives))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Run");
    case Ranks:
        return tr("Ranks");
    case Gpu:
        return tr("GPU");
    case Steps:
        return tr("Steps");
    case Collectives:
        return tr("Collectives");
    case Imported:
        return tr("Imported");
    }
    return {};
}

} // namespace clusterscope::views
