#pragma once

// Collective communication cost model following NCCL's own tuner (src/graph/tuning.cc, constants
// in nccltuningtables.h) for the choice of algorithm and protocol, and NCCL's pipelining
// (src/enqueue.cc calcCollChunking, ncclpipeline.cpp) for the time the chosen one takes; extended
// with the textbook algorithms NCCL does not implement (recursive halving-doubling, one-shot direct,
// hierarchical, parameter server). Units: seconds, bytes, bytes per second (SI, 1 GB/s = 1e9 B/s).

#include "engine/collectives/collectivecalibration.h"
#include "engine/collectives/collectiveop.h"
#include "engine/core/status.h"

#include <optional>
#include <string_view>

namespace clusterscope::engine {

struct Scenario;
class Catalog;

enum class CollectiveAlgorithm {
    Auto,
    Ring,
    Tree,
    Nvls,
    NvlsTree,
    CollNetDirect,
    CollNetChain,
    Pat,
    HalvingDoubling,
    Direct,
    Hierarchical,
    ParameterServer
};
enum class CollectiveProtocol { LL, LL128, Simple };

inline constexpr int kCollectiveProtocolCount = 3;

/// "auto", "ring", "tree", "nvls", "nvlstree", "collnet_direct", "collnet_chain", "pat",
/// "halving_doubling", "direct", "hierarchical", "parameter_server"
const char* toString(CollectiveAlgorithm algorithm);
/// "LL", "LL128", "Simple"
const char* toString(CollectiveProtocol protocol);

/// Parses the names above (case-insensitive); also accepts the CLI spellings
/// "collnet" (= collnet_direct), "halving-doubling", "parameter-server", "ps".
std::optional<CollectiveAlgorithm> parseCollectiveAlgorithm(std::string_view text);

/// Where a group's ranks sit on the cluster.
struct GroupPlacement {
    int ranks = 1; ///< ranks in the group
    int ranksPerNode = 1; ///< ranks of the group inside one node / scale-up (NVLink) domain
    int nicsPerNode = 1; ///< NICs per node the group's inter-node traffic can use (rails)
    int spanTier = 0; ///< highest fabric tier inter-node traffic crosses: 0 none (one node),
                      ///< 1 leaf, 2 spine, 3 core
    int nodesPerLeaf = 0; ///< addition: nodes of the group under one leaf switch (0 = the model's
                          ///< figure from the scenario's fabric); used by three-level hierarchical
                          ///< reduction and the per-tier byte split
    int gpusPerThread = 1; ///< addition: GPUs whose kernels one host thread launches in turn for each call
                           ///< (nccl-tests `-g G`: one thread drives G GPUs); 1 = one process per GPU
};

/// Bytes one rank sends on each class of link during the collective (for traffic matrices and
/// flow-level placement). Averaged over the group's ranks.
struct LinkClassBytes {
    double scaleUpBytes = 0; ///< NVLink / NVSwitch / Infinity Fabric
    double nicBytes = 0; ///< leaving the node through the NIC(s)
    double tierBytes[4] = {}; ///< [1] under a leaf, [2] through spines, [3] through the core
};

struct CollectiveRequest {
    CollectiveOp op = CollectiveOp::AllReduce;
    double bytes = 0; ///< nccl-tests "size" S (bytes; NVIDIA/nccl-tests doc/PERFORMANCE.md)
    GroupPlacement group;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
};

struct CollectiveEstimate {
    double seconds = 0;
    double algbwBytesPerSecond = 0; ///< S / t (nccl-tests algbw, B/s)
    double busbwBytesPerSecond = 0; ///< algbw x factor (nccl-tests busbw, B/s)
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring; ///< the one used (chosen when Auto)
    CollectiveProtocol protocol = CollectiveProtocol::Simple;
    LinkClassBytes perRankBytes;
    // Additions.
    bool valid = true; ///< false when the requested algorithm cannot run this op on this
                       ///< placement (then seconds is +infinity; check() says why)
    double latencySeconds = 0; ///< the latency part of `seconds` (calibrated)
    double hubBytes = 0; ///< ParameterServer: bytes through the busiest hub (push + pull, 2N x S)
    double flows = 0; ///< concurrent point-to-point flows the algorithm opens (whole group)
};

/// The uncalibrated terms of one (algorithm, protocol) evaluation. NCCL's tuner chooses on
/// latency + bandwidth (src/graph/tuning.cc); the time the collective takes is achievedLatency +
/// achievedBandwidth: the per-call launch overhead beyond the tuner's latency, and the chunk
/// pipeline NCCL runs (fill and drain of the chunks through the algorithm's stages, with the chunk
/// sizes src/enqueue.cc picks for the size), ncclpipeline.cpp. Exposed so that a least-squares fit
/// can regress measured times on them.
struct CollectiveTerms {
    bool supported = false;
    double latencySeconds = 0; ///< NCCL's latency term (base + hardware latencies), s
    double bandwidthSeconds = 0; ///< bytes / NCCL's bandwidth, s
    double achievedLatencySeconds = 0; ///< latencySeconds + per-call overhead, s
    double achievedBandwidthSeconds = 0; ///< bandwidthSeconds through the chunk pipeline, s
    int tier = 0; ///< calibration tier: 0 intra-node, 1 inter-node
};

/// Link figures the model derives from a scenario and the catalog (exposed for tests and reports).
struct CollectiveHardware {
    int archIndex = 2; ///< NCCL table column: 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell
    bool nvlink = true; ///< scale-up links exist (else intra-node traffic uses PCIe)
    /// The scale-up links are NVIDIA NVLink, for which NCCL's per-channel figures hold (kNvlinkChannelGBps):
    /// false for AMD Infinity Fabric, whose RCCL runs its own channel counts.
    bool nvlinkChannelFigures = true;
    bool nvlsCapable = false; ///< NVSwitch with in-switch reduction (Hopper and later)
    bool infiniband = true; ///< transport is InfiniBand (CollNet/SHARP needs it)
    bool collNetInAuto = false; ///< Auto weighs CollNet (NCCL_COLLNET_ENABLE=1 with a SHARP plugin;
                                ///< NCCL's default is 0, so Auto leaves it out unless set)
    double intraBytesPerSecond = 0; ///< per-GPU scale-up bandwidth as NCCL counts it (B/s)
    int intraChannels = 16; ///< NCCL channels intra-node
    double nicBytesPerSecond = 0; ///< effective rate of one NIC (B/s)
    double copyBytesPerSecond = 0; ///< local copy rate for a group of one rank (B/s)
    int nicsPerNode = 1; ///< NICs per node
    int gpusPerNode = 8; ///< GPUs per server
    int domainGpus = 8; ///< GPUs per scale-up (NVLink) domain
    int totalGpus = 8; ///< GPUs in the cluster
    double oversubscription = 1.0; ///< leaf down:up ratio
    int fabricTiers = 2; ///< switching tiers
    int nodesPerLeaf = 32; ///< domains under one leaf switch
    int nodesPerPod = 1024; ///< domains under one spine pod (below the core)
    // The net transport (catalog net_transports): the NCCL settings it runs under and its cost.
    unsigned algorithmMask = ~0u; ///< bit 1 << CollectiveAlgorithm of each algorithm Auto may pick (NCCL_ALGO)
    unsigned protocolMask = 0x7u; ///< bit 1 << CollectiveProtocol of each protocol NCCL may run (NCCL_PROTO)
    /// Simple chunk: NCCL_BUFFSIZE (default 4 MiB, src/init.cc) / NCCL_STEPS (8, src/include/device.h), bytes
    double simpleStepBytes = 4.0 * 1024 * 1024 / 8;
    double netCallOverheadSeconds = 0; ///< per call across nodes beyond NCCL's own (s)
    /// Point-to-point chunk across nodes: NCCL_P2P_NET_CHUNKSIZE (128 KiB), x 2 on Grace-Blackwell hosts
    /// (src/init.cc computeBuffSizes), bytes
    double p2pNetChunkBytes = 128.0 * 1024;
    /// NCCL_VERSION_CODE whose tuner constants apply (major x 10000 + minor x 100 + patch, as nccl-tests
    /// prints nccl-library=22602); 0 = the newest NCCL modelled (2.29). Set from an nccl-tests log.
    int ncclVersionCode = 0;
};

class CollectiveModel {
public:
    /// Link figures from the scenario's cluster (GPU arch, scale-up bandwidth and domain, NIC rate
    /// and count, transport, fabric oversubscription) and the catalog.
    static Result<CollectiveModel> fromScenario(const Scenario& scenario, const Catalog& catalog);
    /// A model over explicit hardware figures (tests, what-if studies).
    explicit CollectiveModel(const CollectiveHardware& hardware);

    /// Hot path (>= 5 million calls/s on one core): no allocation, no I/O.
    CollectiveEstimate estimate(const CollectiveRequest& request) const;

    /// Why `request` cannot be evaluated as asked (bad placement, algorithm unsupported for this
    /// op/placement/hardware); success when estimate() gives a valid result.
    Status check(const CollectiveRequest& request) const;

    /// Uncalibrated latency and bandwidth terms of one algorithm and protocol (no Auto).
    CollectiveTerms terms(
        const CollectiveRequest& request, CollectiveAlgorithm algorithm, CollectiveProtocol protocol) const;

    /// Consecutive placement of `ranks` ranks filling scale-up domains first (rank r on domain
    /// r / domainGpus), with the NIC rails of the GPUs used and the highest fabric tier crossed.
    GroupPlacement placementFor(int ranks) const;

    /// The situation of an nccl-tests header (`# nRanks N nNodes M`): `ranks` spread evenly over
    /// `nodes` nodes of this cluster. For comparing measured rows with the model.
    /// `gpusPerThread`: the header's nGpus (GPUs one thread of the test drives, `-g`).
    CollectiveEstimate evaluateNcclTests(CollectiveOp op, double bytes, int ranks, int nodes,
        CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto, int gpusPerThread = 1) const;
    /// The placement evaluateNcclTests() uses.
    GroupPlacement placementForNcclTests(int ranks, int nodes, int gpusPerThread = 1) const;

    void setCalibration(const CollectiveCalibration& calibration) { m_calibration = calibration; }
    const CollectiveCalibration& calibration() const { return m_calibration; }
    const CollectiveHardware& hardware() const { return m_hardware; }
    /// Lets Auto pick CollNet (SHARP) on InfiniBand, as NCCL_COLLNET_ENABLE=1 does.
    void setCollNetInAuto(bool enabled) { m_hardware.collNetInAuto = enabled; }
    /// The NCCL whose tuner constants apply (CollectiveHardware::ncclVersionCode; 0 = newest).
    void setNcclVersionCode(int code) { m_hardware.ncclVersionCode = code; }

private:
    CollectiveHardware m_hardware;
    CollectiveCalibration m_calibration;
};

} // namespace clusterscope::engine
