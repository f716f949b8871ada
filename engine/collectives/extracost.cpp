// Algorithms outside NCCL's tuner, costed with the same per-step latencies (NCCL's Ring/Simple
// hwLat for one message over NVLink/PCI or the network) and the bytes each stage puts on each link:
// - recursive halving-doubling (Rabenseifner; Thakur, Rabenseifner & Gropp, IJHPCA 2005),
// - direct/one-shot exchange (every rank sends to every peer in one step; also AlltoAll, SendRecv),
// - hierarchical two- and three-level reduction (node, leaf, global) (seed: "la reducción
//   jerárquica ... reduce el tráfico inter-rack por el número de GPUs por rack"),
// - parameter server push/pull through one hub (seed: the hub handles 2N x the gradient volume).
// Stages that run one after the other add their times; transfers that run at once take the slowest.

#include "engine/collectives/collectivecost.h"
#include "engine/collectives/nccltuningtables.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::engine::collectives {

namespace {

    struct StepLatency {
        double baseUs, intraUs, interUs;
    };

    StepLatency stepLatency(const GroupContext& ctx)
    {
        const int simple = static_cast<int>(CollectiveProtocol::Simple);
        return { nccl::kBaseLatencyUs[nccl::kRing][simple], nccl::kHwLatencyUs[ctx.intraHw][nccl::kRing][simple],
            nccl::kHwLatencyUs[nccl::kNet][nccl::kRing][simple] };
    }

    // Time for one rank to send `scaleUp` bytes on its scale-up links while each rank of its node sends
    // `nic` bytes through the node's NICs, both at once.
    double concurrentSeconds(const GroupContext& ctx, double scaleUp, double nicPerRank)
    {
        const double a = scaleUp > 0 ? scaleUp / ctx.intraBytesPerSecond : 0.0;
        const double b = nicPerRank > 0 ? nicPerRank * ctx.ranksPerNode / ctx.interBytesPerSecond : 0.0;
        return std::max(a, b);
    }

    CollectiveTerms finish(const GroupContext& ctx, double latUs, double seconds)
    {
        CollectiveTerms t;
        t.supported = true;
        t.latencySeconds = latUs * kMicro;
        t.bandwidthSeconds = seconds;
        // Textbook algorithms: no NCCL pipeline to model; the time is the two terms.
        t.achievedLatencySeconds = t.latencySeconds;
        t.achievedBandwidthSeconds = t.bandwidthSeconds;
        t.tier = ctx.nodes > 1 ? 1 : 0;
        return t;
    }

    CollectiveTerms halvingDoubling(const GroupContext& ctx, CollectiveOp op, double bytes, LinkClassBytes* out)
    {
        if (op != CollectiveOp::AllReduce && op != CollectiveOp::ReduceScatter && op != CollectiveOp::AllGather)
            return {};
        const StepLatency lat = stepLatency(ctx);
        const int logN = log2Floor(ctx.ranks);
        const double pow2 = std::ldexp(1.0, logN);
        const double extra = ctx.ranks - pow2; // ranks folded into a partner first (non power of two)
        // Partners at distance 1, 2, 4, ... (inside the node first): the first log2(ppn) steps stay on
        // the scale-up links carrying S/2, S/4, ..., the rest cross nodes carrying S/(2 ppn), ...
        const int intraSteps = std::min(logN, log2Floor(ctx.ranksPerNode));
        const int interSteps = logN - intraSteps;
        const double intraShare = 1.0 - std::ldexp(1.0, -intraSteps);
        const double interShare = std::ldexp(1.0, -intraSteps) * (1.0 - std::ldexp(1.0, -interSteps));
        const double phases = op == CollectiveOp::AllReduce ? 2.0 : 1.0;
        double scaleUp = phases * bytes * intraShare;
        double nic = phases * bytes * interShare;
        double latUs = lat.baseUs + phases * (intraSteps * lat.intraUs + interSteps * lat.interUs);
        double seconds
            = scaleUp / ctx.intraBytesPerSecond + (nic > 0 ? nic * ctx.ranksPerNode / ctx.interBytesPerSecond : 0);
        if (extra > 0) {
            // Rabenseifner's fold: the extra ranks hand their whole vector to a partner and get the
            // result back (two more steps of S on the slowest link class of the group).
            const bool crossNode = ctx.nodes > 1;
            latUs += 2.0 * (crossNode ? lat.interUs : lat.intraUs);
            const double foldBytes = phases * bytes * extra / ctx.ranks;
            seconds += phases * bytes / (crossNode ? ctx.nicBytesPerSecond : ctx.intraBytesPerSecond);
            (crossNode ? nic : scaleUp) += foldBytes;
        }
        if (out) {
            *out = LinkClassBytes {};
            out->scaleUpBytes = scaleUp;
            out->nicBytes = nic;
            splitTiers(ctx, nic, false, *out);
        }
        return finish(ctx, latUs, seconds);
    }

    // NCCL runs an all-to-all as one grouped send and receive per peer (nccl-tests alltoall.cu: ncclSend /
    // ncclRecv to every rank inside ncclGroupStart/End). src/enqueue.cc scheduleP2pTasksToPlan queues one
    // p2p task per peer, round by round (p2pSchedule), each on a few of the p2p channels (addP2pToPlan:
    // nChannelsMin..p2pnChannelsPerPeer, 128 KiB net / 512 KiB NVLink chunks). Two things the line-rate
    // exchange below leaves out, both fitted on public alltoall_perf logs of one H100 cluster (8 GPUs and
    // 8 x 400 Gb/s per node; xxrjun/nccl-tests-cluster, NCCL 2.29.2, 32 MiB-16 GiB; tests/data/nccltests/
    // public/README.md), never on a training table:
    // - a fixed cost per peer, paid once per peer in turn: the intercept of time against size is 41 us over
    //   7 peers on one node (5.8 us each) and 314-350 us over 79 peers on 10 nodes at 32-128 MiB (4.0-4.4
    //   us each): 4.5 us per peer, so the cost grows with the group (one task per peer);
    // - over NVLink, the send/receive copies move 0.9 of the bandwidth the ring's channels reach (one node:
    //   the slope of time against size gives 322 GB/s busbw over 32-512 MiB and 348 GB/s from 8 GiB,
    //   against the 371 GB/s the model's scale-up figure gives): on one node a peer's transfer keeps
    //   nChannelsMin channels until its parts pass 32 x the 512 KiB NVLink chunk (addP2pToPlan; init.cc
    //   NCCL_P2P_NVL_CHUNKSIZE), and those channels' thread blocks, not the links, set the pace.
    constexpr double kP2pPerPeerUs = 4.5;
    constexpr double kP2pNvlinkBandwidthFraction = 0.9;

    CollectiveTerms direct(const GroupContext& ctx, CollectiveOp op, double bytes, LinkClassBytes* out)
    {
        const StepLatency lat = stepLatency(ctx);
        const double n = ctx.ranks, ppn = ctx.ranksPerNode;
        const double localPeers = ppn - 1, remotePeers = n - ppn;
        double scaleUp = 0, nic = 0, seconds = 0;
        switch (op) {
        case CollectiveOp::AllReduce: // one-shot: the whole buffer to every peer, each reduces locally
            scaleUp = localPeers * bytes;
            nic = remotePeers * bytes;
            seconds = concurrentSeconds(ctx, scaleUp, nic);
            break;
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::AllGather:
        case CollectiveOp::AllToAll: { // S/n to every peer; AllToAll as NCCL's per-peer send/receive (above)
            scaleUp = localPeers * bytes / n;
            nic = remotePeers * bytes / n;
            const bool p2pNvlink = op == CollectiveOp::AllToAll && ctx.intraHw == nccl::kNvlink;
            seconds = concurrentSeconds(ctx, p2pNvlink ? scaleUp / kP2pNvlinkBandwidthFraction : scaleUp, nic);
            break;
        }
        case CollectiveOp::Broadcast:
        case CollectiveOp::Reduce: {
            // The root sends (receives) S to (from) every peer through its own links and one NIC rail.
            const double a = localPeers * bytes / ctx.intraBytesPerSecond;
            const double b = remotePeers * bytes / ctx.nicBytesPerSecond;
            seconds = std::max(a, b);
            scaleUp = localPeers * bytes / n; // averaged over the group
            nic = remotePeers * bytes / n;
            break;
        }
        case CollectiveOp::SendRecv: {
            // nccl-tests sendrecv: rank r sends S to r+1; one rank per node crosses to the next node.
            if (ctx.nodes > 1) {
                seconds = std::max(bytes / ctx.intraBytesPerSecond, bytes / ctx.nicBytesPerSecond);
                scaleUp = bytes * (ppn - 1) / ppn;
                nic = bytes / ppn;
            } else {
                seconds = bytes / ctx.intraBytesPerSecond;
                scaleUp = bytes;
            }
            break;
        }
        default: // not priced: CollectiveModel refuses them (isCostModelled)
            break;
        }
        double latUs = lat.baseUs + (ctx.nodes > 1 ? lat.interUs : lat.intraUs);
        if (op == CollectiveOp::AllToAll)
            latUs += (n - 1) * kP2pPerPeerUs;
        if (out) {
            *out = LinkClassBytes {};
            out->scaleUpBytes = scaleUp;
            out->nicBytes = nic;
            splitTiers(ctx, nic, op == CollectiveOp::SendRecv, *out);
        }
        return finish(ctx, latUs, seconds);
    }

    CollectiveTerms hierarchical(const GroupContext& ctx, CollectiveOp op, double bytes, LinkClassBytes* out)
    {
        if (op != CollectiveOp::AllReduce && op != CollectiveOp::ReduceScatter && op != CollectiveOp::AllGather)
            return {};
        const StepLatency lat = stepLatency(ctx);
        const double ppn = ctx.ranksPerNode;
        const double phases = op == CollectiveOp::AllReduce ? 2.0 : 1.0;
        // Level 1 (node): ring reduce-scatter / all-gather over the scale-up links, (ppn-1)/ppn S per phase.
        const double scaleUp = phases * bytes * (ppn - 1) / ppn;
        double latUs = lat.baseUs + phases * (ppn - 1) * lat.intraUs;
        double seconds = scaleUp / ctx.intraBytesPerSecond;
        double leafBytes = 0, upperBytes = 0;
        const double shard = bytes / ppn; // each rank carries its node-reduced shard over its own rail
        const double m = ctx.nodes;
        const double perNodeNic = ctx.interBytesPerSecond / ppn; // one rank's share of the node's NICs
        if (ctx.nodes > 1) {
            const double leafNodes = std::min<double>(ctx.nodesPerLeaf, m);
            const double leaves = std::ceil(m / leafNodes);
            if (leaves <= 1.0) {
                // Two levels: ring among the nodes for each shard.
                leafBytes = phases * shard * (m - 1) / m;
                latUs += phases * (m - 1) * lat.interUs;
                seconds += leafBytes / perNodeNic;
            } else {
                // Three levels: reduce-scatter among the nodes under a leaf, all-reduce of the leaf
                // shard S/(ppn L) across leaves, all-gather under the leaf.
                const double l = leafNodes;
                leafBytes = phases * shard * (l - 1) / l;
                const double leafShard = shard / l;
                upperBytes = (op == CollectiveOp::AllReduce ? 2.0 : 1.0) * leafShard * (leaves - 1) / leaves;
                latUs += phases * (l - 1) * lat.interUs
                    + (op == CollectiveOp::AllReduce ? 2.0 : 1.0) * (leaves - 1) * lat.interUs;
                seconds += (leafBytes + upperBytes) / perNodeNic;
            }
        }
        if (out) {
            *out = LinkClassBytes {};
            out->scaleUpBytes = scaleUp;
            out->nicBytes = leafBytes + upperBytes;
            if (ctx.nodes > 1) {
                if (upperBytes > 0) {
                    out->tierBytes[1] = leafBytes;
                    // The cross-leaf ring is neighbour traffic among leaves.
                    LinkClassBytes upper;
                    GroupContext leafCtx = ctx;
                    leafCtx.nodes = static_cast<int>(std::ceil(m / std::min<double>(ctx.nodesPerLeaf, m)));
                    leafCtx.nodesPerLeaf = 1;
                    leafCtx.nodesPerPod = std::max(1, ctx.nodesPerPod / std::max(1, ctx.nodesPerLeaf));
                    splitTiers(leafCtx, upperBytes, true, upper);
                    for (int k = 1; k < 4; ++k)
                        out->tierBytes[k] += upper.tierBytes[k];
                } else {
                    splitTiers(ctx, leafBytes, true, *out);
                }
            }
        }
        return finish(ctx, latUs, seconds);
    }

    CollectiveTerms parameterServer(
        const GroupContext& ctx, CollectiveOp op, double bytes, LinkClassBytes* out, double* hub)
    {
        if (op != CollectiveOp::AllReduce)
            return {};
        const StepLatency lat = stepLatency(ctx);
        // One hub with a node's NICs: every one of the N workers pushes S (N S in) and pulls S back
        // (N S out), one phase after the other: 2 N S through the hub.
        const double n = ctx.ranks;
        const double hubLoad = 2.0 * n * bytes;
        const double hubBw = ctx.interBytesPerSecond;
        const double workerBw = ctx.interBytesPerSecond / ctx.ranksPerNode;
        const double seconds = 2.0 * std::max(n * bytes / hubBw, bytes / workerBw);
        const double latUs = 2.0 * (lat.baseUs + lat.interUs);
        if (hub)
            *hub = hubLoad;
        if (out) {
            *out = LinkClassBytes {};
            out->nicBytes = bytes; // each worker pushes its gradient once
            splitTiers(ctx, bytes, false, *out);
        }
        return finish(ctx, latUs, seconds);
    }

} // namespace

CollectiveTerms extraCost(const CollectiveHardware&, const GroupContext& ctx, CollectiveOp op, double bytes,
    CollectiveAlgorithm algorithm, CollectiveProtocol protocol, LinkClassBytes* linkBytes, double* hubBytes)
{
    if (protocol != CollectiveProtocol::Simple)
        return {};
    switch (algorithm) {
    case CollectiveAlgorithm::HalvingDoubling:
        return halvingDoubling(ctx, op, bytes, linkBytes);
    case CollectiveAlgorithm::Direct:
        return direct(ctx, op, bytes, linkBytes);
    case CollectiveAlgorithm::Hierarchical:
        return hierarchical(ctx, op, bytes, linkBytes);
    case CollectiveAlgorithm::ParameterServer:
        return parameterServer(ctx, op, bytes, linkBytes, hubBytes);
    default:
        return {};
    }
}

} // namespace clusterscope::engine::collectives
