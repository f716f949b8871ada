#pragma once

#include "importers/ibnetdiscover/importedfabric.h"

#include <string>

namespace clusterscope::importers {

/// Sets the tier of every switch from its hop distance to the leaves: switches with CAs on at
/// least as many ports as switches, or with CAs and a single neighbouring switch (if none, any switch
/// with a CA); their other neighbours are spines (1), then core (2)... Switches no leaf reaches keep
/// kTierUnknown (with a diagnostic). Ignores links flagged missing.
void inferSwitchTiers(engine::FabricGraph& graph, engine::Diagnostics& diagnostics, const std::string& name);

/// For each pair of adjacent tiers: when most (lower, upper) switch pairs that are cabled at all are
/// joined by k links, a pair with fewer gets the difference as links flagged missing (no ports
/// known) and a `missing` flag. (A 3:1 fabric with 47 of its 48 uplinks: notes/fabrics.md.)
void flagMissingUplinks(ImportedFabric& fabric, const std::string& name);

} // namespace clusterscope::importers
