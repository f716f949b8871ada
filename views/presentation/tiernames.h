#pragma once

// The names the GUI and the report give to where traffic travels and to the tiers of a fabric:
// link classes (engine/core/linkclass.h, counted from the GPU outwards), switch tiers and link
// levels (engine/fabric/fabricgraph.h, counted from the leaves).

#include "engine/fabric/fabricgraph.h"

#include <QString>

namespace clusterscope::views {

/// "scale-up", "leaf", "spine", "core" (lower case, for sentences and labels).
QString linkClassLabel(int linkClass);
/// "Leaf switches", "Spine switches", "Core switches", "Tier 4 switches".
QString switchTierLabel(int tier);
/// engine::linkLevelText as a QString ("inside a server", "server to leaf", ...): the CLI's words.
QString linkLevelLabel(engine::LinkLevel level);
/// `text` with its first letter in upper case (table rows, legends).
QString capitalised(QString text);

} // namespace clusterscope::views
