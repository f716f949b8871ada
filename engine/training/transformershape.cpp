#include "engine/training/transformershape.h"

#include "engine/scenario/scenario.h"

#include <algorithm>

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
        const double moeShare = (s.layers - s.denseLayers) / s.layers;
        s.expertParamsPerLayer = moeShare * s.experts * matrices * h * s.expertFfnHidden;
        s.sharedExpertParamsPerLayer = moeShare * s.sharedExperts * matrices * h * s.sharedExpertFfnHidden;
        s.routerParamsPerLayer = moeShare * h * s.experts;
        s.denseMlpParamsPerLayer = (1.0 - moeShare) * matrices * h * s.ffnHidden;
    } else {
        s.denseMlpParamsPerLayer = matrices * h * s.ffnHidden;
    }
    s.normParamsPerLayer = 4.0 * h; // two LayerNorms (scale + bias)
    s.embeddingParams = s.vocab * h;
    s.outputLayerParams = s.vocab * h; // held by the last stage even when tied (Megatron keeps a copy)
    return s;
}

double TransformerShape::totalParams() const
{
    return layers
        * (attentionParamsPerLayer + denseMlpParamsPerLayer + expertParamsPerLayer + sharedExpertParamsPerLayer
            + routerParamsPerLayer + normParamsPerLayer)
        + embeddingParams + (tiedEmbeddings ? 0.0 : outputLayerParams);
}

double TransformerShape::activeParams() const
{
    const double activeExperts = moe ? expertParamsPerLayer * topK / experts : 0.0;
    return layers
        * (attentionParamsPerLayer + denseMlpParamsPerLayer + activeExperts + sharedExpertParamsPerLayer
            + routerParamsPerLayer + normParamsPerLayer)
        + embeddingParams + (tiedEmbeddings ? 0.0 : outputLayerParams);
}

double TransformerShape::layerForwardFlops(double tokens, double attendedTokens) const
{
    // GEMMs: 2 FLOPs per weight per token; a token goes through top-k experts.
    const double gemmParams = attentionParamsPerLayer + denseMlpParamsPerLayer + routerParamsPerLayer
        + sharedExpertParamsPerLayer + (moe ? expertParamsPerLayer * topK / experts : 0.0);
    // Attention: Q K^T and (softmax) V, 2 x tokens x attended x heads x (d_qk + d_v) (SC21: 4 b s^2 h
    // per layer); windowed layers attend at most sliding_window keys.
    const double attended = (1.0 - slidingWindowFraction) * attendedTokens
        + slidingWindowFraction * (slidingWindow > 0 ? std::min(slidingWindow, attendedTokens) : attendedTokens);
    const double qk = mla ? headDim + qkRopeHeadDim : headDim, v = mla ? vHeadDim : headDim;
    return 2.0 * tokens * gemmParams + 2.0 * tokens * attended * heads * (qk + v);
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

} // namespace clusterscope::engine
