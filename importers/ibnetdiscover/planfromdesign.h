#pragma once

#include "engine/fabric/fabricgraph.h"
#include "importers/ibnetdiscover/ibnlparser.h"
#include "importers/ibnetdiscover/importedfabric.h"

#include <string>
#include <vector>

namespace clusterscope::importers {

/// A built fabric (engine/fabric builders) as a plan for compareWithPlan: switches named by their
/// label ("leaf-12", "spine-3-7": what "MF0;<name>:<model>/U1" descriptions carry), CAs by the
/// description writeIbnetdiscover gives them ("node00001 mlx5_0"); cables port to port. When
/// `withHosts` is false only switch-to-switch cables are planned (a real fabric names its hosts
/// its own way; the switch cabling is what the design fixes).
PlannedFabric planFromGraph(const engine::FabricGraph& graph, bool withHosts);

/// Share (0..1) of the planned switches that `actual` has under the same name.
double planNameCoverage(const ImportedFabric& actual, const PlannedFabric& plan);

} // namespace clusterscope::importers

namespace clusterscope::importers {

/// When the dump names its switches differently from the plan, compares what does not depend on
/// names: switches per tier and cables per level (host-leaf, leaf-spine, spine-core) of the compute
/// fabric against the planned graph. A tier or level with fewer than planned -> `missing`, with more
/// -> `extra` (pattern "... vs plan"); nothing when they match.
std::vector<FabricFlag> compareCountsWithPlan(const ImportedFabric& actual, const engine::FabricGraph& planned);

} // namespace clusterscope::importers
