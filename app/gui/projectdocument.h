#pragma once

// The open project: its scenarios in memory, the undo stack of edits, and the SQLite store it is
// saved to. An untitled project (the built-in example, File > New) has no store until saved.

#include "engine/calibration/sweepcalibration.h"
#include "engine/core/status.h"
#include "engine/scenario/scenario.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QUndoStack;

namespace clusterscope::engine {
class ProjectStore;
}

namespace clusterscope::app {

class ProjectDocument : public QObject {
    Q_OBJECT
public:
    explicit ProjectDocument(QObject* parent = nullptr);
    ~ProjectDocument() override;

    /// Replaces the content with the built-in example project (untitled, unmodified).
    void loadExample();
    /// Replaces the content with an empty untitled project.
    void clear();
    /// Opens a project file; on failure returns the message and keeps the current content.
    std::optional<QString> open(const QString& path);
    /// Saves to the current file (error if untitled).
    std::optional<QString> save();
    /// Saves to `path` (creating or replacing it) and makes it the current file.
    std::optional<QString> saveAs(const QString& path);

    QString path() const { return m_path; }
    QString displayName() const;
    bool isModified() const;
    QUndoStack* undoStack() const { return m_undo; }
    /// The project file's store (runs, calibration); null while the project has no file.
    engine::ProjectStore* store() const { return m_store.get(); }
    /// The collective calibration stored in the project by import-nccl-tests --project (none when
    /// the project has no file or no calibration). Errors in a stored calibration are returned.
    engine::Result<std::optional<engine::CalibrationSet>> calibration() const;

    const std::vector<engine::Scenario>& scenarios() const { return m_scenarios; }

    // Undoable edits.
    void addScenario(const engine::Scenario& scenario, int at = -1);
    void removeScenario(int index);
    void renameScenario(int index, const QString& name);
    void replaceScenario(int index, const engine::Scenario& scenario, const QString& what);

    // Raw mutations used by the undo commands (no undo entry).
    void insertRaw(int index, const engine::Scenario& scenario);
    engine::Scenario takeRaw(int index);
    void setRaw(int index, const engine::Scenario& scenario);

Q_SIGNALS:
    /// The whole list changed (open, new, example).
    void reset();
    void scenarioInserted(int index);
    void scenarioRemoved(int index);
    void scenarioChanged(int index);
    void pathChanged();

private:
    void setContent(std::vector<engine::Scenario> scenarios, std::vector<std::int64_t> ids, QString path,
        std::unique_ptr<engine::ProjectStore> store);

    QUndoStack* m_undo;
    std::vector<engine::Scenario> m_scenarios;
    std::vector<std::int64_t> m_ids; ///< store row id per scenario (0 = not stored yet)
    std::unique_ptr<engine::ProjectStore> m_store;
    QString m_path;
};

} // namespace clusterscope::app
