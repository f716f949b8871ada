#include "engine/training/transformershape.h"

#include "engine/scenario/pipelinesplit.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <string>

namespace clusterscope::engine {

TransformerShape TransformerShape::fromModel(const ModelSpec& m)
{
    TransformerShape s;
    s.layers = m.layers;
    s.hidden = m.hidden;
    s.heads = m.heads;
    s.kvHeads = m.kvHeads;
    s.ffnHidden = m.ffnHidden;
    s.vocab = m.vocab;
    s.seqLen = m.seqLen;
    s.gatedMlp = m.gatedMlp;
    s.tiedEmbeddings = m.tiedEmbeddings;
    s.mtpLayers = m.mtpLayers;
    s.linearBias = m.linearBias;
    s.qkLayerNorm = m.qkLayerNorm;
    s.ropeFusion = m.ropeFusion;
    s.activationClampValue = m.activationClampValue;
    s.squaredReluEager = m.activation == "squared_relu" && !m.activationFusion;
    s.slidingWindow = m.slidingWindow;
    s.slidingWindowFraction = m.slidingWindow > 0 ? m.slidingWindowFraction : 0.0;
    const double h = s.hidden;
    s.headDim = m.headDim > 0 ? m.headDim : h / s.heads;
    if (m.kvLoraRank > 0) {
        // Multi-head latent attention (DeepSeek-V2 Sec. 2.1, DeepSeek-V3 Table 1): queries through a
        // low-rank q_lora_rank bottleneck (or a plain projection), keys/values from a kv_lora_rank
        // latent plus a decoupled rotary key of qk_rope_head_dim; head_dim is the non-rotary q/k part.
        s.mla = true;
        s.qLoraRank = m.qLoraRank;
        s.kvLoraRank = m.kvLoraRank;
        s.qkRopeHeadDim = m.qkRopeHeadDim;
        s.vHeadDim = m.vHeadDim > 0 ? m.vHeadDim : s.headDim;
        const double qk = s.headDim + s.qkRopeHeadDim;
        const double q = s.qLoraRank > 0 ? h * s.qLoraRank + s.qLoraRank * s.heads * qk : h * s.heads * qk;
        const double kv = h * (s.kvLoraRank + s.qkRopeHeadDim) + s.kvLoraRank * s.heads * (s.headDim + s.vHeadDim);
        s.attentionParamsPerLayer = q + kv + s.heads * s.vHeadDim * h;
    } else {
        // Q and O are h x (heads d); K and V are h x (kv_heads d) with grouped-query attention
        // (Ainslie et al. 2023); d = h / heads unless the model states head_dim (Qwen3, GPT-OSS).
        s.attentionParamsPerLayer = 2.0 * h * s.heads * s.headDim + 2.0 * h * s.kvHeads * s.headDim;
    }
    if (!m.hybridPattern.empty()) {
        // One block per symbol (Megatron-Core models/hybrid/hybrid_block.py, which ssm/mamba_block.py
        // re-exports: a MambaLayer, a TransformerLayer holding only self-attention, or one holding only
        // the (MoE) MLP, each with its own pre-norm and residual add).
        const auto share = [&](char c) {
            return static_cast<double>(std::count(m.hybridPattern.begin(), m.hybridPattern.end(), c)) / s.layers;
        };
        s.hybrid = true;
        s.attentionShare = share('*');
        s.ffnShare = share('-') + share('E');
        s.mambaShare = share('M');
        s.blocksPerLayer = 1.0;
        s.attentionParamsPerLayer *= s.attentionShare;
    }
    if (m.mamba) {
        const MambaSpec& mb = *m.mamba;
        s.mambaHeads = mb.heads;
        s.mambaHeadDim = mb.headDim;
        s.mambaStateDim = mb.stateDim;
        s.mambaGroups = mb.groups;
        s.mambaConvKernel = mb.convKernel;
        s.mambaChunk = mb.chunkSize;
        // Megatron-Core MambaMixer parameters: in_proj h x (2 d_inner + 2 G N + heads), the depthwise
        // conv1d (weight conv_kernel + bias per x / B / C channel), A_log, D and dt_bias (one per
        // head), the gated RMSNorm's scale (d_inner) and out_proj d_inner x h.
        s.mambaGemmParamsPerLayer = s.mambaShare * (h * s.mambaInProjWidth() + s.mambaInner() * h);
        s.mambaParamsPerLayer = s.mambaGemmParamsPerLayer
            + s.mambaShare * (s.mambaConvChannels() * (s.mambaConvKernel + 1.0) + 3.0 * s.mambaHeads + s.mambaInner());
    }
    const double matrices = s.gatedMlp ? 3.0 : 2.0;
    if (m.moe) {
        // Per-layer figures are averages over the layers: the leading dense_layers have a dense MLP
        // of ffn_hidden, the others routed experts (+ shared experts and the router).
        s.moe = true;
        s.experts = m.moe->experts;
        s.topK = m.moe->topK;
        s.expertFfnHidden = m.moe->expertFfnHidden;
        s.sharedExperts = m.moe->sharedExperts;
        s.sharedExpertFfnHidden = m.moe->sharedExpertFfnHidden > 0 ? m.moe->sharedExpertFfnHidden : s.expertFfnHidden;
        s.denseLayers = m.moe->denseLayers;
        s.capacityFactor = m.moe->capacityFactor;
        s.loadImbalance = m.moe->loadImbalance;
        s.flexDispatcher = m.moe->dispatcher != "alltoall";
        s.moeShare = s.hybrid
            ? static_cast<double>(std::count(m.hybridPattern.begin(), m.hybridPattern.end(), 'E')) / s.layers
            : (s.layers - s.denseLayers) / s.layers;
        const double moeShare = s.moeShare;
        // Latent MoE (Megatron-Core moe/moe_layer.py fc1_latent_proj / fc2_latent_proj): the routed
        // experts run on latent_size, between a projection down from and one back up to the hidden size.
        s.expertInput = m.moe->latentSize > 0 ? m.moe->latentSize : h;
        if (m.moe->latentSize > 0)
            s.latentProjParamsPerLayer = moeShare * 2.0 * h * m.moe->latentSize;
        s.expertParamsPerLayer = moeShare * s.experts * matrices * s.expertInput * s.expertFfnHidden;
        s.sharedExpertParamsPerLayer = moeShare * s.sharedExperts * matrices * h * s.sharedExpertFfnHidden;
        s.routerParamsPerLayer = moeShare * h * s.experts;
        s.denseMlpParamsPerLayer = (s.ffnShare - moeShare) * matrices * h * s.ffnHidden;
    } else {
        s.denseMlpParamsPerLayer = s.ffnShare * matrices * h * s.ffnHidden;
    }
    // Two LayerNorms (scale + bias) per attention + MLP layer; one per block of a hybrid stack.
    s.normParamsPerLayer = 2.0 * s.blocksPerLayer * h;
    s.embeddingParams = s.vocab * h;
    s.outputLayerParams = s.vocab * h; // held by the last stage even when tied (Megatron keeps a copy)
    s.mtpMoeBlocks = s.moeShare;
    if (m.mtpLayers > 0 && (!m.mtpPattern.empty() || m.mtpSharedWeights)) {
        // Megatron-Core multi_token_prediction.py: a hybrid stack's MTP layer is built from
        // mtp_hybrid_override_pattern (Megatron-Bridge models/mamba/mamba_provider.py appends it to
        // the hybrid pattern once per depth, or once with mtp_use_repeated_layer, whose depths run
        // the one layer again).
        TransformerShape layer = s;
        if (!m.mtpPattern.empty()) {
            ModelSpec one = m;
            one.hybridPattern = m.mtpPattern;
            one.layers = static_cast<int>(m.mtpPattern.size());
            one.mtpLayers = 0;
            one.mtpPattern.clear();
            one.mtpSharedWeights = false;
            layer = fromModel(one);
            s.mtpBlocks = layer.layers;
            s.mtpMoeBlocks = layer.moeShare * layer.layers;
        }
        s.mtpOwnParams = true;
        s.mtpWeightSets = m.mtpSharedWeights ? 1.0 : m.mtpLayers;
        s.mtpTpSplitParams = s.mtpBlocks
            * (layer.attentionParamsPerLayer + layer.denseMlpParamsPerLayer + layer.sharedExpertParamsPerLayer
                + layer.mambaParamsPerLayer);
        s.mtpReplicatedParams
            = s.mtpBlocks * (layer.normParamsPerLayer + layer.routerParamsPerLayer + layer.latentProjParamsPerLayer);
        s.mtpExpertParams = s.mtpBlocks * layer.expertParamsPerLayer;
    }
    return s;
}

double TransformerShape::totalParams() const
{
    return layers
        * (attentionParamsPerLayer + denseMlpParamsPerLayer + expertParamsPerLayer + sharedExpertParamsPerLayer
            + routerParamsPerLayer + normParamsPerLayer + mambaParamsPerLayer + latentProjParamsPerLayer)
        + embeddingParams + (tiedEmbeddings ? 0.0 : outputLayerParams);
}

double TransformerShape::activeParams() const
{
    const double activeExperts = moe ? expertParamsPerLayer * topK / experts : 0.0;
    return layers
        * (attentionParamsPerLayer + denseMlpParamsPerLayer + activeExperts + sharedExpertParamsPerLayer
            + routerParamsPerLayer + normParamsPerLayer + mambaParamsPerLayer + latentProjParamsPerLayer)
        + embeddingParams + (tiedEmbeddings ? 0.0 : outputLayerParams);
}

double TransformerShape::layerForwardFlops(double tokens, double attendedTokens) const
{
    // GEMMs: 2 FLOPs per weight per token; a token goes through top-k experts.
    const double gemmParams = attentionParamsPerLayer + denseMlpParamsPerLayer + routerParamsPerLayer
        + sharedExpertParamsPerLayer + (moe ? expertParamsPerLayer * topK / experts : 0.0) + mambaGemmParamsPerLayer
        + latentProjParamsPerLayer;
    // Attention: Q K^T and (softmax) V, 2 x tokens x attended x heads x (d_qk + d_v) (SC21: 4 b s^2 h
    // per layer); windowed layers attend at most sliding_window keys.
    const double attended = (1.0 - slidingWindowFraction) * attendedTokens
        + slidingWindowFraction * (slidingWindow > 0 ? std::min(slidingWindow, attendedTokens) : attendedTokens);
    const double qk = mla ? headDim + qkRopeHeadDim : headDim, v = mla ? vHeadDim : headDim;
    // Mamba-2 layers: the SSD scan counted as 7 x tokens x d_inner x state (Megatron-Bridge
    // src/megatron/bridge/training/utils/flop_utils.py mamba_layer_flops, "scan"), besides in_proj
    // and out_proj among the GEMMs.
    const double scan = mambaShare * 7.0 * tokens * mambaInner() * mambaStateDim;
    return 2.0 * tokens * gemmParams + attentionShare * 2.0 * tokens * attended * heads * (qk + v) + scan;
}

TransformerShape::MambaRankLayout TransformerShape::mambaRankLayout(double tp, double cp) const
{
    // Megatron-Core ssm/mamba_context_parallel.py MambaContextParallel.__init__: nheads_local_tpcp =
    // nheads_local_tp / cp; ngroups_local_tp < cp repeats each group cp / ngroups_local_tp times
    // (ngroups_local_tpcp 1), else ngroups_local_tpcp = ngroups_local_tp / cp.
    MambaRankLayout r;
    const double groupsTp = mambaGroups / tp;
    r.heads = mambaHeads / tp / cp;
    r.inner = r.heads * mambaHeadDim;
    if (groupsTp < cp) {
        r.groupRepeat = cp / groupsTp;
        r.groups = 1.0;
    } else {
        r.groups = groupsTp / cp;
    }
    r.scanInputWidth = 2.0 * r.inner + 2.0 * r.groups * mambaStateDim + r.heads;
    r.convChannels = r.inner + 2.0 * r.groups * mambaStateDim;
    return r;
}

double TransformerShape::logitsForwardFlops(double tokens) const { return 2.0 * tokens * hidden * vocab; }

double TransformerShape::modelFlopsPerIteration(double sequences) const
{
    const double tokens = sequences * seqLen;
    return 3.0 * (layers * layerForwardFlops(tokens, seqLen) + logitsForwardFlops(tokens));
}

double TransformerShape::fullRecomputeFlopsPerIteration(double sequences) const
{
    const double tokens = sequences * seqLen;
    return 4.0 * layers * layerForwardFlops(tokens, seqLen) + 3.0 * logitsForwardFlops(tokens);
}

namespace {
    // The shape of a set of a hybrid stack's blocks: the model with those blocks as its pattern (the MTP
    // layers are the last stage's, counted with the model's shape).
    TransformerShape shapeOfBlocks(const ModelSpec& model, const std::string& blocks)
    {
        ModelSpec part = model;
        part.hybridPattern = blocks;
        part.layers = static_cast<int>(blocks.size());
        part.mtpLayers = 0;
        part.mtpPattern.clear();
        part.mtpSharedWeights = false;
        return TransformerShape::fromModel(part);
    }

    Bf16Blocks bf16BlocksOf(const ModelSpec& model, int layers, const std::string& bf16)
    {
        Bf16Blocks out;
        out.layers = layers;
        out.bf16Layers = static_cast<int>(bf16.size());
        if (!bf16.empty())
            out.shape = shapeOfBlocks(model, bf16);
        return out;
    }
} // namespace

Bf16Blocks hybridBf16Blocks(const ModelSpec& model, const std::string& slice, int bf16AtStart, int bf16AtEnd)
{
    const int n = static_cast<int>(slice.size());
    const int start = std::clamp(bf16AtStart, 0, n);
    const int end = std::clamp(bf16AtEnd, 0, n - start);
    return bf16BlocksOf(
        model, n, slice.substr(0, static_cast<std::size_t>(start)) + slice.substr(static_cast<std::size_t>(n - end)));
}

StageShapes hybridStageShapes(const ModelSpec& model, const ParallelismSpec& p, int firstLayers, int middleLayers,
    int lastLayers, int bf16AtStart, int bf16AtEnd)
{
    StageShapes out;
    if (model.hybridPattern.empty() || p.pp <= 1)
        return out;
    const std::vector<std::string> segments = hybridSegments(model.hybridPattern);
    const std::string blocks = hybridBlocks(model.hybridPattern); // numbered as Megatron-Core numbers its layers
    const int layers = static_cast<int>(blocks.size());
    // Each physical stage's blocks, by their number in the stack.
    const std::size_t stages = static_cast<std::size_t>(p.pp);
    std::vector<std::vector<int>> members(stages);
    const auto take = [&](std::size_t stage, int from, int count) {
        for (int i = from; i < from + count && i < layers; ++i)
            members[stage].push_back(i);
    };
    if (segments.size() > 1) {
        // '|' separators state the layout: segment i on stage i mod pp (splitPipelineOf checks their count).
        int offset = 0;
        for (std::size_t i = 0; i < segments.size(); ++i) {
            take(i % stages, offset, static_cast<int>(segments[i].size()));
            offset += static_cast<int>(segments[i].size());
        }
    } else {
        PipelineSplit split;
        split.first = firstLayers;
        split.middle = middleLayers;
        split.last = lastLayers;
        forEachPipelineChunk(p.pp, p.vpp, split, layers,
            [&](int stage, int from, int n) { take(static_cast<std::size_t>(stage), from, n); });
    }
    // The BF16 blocks are the stack's first bf16AtStart and last bf16AtEnd, on whichever stage holds them
    // (with virtual stages the last ones can reach into another stage's chunk).
    const auto isBf16 = [&](int i) { return i < bf16AtStart || i >= layers - bf16AtEnd; };
    const TransformerShape whole = TransformerShape::fromModel(model);
    for (const std::vector<int>& stage : members) {
        std::string slice, bf16;
        for (const int i : stage) {
            slice += blocks[static_cast<std::size_t>(i)];
            if (isBf16(i))
                bf16 += blocks[static_cast<std::size_t>(i)];
        }
        out.layers.push_back(static_cast<int>(slice.size()));
        out.shapes.push_back(slice.empty() ? whole : shapeOfBlocks(model, slice));
        if (bf16AtStart + bf16AtEnd > 0)
            out.bf16.push_back(bf16BlocksOf(model, static_cast<int>(slice.size()), bf16));
    }
    return out;
}

} // namespace clusterscope::engine
