#include "engine/training/memorymodel.h"

#include "engine/scenario/pipelinesplit.h"
#include "engine/scenario/scenario.h"
#include "engine/training/transformershape.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::engine {

LocalParams localParams(const TransformerShape& shape, const ParallelismSpec& p)
{
    PipelineSplit split;
    if (splitPipeline(static_cast<int>(shape.layers), p.pp, p.vpp, p.firstStageLayers, p.lastStageLayers, split))
        split.first = split.middle = split.last = static_cast<int>(shape.layers / p.pp);
    return localParams(shape, p, split);
}

double expertDataParallel(const ParallelismSpec& p)
{
    // Expert ranks etp x ep x expert-dp tile the tp x cp x dp ranks of a stage (Megatron-Core
    // parallel_state.py); with etp = tp this is dp x cp / ep.
    return std::max(1.0, static_cast<double>(p.tp) * p.cp * p.dp / (static_cast<double>(p.expertTp()) * p.ep));
}

LocalParams localParams(
    const TransformerShape& shape, const ParallelismSpec& p, const PipelineSplit& split, const StageShapes* stages)
{
    const double t = p.tp;
    // A hybrid stack's Mamba-2 mixers are split over TP whole: in_proj column-parallel, out_proj
    // row-parallel, the conv1d channels, A_log / D / dt_bias and the gated norm by head (Megatron-Core
    // ssm/mamba_mixer.py MambaMixer: d_inner_local_tp, nheads_local_tp, ngroups_local_tp = x / tp).
    const auto layerDense = [&](const TransformerShape& x) {
        return (x.attentionParamsPerLayer + x.denseMlpParamsPerLayer + x.sharedExpertParamsPerLayer
                   + x.mambaParamsPerLayer)
            / t
            + x.normParamsPerLayer + x.routerParamsPerLayer + x.latentProjParamsPerLayer; // not split by TP
    };
    // Experts are split over ep GPUs and each expert over the expert-tensor-parallel group (etp;
    // the tensor-parallel group unless stated).
    const auto layerExpert = [&](const TransformerShape& x) {
        return x.expertParamsPerLayer / (static_cast<double>(p.ep) * p.expertTp());
    };
    const auto stageOf = [&](const TransformerShape& x, double layers, double vocabParams) {
        return LocalParams { layers * layerDense(x) + vocabParams, layers * layerExpert(x), vocabParams };
    };
    const auto stage = [&](double layers, double vocabParams) { return stageOf(shape, layers, vocabParams); };
    // Multi-token prediction modules sit with the output layer on the last stage: an average layer
    // each, or their own layer's parameters (model.mtp_pattern), once when the depths share them.
    const auto lastStageOf = [&](const TransformerShape& x, double layers, double vocabParams) {
        if (!shape.mtpOwnParams)
            return stageOf(x, layers + shape.mtpLayers, vocabParams);
        LocalParams l = stageOf(x, layers, vocabParams);
        l.dense += shape.mtpWeightSets * (shape.mtpTpSplitParams / t + shape.mtpReplicatedParams);
        l.expert += shape.mtpWeightSets * shape.mtpExpertParams / (static_cast<double>(p.ep) * p.expertTp());
        return l;
    };
    const auto lastStage = [&](double layers, double vocabParams) { return lastStageOf(shape, layers, vocabParams); };
    // Embedding on the first stage, output layer on the last; one GPU holds both when pp = 1.
    if (p.pp == 1)
        return lastStage(shape.layers, (shape.embeddingParams + shape.outputLayerParams) / t);
    if (stages && !stages->empty()) {
        // A hybrid stack's stages each hold their own blocks: the stage with the most parameters.
        LocalParams best;
        for (int r = 0; r < p.pp; ++r) {
            const TransformerShape& x = stages->shapes[static_cast<std::size_t>(r)];
            const double layers = stages->layers[static_cast<std::size_t>(r)];
            const LocalParams here = r == p.pp - 1 ? lastStageOf(x, layers, shape.outputLayerParams / t)
                                                   : stageOf(x, layers, r == 0 ? shape.embeddingParams / t : 0.0);
            if (r == 0 || here.total() > best.total())
                best = here;
        }
        return best;
    }
    LocalParams best = stage(split.first, shape.embeddingParams / t);
    const LocalParams last = lastStage(split.last, shape.outputLayerParams / t);
    if (last.total() > best.total())
        best = last;
    if (p.pp > 2) {
        const LocalParams middle = stage(split.middle, 0.0);
        if (middle.total() > best.total())
            best = middle;
    }
    return best;
}

double activationBytesPerLayer(const TransformerShape& shape, const TrainingStrategy& s, const MemoryInputs& in)
{
    const ParallelismSpec& p = s.parallelism;
    const double t = p.tp;
    const double h = shape.hidden;
    const double tokens = static_cast<double>(s.microBatch) * shape.seqLen / p.cp; // b s / cp
    const double scale = in.activationElementBytes / 2.0; // Korthikanti counts 2-byte elements
    const bool sp = p.sequenceParallel && p.tp > 1;

    if (s.recompute == Recompute::Full) // only the layer input (2 s b h) survives
        return scale * 2.0 * tokens * h / (sp ? t : 1.0);

    // Korthikanti eq. 1 terms per token, in bytes of 16-bit elements:
    //   attention 11h (QKV input 2h, Q and K 4h, V 2h, projection input 2h, dropout mask h) -> GQA shrinks K, V;
    //   MLP 19h (FC1 input 2h, GeLU input 8h, FC2 input 8h, mask h) -> 2F per FFN matrix output;
    //   two LayerNorm inputs 4h. Of these, 10h stay replicated across TP without sequence parallelism.
    //   Under fp8 (in.fp8GemmInputs) the GEMM inputs kept for the weight gradients are the 1-byte
    //   fp8 copies: the QKV input and the FC1 input shrink by h, the FC2 input by f; the attention
    //   output is kept twice (16-bit by the fused attention, fp8 by the projection): +h. NVFP4 keeps
    //   0.5625-byte copies (in.quantizedInputBytes): the same with 2 - 0.5625 bytes saved each.
    //   Without dropout (in.dropout false) the two masks go: attention 10h, MLP 18h, 8h replicated.
    const double mask = in.dropout ? 1.0 : 0.0; // bytes per element of a dropout mask
    const double kvShare = shape.kvHeads / shape.heads;
    // Quantized GEMM inputs (qb bytes per element): the QKV input shrinks from 2h to qb h and the
    // projection keeps a qb-byte copy of the attention output besides the fused attention's 16-bit
    // one: qb q - (2 - qb) h, zero for fp8 when q = h.
    const double qb = in.quantizedInputBytes;
    // Attention linears of their own precision (training.module_dtypes): BF16 ones keep the 16-bit inputs.
    const double qa = in.attentionInputBytes > 0 ? in.attentionInputBytes : qb;
    const auto quantizedAttention
        = [&](double q) { return in.fp8GemmInputs && qa < 2.0 ? qa * q - (2.0 - qa) * h : 0.0; };
    double attention = h * (6.0 + mask + 4.0 * kvShare) + quantizedAttention(h);
    if (!shape.mla && shape.headDim * shape.heads != h) {
        // Heads of their own width (Qwen3, GPT-OSS: head_dim x heads != hidden): Q and the attention
        // output (the projection's input) are heads x head_dim wide and K, V kv_heads x head_dim,
        // not h; the QKV input and the dropout mask stay h wide.
        const double q = shape.heads * shape.headDim, kv = shape.kvHeads * shape.headDim;
        attention = 2.0 * h + 4.0 * q + 4.0 * kv + mask * h + quantizedAttention(q);
    }
    double mlp;
    const double matrices = shape.gatedMlp ? 2.0 : 1.0; // FC1 outputs (gate + up for SwiGLU)
    // bytes saved per GEMM-input element kept quantized instead of 16-bit
    const double fp8Saving = in.fp8GemmInputs ? 2.0 - in.quantizedInputBytes : 0.0;
    // Clamped gated activation (GPT-OSS; Megatron-Core fused_bias_geglu.py weighted_bias_quick_geglu_impl):
    // the two clamps save their inputs (views of the FC1 output) and the fused activation saves the
    // concatenated clamped copy instead: one more FC1-output-wide tensor, 2 f x matrices bytes.
    const double clampCopy = shape.activationClampValue > 0 ? 1.0 : 0.0;
    const unsigned modules = s.recompute == Recompute::Selective ? in.recomputeModules : 0u;
    if (shape.moe) {
        const double f = shape.expertFfnHidden;
        // Router input 2h; each of the top-k copies: FC1 input 2h, FC1 outputs, activation output 2f, mask h.
        // moe_act recomputation (Megatron-Core experts.py TEGroupedMLP, CheckpointWithoutOutput around
        // the activation) discards the activation output (FC2's input; under fp8 the 16-bit original,
        // set_save_original_input) and whatever the activation saved beyond its input (the clamped copy).
        const double activationOut
            = (modules & RecomputeMoeAct) ? 0.0 : 2.0 * f - fp8Saving * f + clampCopy * 2.0 * f * matrices;
        // Latent MoE: the copies are latent_size wide, and fc2_latent_proj keeps its input (2 latent).
        const double xe = shape.expertInput;
        mlp = 2.0 * h + shape.topK * ((2.0 + mask) * xe + 2.0 * f * matrices + activationOut - fp8Saving * xe)
            + (xe != h ? 2.0 * xe : 0.0);
    } else {
        const double f = shape.ffnHidden;
        mlp = (2.0 + mask) * h + 2.0 * f * matrices + 2.0 * f - fp8Saving * (h + f) + clampCopy * 2.0 * f * matrices;
    }
    // mlp recomputation (dense layers; Megatron-Core checkpoints the MLP from its input, the residual
    // the fused pre-MLP norm reads, which the layer keeps anyway): the MLP keeps nothing of its own
    // but the dropout mask after it, and its FC1 input (2h, replicated without sequence parallelism)
    // goes. A MoE model's dense layers are averaged as MoE layers here, so their saving is not counted.
    // moe recomputation (the MoE MLP checkpointed from its input) likewise for an MoE model's layers.
    const bool mlpRecomputed = shape.moe ? (modules & RecomputeMoe) != 0 : (modules & RecomputeMlp) != 0;
    if (mlpRecomputed)
        mlp = mask * h;
    // layernorm recomputation discards the two norm outputs: the QKV input and the MLP's input when
    // 16-bit (under fp8 the linears keep only their own fp8 copies, which stay) and an MoE layer's
    // router input (16-bit always). mla_up_proj recomputation (Megatron-Core multi_latent_attention.py
    // recompute_up_proj) discards the up-projected Q, K and V the attention core reads.
    if (modules & RecomputeLayerNorm) {
        attention -= (1.0 - fp8Saving) * 2.0 * h;
        if (!mlpRecomputed)
            mlp -= shape.moe ? 2.0 * h : (1.0 - fp8Saving) * 2.0 * h;
    }
    if ((modules & RecomputeMlaUpProj) && shape.mla)
        attention -= 2.0 * h + 4.0 * h * kvShare;
    const double layerNorms = 4.0 * h;
    // Query / key normalisation (qk_layernorm) keeps each norm's input for its backward: Q and K
    // before the norm (2 (q + kv) bytes, split by TP; the normalised copies the attention core reads
    // are the Q and K counted above) or, with latent attention, the q and kv latents the fused
    // LayerNormLinear normalises (2 (q_lora_rank + kv_lora_rank), not split by TP).
    double qkNormInputs = 0.0, qkNormLatents = 0.0;
    if (shape.qkLayerNorm) {
        if (shape.mla)
            qkNormLatents = 2.0 * (shape.qLoraRank + shape.kvLoraRank);
        else
            qkNormInputs = 2.0 * (shape.heads + shape.kvHeads) * shape.headDim;
    }
    double perToken = attention + mlp + layerNorms + qkNormInputs;
    double replicated = sp ? 0.0 : (8.0 + 2.0 * mask - (mlpRecomputed ? 2.0 : 0.0)) * h;
    if (shape.hybrid) {
        // A hybrid stack: each layer is one block; the attention and MLP terms above are per block of
        // their kind, weighted by its share, with one norm per block (the replicated norm and linear
        // inputs likewise: 2 h + 2 h + mask per block). A Mamba-2 block (mamba_ssm
        // MambaSplitConv1dScanCombinedFn saves the in_proj output zxBCdt and the scan's output; the
        // RMSNorm saves its input, out_proj its input): besides its norm's input, the in_proj input 2 h
        // (both replicated without sequence parallelism), zxBCdt 2 (2 d_inner + 2 G N + heads) and y
        // three times 2 d_inner (split by TP). With context parallelism zxBCdt is kept after the all-to-all,
        // the whole sequence at heads / (tp cp): as many elements, but B and C repeated when the tp rank
        // holds fewer groups than cp (TransformerShape::mambaRankLayout), counted here at the model's width.
        const double zxbcdtWidth
            = shape.mambaShare > 0 ? t * p.cp * shape.mambaRankLayout(t, p.cp).scanInputWidth : 0.0;
        perToken = shape.attentionShare * (attention + qkNormInputs) + shape.ffnShare * mlp
            + shape.blocksPerLayer * layerNorms / 2.0
            + shape.mambaShare * (2.0 * h + 2.0 * zxbcdtWidth + 6.0 * shape.mambaInner());
        if (!sp)
            replicated = (shape.attentionShare + shape.ffnShare) * replicated / 2.0 + shape.mambaShare * 4.0 * h;
        qkNormLatents *= shape.attentionShare;
    }
    double bytes = tokens * ((perToken - replicated) / t + replicated + qkNormLatents);
    // Attention scores 5 a s^2 b (softmax output 2, dropout mask 1, dropout output 2; only the softmax
    // output without dropout), kept unless selective recomputation or a fused attention kernel
    // avoids storing them.
    if (s.recompute == Recompute::None && !in.flashAttention)
        bytes += (in.dropout ? 5.0 : 2.0) * shape.heads / t * tokens * shape.seqLen;
    return scale * bytes;
}

MemoryBreakdown estimateMemory(
    const TransformerShape& shape, const TrainingStrategy& s, const MemoryInputs& in, const StageShapes* stages)
{
    const ParallelismSpec& p = s.parallelism;
    PipelineSplit split;
    if (splitPipeline(static_cast<int>(shape.layers), p.pp, p.vpp, p.firstStageLayers, p.lastStageLayers, split))
        split.first = split.middle = split.last = static_cast<int>(shape.layers / p.pp);
    const bool staged = stages && !stages->empty();
    const LocalParams local = localParams(shape, p, split, stages);
    const double denseShards = static_cast<double>(p.dp) * p.cp;
    const double expertShards = expertDataParallel(p);
    const auto sharded = [&](double bytesPerParam, bool shard) {
        return shard ? bytesPerParam * (local.dense / denseShards + local.expert / expertShards)
                     : bytesPerParam * local.total();
    };
    MemoryBreakdown m;
    m.capacityBytes = in.capacityBytes;
    // Mixed precision with Adam: 2 + 2 + 12 bytes per parameter (ZeRO, Rajbhandari et al. 2020, Sec. 3);
    // Quantized primary weights (Megatron-Core --fp8-param-gather / --fp4-param-gather): weightBytesPerParam.
    const double weightBytes = in.fp8Weights ? in.weightBytesPerParam : 2.0;
    m.weightsBytes = sharded(weightBytes, p.zero >= 3);
    m.gradientsBytes = sharded(2.0, p.zero >= 2);
    m.optimizerBytes = sharded(12.0, p.zero >= 1);
    if (in.muon) {
        // Muon (engine/training/muonstep.h): fp32 master and momentum, 8 bytes per parameter, Adam's 12
        // for the embedding and output layer; each data-parallel rank keeps the state of the matrices it
        // owns (Megatron-Core's layer-wise distributed optimizer), as ZeRO-1 shards it.
        m.optimizerBytes = sharded(8.0, true) + 4.0 * local.vocab / denseShards;
    }
    const double maxLayers
        = std::max(1, staged ? *std::max_element(stages->layers.begin(), stages->layers.end()) : split.maxLayers());
    double gatheredWeightsBytes = 0; // allocated and freed every layer, unlike the shards
    if (p.zero >= 3) { // two layers gathered at a time (current + prefetched), ZeRO-3 / FSDP
        gatheredWeightsBytes = 2.0 * weightBytes * local.total() / maxLayers;
        m.weightsBytes += gatheredWeightsBytes;
    }

    const int microBatches = std::max(1, in.globalBatch / (p.dp * s.microBatch));
    // Micro-batches whose activations stage i holds: all of them under GPipe; under 1F1B pp - i (the
    // first stage the most), times 1 + (pp - 1) / (pp vpp) when interleaved (Korthikanti et al. 2022
    // Sec. 4.2.3). The first stage holds the most unless it has fewer layers (uneven splits). A
    // micro-batch group G larger than pp (vpp_microbatch_group) runs (vpp - 1) G chunks of 1 / vpp of the
    // stage in warm-up instead of (vpp - 1) pp (Megatron-Core schedules.py get_pp_rank_microbatches), so
    // (vpp - 1) (G - pp) / vpp more micro-batches' activations stay in flight, never more than all of them.
    const double extraGroup
        = p.vpp > 1 ? (p.vpp - 1.0) * std::max(0, interleavingGroup(p.pp, p.vppMicrobatchGroup) - p.pp) / p.vpp : 0.0;
    const auto inFlight = [&](int stage) -> double {
        if (p.schedule == PipelineSchedule::GPipe)
            return microBatches;
        const double oneFOneB = std::min(p.pp - stage, microBatches);
        return p.vpp > 1 ? std::min<double>(microBatches, oneFOneB * (1.0 + (p.pp - 1.0) / (p.pp * p.vpp)) + extraGroup)
                         : oneFOneB;
    };
    // Offloaded layers (activation offloading) wait in host memory; one layer is in transit.
    const auto offloaded = [&](int layers) { return std::max(0, std::min(in.activationOffloadLayers, layers - 1)); };
    const auto resident = [&](int layers, double microBatches) {
        const int o = offloaded(layers);
        return (layers - o) * microBatches + (o > 0 ? 1.0 : 0.0);
    };
    // A stage's average layer of `layers` under the strategy's recomputation: activationBytesPerLayer,
    // except that block recomputation (Megatron-Core --recompute-method block) keeps only the input of
    // the layers it recomputes (blockRecomputedLayers) and every activation of the others, and uniform
    // recomputation of units of n layers (--recompute-method uniform --recompute-num-layers n) keeps one
    // input per unit of each virtual chunk (megatron/core/recompute.py checkpointed_forward).
    const auto stageAverage = [&](const TransformerShape& x, const MemoryInputs& inputs, double layers) {
        const double checkpointed = activationBytesPerLayer(x, s, inputs);
        if (s.recompute != Recompute::Full || !(layers > 0))
            return checkpointed;
        if (s.blockRecompute()) {
            TrainingStrategy kept = s;
            kept.recompute = Recompute::None;
            const double recomputed = blockRecomputedLayers(layers, p.vpp, s.recomputeNumLayers);
            return (recomputed * checkpointed + (layers - recomputed) * activationBytesPerLayer(x, kept, inputs))
                / layers;
        }
        const double perChunk = layers / p.vpp;
        const double units = std::ceil(perChunk / s.recomputeNumLayers - 1e-9);
        return checkpointed * std::min(1.0, units / perChunk);
    };
    // A stage's average layer `bytes` when `bf16` of its `layers` (blocks shaped `blocks`) keep their GEMM
    // inputs in 16-bit (training.bf16_layers_at_start / _at_end): those layers' BF16 activations instead
    // of their quantized ones (activations are a per-layer sum, so the difference is exact).
    const auto withBf16 = [&](double bytes, const TransformerShape& blocks, int bf16, int layers) {
        if (bf16 <= 0 || layers <= 0)
            return bytes;
        MemoryInputs sixteenBit = in;
        sixteenBit.fp8GemmInputs = false;
        return bytes
            + static_cast<double>(bf16) / layers
            * (stageAverage(blocks, sixteenBit, layers) - stageAverage(blocks, in, layers));
    };
    const bool bf16Layers = in.bf16LayersAtStart + in.bf16LayersAtEnd > 0;
    const double basePerLayer = activationBytesPerLayer(shape, s, in);
    const auto perLayerOn = [&](int stage, int layers) {
        const double quantizedPerLayer
            = s.recompute == Recompute::Full ? stageAverage(shape, in, layers) : basePerLayer;
        if (!bf16Layers)
            return quantizedPerLayer;
        if (in.wholeBf16Blocks && p.pp == 1) // a hybrid stack's own BF16 blocks
            return withBf16(quantizedPerLayer, in.wholeBf16Blocks->shape, in.wholeBf16Blocks->bf16Layers,
                in.wholeBf16Blocks->layers);
        return withBf16(quantizedPerLayer, shape,
            bf16LayersOnStage(
                stage, p.pp, p.vpp, split, static_cast<int>(shape.layers), in.bf16LayersAtStart, in.bf16LayersAtEnd),
            layers);
    };
    double perLayer = perLayerOn(0, split.first);
    // Logits of one micro-batch for the cross-entropy, split over TP, only on the stage with the
    // output layer (the last): fp32, or 16-bit in place under the fused cross entropy.
    const double tokens = static_cast<double>(s.microBatch) * shape.seqLen / p.cp;
    const double logitsBytes = (in.fusedCrossEntropy ? 2.0 : 4.0) * tokens * shape.vocab / p.tp;
    // The stage with the most activations (+ logits on the last): the first or second (1F1B keeps the
    // most micro-batches in flight there), or the last with its logits.
    double layersInFlight = resident(split.first, inFlight(0));
    double layersOffloaded = offloaded(split.first) * inFlight(0);
    double peakStageLayers = split.first; // the layers of that stage
    bool withLogits = p.pp == 1;
    if (p.pp > 1) {
        const int second = p.pp > 2 ? split.middle : split.last;
        const double secondPerLayer = perLayerOn(1, second);
        if (resident(second, inFlight(1)) * secondPerLayer > layersInFlight * perLayer) {
            layersInFlight = resident(second, inFlight(1));
            layersOffloaded = offloaded(second) * inFlight(1);
            perLayer = secondPerLayer;
            peakStageLayers = second;
            withLogits = p.pp == 2;
        }
        const double lastInFlight = resident(split.last, inFlight(p.pp - 1));
        const double lastPerLayer = perLayerOn(p.pp - 1, split.last);
        if (!withLogits && lastInFlight * lastPerLayer + logitsBytes > layersInFlight * perLayer) {
            layersInFlight = lastInFlight;
            layersOffloaded = offloaded(split.last) * inFlight(p.pp - 1);
            perLayer = lastPerLayer;
            peakStageLayers = split.last;
            withLogits = true;
        }
    }
    const TransformerShape* recomputed = &shape; // whose layer is recomputed at the peak
    if (staged) {
        // A hybrid stack's stages keep their own blocks' activations: the stage holding the most (with
        // the logits on the last).
        double most = -1.0;
        for (int r = 0; r < p.pp; ++r) {
            const TransformerShape& x = stages->shapes[static_cast<std::size_t>(r)];
            const int layers = stages->layers[static_cast<std::size_t>(r)];
            double bytesPerLayer = stageAverage(x, in, layers);
            if (!stages->bf16.empty()) {
                const Bf16Blocks& b = stages->bf16[static_cast<std::size_t>(r)];
                bytesPerLayer = withBf16(bytesPerLayer, b.shape, b.bf16Layers, b.layers);
            }
            const double inStage = resident(layers, inFlight(r));
            const bool last = r == p.pp - 1;
            if (inStage * bytesPerLayer + (last ? logitsBytes : 0.0) > most) {
                most = inStage * bytesPerLayer + (last ? logitsBytes : 0.0);
                layersInFlight = inStage;
                perLayer = bytesPerLayer;
                layersOffloaded = offloaded(layers) * inFlight(r);
                peakStageLayers = layers;
                withLogits = last;
                recomputed = &x;
            }
        }
    }
    m.activationsBytes = layersInFlight * perLayer;
    m.offloadedActivationsBytes = layersOffloaded * perLayer;
    if (s.recompute == Recompute::Full) {
        // Working set of the layers recomputed together, on top of the checkpoints held at the start of
        // the backward: a unit of recompute_num_layers layers under uniform recomputation (at most a
        // chunk). Block recomputation runs its first layers' backward last, after the chunk's other
        // layers have freed at least a layer's activations, so it adds nothing unless it recomputes every
        // layer (then one layer, as uniform 1).
        TrainingStrategy none = s;
        none.recompute = Recompute::Selective;
        const double perChunk = peakStageLayers / p.vpp;
        const double together = s.blockRecompute() ? (s.recomputeNumLayers < perChunk ? 0.0 : 1.0)
                                                   : std::max(1.0, std::min<double>(s.recomputeNumLayers, perChunk));
        m.activationsBytes += together * activationBytesPerLayer(*recomputed, none, in);
    }
    if (in.errorFeedback) // fp32 residual per local gradient element
        m.compressionBytes = 4.0 * local.total();
    m.otherBytes = withLogits ? logitsBytes : 0.0;
    m.cudaContextBytes = in.cudaContextBytes;
    const int communicators
        = (p.tp > 1) + (p.pp > 1) + (static_cast<long long>(p.dp) * p.cp > 1) + (p.cp > 1) + (p.ep > 1);
    m.ncclBytes = communicators * in.ncclBytesPerCommunicator;
    // The caching allocator's slack grows with what is allocated and freed every step: activations,
    // logits, gathered ZeRO-3 / FSDP layers. What lives for the whole run is allocated once and not
    // fragmented: Megatron-Core keeps parameters and gradients in contiguous buffers
    // (megatron/core/distributed/param_and_grad_buffer.py), its distributed optimizer allocates the
    // fp32 main parameters and Adam moments of its shard once at set-up (megatron/core/optimizer/
    // distrib_optimizer.py), and an error-feedback residual is one tensor per gradient bucket kept
    // across steps (PyTorch torch/distributed/algorithms/ddp_comm_hooks/powerSGD_hook.py error_dict).
    m.allocatorReserveBytes = in.allocatorReserveFraction * (m.activationsBytes + m.otherBytes + gatheredWeightsBytes);
    return m;
}

} // namespace clusterscope::engine
