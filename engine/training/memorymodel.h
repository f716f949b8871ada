#pragma once

// Memory per GPU of one training strategy, by component, with an out-of-memory verdict.

#include "engine/training/trainingstrategy.h"

namespace clusterscope::engine {

struct TransformerShape;

/// Parameters one GPU holds before ZeRO sharding (the busiest pipeline stage: the first or last,
/// which also hold the embedding or the output layer).
struct LocalParams {
    double dense = 0;  ///< non-expert parameters (replicated over dp x cp)
    double expert = 0; ///< expert parameters (replicated over dp x cp / ep)
    double total() const { return dense + expert; }
};
LocalParams localParams(const TransformerShape& shape, const ParallelismSpec& p);

/// Bytes per GPU (1 GB = 1e9 B).
struct MemoryBreakdown {
    double weightsBytes = 0;     ///< 16-bit weights (sharded by ZeRO-3), plus gathered layers under ZeRO-3
    double gradientsBytes = 0;   ///< 16-bit gradients (sharded by ZeRO-2/3)
    double optimizerBytes = 0;   ///< fp32 master weights, Adam m and v (sharded by ZeRO-1/2/3)
    double activationsBytes = 0; ///< stored activations of the micro-batches in flight
    double compressionBytes = 0; ///< error-feedback residuals of gradient compression (fp32)
    double otherBytes = 0;       ///< logits of one micro-batch (fp32) + framework reserve
    double capacityBytes = 0;    ///< HBM of the GPU
    double totalBytes() const
    {
        return weightsBytes + gradientsBytes + optimizerBytes + activationsBytes + compressionBytes + otherBytes;
    }
    bool fits() const { return totalBytes() <= capacityBytes; }
};

struct MemoryInputs {
    int globalBatch = 1;
    double activationElementBytes = 2.0; ///< 16-bit activations (also under FP8 GEMMs)
    bool flashAttention = true;          ///< fused attention stores no s x s scores
    bool errorFeedback = false;          ///< compression with an error-feedback residual
    double capacityBytes = 80e9;
    /// CUDA context, cuBLAS workspace, NCCL buffers and allocator fragmentation: 2 GB, the margin
    /// Megatron-LM and DeepSpeed users report between model estimates and nvidia-smi.
    double frameworkReserveBytes = 2e9;
};

/// Korthikanti et al. 2022 ("Reducing activation recomputation in large transformer models")
/// bytes of stored activations for one layer and one micro-batch, on one GPU, generalised to GQA,
/// gated MLPs and MoE (top-k tokens through the experts) and to context parallelism (s / cp tokens).
double activationBytesPerLayer(const TransformerShape& shape, const TrainingStrategy& s, const MemoryInputs& in);

/// Full breakdown of `s` on one GPU.
MemoryBreakdown estimateMemory(const TransformerShape& shape, const TrainingStrategy& s, const MemoryInputs& in);

} // namespace clusterscope::engine
