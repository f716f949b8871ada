// TrainingEvaluator::evaluate(): assembles one iteration from the layer times, the placed
// collectives, the pipeline schedule and the optimizer step (Narayanan et al., SC21; Korthikanti et
// al., "Reducing Activation Recomputation in Large Transformer Models", arXiv:2205.05198).

#include "engine/scenario/pipelinesplit.h"
#include "engine/training/gradientcompression.h"
#include "engine/training/muonstep.h"
#include "engine/training/trainingevaluator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace clusterscope::engine {

namespace {
    constexpr double kActivationBytes = 2.0;
    constexpr double kGradientBytes = 2.0;

    /// Wire bytes one rank sends in a ring / pairwise implementation of `op` of size S over n ranks.
    double wireBytes(CollectiveOp op, double size, int n)
    {
        if (n <= 1)
            return 0.0;
        const double share = (n - 1.0) / n;
        switch (op) {
        case CollectiveOp::AllReduce:
            return 2.0 * share * size;
        case CollectiveOp::AllGather:
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::AllToAll:
            return share * size;
        default:
            return size;
        }
    }

    /// ca a + cb b + cc c, time by time: every time is a per-layer sum, so such a mix is exact for a
    /// stage's total. The output layer's and MTP modules' times are a's (16-bit in every run).
    LayerTimes combineLayerTimes(
        const LayerTimes& a, double ca, const LayerTimes& b, double cb, const LayerTimes& c, double cc)
    {
        const auto mix = [&](double x, double y, double z) { return ca * x + cb * y + cc * z; };
        const auto kernels = [&](const KernelTimes& x, const KernelTimes& y, const KernelTimes& z) {
            KernelTimes k;
            for (const auto field : kKernelTimesFields)
                k.*field = mix(x.*field, y.*field, z.*field);
            return k;
        };
        LayerTimes r;
        r.forwardKernels = kernels(a.forwardKernels, b.forwardKernels, c.forwardKernels);
        r.backwardKernels = kernels(a.backwardKernels, b.backwardKernels, c.backwardKernels);
        r.forward = mix(a.forward, b.forward, c.forward);
        r.backward = mix(a.backward, b.backward, c.backward);
        r.selectiveRecompute = mix(a.selectiveRecompute, b.selectiveRecompute, c.selectiveRecompute);
        r.selectiveRecomputeAttention
            = mix(a.selectiveRecomputeAttention, b.selectiveRecomputeAttention, c.selectiveRecomputeAttention);
        r.selectiveRecomputeGemm = mix(a.selectiveRecomputeGemm, b.selectiveRecomputeGemm, c.selectiveRecomputeGemm);
        r.attentionCore = mix(a.attentionCore, b.attentionCore, c.attentionCore);
        r.logitsForward = a.logitsForward;
        r.logitsBackward = a.logitsBackward;
        r.mtpForward = a.mtpForward;
        r.mtpBackward = a.mtpBackward;
        return r;
    }

    /// A stage's average layer when a share `w` of its layers runs as `b` and the rest as `a`.
    LayerTimes mixLayerTimes(const LayerTimes& a, const LayerTimes& b, double w)
    {
        return combineLayerTimes(a, 1.0 - w, b, w, b, 0.0);
    }
} // namespace

TrainingEstimate TrainingEvaluator::evaluate(const TrainingStrategy& s) const
{
    TrainingEstimate r;
    r.strategy = s;
    if (invalidReason(s))
        return r;
    r.valid = true;
    const ParallelismSpec& p = s.parallelism;
    const TransformerShape& m = m_shape;
    const CommunicationSpec& comm = m_scenario.communication;
    const int batch = m_scenario.training.globalBatch;
    const int microBatches = batch / (p.dp * s.microBatch); // whole micro-batches (invalidReason)
    const double micro = microBatches; // m
    r.microBatchesPerPipeline = static_cast<int>(micro);
    PipelineSplit split;
    splitPipelineOf(m_scenario.model, p, split);
    // layerTimes() depends only on tp, cp, ep, etp, sequence parallelism and the micro-batch (and the
    // evaluator): a small per-thread memo spares the kernel model for the strategies the search
    // enumerates around them (pp, dp, vpp, ZeRO, recomputation). Results are identical.
    struct LayerMemo {
        unsigned long long tag = 0;
        int tp = 0, cp = 0, ep = 0, etp = 0, micro = 0;
        bool sp = false;
        LayerTimes times;
    };
    // The twins' layer times (bf16_layers_at_start / _at_end; model.mtp_pattern, training.bf16_mtp) in a
    // memo of their own, slot for slot: scenarios without twins keep the main memo small.
    struct TwinMemo {
        unsigned long long tag = 0;
        int tp = 0, cp = 0, ep = 0, etp = 0, micro = 0;
        bool sp = false;
        LayerTimes bf16Times, mtpTimes;
    };
    // 1024 slots (about 200 KB per thread): a search's tp x cp x ep x micro-batch combinations
    // (a few hundred) then rarely evict each other; the key is mixed with the splitmix64 finalizer
    // (Steele, Lea and Flood, OOPSLA 2014) because the knobs are small powers of two.
    constexpr unsigned long long kLayerMemoSlots = 1024;
    thread_local LayerMemo memo[kLayerMemoSlots];
    const bool spOn = p.sequenceParallel && p.tp > 1;
    const int etp = p.expertTp();
    unsigned long long key = (static_cast<unsigned long long>(etp) << 52)
        ^ (static_cast<unsigned long long>(p.tp) << 40) ^ (static_cast<unsigned long long>(p.cp) << 28)
        ^ (static_cast<unsigned long long>(p.ep) << 14) ^ (static_cast<unsigned long long>(s.microBatch) << 1)
        ^ static_cast<unsigned long long>(spOn);
    key = (key ^ (key >> 30)) * 0xBF58476D1CE4E5B9ull;
    key = (key ^ (key >> 27)) * 0x94D049BB133111EBull;
    const std::size_t slotIndex = (key ^ (key >> 31)) % kLayerMemoSlots;
    LayerMemo& slot = memo[slotIndex];
    if (!(slot.tag == m_cacheTag && slot.tp == p.tp && slot.cp == p.cp && slot.ep == p.ep && slot.etp == etp
            && slot.micro == s.microBatch && slot.sp == spOn))
        slot = { m_cacheTag, p.tp, p.cp, p.ep, etp, s.microBatch, spOn, layerTimes(s) };
    const LayerTimes& quantized = slot.times;
    const TwinMemo* twins = nullptr;
    if (m_bf16Twin || m_mtpTwin) {
        thread_local TwinMemo twinMemo[kLayerMemoSlots];
        TwinMemo& t = twinMemo[slotIndex];
        if (!(t.tag == m_cacheTag && t.tp == p.tp && t.cp == p.cp && t.ep == p.ep && t.etp == etp
                && t.micro == s.microBatch && t.sp == spOn))
            t = { m_cacheTag, p.tp, p.cp, p.ep, etp, s.microBatch, spOn,
                m_bf16Twin ? m_bf16Twin->layerTimes(s) : LayerTimes {},
                m_mtpTwin ? m_mtpTwin->layerTimes(s) : LayerTimes {} };
        twins = &t;
    }
    const StrategyGroups groups = m_placer.groups(p);
    const double tokens = static_cast<double>(s.microBatch) * m.seqLen / p.cp; // per GPU per micro-batch
    const bool sp = p.sequenceParallel && p.tp > 1;
    const bool full = s.recompute == Recompute::Full;

    IterationBreakdown& b = r.breakdown;
    const double overlapInterference = m_efficiency.params().overlapInterferenceFraction;
    // The slowest pipeline stage sets the pace of every micro-batch (and of the fill and drain): the
    // first stage runs its layers (and the embedding lookup), a middle stage its layers, the last its
    // layers plus the output layer and loss; uneven splits (PipelineSplit) make them differ.
    const auto selectiveOf
        = [&](const LayerTimes& x) { return s.recompute == Recompute::Selective ? x.selectiveRecompute : 0.0; };
    // The last stage also runs the multi-token prediction modules (DeepSeek-V3): one more layer and
    // one more output layer + loss each; they are counted as layers of that stage below. With an MTP
    // twin (model.mtp_pattern, training.bf16_mtp) a depth's layer is the twin's blocks (mtpBlocks
    // layers of the twin's times, mixed into the last stage's average layer); else an average layer.
    const double mtp = m.mtpLayers;
    const double mtpOnLast = m_mtpTwin ? mtp * m.mtpBlocks : mtp; // layers the MTP layers count as
    const LayerTimes& mtpModule = m_mtpTwin ? twins->mtpTimes : quantized; // its embedding, norms, eh_proj
    const double logitsTime = (quantized.logitsForward + quantized.logitsBackward) * (1.0 + mtp)
        + mtp * (mtpModule.mtpForward + mtpModule.mtpBackward);
    // Layers kept in BF16 under a quantized dtype (training.bf16_layers_at_start / _at_end): the first
    // ones on the first stage, the last ones on the last; a stage's layer is the mix of its quantized and
    // BF16 layers (MTP layers without a twin count as that mix, with one as the twin's times below).
    // (Without BF16 layers every stage uses the memo's times directly: no copies on the search's path.)
    const LayerTimes* ltFirst = &quantized;
    const LayerTimes* ltLast = &quantized;
    // A hybrid stack's slices (a stage's blocks, or its BF16 blocks) timed by an evaluator, this one or
    // the BF16 twin: a per-thread memo keyed by the strategy's knobs, the slice's block counts and the
    // evaluator.
    struct SliceMemo {
        unsigned long long tag = 0, key = 0, blocks = 0;
        LayerTimes times;
    };
    const auto sliceTimes = [&](const TransformerShape& x, double n, bool bf16) {
        thread_local SliceMemo sliceMemo[kLayerMemoSlots];
        const auto count = [&](double share) { return static_cast<unsigned long long>(std::llround(share * n)); };
        const unsigned long long blocks = (static_cast<unsigned long long>(n) << 48) ^ (count(x.attentionShare) << 36)
            ^ (count(x.ffnShare) << 24) ^ (count(x.moeShare) << 12) ^ count(x.mambaShare) ^ (bf16 ? 1ull << 63 : 0ull);
        SliceMemo& sm = sliceMemo[(key ^ (blocks * 0x9E3779B97F4A7C15ull)) % kLayerMemoSlots];
        if (!(sm.tag == m_cacheTag && sm.key == key && sm.blocks == blocks))
            sm = { m_cacheTag, key, blocks, bf16 ? m_bf16Twin->layerTimesOf(s, x) : layerTimesOf(s, x) };
        return sm.times;
    };
    // A hybrid slice's average layer `all` (its blocks timed together, quantized) with its BF16 blocks
    // `x`: plus their share of what those blocks take in BF16 over the quantized dtype, each timed as
    // their own blocks (the stack's average BF16 layer would stand for whatever blocks they are).
    const auto withBf16Blocks = [&](const LayerTimes& all, const Bf16Blocks& x) {
        if (x.bf16Layers == 0 || x.layers == 0)
            return all;
        const double w = static_cast<double>(x.bf16Layers) / x.layers;
        return combineLayerTimes(
            all, 1.0, sliceTimes(x.shape, x.bf16Layers, true), w, sliceTimes(x.shape, x.bf16Layers, false), -w);
    };
    const LayerTimes* ltMiddle = &quantized;
    std::optional<LayerTimes> mixedFirst, mixedLast, mixedMiddle; // engaged only when needed: no per-evaluation zeroing
    if (m_memoryInputs.wholeBf16Blocks && p.pp == 1) { // a hybrid stack's own BF16 blocks on one stage
        mixedFirst = mixedLast = withBf16Blocks(quantized, *m_memoryInputs.wholeBf16Blocks);
        ltFirst = &*mixedFirst;
        ltLast = &*mixedLast;
    } else if (m_bf16Twin) {
        const auto mixed = [&](double layers, double bf16) {
            const double w = layers > 0 ? std::min(1.0, bf16 / layers) : 0.0;
            return mixLayerTimes(quantized, twins->bf16Times, w);
        };
        const int start = m_scenario.training.bf16LayersAtStart, end = m_scenario.training.bf16LayersAtEnd;
        if (p.pp == 1) {
            mixedFirst = mixedLast = mixed(m.layers, start + end);
        } else {
            const auto onStage
                = [&](int r) { return bf16LayersOnStage(r, p.pp, p.vpp, split, m_scenario.model.layers, start, end); };
            mixedFirst = mixed(split.first, onStage(0));
            mixedLast = mixed(split.last, onStage(p.pp - 1));
            // The middle stages share one time: the one holding the most BF16 layers (with virtual stages).
            int middle = 0;
            for (int r = 1; r < p.pp - 1; ++r)
                middle = std::max(middle, onStage(r));
            if (middle > 0) {
                mixedMiddle = mixed(split.middle, middle);
                ltMiddle = &*mixedMiddle;
            }
        }
        ltFirst = &*mixedFirst;
        ltLast = &*mixedLast;
    }
    std::optional<LayerTimes> lastWithMtp;
    if (m_mtpTwin) {
        const double lastLayers = p.pp == 1 ? m.layers : split.last;
        lastWithMtp = mixLayerTimes(*ltLast, twins->mtpTimes, mtpOnLast / (lastLayers + mtpOnLast));
        ltLast = &*lastWithMtp;
    }
    // Layers of a stage of `layers` transformer layers whose forward runs again in the backward: under full
    // recomputation all of them and the MTP layers, under block recomputation the first
    // recompute_num_layers of each virtual chunk (blockRecomputedLayers) and no MTP layer (Megatron-Core
    // multi_token_prediction.py: "recompute_method == 'block' is not supported for MTP yet").
    const auto recomputedLayers = [&](double layers, bool hasLogits) {
        if (!full)
            return 0.0;
        return s.blockRecompute() ? blockRecomputedLayers(layers, p.vpp, s.recomputeNumLayers)
                                  : layers + (hasLogits ? mtpOnLast : 0.0);
    };
    const auto stageTime = [&](const LayerTimes& x, double layers, bool hasLogits) {
        return (layers + (hasLogits ? mtpOnLast : 0.0)) * (x.forward + x.backward + selectiveOf(x))
            + recomputedLayers(layers, hasLogits) * x.forward + (hasLogits ? logitsTime : 0.0);
    };
    double layersPerStage = split.last + mtpOnLast; // the critical stage's layers
    bool criticalHasLogits = true;
    const LayerTimes* critical = ltLast;
    // A hybrid stack with pipelines: each stage runs its own slice of the pattern (hybridStageShapes), its
    // average layer timed from its own blocks (sliceTimes), its BF16 blocks in BF16 (withBf16Blocks) and,
    // on the last, the MTP layers mixed in as above. The collectives below count the critical stage's
    // blocks.
    const std::shared_ptr<const StageShapes> stages = stageShapes(p, split);
    const TransformerShape* criticalShape = &m;
    std::vector<LayerTimes> stageLayers; // engaged only for a hybrid stack with pipelines
    if (stages) {
        stageLayers.reserve(static_cast<std::size_t>(p.pp));
        double slowest = -1.0;
        std::size_t slowestStage = 0;
        for (int i = 0; i < p.pp; ++i) {
            const std::size_t r = static_cast<std::size_t>(i);
            const double n = stages->layers[r];
            LayerTimes times = sliceTimes(stages->shapes[r], n, false);
            if (!stages->bf16.empty())
                times = withBf16Blocks(times, stages->bf16[r]);
            const bool last = i == p.pp - 1;
            if (last && m_mtpTwin)
                times = mixLayerTimes(times, twins->mtpTimes, mtpOnLast / (n + mtpOnLast));
            stageLayers.push_back(times);
            const double t = stageTime(stageLayers.back(), n, last);
            if (t > slowest) {
                slowest = t;
                slowestStage = static_cast<std::size_t>(i);
                layersPerStage = n + (last ? mtpOnLast : 0.0);
                criticalHasLogits = last;
            }
        }
        critical = &stageLayers[slowestStage];
        criticalShape = &stages->shapes[slowestStage];
    } else if (p.pp > 1) {
        double slowest = stageTime(*ltLast, split.last, true);
        if (stageTime(*ltFirst, split.first, false) > slowest) {
            slowest = stageTime(*ltFirst, split.first, false);
            layersPerStage = split.first;
            criticalHasLogits = false;
            critical = ltFirst;
        }
        if (p.pp > 2 && stageTime(*ltMiddle, split.middle, false) > slowest) {
            layersPerStage = split.middle;
            criticalHasLogits = false;
            critical = ltMiddle;
        }
    } else {
        layersPerStage = m.layers + mtpOnLast;
    }
    const LayerTimes& lt = *critical;
    // The critical stage's recomputed layers as a share of its layers: 1 under full recomputation, a
    // part under block recomputation, 0 otherwise. Recomputation repeats the forward's collectives too.
    const double recomputedShare = layersPerStage > 0
        ? recomputedLayers(layersPerStage - (criticalHasLogits ? mtpOnLast : 0.0), criticalHasLogits) / layersPerStage
        : 0.0;
    const double forwardPasses = 1.0 + recomputedShare;
    const double stageForward = layersPerStage * lt.forward;
    const double stageBackward = layersPerStage * lt.backward;
    const double logits = criticalHasLogits ? logitsTime : 0.0;
    const double perLayerRecompute = recomputedShare * lt.forward + selectiveOf(lt);
    const double recomputePerMicro = layersPerStage * perLayerRecompute;
    b.compute = micro * (stageForward + stageBackward + logits);
    b.recompute = micro * recomputePerMicro;
    {
        // The same time by kernel kind: forward + backward (+ the recomputed forward) of the stage's layers.
        const KernelTimes& f = lt.forwardKernels;
        const KernelTimes& w = lt.backwardKernels;
        // Selective recomputation by kind: attention core, GEMMs (mla_up_proj), element-wise (the rest).
        const bool selective = s.recompute == Recompute::Selective;
        const double selectiveAttention = selective ? lt.selectiveRecomputeAttention : 0.0;
        const double selectiveGemm = selective ? lt.selectiveRecomputeGemm : 0.0;
        const double selectiveElementwise
            = selective ? lt.selectiveRecompute - selectiveAttention - selectiveGemm : 0.0;
        const double n = micro * layersPerStage;
        ComputeBreakdown& cb = r.computeBreakdown;
        cb.gemm = n * (f.gemm * (1.0 + recomputedShare) + w.gemm + selectiveGemm);
        cb.attention = n * (f.attention * (1.0 + recomputedShare) + w.attention + selectiveAttention);
        cb.elementwise = n * (f.elementwise * (1.0 + recomputedShare) + w.elementwise + selectiveElementwise);
        cb.fp8Casts = n * (f.fp8Casts * (1.0 + recomputedShare) + w.fp8Casts);
        cb.overhead = n * (f.overhead * (1.0 + recomputedShare) + w.overhead);
        cb.kernels = n * (f.kernels * (1.0 + recomputedShare) + w.kernels);
        cb.logits = micro * logits;
        r.pipelineSplitRule = split.rule;
        r.firstStageLayers = split.first;
        r.middleStageLayers = split.middle;
        r.lastStageLayers = split.last;
    }

    // Tensor parallelism: per layer 2 all-reduces forward and 2 backward of b s h (with sequence
    // parallelism an all-gather + reduce-scatter pair each; Korthikanti et al. 2022 Sec. 4.2.2).
    CommunicationSeconds& c = r.communication;
    if (p.tp > 1) {
        const double bytes = tokens * m.hidden * kActivationBytes;
        const double pair = sp ? collectiveSeconds(CollectiveOp::AllGather, bytes, groups.tp)
                + collectiveSeconds(CollectiveOp::ReduceScatter, bytes, groups.tp)
                               : collectiveSeconds(CollectiveOp::AllReduce, bytes, groups.tp);
        // attention and MLP; a hybrid stack's Mamba, attention and MLP blocks one pair each
        double pairs = criticalShape->blocksPerLayer * pair;
        double pairWire = criticalShape->blocksPerLayer * wireBytes(CollectiveOp::AllReduce, bytes, p.tp);
        const int et = p.expertTp();
        if (m.moe && et != p.tp && m.sharedExperts == 0) {
            // MoE parallel folding: an MoE layer's MLP takes the sequence-parallel shards straight to
            // the all-to-all and gathers only over the expert-tp group (Megatron-Core
            // token_dispatcher.py; nothing over tp when etp = 1). Shared experts keep tp's pair.
            const double moeShare = criticalShape->moeShare;
            const double etBytes = bytes * et / p.tp;
            const double etPair = et > 1 ? collectiveSeconds(CollectiveOp::AllGather, etBytes, groups.expertTp)
                    + collectiveSeconds(CollectiveOp::ReduceScatter, etBytes, groups.expertTp)
                                         : 0.0;
            pairs -= moeShare * (pair - etPair);
            pairWire -= moeShare
                * (wireBytes(CollectiveOp::AllReduce, bytes, p.tp)
                    - (et > 1 ? wireBytes(CollectiveOp::AllReduce, etBytes, et) : 0.0));
        }
        c.tp = micro * layersPerStage * pairs * (1.0 + forwardPasses);
        r.bytesSent.tp = micro * layersPerStage * (1.0 + forwardPasses) * pairWire;
        const double hidden = c.tp * comm.tpOverlapFraction;
        b.tpExposed = c.tp - hidden + overlapInterference * hidden;
    }

    // Pipeline: one activation (forward) and one gradient (backward) per micro-batch per virtual
    // stage boundary, sent as 1/t slices (Megatron scatter/gather optimisation, SC21 Sec. 4.1), on the
    // critical path of every micro-batch plus the fill/drain.
    // Without virtual stages the sends are batched on the pipeline group's communicator, every stage
    // sending to the next at once, as nccl-tests sendrecv does (StrategyGroups::pp); the interleaved
    // schedule's overlapped sends (overlap_p2p_comm) are costed on a pair of neighbouring stages.
    if (p.pp > 1) {
        const double bytes = tokens * m.hidden * kActivationBytes / p.tp;
        const double p2p = collectiveSeconds(CollectiveOp::SendRecv, bytes, groups.pipelineSends(p.vpp));
        c.pp = 2.0 * (micro * p.vpp + p.pp - 1.0) * p2p;
        r.bytesSent.pp = 2.0 * micro * p.vpp * bytes; // forward to the next stage + backward to the previous
        b.ppExposed = c.pp;
    }

    // Context parallelism. A hybrid stack's attention layers run it as a transformer's do, its Mamba
    // layers by all-to-alls of their own; its other layers have nothing to exchange. The critical stage's
    // layers of each kind: the average layer's shares, its MTP layers' blocks from the MTP twin.
    if (p.cp > 1) {
        const bool mtpBlocks = m_mtpTwin && criticalHasLogits;
        const double mainLayers = mtpBlocks ? layersPerStage - mtpOnLast : layersPerStage;
        const auto layersWith = [&](double TransformerShape::*share) {
            return mainLayers * criticalShape->*share + (mtpBlocks ? mtpOnLast * m_mtpTwin->shape().*share : 0.0);
        };
        const double attentionLayers = layersWith(&TransformerShape::attentionShare);
        const double mambaLayers = layersWith(&TransformerShape::mambaShare);
        // Per micro-batch: every attention layer's traffic, and what the attention cores leave exposed
        // (lt.attentionCore is the average layer's attention core, the Mamba scans left out).
        double forward = 0, exposedForward = 0, exposedBackward = 0;
        const double cores = layersPerStage * lt.attentionCore;
        // The attention's own widths per tp rank (Transformer Engine's attention inputs: q and the output
        // heads x head_dim, k and v kv_heads x head_dim, one kv head per rank when tp exceeds them;
        // multi-head latent attention's up-projected k of head_dim + rope and v of v_head_dim per head).
        const double headsLocal = m.heads / p.tp;
        const double kvHeadsLocal = m.mla ? headsLocal : std::max(1.0, m.kvHeads / p.tp);
        const double qkDim = m.mla ? m.headDim + m.qkRopeHeadDim : m.headDim, vDim = m.mla ? m.vHeadDim : m.headDim;
        const double kWidth = kvHeadsLocal * qkDim, vWidth = kvHeadsLocal * vDim;
        if (p.cpKind == ContextParallelKind::Ring) {
            // Ring attention (Liu et al. 2023; Transformer Engine context_parallel.py
            // AttnFuncWithCPAndKVP2P): cp - 1 steps pass the local K and V blocks, one buffer; the
            // backward passes K and V and returns dK and dV, twice the bytes per step. Overlapped with
            // the attention core of the block in flight.
            const double kvBytes = tokens * (kWidth + vWidth) * kActivationBytes;
            const double step = collectiveSeconds(CollectiveOp::SendRecv, kvBytes, m_placer.place(2, groups.cpStride));
            forward = attentionLayers * (p.cp - 1.0) * step;
            r.bytesSent.cp = micro * attentionLayers * (p.cp - 1.0) * kvBytes * (2.0 + forwardPasses);
            c.cp = micro * forward * (2.0 + forwardPasses);
            exposedForward = std::max(0.0, forward - cores);
            exposedBackward = std::max(0.0, 2.0 * forward - 2.0 * cores);
        } else {
            // Ulysses (Jacobs et al. 2023; Transformer Engine AttnFuncWithCPAndQKVOA2A): all-to-all of q,
            // k, v from sequence to head shards and of the output back, forward; their gradients in
            // reverse, backward.
            const double widths[] = { headsLocal * qkDim, kWidth, vWidth, headsLocal * vDim };
            double exchange = 0, wire = 0;
            for (const double w : widths) {
                const double bytes = tokens * w * kActivationBytes;
                exchange += collectiveSeconds(CollectiveOp::AllToAll, bytes, groups.cp);
                wire += wireBytes(CollectiveOp::AllToAll, bytes, p.cp);
            }
            forward = attentionLayers * exchange;
            r.bytesSent.cp = micro * attentionLayers * (1.0 + forwardPasses) * wire;
            r.bytesSent.cpAllToAll = r.bytesSent.cp;
            c.cp = micro * forward * (1.0 + forwardPasses);
            exposedForward = forward;
            exposedBackward = forward;
        }
        if (mambaLayers > 0) {
            // Megatron-Core ssm/mamba_context_parallel.py: pre_conv_ssm sends z, x, B, C (each group's
            // state repeated on groupRepeat ranks) and dt from sequence shards to head shards, one
            // all-to-all each, and post_conv_ssm brings y back; the backward runs the six in reverse.
            // They sit between the layer's kernels on its stream: nothing hides them.
            const TransformerShape::MambaRankLayout rank = m.mambaRankLayout(p.tp, p.cp);
            const double inner = m.mambaInner() / p.tp;
            const double bc = rank.groups * p.cp * m.mambaStateDim; // B (or C) columns sent per token
            const double widths[] = { inner, inner, bc, bc, m.mambaHeads / p.tp, inner };
            double exchange = 0, wire = 0;
            for (const double w : widths) {
                const double bytes = tokens * w * kActivationBytes;
                exchange += collectiveSeconds(CollectiveOp::AllToAll, bytes, groups.cp);
                wire += wireBytes(CollectiveOp::AllToAll, bytes, p.cp);
            }
            c.cp += micro * mambaLayers * exchange * (1.0 + forwardPasses);
            exposedForward += mambaLayers * exchange;
            exposedBackward += mambaLayers * exchange;
            const double mambaBytes = micro * mambaLayers * (1.0 + forwardPasses) * wire;
            r.bytesSent.cp += mambaBytes;
            r.bytesSent.cpAllToAll += mambaBytes;
        }
        b.cpExposed = micro * (exposedForward * forwardPasses + exposedBackward);
        b.cpExposed += overlapInterference * std::max(0.0, c.cp - b.cpExposed);
    }

    // Expert parallelism: dispatch + combine all-to-all per MoE layer, forward and backward. The
    // rank receiving the most tokens sets the pace: load_imbalance x the mean (capped by the capacity
    // factor when tokens beyond it are dropped); dense leading layers have none.
    if (p.ep > 1 && m.moe) {
        // A token's copies cross at the experts' input width (the latent width with latent MoE).
        const double bytes = tokens * m.topK * m.expertInput * kActivationBytes / (sp ? p.tp : 1.0);
        const double imbalance = m.capacityFactor > 0 ? std::min(m.loadImbalance, m.capacityFactor) : m.loadImbalance;
        // The MTP layers' MoE blocks (model.mtp_pattern) in place of an average layer's share.
        const double moeLayers = m_mtpTwin && criticalHasLogits
            ? (layersPerStage - mtpOnLast) * criticalShape->moeShare + mtp * m.mtpMoeBlocks
            : layersPerStage * criticalShape->moeShare;
        double a2a = imbalance * collectiveSeconds(CollectiveOp::AllToAll, bytes, groups.ep);
        double wire = wireBytes(CollectiveOp::AllToAll, bytes, p.ep);
        if (m.flexDispatcher) {
            // Flex dispatcher (DeepEP, HybridEP): "removes redundant tokens during cross-node
            // communication, fuses intra/inter-node communication into single kernel" (Megatron-Core
            // megatron/core/transformer/moe/README.md, Token Dispatching; DeepEP README, normal
            // kernels: RDMA to the same-rail GPU of each destination node, then NVLink forwarding). A
            // token goes once to each distinct rank its top-k experts live on (the all-to-all
            // dispatcher sends one copy per expert) and once over the network to each distinct node;
            // the RDMA and NVLink stages run pipelined, so the slower sets the time; one kernel moves
            // them, without NCCL's per-peer send/receive tasks (fusedExchangeSeconds). With routing
            // spread evenly (force-balanced), k experts hit E[distinct of n] = n (1 - (1 - 1/n)^k).
            const GroupPlacement& g = groups.ep;
            const int perDomain = std::max(1, std::min(g.ranks, g.ranksPerNode));
            const int domains = std::max(1, g.ranks / perDomain);
            const auto distinct = [&](double n) { return n * (1.0 - std::pow(1.0 - 1.0 / n, m.topK)); };
            const double tokenBytes = bytes / m.topK;
            const double rankBytes = tokenBytes * distinct(g.ranks);
            const GroupPlacement intra = m_placer.place(perDomain, groups.epStride);
            a2a = fusedExchangeSeconds(rankBytes, intra);
            wire = wireBytes(CollectiveOp::AllToAll, rankBytes, perDomain);
            if (domains > 1) {
                const double nodeBytes = tokenBytes * distinct(domains);
                const GroupPlacement inter = m_placer.place(domains, perDomain * groups.epStride);
                a2a = std::max(a2a, fusedExchangeSeconds(nodeBytes, inter));
                wire += wireBytes(CollectiveOp::AllToAll, nodeBytes, domains);
            }
            a2a *= imbalance;
        }
        // Recompute module "moe" runs the MoE MLP's forward again, all-to-alls included.
        const bool moeRecomputed
            = s.recompute == Recompute::Selective && (m_scenario.training.recomputeModules & RecomputeMoe) != 0;
        const double epForwardPasses = forwardPasses + (moeRecomputed ? 1.0 : 0.0);
        c.ep = micro * moeLayers * 2.0 * a2a * (1.0 + epForwardPasses);
        r.bytesSent.ep = micro * moeLayers * 2.0 * (1.0 + epForwardPasses) * wire;
        b.epExposed = c.ep;
        // Megatron-Core's combined-1F1B schedule (--overlap-moe-expert-parallel-comm,
        // models/common/model_chunk_schedule_plan.py) merges the forward of one micro-batch with the
        // backward of another, layer by layer, so each all-to-all runs under the other pass's compute
        // ("Overlaps All-to-All with computation by merging FWD-BWD passes of adjacent microbatches",
        // megatron/core/transformer/moe/README.md); this hides them up to the layers' compute. Dropless
        // routing adds one host sync per layer (the forward dispatch needs the token counts); it
        // stalls the launches, not the transfers, and is charged as host time (trainingevaluator.cpp).
        if (comm.moeA2aOverlap) {
            const double hidden = std::min(c.ep, micro * moeLayers * (lt.forward + lt.backward));
            b.epExposed = c.ep - hidden + overlapInterference * hidden;
        }
    }

    // Data parallelism (with ZeRO) for dense and expert gradients; compression applies to the
    // gradient reduction. Overlap: bucketed reduction hides behind the backward pass of the micro-batch
    // that produces the gradients, parameter all-gathers behind the next forward (Megatron-LM
    // --overlap-grad-reduce / --overlap-param-gather; PyTorch DDP buckets, Li et al. VLDB 2020);
    // the last bucket is always exposed.
    const LocalParams local = localParams(m, p, split, stages.get());
    const bool muon = m_scenario.training.muon;
    const CompressionSpec& compression = comm.compression;
    const double hbm = m_efficiency.hbmBytesPerSecond();
    double dpTotal = 0, dpExposed = 0, dpExposedUncompressed = 0, compressSeconds = 0;
    const auto dataParallel = [&](double elements, const GroupPlacement& group, double& bytesSent) {
        if (group.ranks <= 1 || elements <= 0)
            return;
        const auto exposedOf = [&](double seconds, double bucketSeconds, double window) {
            return comm.dpOverlap ? std::max(bucketSeconds, seconds - window) : seconds;
        };
        const double bucketElements = std::min(elements, comm.dpBucketBytes / kGradientBytes);
        for (int pass = 0; pass < 2; ++pass) {
            const bool compressed = pass == 0;
            if (!compressed && compression.method == CompressionMethod::None)
                break;
            CompressionSpec spec = compression;
            if (!compressed)
                spec.method = CompressionMethod::None;
            CompressedSync sync = GradientCompression::sync(spec, elements, kGradientBytes, group.ranks, hbm);
            CompressedSync bucket = GradientCompression::sync(spec, bucketElements, kGradientBytes, group.ranks, hbm);
            if (p.zero >= 1 && sync.op == CollectiveOp::AllReduce)
                sync.op = bucket.op = CollectiveOp::ReduceScatter; // sharded gradients
            const double gradSeconds = collectiveSeconds(sync.op, sync.bytes, group);
            const double gradBucket = collectiveSeconds(bucket.op, bucket.bytes, group);
            double gather = 0, gatherBucket = 0;
            // Muon without ZeRO: each rank updates the matrices it owns, so the updated 16-bit weights
            // are gathered after the step (Megatron-Core optimizer/layer_wise_optimizer.py), after the
            // optimizer and before the next forward: not overlapped.
            const bool muonGather = muon && p.zero == 0;
            if (p.zero >= 1 || muonGather) {
                gather = collectiveSeconds(CollectiveOp::AllGather, elements * kGradientBytes, group);
                gatherBucket = collectiveSeconds(CollectiveOp::AllGather, bucketElements * kGradientBytes, group);
            }
            double exposed, total, wire;
            const double gradWire = wireBytes(sync.op, sync.bytes, group.ranks);
            const double gatherWire = wireBytes(CollectiveOp::AllGather, elements * kGradientBytes, group.ranks);
            if (p.zero >= 3) {
                // Per micro-batch: gather before the forward, gather again and reduce-scatter in the backward.
                exposed = micro
                    * (exposedOf(gather, gatherBucket, stageForward)
                        + exposedOf(gather + gradSeconds, gradBucket, stageBackward));
                total = micro * (2.0 * gather + gradSeconds);
                wire = micro * (2.0 * gatherWire + gradWire);
            } else {
                const double syncs = p.zero == 2 ? micro : 1.0; // ZeRO-2 reduces every micro-batch
                exposed = syncs * exposedOf(gradSeconds, gradBucket, stageBackward)
                    + (p.zero >= 1 ? exposedOf(gather, gatherBucket, stageForward) : gather);
                total = syncs * gradSeconds + gather;
                wire = syncs * gradWire + (p.zero >= 1 || muonGather ? gatherWire : 0.0);
            }
            // Hidden communication still slows the compute it overlaps (NCCL kernels occupy SMs and
            // HBM bandwidth): a documented share of the hidden time stays on the critical path.
            exposed += overlapInterference * (total - exposed);
            if (compressed) {
                dpTotal += total;
                dpExposed += exposed;
                compressSeconds += (p.zero >= 2 ? micro : 1.0) * sync.computeSeconds;
                bytesSent = wire;
            } else {
                dpExposedUncompressed += exposed;
            }
        }
    };
    dataParallel(local.dense, groups.dpGrad, r.bytesSent.dp);
    dataParallel(local.expert, groups.expertDpGrad, r.bytesSent.expertDp);
    c.dp = dpTotal;
    b.dpExposed = dpExposed;
    b.other = compressSeconds;

    // Pipeline bubble: (p - 1) stage-times of one micro-batch, divided by v when interleaved
    // (Narayanan et al. SC21 Sec. 2.2); GPipe has the same bubble time as 1F1B. The stage time of
    // the fill and drain is the one of the steady state: the layers' compute and recomputation, the
    // output layer and loss on the last stage, and the layers' exposed tensor-parallel collectives,
    // which sit between the layers' kernels in every pass (Megatron-LM's RowParallelLinear all-reduce
    // is synchronous on the compute stream without sequence-parallel overlap).
    const double tpPerMicro = p.pp > 1 ? b.tpExposed / micro : 0.0;
    const double stageMicro = stageForward + stageBackward + logits + recomputePerMicro + tpPerMicro;
    const double virtualStages = p.schedule == PipelineSchedule::Interleaved ? p.vpp : 1.0;
    b.bubble = (p.pp - 1.0) / virtualStages * stageMicro;

    // Activation offloading (Transformer Engine cpu_offload.py under Megatron-Core's TransformerBlock):
    // each offloaded layer's saved activations go to host memory on a side stream while the next
    // layer runs its forward, and come back while the layer after it in the backward runs its
    // backward (double-buffered prefetch); what a copy takes beyond that layer's compute is exposed.
    if (m_memoryInputs.activationOffloadLayers > 0) {
        const int stageLayers = static_cast<int>(layersPerStage - (criticalHasLogits ? mtpOnLast : 0.0));
        const int offloaded = std::max(0, std::min(m_memoryInputs.activationOffloadLayers, stageLayers - 1));
        const double copy = activationBytesPerLayer(m, s, m_memoryInputs) / m_hostLinkBytesPerSecond;
        r.offloadedLayers = offloaded;
        r.offloadCopySeconds = copy;
        r.offloadExposedSeconds = micro * offloaded
            * (std::max(0.0, copy - lt.forward) + std::max(0.0, copy - lt.backward - perLayerRecompute));
        b.other += r.offloadExposedSeconds;
    }

    // Adam step on the optimizer shard this GPU owns (memory bound). Muon owns whole matrices per
    // data-parallel rank whatever the ZeRO stage; its element-wise update moves about Adam's bytes, and
    // it orthogonalizes the momentum of the matrices it owns (muonstep.h).
    const bool owned = p.zero >= 1 || muon;
    const double denseShards = owned ? static_cast<double>(p.dp) * p.cp : 1.0;
    const double expertShards = owned ? expertDataParallel(p) : 1.0;
    const double optimizerParams = local.dense / denseShards + local.expert / expertShards;
    b.optimizer = m_efficiency.memoryBoundSeconds(optimizerParams * m_efficiency.params().optimizerBytesPerParam);
    if (muon)
        b.optimizer += muonNewtonSchulzSeconds(m, p, m_efficiency, layersPerStage);
    // MXFP8: every local weight is quantized into both MXFP8 copies once per step, not per
    // micro-batch: with MXFP8 primary weights after the 16-bit parameter all-gather (Megatron-Core
    // distrib_optimizer.py _post_param_sync copies the gathered values into the quantized parameter),
    // else on the first micro-batch into Transformer Engine's cached weight workspace (module/base.py
    // quantize_weight, is_first_microbatch). Counted over all local parameters (the embedding and
    // output tables, a few percent of them, stay 16-bit). Per-tensor fp8 casts its weights once per
    // step too, but with fp8 primary weights only the optimizer's own shard (Megatron-Core
    // fp8_utils.py quantize_param_shard) plus a transpose on Hopper; that term (under 0.3% of a
    // step on the validation tables) is left out.
    if (m_scenario.training.dtype == DType::MXFP8)
        b.optimizer += m_efficiency.memoryBoundSeconds(local.total() * m_efficiency.castBytesPerElement());
    // NVFP4 with NVFP4 primary weights (fp4_param_gather): the optimizer casts its fp32 master shard
    // straight to 2D-scaled NVFP4 (a partial amax pass and the cast read the 4-byte shard twice and
    // write 0.5 B) and, after the NVFP4 all-gather, every local weight's column-wise copy is
    // transposed from the row-wise one (0.5625 B read and written; 2D scaling makes them equal):
    // Megatron-Core fp8_utils.py quantize_param_shard, Transformer Engine
    // nvfp4_2d_multi_tensor_transpose. Without NVFP4 primary weights every local weight is cast
    // once per step from 16 bits (the cached weight workspace, as MXFP8).
    if (m_scenario.training.dtype == DType::NVFP4)
        b.optimizer += m_efficiency.memoryBoundSeconds(m_scenario.training.fp4ParamGather
                ? optimizerParams * 8.5 + local.total() * 2.0 * (0.5 + 1.0 / 16.0)
                : local.total() * m_efficiency.castBytesPerElement());

    r.iterationSeconds = b.total();
    const double gpus = m_scenario.cluster.gpus;
    r.modelFlopsPerIteration = m.modelFlopsPerIteration(batch);
    if (full && s.blockRecompute()) // the recomputed layers' share of the whole stack (equal chunks)
        r.hardwareFlopsPerIteration = r.modelFlopsPerIteration
            + blockRecomputedLayers(m.layers, p.pp * p.vpp, s.recomputeNumLayers) / m.layers
                * (m.fullRecomputeFlopsPerIteration(batch) - r.modelFlopsPerIteration);
    else if (full)
        r.hardwareFlopsPerIteration = m.fullRecomputeFlopsPerIteration(batch);
    else if (s.recompute == Recompute::Selective && !m_efficiency.params().flashAttention)
        r.hardwareFlopsPerIteration
            = r.modelFlopsPerIteration + 4.0 * batch * m.seqLen * m.seqLen * m.hidden * m.layers;
    else
        r.hardwareFlopsPerIteration = r.modelFlopsPerIteration;
    if (m_scenario.training.muon) // the optimizer's Newton-Schulz GEMMs run on the tensor cores too
        r.hardwareFlopsPerIteration += muonNewtonSchulzFlopsPerIteration(m, p);
    r.tflopsPerGpu = r.modelFlopsPerIteration / (r.iterationSeconds * gpus) / 1e12;
    r.hardwareTflopsPerGpu = r.hardwareFlopsPerIteration / (r.iterationSeconds * gpus) / 1e12;
    r.mfu = r.modelFlopsPerIteration / (r.iterationSeconds * gpus * m_efficiency.peakFlopsPerSecond());
    r.tokensPerSecond = batch * m.seqLen / r.iterationSeconds;
    r.networkShare = b.exposedCommunication() / r.iterationSeconds;
    r.networkShareAboveGuideline = r.networkShare > kNetworkShareGuideline;
    r.memory = estimateMemory(m_shape, s, m_memoryInputs, stages.get()); // as memory(s), with this split's stages
    r.gpuHourUsd = m_gpuHourUsd;
    r.costPerIterationUsd = r.iterationSeconds / 3600.0 * gpus * m_gpuHourUsd;
    if (m_scenario.training.tokens > 0) {
        const double iterations = m_scenario.training.tokens / (batch * m.seqLen);
        // Compressed methods with a warm-up (1-bit Adam) run the first share of steps uncompressed.
        const double warmup = compression.method == CompressionMethod::None ? 0.0 : compression.warmupFraction;
        const double warmupIteration = r.iterationSeconds - dpExposed - compressSeconds + dpExposedUncompressed;
        r.trainingSeconds = iterations * ((1.0 - warmup) * r.iterationSeconds + warmup * warmupIteration);
        r.trainingCostUsd = r.trainingSeconds / 3600.0 * gpus * m_gpuHourUsd;
    }
    return r;
}

} // namespace clusterscope::engine
