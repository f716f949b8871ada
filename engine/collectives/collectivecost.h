#pragma once

// Internal to engine/collectives: the per-request context and the cost function of each algorithm.
// Every cost function returns the uncalibrated latency and bandwidth terms and, when `bytes` is not
// null, the bytes one rank sends per link class.

#include "engine/collectives/collectivemodel.h"
#include "engine/collectives/nccltuningtables.h"

#include <algorithm>
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

/// NCCL's ring step count (src/graph/tuning.cc): nsteps = 2(n-1) AllReduce, n-1 AllGather /
/// ReduceScatter, n otherwise; a ring's busBw is its algBw x nsteps / n.
inline double ncclRingSteps(CollectiveOp op, int n)
{
    if (op == CollectiveOp::AllReduce)
        return 2.0 * (n - 1);
    if (op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather)
        return n - 1.0;
    return n;
}

/// Channels of NCCL's search graph (graphs[a]->nChannels), which its tuner multiplies its per-channel
/// figures by. On one node: the context's channels. Across nodes the search (src/graph/search.cc
/// ncclTopoCompute) finds one channel per NIC at the NIC's rate, and ncclTopoDupChannels doubles them
/// (halving the rate) unless the rate is below 25 GB/s, or the GPUs are newer than Ampere (ccMin > 80),
/// the rate below 50 GB/s and the channels more than 4: 8 x 400 Gb/s Hopper NICs keep 8 channels
/// (NVIDIA/nccl issue 1041, where an H100 node with 8 CX-7 NICs shows 8 search channels).
inline double ncclSearchChannels(const CollectiveHardware& hw, const GroupContext& ctx)
{
    if (ctx.nodes <= 1)
        return ctx.channels;
    double channels = std::min(32, ctx.nics);
    const double rateGBps = ctx.nicBytesPerSecond / kGBps;
    const bool duplicate = rateGBps >= 25.0 && !(hw.archIndex >= 2 && rateGBps < 50.0 && channels > 4);
    if (duplicate)
        channels = std::min(32.0, 2 * channels);
    return channels;
}

/// NVLS heads across nodes: NCCL's NVLS search finds one channel per NIC that has a GPU of its own
/// (src/graph/search.cc: "NVLS search only tries to find NIC:GPU combinations to compute the heads",
/// a GPU with two NICs is one head) and at most min(NCCL_MAX_NVLS_ARITY, GPUs) of them; each head
/// takes its share of every NVLS / NVLSTree operation through its NIC. On one node every rank pulls
/// from the switch.
inline double ncclNvlsHeads(const GroupContext& ctx)
{
    return ctx.nodes > 1
        ? std::min({ static_cast<double>(ctx.ranksPerNode), static_cast<double>(ctx.nics), nccl::kMaxNvlsArity })
        : ctx.ranksPerNode;
}

/// Ring channels NCCL runs across nodes: ncclTopoPostset (src/graph/connect.cc) doubles the search
/// graph's channels ("nChannels*2", MAXCHANNELS 32) without changing the graph the tuner reads
/// ("Execution channels are typically 2x the search channels", NVIDIA/nccl issue 1041): 16 on a node
/// of 8 x 400 Gb/s NICs (8 search channels), 16 with 4 (4 duplicated to 8), 4 with one.
inline double ncclRunningRingChannels(const CollectiveHardware& hw, const GroupContext& ctx)
{
    return ctx.nodes <= 1 ? ctx.channels : std::min(32.0, 2.0 * ncclSearchChannels(hw, ctx));
}

} // namespace clusterscope::engine::collectives
