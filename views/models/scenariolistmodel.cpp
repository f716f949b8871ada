#include "views/models/scenariolistmodel.h"

#include "engine/scenario/scenario.h"

namespace clusterscope::views {

QString ScenarioListModel::summaryOf(const engine::Scenario& s)
{
    return QStringLiteral("%1 x %2, %3 %4 Gb/s x %5 per node, %6")
        .arg(s.cluster.gpus)
        .arg(QString::fromStdString(s.cluster.gpu))
        .arg(QString::fromLatin1(engine::toString(s.cluster.transport)))
        .arg(s.cluster.nic.gbps)
        .arg(s.cluster.nic.perNode)
        .arg(QString::fromLatin1(engine::toString(s.cluster.fabric.type)));
}

void ScenarioListModel::setScenarios(const std::vector<engine::Scenario>& scenarios)
{
    beginResetModel();
    m_rows.clear();
    for (const auto& s : scenarios)
        m_rows.push_back({ QString::fromStdString(s.name), summaryOf(s) });
    endResetModel();
}

void ScenarioListModel::updateScenario(int row, const engine::Scenario& scenario)
{
    if (row < 0 || row >= rowCount())
        return;
    m_rows[std::size_t(row)] = { QString::fromStdString(scenario.name), summaryOf(scenario) };
    Q_EMIT dataChanged(index(row), index(row));
}

int ScenarioListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

QVariant ScenarioListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return row.name;
    case Qt::ToolTipRole:
    case Qt::StatusTipRole:
        return row.summary;
    default:
        return {};
    }
}

bool ScenarioListModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const QString name = value.toString().trimmed();
    if (name.isEmpty() || name == m_rows[std::size_t(index.row())].name)
        return false;
    Q_EMIT renameRequested(index.row(), name);
    return true;
}

Qt::ItemFlags ScenarioListModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable;
}

} // namespace clusterscope::views
