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

namespace {
    /// Visits every 2-D weight shard one layer holds under tensor / expert-tensor parallelism:
    /// `dense(rows, cols, count)` for the non-expert ones (tp shards), `expert(rows, cols, count)` for
    /// one routed expert's (etp shards); `count` is how many such shards a layer holds, averaged over a
    /// hybrid stack's blocks.
    template <class Dense, class Expert>
    void forEachMuonMatrix(const TransformerShape& m, const ParallelismSpec& p, Dense dense, Expert expert)
    {
        const double t = p.tp, h = m.hidden, d = m.headDim;
        const double matrices = m.gatedMlp ? 2.0 : 1.0; // gate and up are one fused matrix
        if (m.mla) {
            const double qk = d + m.qkRopeHeadDim;
            if (m.qLoraRank > 0) {
                dense(m.qLoraRank, h, m.attentionShare);
                dense(m.heads * qk / t, m.qLoraRank, m.attentionShare);
            } else {
                dense(m.heads * qk / t, h, m.attentionShare);
            }
            dense(m.kvLoraRank + m.qkRopeHeadDim, h, m.attentionShare);
            dense(m.heads * (d + m.vHeadDim) / t, m.kvLoraRank, m.attentionShare);
            dense(h, m.heads * m.vHeadDim / t, m.attentionShare);
        } else {
            dense((m.heads + 2.0 * m.kvHeads) * d / t, h, m.attentionShare);
            dense(h, m.heads * d / t, m.attentionShare);
        }
        const double denseMlpShare = m.ffnShare - m.moeShare;
        if (denseMlpShare > 0) {
            dense(matrices * m.ffnHidden / t, h, denseMlpShare);
            dense(h, m.ffnHidden / t, denseMlpShare);
        }
        if (m.mambaShare > 0) {
            dense(m.mambaInProjWidth() / t, h, m.mambaShare);
            dense(h, m.mambaInner() / t, m.mambaShare);
        }
        if (m.moe) {
            dense(m.experts, h, m.moeShare); // router
            if (m.sharedExperts > 0) {
                const double f = m.sharedExperts * m.sharedExpertFfnHidden;
                dense(matrices * f / t, h, m.moeShare);
                dense(h, f / t, m.moeShare);
            }
            if (m.expertInput != h) // latent projections, whole on every tp rank
                dense(m.expertInput, h, 2.0 * m.moeShare);
            const double et = p.expertTp();
            expert(matrices * m.expertFfnHidden / et, m.expertInput, m.moeShare);
            expert(m.expertInput, m.expertFfnHidden / et, m.moeShare);
        }
    }
} // namespace

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
    // Non-expert weights of one layer (averaged over a hybrid stack's blocks), as tp shards; the local
    // experts' as etp shards.
    double dense = 0.0, expert = 0.0;
    const double localExperts = m.experts / p.ep;
    forEachMuonMatrix(
        m, p, [&](double rows, double cols, double count) { dense += count * ns(rows, cols); },
        [&](double rows, double cols, double count) { expert += count * localExperts * ns(rows, cols); });
    return layers * (dense / (static_cast<double>(p.dp) * p.cp) + expert / expertDataParallel(p));
}

double muonNewtonSchulzFlopsPerIteration(const TransformerShape& m, const ParallelismSpec& p, int iterations)
{
    // Every shard is orthogonalized once per step by the rank that owns it: tp shards of each
    // non-expert weight, etp shards of each routed expert's, in every layer (and MTP layer).
    double dense = 0.0, expert = 0.0;
    forEachMuonMatrix(
        m, p,
        [&](double rows, double cols, double count) { dense += count * newtonSchulzFlops(rows, cols, iterations); },
        [&](double rows, double cols, double count) {
            expert += count * m.experts * newtonSchulzFlops(rows, cols, iterations);
        });
    const double layers = m.layers + m.mtpLayers * m.mtpBlocks;
    return layers * (dense * p.tp + expert * p.expertTp());
}

} // namespace clusterscope::engine
