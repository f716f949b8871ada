// The time an NCCL algorithm takes once chosen: NCCL's tuner (src/graph/tuning.cc) costs a collective
// as latency + bytes / bandwidth, as if the bytes streamed at full bandwidth from the first byte.
// NCCL actually moves each channel's share in chunks through a pipeline of stages (the ranks of a
// chain or tree, the NVLS reduce and multicast): with q chunks per pipeline and D stages the last
// chunk leaves after q + D - 1 chunk times, so a size that fills few chunks runs at q / (q + D - 1)
// of the bandwidth. src/enqueue.cc (calcCollChunking) shrinks the chunks for mid sizes, which keeps
// q up but makes every chunk cheaper to start: the ramp nccl-tests shows between the latency-bound
// and the bandwidth-bound sizes. Ring keeps the tuner's terms: its steps are the tuner's latency
// term (nsteps x per-step latency) and its chunks fill one ring loop per channel.

#include "engine/collectives/collectivecost.h"
#include "engine/collectives/nccltuningtables.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::engine::collectives {

namespace {

    struct Pipeline {
        double concurrent = 1; ///< independent pipelines (channels x heads)
        double chunkBytes = 0; ///< bytes of one chunk
        double stages = 1; ///< D: stages a chunk passes in sequence
        double bandwidthFactor = 1; ///< undoes a mid-size correction of the tuner the pipeline replaces
        double stageShare = 1; ///< a fill stage's time as a share of the steady chunk period
        /// When > 0: a fill stage moves a chunk at this rate, so its share of the period is
        /// (algorithm bandwidth / this rate), at most 1.
        double hopBytesPerSecond = 0;
        /// When > 0: the steady algorithm bandwidth does not exceed this.
        double maxAlgBytesPerSecond = 0;
    };

    double nvlsChannels(const CollectiveHardware& hw, const GroupContext& ctx)
    {
        if (hw.archIndex >= 3)
            return ctx.nodes > 1 ? nccl::kNvlsChannelsBlackwellMultiNode : nccl::kNvlsChannelsBlackwellOneNode;
        return nccl::kNvlsChannelsHopper;
    }

    /// One step of calcCollChunking's shrinking: below `multiple` x (concurrent ops x chunk) bytes the
    /// chunk drops to `bytes` (when it is larger).
    struct ChunkStep {
        double multiple;
        double bytes;
    };

    double shrinkChunk(double chunk, double nBytes, double ops, const ChunkStep* steps, int count)
    {
        for (int i = 0; i < count; ++i) {
            if (nBytes < steps[i].multiple * ops * chunk && chunk > steps[i].bytes)
                chunk = steps[i].bytes;
        }
        return chunk;
    }

    // src/enqueue.cc calcCollChunking, NVLS: chunk = min(NCCL_NVLS_CHUNKSIZE, ...) then 64 KiB below
    // 64 x, 32 KiB below 8 x and 16 KiB below 2 x (concurrent ops x chunk).
    double nvlsChunk(double nBytes, double ops)
    {
        static constexpr ChunkStep kSteps[] = { { 64, 65536 }, { 8, 32768 }, { 2, 16384 } };
        return shrinkChunk(nccl::kNvlsChunkBytes, nBytes, ops, kSteps, 3);
    }

    // src/enqueue.cc calcCollChunking, NVLS_TREE: from min(nvlsChunkSize, treeMaxChunkSize) down to
    // 256/128/64/32 KiB below 32/16/4/1 x (concurrent ops x chunk).
    double nvlsTreeChunk(double nBytes, double ops, int nodes)
    {
        static constexpr ChunkStep kSteps[] = { { 32, 262144 }, { 16, 131072 }, { 4, 65536 }, { 1, 32768 } };
        const double chunk = nodes >= 4 ? std::min(nccl::kNvlsChunkBytes, nccl::kNvlsTreeMaxChunkBytesFrom4Nodes)
                                        : nccl::kNvlsChunkBytes;
        return shrinkChunk(chunk, nBytes, ops, kSteps, 4);
    }

    // src/enqueue.cc calcCollChunking, Tree LL128: halve while nBytes / (nChannels x chunk) is below
    // nstepsLL128 x 64 / ppn (down to 128 KiB) and nstepsLL128 x 16 / ppn (down to 32 KiB), with
    // nstepsLL128 = 1 + log2i(nNodes) + 0.1 ppn.
    double treeLl128Chunk(double nBytes, double channels, double ppn, int nodes)
    {
        const double steps = 1 + log2Floor(nodes) + 0.1 * ppn;
        double chunk = nccl::kLl128ChunkBytes;
        while (std::floor(nBytes / (channels * chunk)) < steps * 64 / ppn && chunk > 131072)
            chunk /= 2;
        while (std::floor(nBytes / (channels * chunk)) < steps * 16 / ppn && chunk > 32768)
            chunk /= 2;
        return chunk;
    }

    bool pipelineOf(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
        CollectiveAlgorithm algorithm, CollectiveProtocol protocol, Pipeline& p)
    {
        // NCCL's nBytes is count x type size: the per-rank share for AllGather and ReduceScatter.
        const bool perRank = op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter;
        const double nBytes = perRank ? bytes / ctx.ranks : bytes;
        const double ppn = ctx.ranksPerNode;
        switch (algorithm) {
        case CollectiveAlgorithm::Tree: {
            // Chain through the node's ranks, then the inter-node tree; reduce up and broadcast down
            // (src/device/all_reduce.h runTreeUpDown): 2 (ppn - 1) NVLink hops and 2 log2(nNodes)
            // network hops. Across nodes the network hop is the slow stage the chunk time is counted
            // in; an NVLink hop takes a share of it:
            // - Simple stores and forwards whole chunks: the sender writes the slice, fences and then
            //   bumps the step counter the receiver waits on (src/device/prims_simple.h), and a tree
            //   slice is one step. One channel (one thread block) moves each hop, so an NVLink hop
            //   takes (per-channel network rate / per-channel NVLink rate) of a network hop: NCCL's
            //   own per-channel figures (busBw = nChannels x per-channel bw, src/graph/tuning.cc).
            // - LL and LL128 carry a flag in every 8-byte / 128-byte line and the next GPU forwards
            //   lines as they land, so a chain hop adds little beyond the tuner's per-hop latency; it
            //   is counted at the per-rank network rate over the GPU's NVLink rate.
            p.concurrent = ctx.channels;
            double nvlinkHop = 1.0;
            if (ctx.nodes > 1) {
                nvlinkHop = protocol == CollectiveProtocol::Simple
                    ? (ctx.interBytesPerSecond / ctx.channels) / (hw.intraBytesPerSecond / hw.intraChannels)
                    : ctx.interBytesPerSecond / ppn / ctx.intraBytesPerSecond;
                nvlinkHop = std::min(1.0, nvlinkHop);
            }
            p.stages = std::max(1.0, 2.0 * (ppn - 1) * nvlinkHop + 2.0 * log2Floor(ctx.nodes));
            p.chunkBytes = protocol == CollectiveProtocol::LL128 ? treeLl128Chunk(nBytes, ctx.channels, ppn, ctx.nodes)
                : protocol == CollectiveProtocol::LL             ? nccl::kLlChunkBytes
                                                                 : hw.simpleStepBytes;
            // The tuner's treeCorrectionFactor (tuning.cc) is NCCL's own stand-in for this pipeline.
            p.bandwidthFactor = treeCorrection(bytes, protocol);
            return true;
        }
        case CollectiveAlgorithm::Nvls: {
            // On one node three warp groups pass each chunk on (src/device/all_reduce.h, NVLS Simple,
            // work->oneNode: scatter into the NVLS buffer, reduce and multicast through the switch
            // (multimem load-reduce / store), gather out of it): 3 stages. Across nodes the chunk
            // also goes up to the SHARP switch and back down (CollNet): 3. Heads: every local rank on one
            // node, the NIC-owning GPUs across nodes (ncclNvlsHeads).
            p.concurrent = nvlsChannels(hw, ctx) * ncclNvlsHeads(ctx);
            p.chunkBytes = nvlsChunk(nBytes, p.concurrent);
            p.stages = 3;
            return true;
        }
        case CollectiveAlgorithm::NvlsTree: {
            // In-switch reduce and multicast inside the node, then the tree up and down across nodes.
            p.concurrent = nvlsChannels(hw, ctx) * ncclNvlsHeads(ctx);
            p.chunkBytes = nvlsTreeChunk(nBytes, p.concurrent, ctx.nodes);
            p.stages = 1 + 2.0 * log2Floor(ctx.nodes);
            // The steady chunk period is that of the slowest stage: the in-switch reduce and multicast inside
            // the node, or beyond two nodes the tree's interior nodes, which send every chunk twice (to both
            // children going down, ncclcost.cpp treeNodeEgressFactor). A chunk filling the pipeline crosses
            // each network hop once, at the node's full NIC rate: (algorithm bandwidth / NIC rate) of a
            // period (half a period beyond two nodes; on two nodes the NVLS stage sets the period).
            p.hopBytesPerSecond = ctx.interBytesPerSecond;
            // NCCL's tuner counts perChMaxNVLSTreeBws per channel of the NVLS graph, i.e. per head
            // (graphs[NCCL_ALGO_NVLS_TREE] is the NVLS graph, whose channels are its heads:
            // ncclNvlsHeads), in bus bandwidth (NCCL 2.29 tuning.cc converts NVLS and NVLSTree busBw to
            // algbw by nRanks / nsteps, nccl-tests' own factor). Per head that figure is what NVLSTree
            // AllReduce reaches in the public logs of tests/data/nccltests/public: 58-61 GB/s per head on
            // two nodes of 8 x 400 Gb/s H100 / H200 (465-486 GB/s; table 57.7), 55-59 with 4 heads
            // (220-236 GB/s, where the NICs alone would carry ~360) and 45.7 on four nodes (366 GB/s;
            // 45.5). ClusterScope applies it to the time of a chosen NVLSTree, not to the choice: taken
            // into the tuner term too, it turns the 4 x 8 log's largest sizes to Ring, which that log
            // contradicts (its bus bandwidth keeps rising to 366 GB/s, above the 330 a 16-channel ring
            // carries, capRingByChannels).
            if (ctx.ranks > 1)
                p.maxAlgBytesPerSecond = ncclNvlsHeads(ctx) * nccl::kPerChMaxNvlsTreeGBps[hw.archIndex][ctx.capIndex]
                    * kGBps * ctx.ranks / (2.0 * (ctx.ranks - 1));
            return true;
        }
        default:
            return false;
        }
    }

    // A ring across nodes moves each channel's share through one thread block per rank, and a block
    // copies about one NVLink's worth: NCCL's own per-channel figure (kNvlinkChannelGBps, which the
    // send/receive model uses for one p2p channel: 20.4 GB/s per channel measured on H100,
    // extracost.cpp). A ring's bus bandwidth is then at most its running channels x that figure,
    // whatever the NICs could carry (one node already counts it: busBw = channels x per-channel NVLink
    // bw). NCCL's tuner does not apply this (it multiplies its search graph's channels by the graph's
    // per-channel rate, src/graph/tuning.cc), so it shapes the time of the chosen ring, not the choice.
    // On a node of 8 x 400 Gb/s NICs Hopper runs 16 ring channels (ncclRunningRingChannels): at most
    // 16 x 20.6 = 330 GB/s busbw where the NICs carry ~370 (public all_gather / reduce_scatter logs of
    // 10 x 8 H100 stop at 304-324 GB/s: tests/data/nccltests/public/README.md, ninth round). Blackwell's
    // 40.1 GB/s per channel keeps its rings NIC-bound.
    void capRingByChannels(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
        CollectiveProtocol protocol, CollectiveTerms& t)
    {
        // NVLink only: RCCL on AMD Infinity Fabric runs its own channel counts (public MI300X / MI355X rccl-tests
        // logs of 2 x 8 GPUs reach 350-369 GB/s busbw from 1 GiB on 8 x 400 Gb/s NICs, above 16 x 20.6).
        if (ctx.nodes <= 1 || ctx.ranksPerNode < 2 || !hw.nvlink || !hw.nvlinkChannelFigures || !(bytes > 0))
            return;
        double busBw = ncclRunningRingChannels(hw, ctx) * nccl::kNvlinkChannelGBps[hw.archIndex] * kGBps;
        // The protocols' share of the Simple rate, as the tuner counts them (tuning.cc).
        if (protocol == CollectiveProtocol::LL128)
            busBw *= nccl::kRingLl128Factor;
        else if (protocol == CollectiveProtocol::LL)
            busBw *= nccl::kRingLlFactor;
        const double algBw = busBw * ctx.ranks / ncclRingSteps(op, ctx.ranks);
        t.achievedBandwidthSeconds = std::max(t.achievedBandwidthSeconds, bytes / algBw);
    }

} // namespace

void applyNcclPipeline(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
    CollectiveAlgorithm algorithm, CollectiveProtocol protocol, CollectiveTerms& t)
{
    // The per-call overhead nccl-tests measures beyond the tuner: on one node the kernel launches of
    // the calling thread, across nodes the proxy's network progress and what the net transport adds
    // to it (catalog net_transports call_overhead_us).
    t.achievedLatencySeconds = t.latencySeconds
        + (ctx.nodes > 1 ? nccl::kNetCallOverheadUs * kMicro + hw.netCallOverheadSeconds
                         : nccl::kLaunchPerGpuUs * ctx.gpusPerThread * kMicro);
    t.achievedBandwidthSeconds = t.bandwidthSeconds;
    if (algorithm == CollectiveAlgorithm::Ring)
        capRingByChannels(hw, ctx, op, bytes, protocol, t);
    Pipeline p;
    if (!(bytes > 0) || !pipelineOf(hw, ctx, op, bytes, algorithm, protocol, p))
        return;
    const bool perRank = op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter;
    const double nBytes = perRank ? bytes / ctx.ranks : bytes;
    // q chunks per pipeline (a partial chunk when the size fills less than one), D stages: the last
    // chunk is out after q + D - 1 chunk times of W / q each.
    const double q = std::max(1.0, nBytes / (p.concurrent * p.chunkBytes));
    double streaming = t.bandwidthSeconds * p.bandwidthFactor;
    if (p.maxAlgBytesPerSecond > 0)
        streaming = std::max(streaming, bytes / p.maxAlgBytesPerSecond);
    if (p.hopBytesPerSecond > 0 && streaming > 0)
        p.stageShare = std::min(1.0, bytes / streaming / p.hopBytesPerSecond);
    t.achievedBandwidthSeconds = streaming * (q + (p.stages - 1) * p.stageShare) / q;
}

} // namespace clusterscope::engine::collectives
