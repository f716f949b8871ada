#pragma once

#include "engine/fabric/fabricgraph.h"
#include "engine/run/diagnostics.h"

#include <string>
#include <vector>

namespace clusterscope::importers {

/// A problem found in a real (or planned vs real) fabric.
struct FabricFlag {
    enum class Kind { Missing, Degraded, SelfLoop, Miswired, Extra };
    Kind kind = Kind::Missing;
    std::vector<std::string> ports; ///< "S-<guid>/P<n>" (ibnetdiscover) or "<name>/P<n>" (plan); P0 = unknown port
    std::string message;            ///< one sentence
};

/// "missing", "degraded", "self_loop", "miswired", "extra" (the CLI's JSON spelling).
const char* toString(FabricFlag::Kind kind);

/// A fabric read from ibnetdiscover: switches (kind Switch, tiers inferred), channel adapters (kind
/// Nic, one per CA, `host` numbered by the host name in the description), links de-duplicated. Links flagged missing are
/// inferred gaps (no ports known); self-looped cables are reported in `flags` but kept out of the
/// graph (a link from a switch to itself carries no traffic).
struct ImportedFabric {
    engine::FabricGraph graph;
    std::vector<FabricFlag> flags;
    engine::Diagnostics diagnostics;
};

} // namespace clusterscope::importers
