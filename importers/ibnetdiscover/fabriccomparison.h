#pragma once

#include "importers/ibnetdiscover/ibnlparser.h"
#include "importers/ibnetdiscover/importedfabric.h"

#include <vector>

namespace clusterscope::importers {

/// Compares a discovered fabric with its plan, port by port. Plan systems are found in the fabric
/// by name: the node description, its first word (an HCA's host), the name inside a Mellanox switch
/// description ("MF0;<name>:SX6036/U1") or the "S-<guid>" / "H-<guid>" form. Returns:
/// - missing: a planned cable whose ports are both unconnected (or a planned system not found);
/// - miswired: a planned port that is connected, but not to the planned peer port;
/// - extra: a cable between planned systems on ports the plan leaves free.
/// Ports are named "<plan name>/P<n>".
std::vector<FabricFlag> compareWithPlan(const ImportedFabric& actual, const PlannedFabric& plan);

} // namespace clusterscope::importers
