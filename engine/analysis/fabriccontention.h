#pragma once

// How much slower traffic crossing the spines (and the core) runs than it would on a perfectly
// balanced fabric, from the per-link loads of a routed traffic matrix. A synchronous collective
// runs at the pace of its most loaded link (max-min fairness: Bertsekas and Gallager 1992), and a
// perfectly balanced placement would spread each switch's upward traffic evenly over its uplinks,
// except that one flow cannot be split (without spraying): so slowdown = (most loaded uplink) /
// (largest, over switches, of max(mean uplink load, largest single flow on its uplinks)). Static ECMP hashing
// of few long flows gives ~2.6x on 8 uplinks (1 - (1-1/n)^n usage); adaptive routing and
// spraying come out near 1.

#include "engine/fabric/fabricgraph.h"

#include <optional>
#include <span>
#include <string>

namespace clusterscope::engine {

struct TierContention {
    double spineSlowdown = 1.0; ///< leaf <-> spine links (>= 1)
    double coreSlowdown = 1.0; ///< spine <-> core links (>= 1)
};

/// `directedBytes` holds bytes per directed link (2 x links: a->b then b->a), as
/// FlowModel::linkBytes returns them; `largestFlowBytes` (same indexing, may be empty) the bytes of
/// the largest single (sub-)flow on each directed link. Links flagged missing are ignored.
TierContention contentionFromLinkLoads(
    const FabricGraph& graph, std::span<const double> directedBytes, std::span<const double> largestFlowBytes = {});

/// The one "busiest link" figure every view states (3D view, CLI, report, compare): the link with
/// the highest utilisation averaged over one iteration (ScenarioAnalysis::linkUtilisation, the
/// busier direction), ignoring links flagged missing.
struct BusiestLink {
    LinkId link = 0;
    double utilisation = 0; ///< bytes carried / (capacity x iteration time); above 1: over capacity
    LinkLevel level = LinkLevel::Other;
};
/// Null when `utilisation` is empty or does not cover the graph's links.
std::optional<BusiestLink> busiestLink(const FabricGraph& graph, std::span<const float> utilisation);

/// The busiest network link: the same figure over the links between a NIC and a switch or between
/// switches (every level but LinkLevel::Internal, the GPU-NIC and NVLink links inside a server).
/// Beside busiestLink() when that one is inside a server. Null as busiestLink(), or without
/// network links.
std::optional<BusiestLink> busiestNetworkLink(const FabricGraph& graph, std::span<const float> utilisation);

/// Whether the fabric has at least one (present) link at `level`: a core tier exists only when
/// spine-core links do.
bool hasLinksAt(const FabricGraph& graph, LinkLevel level);

/// "16% busy", "1.9% busy" below 10%, or "7.2x over capacity" above 100% (an average above capacity means the traffic
/// needs that many iterations' worth of time on this link).
std::string describeUtilisation(double utilisation);

/// "spine links x2.46" plus ", core links x2.50" only when the fabric has a core tier.
std::string describeContention(const FabricGraph& graph, double spineSlowdown, double coreSlowdown);

} // namespace clusterscope::engine
