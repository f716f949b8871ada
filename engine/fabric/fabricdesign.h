#pragma once

// A built fabric: the graph plus the facts the layout, BOM and flow model need about how it was
// built (rank -> GPU node, GPU -> NIC rail mapping, switch and NIC models, per-design notes).

#include "engine/fabric/fabricgraph.h"

#include <string>
#include <vector>

namespace clusterscope::engine {

/// What kind of builder produced the design (drives the default physical layout).
enum class FabricFamily { Clos, RailOptimized, Dragonfly, Torus };

struct FabricDesign {
    FabricGraph graph;
    FabricFamily family = FabricFamily::Clos;
    std::vector<NodeId> gpus; ///< GPU node of each rank (rank = host * gpusPerNode + local index)
    std::vector<NodeId> nics; ///< NIC nodes, host-major (host * nicsPerNode + rail)
    std::vector<std::int32_t> nicOfGpu; ///< index into `nics` of the NIC each rank uses (rail mapping)
    int hosts = 0; ///< GPU servers
    int gpusPerNode = 0;
    int nicsPerNode = 0;
    double nicGbps = 0; ///< NIC line rate (Gb/s), split over planes x (dual-ToR ? 2 : 1) ports
    int planes = 1;
    bool dualTor = false;
    int tiers = 0; ///< switching tiers built (0 for a direct network)
    int leafDownPorts = 0; ///< Clos: leaf ports towards the nodes
    int leafUpPorts = 0; ///< Clos: leaf ports towards the spines
    int scalableUnits = 0; ///< rail-optimized: SUs built (whole-SU rounding)
    int pods = 0; ///< three-tier Clos: pods (SUs for rail-optimized)
    int nvlinkDomainGpus = 0; ///< GPUs per scale-up domain (0: none)
    bool nicsForward = false; ///< direct networks (torus): NIC nodes forward transit traffic
    std::string switchModel; ///< catalog switch id used for every switch ("" when none)
    std::string nicModel; ///< catalog NIC id
    std::string gpuModel; ///< catalog GPU id
    std::vector<std::string> notes; ///< decisions the user should see (tiers raised, SU rounding, ...)
};

} // namespace clusterscope::engine
