#pragma once

// Flow-level network model: a traffic matrix of (source GPU, destination GPU, bytes) placed on the
// fabric's shortest paths by static ECMP hashing, adaptive (least-loaded) routing or packet
// spraying; per-link loads; max-min fair rates by progressive filling (the method of flow-level
// simulators such as SimGrid: Velho et al., ACM TOMACS 23(4), 2013); the completion time and
// slowdown of a synchronous collective. Links flagged kLinkMissing are not used.

#include "engine/core/status.h"
#include "engine/fabric/fabricdesign.h"

#include <cstdint>
#include <span>
#include <vector>

namespace clusterscope::engine {

/// One transfer between two GPUs given by rank (index into FabricDesign::gpus).
struct Flow {
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    double bytes = 0; ///< bytes to move (B)
};

enum class RoutingMode {
    Ecmp, ///< static hash of the flow (and queue pair) picks one equal-cost next hop per switch
    Adaptive, ///< each flow takes the least-loaded equal-cost next hop (flows placed in order)
    Spray, ///< every flow is split evenly over all equal-cost next hops (packet spraying)
};

struct FlowOptions {
    RoutingMode routing = RoutingMode::Ecmp;
    int queuePairs = 1; ///< ECMP: each flow is split into this many independently hashed sub-flows
    std::uint64_t hashSeed = 0; ///< ECMP: a different seed is a different hash function (sampling)
    bool useScaleUp = true; ///< same NVLink domain: use NVLink instead of the network
    /// Share of every link's rate that transfers can use: congestion-control efficiency times
    /// go-back-N efficiency under loss (lossmodel.h). Ideal times stay at the nominal rate, so the
    /// slowdown includes this loss.
    double linkEfficiency = 1.0;
};

/// Paths of the routed sub-flows. A sub-flow's path is a list of (directed link, weight): weight 1
/// on a single path, fractions when sprayed. Directed link = link id * 2 + (0: a->b, 1: b->a).
struct FlowPlacement {
    std::vector<std::uint32_t> flowOf; ///< sub-flow -> index of its flow
    std::vector<double> bytes; ///< sub-flow bytes
    std::vector<std::uint32_t> start; ///< sub-flow -> first entry
    std::vector<std::uint32_t> length; ///< sub-flow -> number of entries (0 = unroutable)
    std::vector<std::uint32_t> dlinks; ///< entries: directed links
    std::vector<float> weights; ///< entries: share of the sub-flow on that link
    std::vector<std::uint32_t> unroutable; ///< flows with no path (disconnected by failures)
    double linkEfficiency = 1.0; ///< FlowOptions::linkEfficiency the placement was routed with
};

struct CollectiveTiming {
    double seconds = 0; ///< max over sub-flows of bytes / max-min rate (all flows start together)
    double linkBoundSeconds = 0; ///< max over links of load / capacity (perfect sharing lower bound)
    double idealSeconds = 0; ///< max over flows of bytes / the flow's bottleneck with no other traffic
    double slowdown = 1; ///< seconds / idealSeconds (>= 1): contention and oversubscription
    double maxUtilisation = 0; ///< highest link utilisation under the max-min rates (0..1)
    double meanUtilisation = 0; ///< mean over links carrying traffic
    std::size_t unroutableFlows = 0;
};

struct Scenario;

/// Flow options a scenario asks for: communication.routing, and the link efficiency from
/// communication.loss_rate (go-back-N at the NIC rate with `rttSeconds` and `mtuBytes`) times
/// `congestionControlEfficiency`.
FlowOptions flowOptionsFor(const Scenario& scenario, double rttSeconds = 10e-6, double mtuBytes = 4096,
    double congestionControlEfficiency = 1.0);

class FlowModel {
public:
    /// Indexes `design` (the design must outlive the model; rebuild after changing link flags).
    explicit FlowModel(const FabricDesign& design);

    /// Routes `flows`. Errors name a flow whose rank is out of range.
    Result<FlowPlacement> route(std::span<const Flow> flows, const FlowOptions& options) const;

    /// Bytes per directed link (size 2 x links).
    std::vector<double> linkBytes(const FlowPlacement& placement) const;

    /// Max-min fair rate (Gb/s) of every sub-flow by weighted progressive filling; unroutable: 0.
    std::vector<double> maxMinRatesGbps(const FlowPlacement& placement) const;

    /// Timing of a synchronous collective made of `flows` (routes, loads, max-min).
    Result<CollectiveTiming> time(std::span<const Flow> flows, const FlowOptions& options) const;
    /// Timing of flows already routed (loads and max-min on `placement`).
    CollectiveTiming timing(const FlowPlacement& placement) const;

    /// Static ECMP sampled over `samples` hash seeds (options.hashSeed, +1, ...): the mean, lowest and
    /// highest slowdown of the collective. Hash collisions make ECMP a distribution, not a number.
    struct SampledSlowdown {
        double mean = 1, min = 1, max = 1;
    };
    Result<SampledSlowdown> sampleEcmpSlowdown(std::span<const Flow> flows, FlowOptions options, int samples) const;

    /// Capacity (Gb/s) of a directed link.
    double capacityGbps(std::uint32_t dlink) const { return m_design.graph.link(dlink >> 1).gbps; }
    const FabricDesign& design() const { return m_design; }

private:
    struct Walk;
    void bfsFrom(const std::vector<std::uint32_t>& anchors, std::vector<std::uint16_t>& dist) const;

    const FabricDesign& m_design;
    std::vector<std::int32_t> m_transit; // node -> transit index (switches; NICs when forwarding) or -1
    std::vector<NodeId> m_transitNode; // transit index -> node
    std::vector<std::uint32_t> m_adjStart; // transit CSR over usable links
    std::vector<std::uint32_t> m_adjNbr; // neighbour transit index
    std::vector<LinkId> m_adjLink;
    std::vector<std::uint32_t> m_portStart; // per NIC (index into design.nics): usable links to transit nodes
    std::vector<LinkId> m_portLink;
    std::vector<std::uint32_t> m_nicIndex; // node -> index into design.nics (or kNoId)
    std::vector<LinkId> m_pcie; // rank -> GPU-NIC link (kNoId when none)
    std::vector<LinkId> m_scaleUp; // rank -> GPU-NvSwitch link (kNoId when none)
};

} // namespace clusterscope::engine
