#pragma once

// One numbering of where traffic travels. A link class counts outwards from the GPU: the
// collective model's span tier (CollectiveGroup::spanTier, LinkClassBytes::tierBytes) and the
// traffic matrix's link classes both use it. The fabric graph numbers *switch* tiers from the
// leaves instead (kTierLeaf = 0, kTierSpine = 1, kTierCore = 2 in engine/fabric/fabricgraph.h):
// traffic that turns around at a switch of tier t is of class linkClassOfSwitchTier(t) = t + 1.

namespace clusterscope::engine {

enum LinkClass : int {
    kLinkClassScaleUp = 0, ///< inside one scale-up (NVLink) domain
    kLinkClassLeaf = 1, ///< between servers under one leaf switch
    kLinkClassSpine = 2, ///< through the spines (within a pod)
    kLinkClassCore = 3, ///< through the core (between pods)
};
inline constexpr int kLinkClassCount = 4;

/// The link class of traffic that turns around at a switch of fabric tier `switchTier`.
constexpr int linkClassOfSwitchTier(int switchTier) { return switchTier + 1; }

/// "scale_up", "leaf", "spine", "core" (the JSON keys), "?" for anything else (also declared in
/// engine/training/trafficmatrix.h).
const char* linkClassName(int linkClass);

} // namespace clusterscope::engine
