#pragma once

// Undo commands for scenario edits. Each stores what it needs to undo itself.

#include "engine/scenario/scenario.h"

#include <QUndoCommand>

namespace clusterscope::app {

class ProjectDocument;

class InsertScenarioCommand : public QUndoCommand {
public:
    InsertScenarioCommand(ProjectDocument* doc, int index, engine::Scenario scenario);
    void redo() override;
    void undo() override;

private:
    ProjectDocument* m_doc;
    int m_index;
    engine::Scenario m_scenario;
};

class RemoveScenarioCommand : public QUndoCommand {
public:
    RemoveScenarioCommand(ProjectDocument* doc, int index);
    void redo() override;
    void undo() override;

private:
    ProjectDocument* m_doc;
    int m_index;
    engine::Scenario m_removed;
};

class ReplaceScenarioCommand : public QUndoCommand {
public:
    ReplaceScenarioCommand(ProjectDocument* doc, int index, engine::Scenario after, const QString& text);
    void redo() override;
    void undo() override;
    /// Consecutive edits of the same field of the same scenario (spin-box steps) merge into one.
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    ProjectDocument* m_doc;
    int m_index;
    engine::Scenario m_before;
    engine::Scenario m_after;
};

} // namespace clusterscope::app
