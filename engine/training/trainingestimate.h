#pragma once

// The result of evaluating one training strategy: iteration time and its breakdown, throughput,
// memory per GPU and the cost of the scenario's token budget. Plain data; no allocation.

#include "engine/training/memorymodel.h"
#include "engine/training/trainingstrategy.h"

namespace clusterscope::engine {

/// Seconds of one iteration (one optimizer step) on the critical path; the parts add up to it.
struct IterationBreakdown {
    double compute = 0; ///< forward + backward kernels (GEMMs, attention, element-wise)
    double recompute = 0; ///< recomputed forward work (selective or full)
    double tpExposed = 0; ///< tensor-parallel collectives not hidden behind compute
    double ppExposed = 0; ///< pipeline point-to-point transfers on the critical path
    double dpExposed = 0; ///< data-parallel gradient / parameter traffic not hidden behind backward
    double cpExposed = 0; ///< context-parallel traffic not hidden behind attention
    double epExposed = 0; ///< expert-parallel all-to-all
    double bubble = 0; ///< pipeline fill and drain
    double optimizer = 0; ///< Adam step
    double other = 0; ///< gradient compression kernels and exposed activation-offload transfers
    double total() const
    {
        return compute + recompute + tpExposed + ppExposed + dpExposed + cpExposed + epExposed + bubble + optimizer
            + other;
    }
    double exposedCommunication() const { return tpExposed + ppExposed + dpExposed + cpExposed + epExposed; }
};

/// Where compute + recompute of the critical pipeline stage goes, by kernel kind (seconds per
/// iteration; the parts add up to IterationBreakdown::compute + recompute).
struct ComputeBreakdown {
    double gemm = 0; ///< linear layers, MoE experts and router on tensor cores
    double attention = 0; ///< attention core
    double elementwise = 0; ///< norms, residual adds, rotary, activations, MoE permutation
    double fp8Casts = 0; ///< fp8 casts and amax (fp8 training)
    double overhead = 0; ///< kernel launch gaps and host-bound time
    double logits = 0; ///< output layer and softmax cross-entropy (last stage)
    double kernels = 0; ///< kernels launched per iteration on one GPU
};

/// Total (exposed or not) seconds of communication per iteration, per dimension.
struct CommunicationSeconds {
    double tp = 0, pp = 0, dp = 0, cp = 0, ep = 0;
};

/// Bytes one GPU sends per iteration in each dimension (wire bytes of ring / pairwise algorithms:
/// all-reduce 2(n-1)/n S, all-gather and reduce-scatter (n-1)/n S, all-to-all (n-1)/n S, send S).
struct CommunicationBytes {
    double tp = 0, pp = 0, dp = 0, expertDp = 0, cp = 0, ep = 0;
    /// Of cp: the bytes sent by all-to-alls (Ulysses attention, a hybrid stack's Mamba mixers), the
    /// rest ring attention's sends to the next rank.
    double cpAllToAll = 0;
};

struct TrainingEstimate {
    TrainingStrategy strategy;
    bool valid = false;
    IterationBreakdown breakdown;
    ComputeBreakdown computeBreakdown;
    const char* pipelineSplitRule = "even"; ///< PipelineSplit::rule of the strategy
    int firstStageLayers = 0, middleStageLayers = 0, lastStageLayers = 0;
    CommunicationSeconds communication;
    CommunicationBytes bytesSent;
    MemoryBreakdown memory;
    int microBatchesPerPipeline = 0; ///< m = global_batch / (dp x micro_batch)
    /// Activation offloading on the critical stage: layers offloaded per micro-batch, seconds of one
    /// layer's copy in one direction over the host link, and the part of all copies per iteration
    /// that the neighbouring layers' compute does not hide (included in breakdown.other).
    int offloadedLayers = 0;
    double offloadCopySeconds = 0;
    double offloadExposedSeconds = 0;
    double iterationSeconds = 0;
    double modelFlopsPerIteration = 0; ///< 3 x forward FLOPs (Megatron model FLOPs, no recompute)
    double hardwareFlopsPerIteration = 0; ///< FLOPs executed including recomputation
    double tflopsPerGpu = 0; ///< model TFLOP/s per GPU (1e12)
    double hardwareTflopsPerGpu = 0; ///< executed TFLOP/s per GPU (counts recomputation)
    double mfu = 0; ///< model FLOPs utilisation (fraction of peak)
    double tokensPerSecond = 0;
    double networkShare = 0; ///< exposed communication / iteration time
    bool networkShareAboveGuideline = false; ///< > kNetworkShareGuideline
    double trainingSeconds = 0; ///< time for training.tokens (0 when no budget), warm-up included
    double trainingCostUsd = 0; ///< GPU-hours x gpu_hour_usd for that budget
    double gpuHourUsd = 0; ///< price used (USD per GPU-hour)
    double costPerIterationUsd = 0;
};

/// Planning rule of thumb (a design target, not a physical limit): exposed communication under 25%.
inline constexpr double kNetworkShareGuideline = 0.25;

} // namespace clusterscope::engine
