#pragma once

// Bisection bandwidth of the scale-out network by max-flow / min-cut (Dinic's algorithm): the most
// traffic the NICs of one half of the servers can push to the other half, one direction, with every
// switch and link as a capacity. Links flagged kLinkMissing are left out, so the same call answers
// "what remains after these failures".

#include "engine/fabric/fabricdesign.h"

#include <vector>

namespace clusterscope::engine {

/// Gb/s across the cut that splits the servers in host order (first half -> second half). For a
/// Clos in host order this separates whole leaves / pods, the worst case a fat-tree can have.
/// Scale-up links (NVLink, PCIe) are not part of the scale-out network and are ignored.
double bisectionGbps(const FabricDesign& design);

/// Max flow (Gb/s) from the NICs of `sourceHosts` to the NICs of `sinkHosts` (host indices).
double maxFlowGbps(const FabricDesign& design, const std::vector<int>& sourceHosts, const std::vector<int>& sinkHosts);

/// Sum of the NIC port rates of the first half of the servers: what a non-blocking network gives.
double injectionHalfGbps(const FabricDesign& design);

} // namespace clusterscope::engine
