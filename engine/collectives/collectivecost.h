#pragma once

// Internal to engine/collectives: the per-request context and the cost function of each algorithm.
// Every cost function returns the uncalibrated latency and bandwidth terms and, when `bytes` is not
// null, the bytes one rank sends per link class.

#include "engine/collectives/collectivemodel.h"
#include "engine/collectives/nccltuningtables.h"

#include <cmath>

namespace clusterscope::engine::collectives {

/// Figures of one request derived once from the hardware and the placement.
struct GroupContext {
    int ranks = 1; ///< n
    int ranksPerNode = 1; ///< ppn (ranks of the group per node / scale-up domain)
    int nodes = 1; ///< nNodes = ceil(n / ppn)
    int nics = 1; ///< rails used per node
    int spanTier = 0; ///< highest fabric tier crossed (0..3)
    int capIndex = 0; ///< NCCL cap column: nNodes <= 2 ? nNodes - 1 : 2
    int nodesPerLeaf = 1; ///< nodes of the group under one leaf
    int nodesPerPod = 1; ///< nodes of the group under one spine pod
    double channels = 1; ///< NCCL channels of ring/tree
    double intraBytesPerSecond = 0; ///< per-GPU scale-up bandwidth (+inf when ppn == 1)
    double interBytesPerSecond = 0; ///< NIC bandwidth of one node for this group (rails x NIC, over oversubscription)
    double nicBytesPerSecond = 0; ///< one NIC (one rail)
    int intraHw = 0; ///< nccl::kNvlink or nccl::kPci
    int gpusPerThread = 1; ///< GPUs one host thread launches in turn per call (GroupPlacement)
};

/// False when the placement is not meaningful (ranks < 1, ranksPerNode < 1, nicsPerNode < 1).
bool placementIsValid(const GroupPlacement& group);
GroupContext makeContext(const CollectiveHardware& hw, const GroupPlacement& group);

/// NCCL algorithms: Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT (ncclcost.cpp).
CollectiveTerms ncclCost(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
    CollectiveAlgorithm algorithm, CollectiveProtocol protocol, LinkClassBytes* linkBytes);

/// Fills t.achievedLatencySeconds and t.achievedBandwidthSeconds of an NCCL algorithm's terms: the
/// per-call overhead and the chunk pipeline of src/enqueue.cc (ncclpipeline.cpp).
void applyNcclPipeline(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
    CollectiveAlgorithm algorithm, CollectiveProtocol protocol, CollectiveTerms& t);

/// Algorithms NCCL does not run: HalvingDoubling, Direct, Hierarchical, ParameterServer (extracost.cpp).
/// `hubBytes` receives the parameter server's hub load when not null.
CollectiveTerms extraCost(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
    CollectiveAlgorithm algorithm, CollectiveProtocol protocol, LinkClassBytes* linkBytes, double* hubBytes);

/// Splits `nicBytes` over fabric tiers 1..3. `neighbourTraffic`: peers are adjacent nodes (ring
/// order), so only the hops at leaf/pod boundaries go up; otherwise peers are spread uniformly.
void splitTiers(const GroupContext& ctx, double nicBytes, bool neighbourTraffic, LinkClassBytes& out);

/// Concurrent point-to-point flows the algorithm opens for the whole group.
double flowCount(const GroupContext& ctx, CollectiveOp op, CollectiveAlgorithm algorithm);

/// floor(log2(x)) for x >= 1, 0 otherwise (NCCL's log2i).
inline int log2Floor(double x)
{
    if (!(x >= 2.0))
        return 0;
    if (x >= 9.2e18) // beyond uint64: fall back to the exponent
        return std::ilogb(x);
    return 63 - __builtin_clzll(static_cast<unsigned long long>(x));
}

/// NCCL's treeCorrectionFactor for a Tree AllReduce of `bytes` and `protocol` (nccltuningtables.h
/// kTreeCorrection), 1 where NCCL applies none: src/graph/tuning.cc ncclTopoGetAlgoTime corrects only
/// "logSize >= 0 && logSize < 23" with logSize = log2i(nBytes >> 6), i.e. below 512 MiB; the table's
/// 24th column (Simple 0.9) is never read for Tree.
inline double treeCorrection(double bytes, CollectiveProtocol protocol)
{
    constexpr int kCorrectedLogSizes = 23;
    const int logSize = log2Floor(bytes / 64.0);
    return logSize < kCorrectedLogSizes ? nccl::kTreeCorrection[static_cast<int>(protocol)][logSize] : 1.0;
}

inline constexpr double kMicro = 1e-6;
inline constexpr double kGBps = 1e9;

} // namespace clusterscope::engine::collectives
