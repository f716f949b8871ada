#pragma once

// The project's scenarios as a list (name, with a one-line summary as tooltip). Renaming through
// the view is forwarded as renameRequested so the document can make it undoable.

#include <QAbstractListModel>

#include <vector>

namespace clusterscope::engine {
struct Scenario;
}

namespace clusterscope::views {

class ScenarioListModel : public QAbstractListModel {
    Q_OBJECT
public:
    using QAbstractListModel::QAbstractListModel;

    struct Row {
        QString name;
        QString summary;
    };

    /// Replaces the rows (resets the model).
    void setScenarios(const std::vector<engine::Scenario>& scenarios);
    /// Updates one row in place (dataChanged only).
    void updateScenario(int row, const engine::Scenario& scenario);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    static QString summaryOf(const engine::Scenario& scenario);

Q_SIGNALS:
    void renameRequested(int row, const QString& name);

private:
    std::vector<Row> m_rows;
};

} // namespace clusterscope::views
