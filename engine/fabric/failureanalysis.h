#pragma once

// What-if failures: remove links, switches or a whole plane and report what is left: bisection,
// the GPU pairs that lose the most bandwidth for a probe traffic matrix, and the GPUs cut off.

#include "engine/core/status.h"
#include "engine/fabric/flowmodel.h"

#include <vector>

namespace clusterscope::engine {

struct FailureSpec {
    std::vector<LinkId> links; ///< links to remove
    std::vector<NodeId> switches; ///< switches to remove (all their links go)
    int plane = -1; ///< remove every switch of this plane (-1: none)
};

struct PairImpact {
    std::uint32_t src = 0, dst = 0; ///< ranks
    double rateBeforeGbps = 0; ///< max-min rate of the flow before the failure
    double rateAfterGbps = 0; ///< after (0 when the pair lost connectivity)
};

struct FailureReport {
    std::size_t linksRemoved = 0; ///< including the links of removed switches
    double bisectionBeforeGbps = 0;
    double bisectionAfterGbps = 0;
    std::vector<std::uint32_t> disconnectedGpus; ///< ranks whose NIC no longer reaches the main fabric
    std::vector<PairImpact> worstPairs; ///< probe flows with the largest relative loss, worst first
    CollectiveTiming before; ///< probe traffic timing before the failure
    CollectiveTiming after; ///< and after (unroutable flows excluded from `seconds`)
};

/// A copy of `design` with the failed links flagged kLinkMissing. Errors name an id out of range.
Result<FabricDesign> applyFailures(const FabricDesign& design, const FailureSpec& failures);

/// Ranks whose NIC cannot reach the largest connected part of the scale-out network.
std::vector<std::uint32_t> disconnectedGpus(const FabricDesign& design);

/// Applies `failures` and compares: bisection, disconnected GPUs, and the `worst` probe flows
/// (ranked by rate after / rate before) under `options`.
Result<FailureReport> analyseFailures(const FabricDesign& design, const FailureSpec& failures,
    std::span<const Flow> probe, const FlowOptions& options, std::size_t worst = 10);

} // namespace clusterscope::engine
