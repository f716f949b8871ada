#pragma once

// The Muon optimizer step (Jordan et al. 2024, "Muon: An optimizer for hidden layers in neural
// networks", kellerjordan.github.io/posts/muon) as Megatron-Core runs it (megatron/core/optimizer/
// muon.py with NVIDIA-NeMo Emerging-Optimizers' newton_schulz): every 2-D weight but the embedding and
// the output layer is updated with its momentum orthogonalized by five quintic Newton-Schulz
// iterations; the embedding, output layer and norms keep Adam. Each data-parallel rank owns whole
// matrices (the layer-wise distributed optimizer) and orthogonalizes only those, so the work per GPU
// is its stage's matrices over the data-parallel ranks (experts over the expert-data-parallel ones).

namespace clusterscope::engine {

class ComputeEfficiency;
struct ParallelismSpec;
struct TransformerShape;

/// FLOPs of orthogonalizing one m x n matrix: with s = min(m, n), l = max(m, n) each iteration runs
/// A = X X^T (2 s^2 l), B = b A + c A A (2 s^3) and X = a X + B X (2 s^2 l): iterations x (4 s^2 l + 2 s^3).
double newtonSchulzFlops(double m, double n, int iterations = 5);

/// Seconds one GPU spends in Newton-Schulz iterations per optimizer step for `layers` layers of its
/// pipeline stage: the three GEMMs of each iteration (16-bit, each its own launch) of every 2-D weight
/// shard the layers hold under tensor / expert-tensor parallelism, the non-expert ones spread over the
/// dp x cp ranks, the local experts' over the expert-data-parallel ranks.
double muonNewtonSchulzSeconds(
    const TransformerShape& m, const ParallelismSpec& p, const ComputeEfficiency& e, double layers, int iterations = 5);

/// FLOPs the whole cluster spends in Newton-Schulz iterations per optimizer step: every tp shard of the
/// non-expert 2-D weights and every etp shard of each routed expert, in every layer and MTP layer,
/// orthogonalized once (newtonSchulzFlops each). Counted in the executed (hardware) FLOPs, not in the
/// model FLOPs.
double muonNewtonSchulzFlopsPerIteration(const TransformerShape& m, const ParallelismSpec& p, int iterations = 5);

} // namespace clusterscope::engine
