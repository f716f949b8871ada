#include "engine/training/transformershape.h"

#include "engine/scenario/scenario.h"

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
    const double h = s.hidden;
    // Q and O are h x h; K and V are h x (h kv/heads) with grouped-query attention (Ainslie et al. 2023).
    s.attentionParamsPerLayer = 2.0 * h * h + 2.0 * h * h * s.kvHeads / s.heads;
    const double matrices = s.gatedMlp ? 3.0 : 2.0;
    if (m.moe) {
        s.moe = true;
        s.experts = m.moe->experts;
        s.topK = m.moe->topK;
        s.expertFfnHidden = m.moe->expertFfnHidden;
        s.expertParamsPerLayer = s.experts * matrices * h * s.expertFfnHidden;
        s.routerParamsPerLayer = h * s.experts;
    } else {
        s.denseMlpParamsPerLayer = matrices * h * s.ffnHidden;
    }
    s.normParamsPerLayer = 4.0 * h; // two LayerNorms (scale + bias)
    s.embeddingParams = s.vocab * h;
    s.outputLayerParams = s.vocab * h;
    return s;
}

double TransformerShape::totalParams() const
{
    return layers * (attentionParamsPerLayer + denseMlpParamsPerLayer + expertParamsPerLayer + routerParamsPerLayer
               + normParamsPerLayer)
        + embeddingParams + outputLayerParams;
}

double TransformerShape::activeParams() const
{
    const double activeExperts = moe ? expertParamsPerLayer * topK / experts : 0.0;
    return layers * (attentionParamsPerLayer + denseMlpParamsPerLayer + activeExperts + routerParamsPerLayer
               + normParamsPerLayer)
        + embeddingParams + outputLayerParams;
}

double TransformerShape::layerForwardFlops(double tokens, double attendedTokens) const
{
    // GEMMs: 2 FLOPs per weight per token; a token goes through top-k experts.
    const double gemmParams = attentionParamsPerLayer + denseMlpParamsPerLayer + routerParamsPerLayer
        + (moe ? expertParamsPerLayer * topK / experts : 0.0);
    // Attention: Q K^T and (softmax) V, each 2 x tokens x attended x h (SC21: 4 b s^2 h per layer).
    return 2.0 * tokens * gemmParams + 4.0 * tokens * attendedTokens * hidden;
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
