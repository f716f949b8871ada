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
#include <limits>

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

    // A send/receive (ncclSend/ncclRecv, nccl-tests sendrecv, Megatron's pipeline p2p) runs on a few of
    // the communicator's p2p channels, one thread block each, and a channel moves a bounded rate: the
    // transfer is channel-bound until enough channels join. NCCL's rules, step by step:
    // - channels per peer (src/graph/paths.cc ncclTopoGetNchannels, the minimum over the peers): 2 x the
    //   NVLinks to an NVLink peer (2 for PCIe); max(local NICs, ceil(local NIC GB/s / 14)) to a remote
    //   peer (NCCL_P2P_PER_CHANNEL_NET_BW 14); rounded up to a power of two. ncclTopoComputeP2pChannels:
    //   p2pnChannels = pow2Up(the communicator's channels); across nodes the per-peer count halves while
    //   it x ceil(ranks / 8) (NCCL_MAX_DEV_WORK_P2P_PER_BATCH) exceeds p2pnChannels, on one node it is
    //   capped by p2pnChannels;
    // - src/enqueue.cc scheduleP2pTasksToPlan: nChannelsMin halves while nChannelsMin x ranks exceeds
    //   p2pnChannels (the communicator's size, not the peers in use);
    // - addP2pToPlan: start at min(nChannelsMin, ceil(S / minPart)) channels and double while a part
    //   exceeds maxPart, up to the per-peer count; one node: parts of 1/8 .. 32 x the 512 KiB NVLink
    //   chunk (NCCL_P2P_NVL_CHUNKSIZE; 128 KiB over PCIe), across nodes 1/2 .. 1 x the 128 KiB network
    //   chunk (NCCL_P2P_NET_CHUNKSIZE, x 2 on Grace-Blackwell hosts: src/init.cc computeBuffSizes).
    // Per channel, over NVLink a block copies about one NVLink's worth, NCCL's own per-channel figure
    // (kNvlinkChannelGBps): on 8 H100 of one node sendrecv_perf reaches 80 GB/s at 32-64 MiB (4 channels),
    // 163 GB/s at 128 MiB (8), 299 GB/s at 256 MiB (16) and the links' rate from 512 MiB (32 channels),
    // and 4 ranks 149-163 GB/s at 32-128 MiB (8 channels) (public sendrecv_perf logs of one H100 cluster,
    // tests/data/nccltests/public/README.md). Over the network a channel keeps at most NCCL_STEPS chunks
    // in flight, so it moves NCCL_STEPS x chunk per round trip of a step (GPU copy, proxy, RDMA write,
    // completion): the same logs give 24.9-26.3 GB/s for one channel on 400 Gb/s NICs (10 nodes of 1, 2
    // and 4 ranks), a round trip of 42 us; that one figure is fitted, on those three logs.
    constexpr double kP2pPerChannelNetGBps = 14.0;
    constexpr double kP2pNvlChunkBytes = 512.0 * 1024;
    constexpr double kP2pPciChunkBytes = 128.0 * 1024;
    constexpr double kP2pMaxPeersPerBatch = 8.0;
    constexpr double kP2pNetStepRoundTripSeconds = 42e-6;

    int pow2Up(int v)
    {
        int p = 1;
        while (p < v && p < (1 << 20))
            p <<= 1;
        return p;
    }

    /// Channels NCCL stripes one send of `bytes` over, in a communicator of ctx.ranks ranks.
    int p2pChannels(const CollectiveHardware& hw, const GroupContext& ctx, double bytes)
    {
        const bool multiNode = ctx.nodes > 1;
        const int p2pnChannels = pow2Up(std::max(1, int(std::lround(ctx.channels))));
        const int nvlinks = hw.nvlink
            ? std::max(1, int(std::lround(hw.intraBytesPerSecond / (nccl::kNvlinkChannelGBps[hw.archIndex] * 1e9))))
            : 1;
        int perPeer = ctx.ranksPerNode > 1 ? 2 * (hw.nvlink ? nvlinks : 1) : 1 << 20;
        if (multiNode) {
            const double nicsPerRank = std::max(1.0, double(ctx.nics) / ctx.ranksPerNode);
            const double nicGBps = nicsPerRank * hw.nicBytesPerSecond / 1e9;
            perPeer = std::min(
                perPeer, std::max(int(std::lround(nicsPerRank)), int(std::ceil(nicGBps / kP2pPerChannelNetGBps))));
        }
        perPeer = pow2Up(perPeer);
        if (multiNode) {
            const double batches = std::ceil(ctx.ranks / kP2pMaxPeersPerBatch);
            while (perPeer * batches > p2pnChannels && perPeer > 1)
                perPeer /= 2;
        } else {
            perPeer = std::min(perPeer, p2pnChannels);
        }
        int channelsMin = perPeer;
        while (double(channelsMin) * ctx.ranks > p2pnChannels && channelsMin > 1)
            channelsMin /= 2;
        const double step = multiNode ? hw.p2pNetChunkBytes : (hw.nvlink ? kP2pNvlChunkBytes : kP2pPciChunkBytes);
        const double minPart = multiNode ? step / 2 : step / 8;
        const double maxPart = multiNode ? step : step * 32;
        int channels = std::max(1, int(std::min<double>(channelsMin, std::ceil(bytes / minPart))));
        double part = std::max(minPart, bytes / channels);
        while (part > maxPart && channels <= perPeer / 2) {
            channels *= 2;
            part = bytes / channels;
        }
        return channels;
    }

    /// The rate one send reaches over NVLink (`network` false) or a NIC (true) on `channels` channels.
    double p2pChannelBytesPerSecond(const CollectiveHardware& hw, int channels, bool network)
    {
        if (network)
            return channels * nccl::kSteps * hw.p2pNetChunkBytes / kP2pNetStepRoundTripSeconds;
        return hw.nvlink ? channels * nccl::kNvlinkChannelGBps[hw.archIndex] * 1e9
                         : std::numeric_limits<double>::infinity();
    }

    CollectiveTerms direct(
        const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes, LinkClassBytes* out)
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
            // nccl-tests sendrecv: rank r sends S to r+1; one rank per node crosses to the next node. Each
            // send runs on p2pChannels() channels, which may bound it below the link (above).
            // Across nodes the channel bound is the network's: the NVLink sends of such a communicator
            // reach 25-26 GB/s on one channel (10 nodes of 2 and 4 H100), so over NVLink only one-node
            // communicators are held to NVLink's per-channel figure.
            const int channels = p2pChannels(hw, ctx, bytes);
            if (ctx.nodes > 1) {
                const double net = std::min(ctx.nicBytesPerSecond, p2pChannelBytesPerSecond(hw, channels, true));
                seconds = std::max(bytes / ctx.intraBytesPerSecond, bytes / net);
                scaleUp = bytes * (ppn - 1) / ppn;
                nic = bytes / ppn;
            } else {
                seconds = bytes / std::min(ctx.intraBytesPerSecond, p2pChannelBytesPerSecond(hw, channels, false));
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

CollectiveTerms extraCost(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
    CollectiveAlgorithm algorithm, CollectiveProtocol protocol, LinkClassBytes* linkBytes, double* hubBytes)
{
    if (protocol != CollectiveProtocol::Simple)
        return {};
    switch (algorithm) {
    case CollectiveAlgorithm::HalvingDoubling:
        return halvingDoubling(ctx, op, bytes, linkBytes);
    case CollectiveAlgorithm::Direct:
        return direct(hw, ctx, op, bytes, linkBytes);
    case CollectiveAlgorithm::Hierarchical:
        return hierarchical(ctx, op, bytes, linkBytes);
    case CollectiveAlgorithm::ParameterServer:
        return parameterServer(ctx, op, bytes, linkBytes, hubBytes);
    default:
        return {};
    }
}

} // namespace clusterscope::engine::collectives
