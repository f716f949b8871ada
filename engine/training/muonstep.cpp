#include "engine/training/muonstep.h"

#include "engine/scenario/scenario.h"
#include "engine/training/computeefficiency.h"
#include "engine/training/memorymodel.h"
#include "engine/training/transformershape.h"

#include <algorithm>

namespace clusterscope::engine {

double newtonSchulzFlops(double m, double n, int iterations)
{
    const double s = std::min(m, n), l = std::max(m, n);
    return iterations * (4.0 * s * s * l + 2.0 * s * s * s);
}

double muonNewtonSchulzSeconds(
    const TransformerShape& m, const ParallelismSpec& p, const ComputeEfficiency& e, double layers, int iterations)
{
    // One matrix: X X^T as (s x l)(l x s), A A as (s x s)(s x s), B X as (s x s)(s x l).
    const auto ns = [&](double rows, double cols) {
        const double s = std::min(rows, cols), l = std::max(rows, cols);
        return iterations
            * (e.gemmSeconds(s, s, l, 1.0, true) + e.gemmSeconds(s, s, s, 1.0, true)
                + e.gemmSeconds(s, l, s, 1.0, true));
    };
    const double t = p.tp, h = m.hidden, d = m.headDim;
    const double matrices = m.gatedMlp ? 2.0 : 1.0; // gate and up are one fused matrix
    // Non-expert weights of one layer (averaged over a hybrid stack's blocks), as tp shards.
    double dense = 0.0;
    if (m.mla) {
        const double qk = d + m.qkRopeHeadDim;
        if (m.qLoraRank > 0)
            dense += m.attentionShare * (ns(m.qLoraRank, h) + ns(m.heads * qk / t, m.qLoraRank));
        else
            dense += m.attentionShare * ns(m.heads * qk / t, h);
        dense += m.attentionShare
            * (ns(m.kvLoraRank + m.qkRopeHeadDim, h) + ns(m.heads * (d + m.vHeadDim) / t, m.kvLoraRank)
                + ns(h, m.heads * m.vHeadDim / t));
    } else {
        dense += m.attentionShare * (ns((m.heads + 2.0 * m.kvHeads) * d / t, h) + ns(h, m.heads * d / t));
    }
    const double denseMlpShare = m.ffnShare - m.moeShare;
    if (denseMlpShare > 0)
        dense += denseMlpShare * (ns(matrices * m.ffnHidden / t, h) + ns(h, m.ffnHidden / t));
    if (m.mambaShare > 0)
        dense += m.mambaShare * (ns(m.mambaInProjWidth() / t, h) + ns(h, m.mambaInner() / t));
    double expert = 0.0;
    if (m.moe) {
        dense += m.moeShare * ns(m.experts, h); // router
        if (m.sharedExperts > 0) {
            const double f = m.sharedExperts * m.sharedExpertFfnHidden;
            dense += m.moeShare * (ns(matrices * f / t, h) + ns(h, f / t));
        }
        if (m.expertInput != h) // latent projections, whole on every tp rank
            dense += m.moeShare * 2.0 * ns(m.expertInput, h);
        const double et = p.expertTp();
        const double localExperts = m.experts / p.ep;
        expert = m.moeShare * localExperts
            * (ns(matrices * m.expertFfnHidden / et, m.expertInput) + ns(m.expertInput, m.expertFfnHidden / et));
    }
    return layers * (dense / (static_cast<double>(p.dp) * p.cp) + expert / expertDataParallel(p));
}

} // namespace clusterscope::engine
