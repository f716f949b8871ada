#pragma once

// The words every front end (CLI text, report, Fabric 3D) uses for where a link sits in a fabric.
// toString(LinkLevel) ("node_leaf", "internal") stays the machine key of the JSON outputs.

#include "engine/fabric/fabricgraph.h"

#include <string>

namespace clusterscope::engine {

/// "inside a server", "server to leaf", "leaf to spine", "spine to core" or
/// "other (same tier or direct)": lower case, for sentences and labels.
std::string linkLevelText(LinkLevel level);

} // namespace clusterscope::engine
