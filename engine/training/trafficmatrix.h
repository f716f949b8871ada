#pragma once

// The GPU-pair traffic matrix of one training iteration, stored by group structure: one pattern per
// parallelism dimension (who talks to whom inside each group and how many bytes per pair), never
// as a dense GPU x GPU matrix. Pair lookups and node/rack aggregates are computed from the patterns.

#include "engine/training/groupplacer.h"

#include <array>
#include <functional>
#include <vector>

namespace clusterscope::engine {

struct TrainingEstimate;

enum class TrafficDimension { TP, CP, DP, EP, PP };
inline constexpr int kTrafficDimensions = 5;
const char* toString(TrafficDimension dimension); ///< "tp", "cp", "dp", "ep", "pp"

/// Link classes, the spanTier of GroupPlacement: 0 scale-up (NVLink), 1 under one leaf,
/// 2 through spines, 3 through the core.
inline constexpr int kLinkClasses = 4;
const char* linkClassName(int linkClass); ///< "scale_up", "leaf", "spine", "core"

/// One dimension's traffic: groups of `groupSize` GPUs spaced `strideGpus` apart (GPU g belongs to
/// the group of index (g / stride) % size; its members are base + k x stride).
struct TrafficPattern {
    enum class Shape {
        Ring, ///< ring collectives: NCCL channels (ncclringsends.h); ring attention (CP): k to k + 1 (mod n)
        AllToAll, ///< every member sends to every other member
        Chain, ///< member k sends to k + 1 (forward) and to k - 1 (backward): pipeline stages
        BiRing ///< Chain closed into a ring: interleaved virtual stages wrap from last to first
    };
    TrafficDimension dimension = TrafficDimension::DP;
    Shape shape = Shape::Ring;
    int groupSize = 1;
    long long strideGpus = 1;
    double bytesPerPair = 0; ///< bytes per iteration one member sends to each partner (per direction)
};

/// A square block aggregate: blocks x blocks, bytes[src * blocks + dst].
struct BlockTraffic {
    long long gpusPerBlock = 1;
    long long blocks = 0;
    std::vector<double> bytes;
    double at(long long src, long long dst) const { return bytes[src * blocks + dst]; }
};

class TrafficMatrix {
public:
    /// Patterns of `estimate` (its bytesSent per dimension) on the groups `placer` lays out.
    static TrafficMatrix fromEstimate(const TrainingEstimate& estimate, const GroupPlacer& placer);

    long long gpus() const { return m_gpus; }
    const std::vector<TrafficPattern>& patterns() const { return m_patterns; }
    /// Bytes GPU `src` sends to GPU `dst` in one iteration, per dimension.
    std::array<double, kTrafficDimensions> pairBytes(long long src, long long dst) const;
    double pairTotalBytes(long long src, long long dst) const;
    /// Total bytes of the iteration over the whole cluster, by dimension and link class.
    std::array<std::array<double, kLinkClasses>, kTrafficDimensions> totalsByClass() const;
    /// Sum over blocks of `gpusPerBlock` consecutive GPUs (a node: gpus_per_node; a rack:
    /// gpus_per_node x nodes_per_rack). Cost O(gpus x partners), memory O(blocks^2).
    BlockTraffic aggregate(long long gpusPerBlock) const;

    /// Calls visit(src, dst, dimensionIndex, bytes) for every (source GPU, partner) of every pattern,
    /// in pattern order; the pair enumeration every aggregate above is built from.
    void visitSends(const std::function<void(long long src, long long dst, int dimension, double bytes)>& visit) const;

private:
    template <typename Visit> void forEachSend(Visit&& visit) const; // visit(src, dst, dimensionIndex, bytes)

    long long m_gpus = 0;
    GroupPlacer m_placer;
    std::vector<TrafficPattern> m_patterns;
};

} // namespace clusterscope::engine
