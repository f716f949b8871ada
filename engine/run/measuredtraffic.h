#pragma once

// Measured GPU-pair traffic of an imported run as one sparse list of pairs: the analysis builds it,
// the project store writes and reads it row by row and the heatmap queries it by source rank. No
// dense rank x rank structure anywhere: a 16,384-rank ring holds ~2 pairs per rank, not 268 M cells.

#include <cstdint>
#include <span>
#include <vector>

namespace clusterscope::engine {

/// Bytes global rank `src` sent to global rank `dst` over the imported steps.
struct RankTrafficPair {
    std::int32_t src = 0;
    std::int32_t dst = 0;
    double bytes = 0; ///< bytes (not bits), summed over the run
    bool operator==(const RankTrafficPair&) const = default;
};

/// The measured traffic of a run. Invariant (kept by makeMeasuredTraffic): pairs sorted by
/// (src, dst), one entry per pair, 0 <= src, dst < ranks, src != dst, bytes > 0.
struct MeasuredTraffic {
    std::int32_t ranks = 0; ///< 1 + the highest global rank the run's traffic refers to (0 = none)
    std::vector<RankTrafficPair> pairs;

    /// Bytes src sent to dst (0 when the pair is absent). O(log pairs).
    double at(std::int32_t src, std::int32_t dst) const;
    /// The pairs sent by `src`, in destination order. O(log pairs).
    std::span<const RankTrafficPair> sentBy(std::int32_t src) const;
    /// Sum over all pairs in (src, dst) order, bytes.
    double totalBytes() const;
    bool operator==(const MeasuredTraffic&) const = default;
};

/// Builds the invariant from arbitrary pairs: sorts by (src, dst) keeping the given order among
/// equal pairs, sums duplicates in that order, drops self pairs, non-positive bytes and pairs
/// outside [0, ranks).
MeasuredTraffic makeMeasuredTraffic(std::int32_t ranks, std::vector<RankTrafficPair> pairs);

} // namespace clusterscope::engine
