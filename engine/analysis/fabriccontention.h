#pragma once

// How much slower traffic crossing the spines (and the core) runs than it would on a perfectly
// balanced fabric, from the per-link loads of a routed traffic matrix. A synchronous collective
// runs at the pace of its most loaded link (max-min fairness: Bertsekas and Gallager 1992), and a
// perfectly balanced placement would spread each switch's upward traffic evenly over its uplinks,
// except that one flow cannot be split (without spraying): so slowdown = (most loaded uplink) /
// (largest, over switches, of max(mean uplink load, largest single flow on its uplinks)). Static ECMP hashing
// of few long flows gives ~2.6x on 8 uplinks (1 - (1-1/n)^n usage); adaptive routing and
// spraying come out near 1.

#include <span>

namespace clusterscope::engine {

class FabricGraph;

struct TierContention {
    double spineSlowdown = 1.0; ///< leaf <-> spine links (>= 1)
    double coreSlowdown = 1.0;  ///< spine <-> core links (>= 1)
};

/// `directedBytes` holds bytes per directed link (2 x links: a->b then b->a), as
/// FlowModel::linkBytes returns them; `largestFlowBytes` (same indexing, may be empty) the bytes of
/// the largest single (sub-)flow on each directed link. Links flagged missing are ignored.
TierContention contentionFromLinkLoads(
    const FabricGraph& graph, std::span<const double> directedBytes, std::span<const double> largestFlowBytes = {});

} // namespace clusterscope::engine
