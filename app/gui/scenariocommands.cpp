#include "app/gui/scenariocommands.h"

#include "app/gui/projectdocument.h"

#include <QCoreApplication>

namespace clusterscope::app {

InsertScenarioCommand::InsertScenarioCommand(ProjectDocument* doc, int index, engine::Scenario scenario)
    : m_doc(doc)
    , m_index(index)
    , m_scenario(std::move(scenario))
{
    setText(QCoreApplication::translate("ScenarioCommands", "Add scenario \"%1\"")
                .arg(QString::fromStdString(m_scenario.name)));
}

void InsertScenarioCommand::redo() { m_doc->insertRaw(m_index, m_scenario); }
void InsertScenarioCommand::undo() { m_doc->takeRaw(m_index); }

RemoveScenarioCommand::RemoveScenarioCommand(ProjectDocument* doc, int index)
    : m_doc(doc)
    , m_index(index)
    , m_removed(doc->scenarios()[std::size_t(index)])
{
    setText(QCoreApplication::translate("ScenarioCommands", "Delete scenario \"%1\"")
                .arg(QString::fromStdString(m_removed.name)));
}

void RemoveScenarioCommand::redo() { m_removed = m_doc->takeRaw(m_index); }
void RemoveScenarioCommand::undo() { m_doc->insertRaw(m_index, m_removed); }

ReplaceScenarioCommand::ReplaceScenarioCommand(
    ProjectDocument* doc, int index, engine::Scenario after, const QString& text)
    : m_doc(doc)
    , m_index(index)
    , m_before(doc->scenarios()[std::size_t(index)])
    , m_after(std::move(after))
{
    setText(text);
}

void ReplaceScenarioCommand::redo() { m_doc->setRaw(m_index, m_after); }
void ReplaceScenarioCommand::undo() { m_doc->setRaw(m_index, m_before); }

bool ReplaceScenarioCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = static_cast<const ReplaceScenarioCommand*>(other);
    if (next->m_index != m_index || next->text() != text())
        return false;
    m_after = next->m_after;
    return true;
}

} // namespace clusterscope::app
