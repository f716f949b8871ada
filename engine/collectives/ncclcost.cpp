// NCCL's own cost model (src/graph/tuning.cc, NCCL 2.30; constants and refinements transcribed in
// notes/collectives.md): time = latency + bytes / algBw, per (collective, algorithm, protocol).
// Where the notes leave a gap (NVLS data volume, CollNet bandwidth, per-link-class bytes) the model
// counts the bytes each rank puts on each link, as stated at each place.

#include "engine/collectives/collectivecost.h"
#include "engine/collectives/nccltuningtables.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clusterscope::engine::collectives {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// NCCL_NVLS_NCHANNELS default on Hopper/Blackwell (NCCL src/transport/nvls.cc).
constexpr double kNvlsChannels = 16.0;

int ncclAlgoRow(CollectiveAlgorithm a)
{
    switch (a) {
    case CollectiveAlgorithm::Tree: return nccl::kTree;
    case CollectiveAlgorithm::Ring: return nccl::kRing;
    case CollectiveAlgorithm::CollNetDirect: return nccl::kCollNetDirect;
    case CollectiveAlgorithm::CollNetChain: return nccl::kCollNetChain;
    case CollectiveAlgorithm::Nvls: return nccl::kNvls;
    case CollectiveAlgorithm::NvlsTree: return nccl::kNvlsTree;
    case CollectiveAlgorithm::Pat: return nccl::kPat;
    default: return -1;
    }
}

bool isReduceScatterOrAllGather(CollectiveOp op)
{
    return op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather;
}

// tuning.cc: nsteps = 2(n-1) AllReduce, n-1 AllGather/ReduceScatter, n otherwise.
double ringSteps(CollectiveOp op, int n)
{
    if (op == CollectiveOp::AllReduce)
        return 2.0 * (n - 1);
    if (isReduceScatterOrAllGather(op))
        return n - 1.0;
    return n;
}

// notes/collectives.md: nInter = 2(nNodes-1) for AllReduce, else nNodes-1.
double ringInterSteps(CollectiveOp op, int nodes)
{
    return op == CollectiveOp::AllReduce ? 2.0 * (nodes - 1) : nodes - 1.0;
}

// Node NIC egress of a reduction over `nodes` nodes as a multiple of S, for algorithms that move
// one copy of the data per node pair (tree, NVLS inter-node ring/tree): 2(m-1)/m for AllReduce,
// (m-1)/m for AllGather/ReduceScatter.
double nodeEgressFactor(CollectiveOp op, int nodes)
{
    const double m = nodes;
    return op == CollectiveOp::AllReduce ? 2.0 * (m - 1) / m : (m - 1) / m;
}

// Per-rank bytes of algorithms whose intra-node part moves `scaleUp` bytes per rank and whose node
// NIC egress is `nodeNic` bytes, spread over the node's ranks.
void fillBytes(const GroupContext& ctx, double scaleUp, double nodeNic, bool neighbour, LinkClassBytes* out)
{
    if (!out)
        return;
    *out = LinkClassBytes {};
    out->scaleUpBytes = scaleUp;
    if (ctx.nodes > 1) {
        out->nicBytes = nodeNic / ctx.ranksPerNode;
        splitTiers(ctx, out->nicBytes, neighbour, *out);
    }
}

} // namespace

CollectiveTerms ncclCost(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
    CollectiveAlgorithm algorithm, CollectiveProtocol protocol, LinkClassBytes* linkBytes)
{
    CollectiveTerms t;
    const int a = ncclAlgoRow(algorithm);
    const int p = static_cast<int>(protocol);
    if (a < 0)
        return t;
    const double n = ctx.ranks;
    const double ppn = ctx.ranksPerNode;
    const bool multiNode = ctx.nodes > 1;
    const int arch = hw.archIndex;
    const int cap = ctx.capIndex;
    const double nCh = ctx.channels;

    // Hardware latencies (tuning.cc hwLat); "-" entries are protocols NCCL does not run.
    double intraLat = nccl::kHwLatencyUs[ctx.intraHw][a][p];
    const double interLat = nccl::kHwLatencyUs[nccl::kNet][a][p];
    if (intraLat < 0 || interLat < 0)
        return t;
    if (multiNode && protocol == CollectiveProtocol::LL)
        intraLat *= nccl::kMultiNodeLlIntraFactor;
    double latUs = nccl::kBaseLatencyUs[a][p];
    double algBw = 0;

    switch (algorithm) {
    case CollectiveAlgorithm::Ring: {
        if (op == CollectiveOp::AllToAll || op == CollectiveOp::SendRecv)
            return t;
        // busBw = nChannels x per-channel bw: the scale-up links on one node, the node's NICs beyond.
        double busBw = multiNode ? std::min(ctx.intraBytesPerSecond, ctx.interBytesPerSecond) : ctx.intraBytesPerSecond;
        if (protocol == CollectiveProtocol::LL)
            busBw = std::min(nccl::kLlMaxBwGBps[arch][cap] * kGBps, 0.5 * busBw);
        else if (protocol == CollectiveProtocol::LL128)
            busBw = std::min(busBw * (ppn < 2 ? 0.7 : 0.92), nCh * nccl::kPerChMaxRingLL128GBps[arch][cap] * kGBps);
        const double nsteps = ringSteps(op, ctx.ranks);
        algBw = busBw * n / nsteps;
        const double nInter = ringInterSteps(op, ctx.nodes);
        double intraStepLat = intraLat;
        if (multiNode) {
            // Network proxy overhead bounds every step (x3 for Simple).
            const double netOverhead = nccl::kNetOverheadUs * (protocol == CollectiveProtocol::Simple ? 3.0 : 1.0);
            intraStepLat = std::max(intraLat, netOverhead);
        }
        latUs += (nsteps - nInter) * intraStepLat + nInter * interLat;
        if (multiNode && op == CollectiveOp::AllReduce && protocol == CollectiveProtocol::Simple
            && bytes / (nCh * n) >= 64.0)
            latUs *= arch == 0 ? nccl::kRingPlateauLatencyFactorPreAmpere : nccl::kRingPlateauLatencyFactor;
        // Every rank forwards nsteps/n of S (2(n-1)/n for AllReduce: (n-1)/n per phase); one hop of
        // each ring per node leaves through a NIC.
        const double wire = op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce ? bytes * (n - 1) / n
                                                                                         : bytes * nsteps / n;
        fillBytes(ctx, multiNode ? wire * (ppn - 1) / ppn : wire, wire, true, linkBytes);
        break;
    }
    case CollectiveAlgorithm::Tree: {
        if (op != CollectiveOp::AllReduce)
            return t;
        // Double binary tree: a node's NIC moves 2(m-1)/m x S against the ring's 2(n-1)/n x S, so the
        // NIC-limited busbw is higher by ((n-1)/n) / ((m-1)/m) (2x on two nodes, notes "tree halves").
        double busBw = ctx.intraBytesPerSecond;
        if (multiNode) {
            const double m = ctx.nodes;
            const double relief = ((n - 1) / n) / ((m - 1) / m);
            busBw = std::min(busBw, ctx.interBytesPerSecond * relief);
        }
        busBw = std::min(busBw * 0.92, nCh * nccl::kPerChMaxTreeGBps[arch][cap] * kGBps);
        if (protocol == CollectiveProtocol::LL)
            busBw = std::min(busBw / 3.8, nccl::kLlMaxBwGBps[arch][cap] * kGBps);
        else if (protocol == CollectiveProtocol::LL128)
            busBw = std::min(busBw * (multiNode ? 120.0 / 128.0 : 7.0 / 9.0),
                nCh * nccl::kPerChMaxTreeLL128GBps[arch][cap] * kGBps);
        algBw = busBw * 0.5;
        const int logSize = log2Floor(bytes / 64.0);
        if (logSize < nccl::kTreeCorrectionEntries)
            algBw *= nccl::kTreeCorrection[p][logSize];
        latUs += 2.0 * ((ppn - 1) * intraLat + log2Floor(ctx.nodes) * interLat);
        // Chain inside the node (up then down), tree edges between nodes.
        fillBytes(ctx, 2.0 * bytes * (ppn - 1) / ppn, bytes * nodeEgressFactor(op, ctx.nodes), false, linkBytes);
        break;
    }
    case CollectiveAlgorithm::Nvls:
    case CollectiveAlgorithm::NvlsTree: {
        if (!hw.nvlsCapable || ppn < 2)
            return t;
        const bool tree = algorithm == CollectiveAlgorithm::NvlsTree;
        if (tree && (op != CollectiveOp::AllReduce || !multiNode))
            return t;
        if (!tree && op != CollectiveOp::AllReduce && !isReduceScatterOrAllGather(op))
            return t;
        // NVLS bandwidth: bwIntra x efficiency x (nCh-1)/nCh (notes). In AllReduce each GPU sends its
        // whole buffer to the switch for the multimem reduction plus its reduced shard for the
        // multicast: S (1 + 1/ppn) per direction, hence the division; AllGather/ReduceScatter move S.
        const double intraFactor = op == CollectiveOp::AllReduce ? 1.0 + 1.0 / ppn : 1.0;
        const double nvlsBw = ctx.intraBytesPerSecond * nccl::kNvlsEfficiency[arch] * (kNvlsChannels - 1) / kNvlsChannels;
        algBw = nvlsBw / intraFactor;
        // Across nodes NCCL's NVLS runs over CollNet (SHARP, InfiniBand): the switch reduces, so a
        // node sends S once (0.9 as CollNet); NVLSTree uses trees: 2(m-1)/m S per node.
        if (!tree && multiNode && !hw.infiniband)
            return t;
        const bool sharp = !tree && multiNode && op == CollectiveOp::AllReduce;
        const double egress = sharp ? 1.0 : nodeEgressFactor(op, ctx.nodes);
        if (multiNode) {
            double interAlg = (sharp ? 0.9 : 1.0) * ctx.interBytesPerSecond / egress;
            if (tree)
                interAlg = std::min(interAlg, 0.5 * nCh * nccl::kPerChMaxNvlsTreeGBps[arch][cap] * kGBps);
            algBw = std::min(algBw, interAlg);
        }
        latUs += tree ? intraLat + 2.0 * log2Floor(ctx.nodes) * interLat : intraLat + (multiNode ? interLat : 0.0);
        fillBytes(ctx, bytes * intraFactor, bytes * egress, !tree, linkBytes);
        break;
    }
    case CollectiveAlgorithm::CollNetDirect:
    case CollectiveAlgorithm::CollNetChain: {
        // SHARP in-network reduction: InfiniBand only, AllReduce across nodes.
        if (!hw.infiniband || !multiNode || op != CollectiveOp::AllReduce)
            return t;
        const bool direct = algorithm == CollectiveAlgorithm::CollNetDirect;
        if (direct && ppn > 8) // NCCL: CollNetDirect supports up to 8 local GPUs
            return t;
        // The switch reduces: a node sends S once and receives S once (half the ring's 2S). NCCL
        // applies 0.9 to CollNet bandwidth (tuning.cc "if (a == COLLNET) busBw *= .9").
        // Inside the node: Direct reduce-scatters and all-gathers among the ppn GPUs (2(ppn-1)/ppn S per
        // rank); Chain passes the whole buffer up and down a chain (2 S through the middle GPUs).
        const double intraWire = 2.0 * bytes * (ppn - 1) / ppn; // average per rank, both variants
        const double intraAlg = ppn > 1 ? ctx.intraBytesPerSecond * bytes / (direct ? intraWire : 2.0 * bytes) : kInf;
        algBw = std::min(intraAlg, 0.9 * ctx.interBytesPerSecond);
        latUs += direct ? 2.0 * (std::min(1.0, ppn - 1) * intraLat + 0.4 * (ppn - 1)) + interLat
                        : 2.0 * (ppn - 1) * intraLat + interLat;
        fillBytes(ctx, intraWire, bytes, false, linkBytes);
        break;
    }
    case CollectiveAlgorithm::Pat: {
        // PAT: AllGather/ReduceScatter with one rank per node; ring bandwidth x 0.75.
        if (!isReduceScatterOrAllGather(op) || ppn != 1 || !multiNode)
            return t;
        const double busBw = ctx.interBytesPerSecond * 0.75;
        const double nsteps = ringSteps(op, ctx.ranks);
        algBw = busBw * n / nsteps;
        latUs += log2Floor(ctx.nodes) * interLat / 3.5 + 2.8 * n;
        fillBytes(ctx, 0.0, bytes * (n - 1) / n, false, linkBytes);
        break;
    }
    default: return t;
    }
    if (!(algBw > 0))
        return t;
    t.supported = true;
    t.latencySeconds = latUs * kMicro;
    t.bandwidthSeconds = bytes / algBw;
    t.tier = multiNode ? 1 : 0;
    return t;
}

} // namespace clusterscope::engine::collectives
