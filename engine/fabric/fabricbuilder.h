#pragma once

// Builders for every topology the scenario can name. Each returns a FabricDesign whose graph holds
// GPUs, NICs (with the GPU-to-NIC rail mapping), scale-up domains and the switched or direct network.
// Sizing: Al-Fares et al., SIGCOMM 2008 (fat-tree); Kim et al., ISCA 2008 (dragonfly); NVIDIA DGX SuperPOD RA.

#include "engine/core/status.h"
#include "engine/fabric/fabricdesign.h"

#include <vector>

namespace clusterscope::engine {

class Catalog;
struct Scenario;

/// The servers: GPUs, NICs and the scale-up (NVLink) domain. Rates are per direction in Gb/s.
struct HostOptions {
    int hosts = 1;
    int gpusPerNode = 8;
    int nicsPerNode = 8;
    double nicGbps = 400;
    int nvlinkDomainGpus = 8; ///< GPUs per scale-up domain (8: HGX NVSwitch, 72: NVL72; 1 = none)
    bool nvlinkSwitched = true; ///< NVSwitch (one NvSwitch node per domain) or a point-to-point mesh
    double nvlinkGbps = 3600; ///< scale-up bandwidth per GPU per direction (H100: 450 GB/s)
    int nvlinkLanes = 18; ///< NVLink links per GPU
    double pcieGbps = 512; ///< GPU-NIC PCIe bandwidth per direction (Gen5 x16: 64 GB/s)
};

/// Fat-tree, leaf-spine and rail-optimized Clos fabrics.
struct ClosOptions {
    int radix = 64; ///< switch ports
    int tiers = 2; ///< 1, 2 or 3; raised (with a note) when the endpoints do not fit
    double oversubscription = 1.0; ///< leaf down:up ratio (3.0 = 3:1)
    bool railOptimized = false; ///< NIC rail r of every node in a scalable unit goes to leaf r
    int nodesPerSu = 0; ///< rail-optimized: node slots per SU (0 = the leaf's down ports)
    bool ufmSlot = false; ///< rail-optimized: one node slot holds the UFM appliance (H100 SuperPOD)
    int ufmPorts = 4; ///< leaf ports the UFM appliance uses
    int planes = 1; ///< independent copies of the fabric; each NIC splits over them
    bool dualTor = false; ///< each NIC port dual-homed to a pair of leaves
};

/// GPUs, NICs, PCIe and scale-up links of `hosts` servers (no network yet).
FabricDesign buildHosts(const HostOptions& hosts);

/// A Clos (folded fat-tree) over the NICs of `hosts`. Two tiers: spines = the smallest divisor of the
/// leaf up-ports that gives every leaf the same number of links to each spine; three tiers: pods of
/// leaves (an SU for rail-optimized, radix/2 leaves otherwise) with their own spines and a core.
Result<FabricDesign> buildClos(const HostOptions& hosts, const ClosOptions& clos);

/// Dragonfly (Kim et al., ISCA 2008): p NIC ports per router, a routers per group (all-to-all inside
/// the group), h global links per router; groups as many as the NICs need, at most a h + 1.
Result<FabricDesign> buildDragonfly(const HostOptions& hosts, int p, int a, int h);

/// Direct 2D/3D torus of servers (TPU v4 style: no switches); each server's NIC bandwidth is spread
/// over its 2 x dims neighbours and NICs forward transit traffic. dims must multiply to the hosts.
Result<FabricDesign> buildTorus(const HostOptions& hosts, const std::vector<int>& dims);

/// The design a scenario describes (cluster.fabric, nic, gpus, catalog models). Errors name the
/// scenario's JSON pointer.
Result<FabricDesign> buildFabric(const Scenario& scenario, const Catalog& catalog);

/// Wraps a graph that has no GPUs (an imported ibnetdiscover fabric) so that the flow model,
/// bisection and failure analysis can run on it: every NIC node (HCA port) becomes the NIC of one
/// GPU added to the graph (a PCIe link at the NIC's fastest link rate); NICs that share a `host`
/// index >= 0 form one server, others are a server each. Host nodes (appliances) are left alone.
FabricDesign designFromGraph(FabricGraph graph);

/// Smallest divisor of `n` that is >= `atLeast` (n itself when none is smaller).
int smallestDivisorAtLeast(int n, int atLeast);

} // namespace clusterscope::engine
