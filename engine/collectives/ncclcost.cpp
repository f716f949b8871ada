// NCCL's own cost model (NCCL 2.30 src/graph/tuning.cc, ncclTopoTuneModel; constants in
// nccltuningtables.h): time = latency + bytes / algBw, per (collective, algorithm, protocol), one
// cost function per algorithm. Where tuning.cc has no figure (NVLS data volume, CollNet bandwidth,
// per-link-class bytes) the model counts the bytes each rank puts on each link, as stated at each place.

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
    // Tree bandwidth when the tree graph's pattern is NCCL_TOPO_PATTERN_TREE (src/graph/tuning.cc, 2.26.2 on).
    constexpr double kOneGpuTreePatternFactor = 0.85;

    int ncclAlgoRow(CollectiveAlgorithm a)
    {
        switch (a) {
        case CollectiveAlgorithm::Tree:
            return nccl::kTree;
        case CollectiveAlgorithm::Ring:
            return nccl::kRing;
        case CollectiveAlgorithm::CollNetDirect:
            return nccl::kCollNetDirect;
        case CollectiveAlgorithm::CollNetChain:
            return nccl::kCollNetChain;
        case CollectiveAlgorithm::Nvls:
            return nccl::kNvls;
        case CollectiveAlgorithm::NvlsTree:
            return nccl::kNvlsTree;
        case CollectiveAlgorithm::Pat:
            return nccl::kPat;
        default:
            return -1;
        }
    }

    bool isReduceScatterOrAllGather(CollectiveOp op)
    {
        return op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather;
    }

    // tuning.cc: nInterSteps = 2(nNodes-1) for AllReduce, else nNodes-1.
    double ringInterSteps(CollectiveOp op, int nodes)
    {
        return op == CollectiveOp::AllReduce ? 2.0 * (nodes - 1) : nodes - 1.0;
    }

    // Node NIC egress of a reduction over `nodes` nodes as a multiple of S, for algorithms that move
    // one copy of the data per node pair (NVLS's inter-node ring): 2(m-1)/m for AllReduce, (m-1)/m for
    // AllGather/ReduceScatter. Trees: treeNodeEgressFactor.
    double nodeEgressFactor(CollectiveOp op, int nodes)
    {
        const double m = nodes;
        return op == CollectiveOp::AllReduce ? 2.0 * (m - 1) / m : (m - 1) / m;
    }

    // Node NIC egress of NCCL's double binary tree AllReduce (Tree, NVLSTree) as a multiple of S. On two
    // nodes both trees are a pair of chains: each node sends S once. From three nodes on every node is an
    // interior node of one of the two trees (src/graph/trees.cc ncclGetDtree: the second tree is the first
    // mirrored or shifted, so a leaf of one is interior in the other) and moves its half of the data to
    // two children and its parent in each phase: 2 S in all, as much as a ring. NCCL's tuner says the same:
    // Tree takes bwIntra up to two nodes and bwInter beyond, NVLSTree bwInter x 2 up to two nodes and x 1
    // beyond (src/graph/tuning.cc ncclTopoTuneModel, 2.26: bwInter/2 beyond two nodes).
    double treeNodeEgressFactor(int nodes) { return nodes <= 1 ? 0.0 : nodes == 2 ? 1.0 : 2.0; }

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

namespace {

    /// What one algorithm's cost function gives: the latency beyond NCCL's base latency and the
    /// algorithm bandwidth; algBw <= 0 means the algorithm cannot run this request.
    struct AlgorithmCost {
        double latencyUs = 0;
        double algBw = 0;
    };

    /// The request as every algorithm's cost function sees it.
    struct CostInput {
        const CollectiveHardware& hw;
        const GroupContext& ctx;
        CollectiveOp op;
        double bytes;
        CollectiveProtocol protocol;
        double intraLat; ///< hwLat[NVLink or PCI][algo][proto] (x 1.8 for LL across nodes), us
        double interLat; ///< hwLat[NET][algo][proto], us
        LinkClassBytes* linkBytes;
        double n() const { return ctx.ranks; }
        double ppn() const { return ctx.ranksPerNode; }
        bool multiNode() const { return ctx.nodes > 1; }
        /// nChannels x a per-channel cap of tuning.cc, which counts the channels of the search graph
        /// (graphs[a]->nChannels, ncclSearchChannels), not the channels that run.
        double tunerChannels() const { return ncclSearchChannels(hw, ctx); }
        double perChannelCap(const double (&table)[4][3]) const
        {
            return tunerChannels() * table[hw.archIndex][ctx.capIndex] * kGBps;
        }
        /// tuning.cc llMaxBw: the GPU's row on one node, the host CPU's row across nodes.
        double llMaxBw() const
        {
            const int row = multiNode() ? nccl::kLlMaxBwMultiNodeRow : hw.archIndex;
            return nccl::kLlMaxBwGBps[row][ctx.capIndex] * kGBps;
        }
    };

    AlgorithmCost ringCost(const CostInput& in)
    {
        if (in.op == CollectiveOp::AllToAll || in.op == CollectiveOp::SendRecv)
            return {};
        const GroupContext& ctx = in.ctx;
        // busBw = nChannels x per-channel bw: the scale-up links on one node, the node's NICs beyond.
        double busBw
            = in.multiNode() ? std::min(ctx.intraBytesPerSecond, ctx.interBytesPerSecond) : ctx.intraBytesPerSecond;
        if (in.protocol == CollectiveProtocol::LL)
            busBw = std::min(in.llMaxBw(), nccl::kRingLlFactor * busBw);
        else if (in.protocol == CollectiveProtocol::LL128)
            busBw = std::min(busBw * nccl::kRingLl128Factor, in.perChannelCap(nccl::kPerChMaxRingLL128GBps));
        const double nsteps = ncclRingSteps(in.op, ctx.ranks);
        AlgorithmCost c;
        c.algBw = busBw * in.n() / nsteps;
        const double nInter = ringInterSteps(in.op, ctx.nodes);
        double intraStepLat = in.intraLat;
        if (in.multiNode()) {
            // Network proxy overhead bounds every step (x3 for Simple).
            const double netOverhead = nccl::kNetOverheadUs * (in.protocol == CollectiveProtocol::Simple ? 3.0 : 1.0);
            intraStepLat = std::max(in.intraLat, netOverhead);
        }
        c.latencyUs = (nsteps - nInter) * intraStepLat + nInter * in.interLat;
        // Every rank forwards nsteps/n of S (2(n-1)/n for AllReduce: (n-1)/n per phase); one hop of
        // each ring per node leaves through a NIC.
        const double n = in.n();
        const double wire = in.op == CollectiveOp::Broadcast || in.op == CollectiveOp::Reduce ? in.bytes * (n - 1) / n
                                                                                              : in.bytes * nsteps / n;
        fillBytes(ctx, in.multiNode() ? wire * (in.ppn() - 1) / in.ppn() : wire, wire, true, in.linkBytes);
        return c;
    }

    AlgorithmCost treeCost(const CostInput& in)
    {
        if (in.op != CollectiveOp::AllReduce)
            return {};
        const GroupContext& ctx = in.ctx;
        const double n = in.n();
        // Double binary tree: a node's NIC moves treeNodeEgressFactor x S against the ring's 2(n-1)/n x S,
        // so the NIC-limited busbw is higher by 2(n-1)/n / that (about 2x on two nodes, 1x beyond).
        double busBw = ctx.intraBytesPerSecond;
        if (in.multiNode()) {
            const double relief = 2.0 * (n - 1) / n / treeNodeEgressFactor(ctx.nodes);
            busBw = std::min(busBw, ctx.interBytesPerSecond * relief);
        }
        busBw = std::min(busBw * nccl::kTreeFactor, in.perChannelCap(nccl::kPerChMaxTreeGBps));
        if (in.protocol == CollectiveProtocol::LL)
            busBw = std::min(busBw / nccl::kTreeLlDivisor, in.llMaxBw());
        else if (in.protocol == CollectiveProtocol::LL128)
            busBw = std::min(busBw * (in.multiNode() ? nccl::kTreeLl128Factor : nccl::kTreeLl128OneNodeFactor),
                in.perChannelCap(nccl::kPerChMaxTreeLL128GBps));
        // One GPU per node: NCCL's search forces the tree graph's pattern to NCCL_TOPO_PATTERN_TREE, all NIC
        // traffic to and from that GPU (src/graph/search.cc ncclTopoCompute: "if (ngpus == 1 && graph->pattern
        // != NCCL_TOPO_PATTERN_RING) graph->pattern = NCCL_TOPO_PATTERN_TREE"), and the tuner then takes 0.85
        // of the Tree bandwidth for every protocol (src/graph/tuning.cc, NCCL 2.26.2 on: "if (a ==
        // NCCL_ALGO_TREE && comm->maxTreePattern == NCCL_TOPO_PATTERN_TREE) busBw *= .85").
        if (in.multiNode() && ctx.ranksPerNode == 1)
            busBw *= kOneGpuTreePatternFactor;
        AlgorithmCost c;
        c.algBw = busBw * nccl::kTreeAlgorithmRatio * treeCorrection(in.bytes, in.protocol);
        c.latencyUs = 2.0 * ((in.ppn() - 1) * in.intraLat + log2Floor(ctx.nodes) * in.interLat);
        // Chain inside the node (up then down), tree edges between nodes.
        fillBytes(ctx, 2.0 * in.bytes * (in.ppn() - 1) / in.ppn(), in.bytes * treeNodeEgressFactor(ctx.nodes), false,
            in.linkBytes);
        return c;
    }

    AlgorithmCost nvlsCost(const CostInput& in, bool tree)
    {
        const GroupContext& ctx = in.ctx;
        if (!in.hw.nvlsCapable || in.ppn() < 2)
            return {};
        if (tree && (in.op != CollectiveOp::AllReduce || !in.multiNode()))
            return {};
        if (!tree && in.op != CollectiveOp::AllReduce && !isReduceScatterOrAllGather(in.op))
            return {};
        // Across nodes NCCL's NVLS runs over CollNet (SHARP, InfiniBand).
        if (!tree && in.multiNode() && !in.hw.infiniband)
            return {};
        // NVLS bandwidth: bwIntra x efficiency x (nCh-1)/nCh. In AllReduce each GPU sends its whole
        // buffer to the switch for the multimem reduction plus its reduced shard for the multicast:
        // S (1 + 1/ppn) per direction, hence the division; AllGather/ReduceScatter move S.
        const double intraFactor = in.op == CollectiveOp::AllReduce ? 1.0 + 1.0 / in.ppn() : 1.0;
        const double nvlsBw
            = ctx.intraBytesPerSecond * nccl::kNvlsEfficiency[in.hw.archIndex] * (kNvlsChannels - 1) / kNvlsChannels;
        AlgorithmCost c;
        c.algBw = nvlsBw / intraFactor;
        // The switch reduces across nodes (SHARP): a node sends S once (x kCollNetFactor as CollNet);
        // NVLSTree uses NCCL's double binary tree between nodes (treeNodeEgressFactor).
        const bool sharp = !tree && in.multiNode() && in.op == CollectiveOp::AllReduce;
        const double egress
            = sharp ? 1.0 : (tree ? treeNodeEgressFactor(ctx.nodes) : nodeEgressFactor(in.op, ctx.nodes));
        if (in.multiNode()) {
            // NVLSTree's per-head cap (NCCL's perChMaxNVLSTreeBws) shapes the time of a chosen NVLSTree,
            // not the choice (ncclpipeline.cpp).
            c.algBw = std::min(c.algBw, (sharp ? nccl::kCollNetFactor : 1.0) * ctx.interBytesPerSecond / egress);
        }
        c.latencyUs = tree ? in.intraLat + 2.0 * log2Floor(ctx.nodes) * in.interLat
                           : in.intraLat + (in.multiNode() ? in.interLat : 0.0);
        fillBytes(ctx, in.bytes * intraFactor, in.bytes * egress, !tree, in.linkBytes);
        return c;
    }

    AlgorithmCost collNetCost(const CostInput& in, bool direct)
    {
        const GroupContext& ctx = in.ctx;
        // SHARP in-network reduction: InfiniBand only, AllReduce across nodes.
        if (!in.hw.infiniband || !in.multiNode() || in.op != CollectiveOp::AllReduce)
            return {};
        const double ppn = in.ppn();
        if (direct && ppn > 8) // NCCL: CollNetDirect supports up to 8 local GPUs
            return {};
        // The switch reduces: a node sends S once and receives S once (half the ring's 2S).
        // Inside the node: Direct reduce-scatters and all-gathers among the ppn GPUs (2(ppn-1)/ppn S per
        // rank); Chain passes the whole buffer up and down a chain (2 S through the middle GPUs).
        const double intraWire = 2.0 * in.bytes * (ppn - 1) / ppn; // average per rank, both variants
        const double intraAlg
            = ppn > 1 ? ctx.intraBytesPerSecond * in.bytes / (direct ? intraWire : 2.0 * in.bytes) : kInf;
        AlgorithmCost c;
        c.algBw = std::min(intraAlg, nccl::kCollNetFactor * ctx.interBytesPerSecond);
        c.latencyUs = direct
            ? 2.0 * (std::min(1.0, ppn - 1) * in.intraLat + nccl::kCollNetDirectPerPeerUs * (ppn - 1)) + in.interLat
            : 2.0 * (ppn - 1) * in.intraLat + in.interLat;
        fillBytes(ctx, intraWire, in.bytes, false, in.linkBytes);
        return c;
    }

    AlgorithmCost patCost(const CostInput& in)
    {
        // PAT: AllGather/ReduceScatter with one rank per node; ring bandwidth x kPatFactor.
        if (!isReduceScatterOrAllGather(in.op) || in.ppn() != 1 || !in.multiNode())
            return {};
        const double busBw = in.ctx.interBytesPerSecond * nccl::kPatFactor;
        AlgorithmCost c;
        c.algBw = busBw * in.n() / ncclRingSteps(in.op, in.ctx.ranks);
        c.latencyUs = log2Floor(in.ctx.nodes) * in.interLat / nccl::kPatInterLatDivisor + nccl::kPatPerRankUs * in.n();
        fillBytes(in.ctx, 0.0, in.bytes * (in.n() - 1) / in.n(), false, in.linkBytes);
        return c;
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
    // Hardware latencies (tuning.cc hwLat); "-" entries are protocols NCCL does not run.
    double intraLat = nccl::kHwLatencyUs[ctx.intraHw][a][p];
    // With one rank per node every step crosses the network: tuning.cc takes the Tree network latency
    // then ("With ppn=1 latencies are fully exposed, use the Tree network latency", NCCL 2.23.4+).
    double interLat = nccl::kHwLatencyUs[nccl::kNet][ctx.ranksPerNode == 1 ? nccl::kTree : a][p];
    // The NCCL a log states: its tuner's constants where they differ from the newest modelled.
    if (algorithm == CollectiveAlgorithm::NvlsTree && ctx.ranksPerNode > 1 && hw.ncclVersionCode > 0
        && hw.ncclVersionCode < nccl::kNcclVersionNvlsTreeNetLatency)
        interLat = nccl::kNvlsTreeNetLatencyBefore22809Us;
    if (intraLat < 0 || interLat < 0)
        return t;
    if (ctx.nodes > 1 && protocol == CollectiveProtocol::LL)
        intraLat *= nccl::kMultiNodeLlIntraFactor;
    const CostInput in { hw, ctx, op, bytes, protocol, intraLat, interLat, linkBytes };
    AlgorithmCost c;
    switch (algorithm) {
    case CollectiveAlgorithm::Ring:
        c = ringCost(in);
        break;
    case CollectiveAlgorithm::Tree:
        c = treeCost(in);
        break;
    case CollectiveAlgorithm::Nvls:
        c = nvlsCost(in, false);
        break;
    case CollectiveAlgorithm::NvlsTree:
        c = nvlsCost(in, true);
        break;
    case CollectiveAlgorithm::CollNetDirect:
        c = collNetCost(in, true);
        break;
    case CollectiveAlgorithm::CollNetChain:
        c = collNetCost(in, false);
        break;
    case CollectiveAlgorithm::Pat:
        c = patCost(in);
        break;
    default:
        return t;
    }
    if (!(c.algBw > 0))
        return t;
    double latUs = nccl::kBaseLatencyUs[a][p] + c.latencyUs;
    // Multi-node Ring Simple AllReduce: latency x 1.4 (x 1.9 before Ampere) once every channel and
    // rank gets at least 64 bytes (tuning.cc plateau effect).
    if (algorithm == CollectiveAlgorithm::Ring && ctx.nodes > 1 && op == CollectiveOp::AllReduce
        && protocol == CollectiveProtocol::Simple && bytes / (ctx.channels * ctx.ranks) >= 64.0)
        latUs *= hw.archIndex == 0 ? nccl::kRingPlateauLatencyFactorPreAmpere : nccl::kRingPlateauLatencyFactor;
    t.supported = true;
    t.latencySeconds = latUs * kMicro;
    t.bandwidthSeconds = bytes / c.algBw;
    t.tier = ctx.nodes > 1 ? 1 : 0;
    // The achieved terms are filled for the chosen algorithm only (collectivemodel.cpp): Auto compares
    // tuner terms, and the pipeline is not on the hot path of that comparison.
    t.achievedLatencySeconds = t.latencySeconds;
    t.achievedBandwidthSeconds = t.bandwidthSeconds;
    return t;
}

} // namespace clusterscope::engine::collectives
