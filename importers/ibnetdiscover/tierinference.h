#pragma once

#include "engine/fabric/fabricgraph.h"
#include "engine/run/diagnostics.h"

#include <string>

namespace clusterscope::importers {

/// Sets the tier of every switch from its hop distance to the host-facing switches. Leaves are the
/// switches with host CAs on at least as many ports as switches, with a single neighbouring switch,
/// or with four or more host CAs; a switch whose cables mostly go to such leaves and which has more
/// switch than CA cables (a spine or core that also carries a UFM appliance or a storage server) is
/// not a leaf, unless it has a single neighbouring switch (two switches joined by a trunk). Other
/// switches' tier = hops from the nearest leaf; switches no leaf reaches keep kTierUnknown (with a
/// diagnostic). Ignores links flagged missing. CAs must already exclude switch-embedded ones (SHARP
/// aggregation nodes), or every switch would look like a leaf.
void inferSwitchTiers(engine::FabricGraph& graph, engine::Diagnostics& diagnostics, const std::string& name);

/// The tier a switch's description names ("ib-leaf-07" -> 0, "spine" -> 1, "core" / "super-spine" ->
/// 2), -1 when it names none.
int tierNamedBy(const std::string& description);

} // namespace clusterscope::importers
