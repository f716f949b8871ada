#pragma once

// What the analysis of a scenario found that the editor should say beside the fields: errors the
// validator cannot see (the fabric cannot be built, no strategy fits), decisions the builder took
// (tiers raised) and warnings (little memory headroom).

#include "views/editor/scenarioeditor.h"

#include <QList>

namespace clusterscope::engine {
struct ScenarioAnalysis;
struct Scenario;
}

namespace clusterscope::app {

/// The editor notes for `analysis` of `scenario` (empty when there is nothing to say).
QList<views::EditorNote> editorNotesFor(const engine::Scenario& scenario, const engine::ScenarioAnalysis& analysis);

} // namespace clusterscope::app
