#pragma once

// Physical layout: racks in rows, every node placed in a rack, every cable given a length (rack
// distance along the trays plus slack) and the cheapest medium whose reach and rate fit.

#include "engine/core/status.h"
#include "engine/fabric/fabricdesign.h"
#include "engine/scenario/scenario.h"

namespace clusterscope::engine {

class Catalog;

/// Defaults per design: 4 HGX/DGX servers per rack (~40 kW), 16 racks per row (two 32-node SUs);
/// an NVL72 rack holds its 72-GPU domain; a torus rack holds 16 servers (a 4x4x4 TPU v4 cube).
LayoutSpec defaultLayout(const FabricDesign& design);

/// Places servers row-major, leaves (and dragonfly routers) in a network rack at the end of the row
/// that holds most of their servers, spines and cores in a network row behind the compute rows.
/// Sets FabricGraph racks, node racks and rack units, link lengths (m) and media (catalog cables
/// in file order, first that reaches). Errors when no catalog cable reaches a link.
Status layOutFabric(FabricDesign& design, const LayoutSpec& layout, const Catalog& catalog);

/// The catalog cable the layout chose for `link` (nullptr for PCIe / NVLink / unknown medium).
const struct CableModel* cableFor(const FabricLink& link, const Catalog& catalog);

/// Rack-to-rack cable run in metres: Manhattan distance along the trays plus slack (same rack:
/// slack only).
double cableRunMetres(const FabricRack& a, const FabricRack& b, bool sameRack, double slackMetres);

} // namespace clusterscope::engine
