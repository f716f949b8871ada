#pragma once

// Memory per GPU of one training strategy, by component, with an out-of-memory verdict.

#include "engine/training/trainingstrategy.h"

#include <memory>

namespace clusterscope::engine {

struct TransformerShape;
struct PipelineSplit;
struct StageShapes;
struct Bf16Blocks;

/// Parameters one GPU holds before ZeRO sharding (the busiest pipeline stage: the first or last,
/// which also hold the embedding or the output layer).
struct LocalParams {
    double dense = 0; ///< non-expert parameters (replicated over dp x cp)
    double expert = 0; ///< expert parameters (replicated over dp x cp / ep)
    double vocab = 0; ///< of `dense`, the embedding and output layer the stage holds
    double total() const { return dense + expert; }
};
LocalParams localParams(const TransformerShape& shape, const ParallelismSpec& p);
/// The same for a known split of the layers over the stages (the stage with the most parameters). With
/// `stages` (a hybrid stack's pipeline stages, hybridStageShapes) each stage holds its own blocks.
LocalParams localParams(const TransformerShape& shape, const ParallelismSpec& p, const PipelineSplit& split,
    const StageShapes* stages = nullptr);
/// GPUs holding a copy of each expert shard: tp x cp x dp / (etp x ep), at least 1.
double expertDataParallel(const ParallelismSpec& p);

/// Bytes per GPU (1 GB = 1e9 B).
struct MemoryBreakdown {
    double weightsBytes = 0; ///< 16-bit weights (sharded by ZeRO-3), plus gathered layers under ZeRO-3
    double gradientsBytes = 0; ///< 16-bit gradients (sharded by ZeRO-2/3)
    double optimizerBytes = 0; ///< fp32 master weights, Adam m and v (sharded by ZeRO-1/2/3)
    double activationsBytes = 0; ///< stored activations of the micro-batches in flight
    double compressionBytes = 0; ///< error-feedback residuals of gradient compression (fp32)
    double otherBytes = 0; ///< logits of one micro-batch (fp32) on the last stage
    double cudaContextBytes = 0; ///< CUDA context, kernel images and cuBLAS / cuDNN workspaces
    double ncclBytes = 0; ///< NCCL communicator buffers (one communicator per parallel group)
    double allocatorReserveBytes = 0; ///< PyTorch caching-allocator fragmentation and reserve
    double capacityBytes = 0; ///< HBM as the device reports it (cudaMemGetInfo total)
    /// Activations held in host memory instead (activation offloading; not part of totalBytes())
    double offloadedActivationsBytes = 0;
    double totalBytes() const
    {
        return weightsBytes + gradientsBytes + optimizerBytes + activationsBytes + compressionBytes + otherBytes
            + cudaContextBytes + ncclBytes + allocatorReserveBytes;
    }
    bool fits() const { return totalBytes() <= capacityBytes; }
};

struct MemoryInputs {
    int globalBatch = 1;
    double activationElementBytes = 2.0; ///< 16-bit activations (also under FP8 GEMMs)
    bool flashAttention = true; ///< fused attention stores no s x s scores
    /// fp8 training: Transformer Engine's Linear / LayerNormLinear save the fp8 copy of each GEMM
    /// input for the weight gradient (1 B per element instead of 2; transformer_engine/pytorch/
    /// module/linear.py and layernorm_linear.py save `inputmat` / `ln_out` after quantization),
    /// while the fused attention still keeps its 16-bit output for its own backward.
    bool fp8GemmInputs = false;
    /// Hidden and attention dropout on (model.dropout): their 1-byte masks are saved for the
    /// backward (Korthikanti et al. 2022 Sec. 4). With p = 0 PyTorch's dropout returns its input and
    /// saves nothing (ATen native/Dropout.cpp: the fused kernel only for 0 < p < 1).
    bool dropout = true;
    /// fp8 primary weights (training.fp8_param_gather, Megatron-Core --fp8-param-gather): the model
    /// weights and the ZeRO-3 / FSDP gather buffers hold 1 byte per parameter; master weights and
    /// Adam moments are unchanged.
    bool fp8Weights = false;
    /// Bytes per parameter of those quantized primary weights: 1 (fp8); MXFP8 and NVFP4 ones hold
    /// both quantized copies (row-wise for the forward GEMM, column-wise for the data gradient) with
    /// their scales: 2 + 2/32 (MXFP8), 2 x (0.5 + 1/16) (NVFP4) (Transformer Engine module/base.py
    /// reset_parameters sets both usages). MXFP8's all-gather runs in 16 bits through the gradient
    /// buffer (Megatron-Core param_and_grad_buffer.py shared_buffer), which needs no memory of its own.
    double weightBytesPerParam = 1.0;
    /// training.optimizer "muon": 8 bytes of optimizer state per parameter (12 for the embedding and
    /// output layer, which keep Adam), owned whole matrix by matrix across the data-parallel ranks.
    bool muon = false;
    /// training.bf16_layers_at_start / _at_end under a quantized dtype (0 otherwise): layers whose GEMM
    /// inputs are kept in 16-bit, counted on the stages that hold them (bf16LayersOnStage; a hybrid
    /// stack's StageShapes::bf16).
    int bf16LayersAtStart = 0;
    int bf16LayersAtEnd = 0;
    /// A hybrid stack's own BF16 blocks when it runs on one pipeline stage (null otherwise).
    std::shared_ptr<const Bf16Blocks> wholeBf16Blocks;
    /// Bytes per element of a quantized GEMM input kept for the weight gradient (fp8GemmInputs): 1
    /// (fp8, MXFP8; MXFP8's 1/32 B of scales left out), 0.5625 (NVFP4: 0.5 + one E4M3 scale per 16).
    double quantizedInputBytes = 1.0;
    /// training.module_dtypes.attention_linears: bytes per element of the QKV and projection inputs
    /// kept for their weight gradients (2: BF16 linears keep the 16-bit ones); 0 = the training dtype's.
    double attentionInputBytes = 0.0;
    /// Transformer Engine's fused cross entropy (transformer_engine/pytorch/triton/cross_entropy.py):
    /// computes in fp32 registers and writes the gradient in place into the 16-bit logits, so the
    /// logits cost 2 bytes per element instead of the 4 of an fp32 softmax. Applied to fp8 training,
    /// which runs through Transformer Engine in the NeMo / Megatron-Bridge recipes
    /// (cross_entropy_loss_fusion = True, cross_entropy_fusion_impl = "te"); bf16 / fp16 keep
    /// Megatron-LM's unfused default (--cross-entropy-loss-fusion off).
    bool fusedCrossEntropy = false;
    /// Layers per pipeline stage whose activations are offloaded to host memory (training.
    /// activation_offload_layers). Transformer Engine's offload handler (transformer_engine/pytorch/
    /// cpu_offload.py, used by Megatron-Core's TransformerBlock) copies a layer's saved tensors to
    /// the host after its forward and back before its backward, double-buffered: one layer's worth
    /// stays on the device in transit. At least one layer of a stage stays resident.
    int activationOffloadLayers = 0;
    /// Modules recomputed under selective recomputation (training.recompute_modules,
    /// RecomputeModuleBits; 0 = Megatron-Core's default, the attention core): their outputs are
    /// discarded after the forward and recomputed in the backward, so they are not stored.
    unsigned recomputeModules = 0;
    bool errorFeedback = false; ///< compression with an error-feedback residual
    double capacityBytes = 85.9e9; ///< as the device reports it (80 GiB A100)
    /// Memory the framework holds besides tensors (calibration.compute overrides each):
    /// - cudaContextBytes 0.6 GB: CUDA 12 context with lazy module loading plus cuBLAS (32 MiB per
    ///   stream on Hopper) and Transformer Engine workspaces (CUDA C++ Programming Guide "Lazy
    ///   Loading"; cuBLAS docs "cublasSetWorkspace": 32 MiB recommended on Hopper).
    /// - ncclBytesPerCommunicator 0.2 GB: NCCL buffers of one communicator: NCCL_BUFFSIZE 4 MiB per
    ///   channel and peer for each protocol (Simple 4 MiB, LL128 ~4.6 MiB, LL 256 KiB), with 16-32
    ///   channels on NVLink (NCCL docs, Environment Variables, NCCL_BUFFSIZE / NCCL_MAX_NCHANNELS).
    /// - allocatorReserveFraction 0.05: the PyTorch caching allocator keeps ~5% above the peak of the
    ///   tensors allocated and freed every step (activations, logits, gathered ZeRO-3 layers) in partly
    ///   used blocks (PyTorch docs "CUDA semantics: memory management"; torch.cuda.memory_reserved vs
    ///   memory_allocated in Megatron-LM's memory report). Parameters, gradients and optimizer state are
    ///   allocated once as contiguous buffers and add nothing to it (estimateMemory).
    double cudaContextBytes = 0.6e9;
    double ncclBytesPerCommunicator = 0.2e9;
    double allocatorReserveFraction = 0.05;
};

/// Korthikanti et al. 2022 ("Reducing activation recomputation in large transformer models")
/// bytes of stored activations for one layer and one micro-batch, on one GPU, generalised to GQA,
/// gated MLPs and MoE (top-k tokens through the experts) and to context parallelism (s / cp tokens).
double activationBytesPerLayer(const TransformerShape& shape, const TrainingStrategy& s, const MemoryInputs& in);

/// Full breakdown of `s` on one GPU. With `stages` (a hybrid stack's pipeline stages, hybridStageShapes)
/// each stage's parameters and activations are those of its own blocks.
MemoryBreakdown estimateMemory(const TransformerShape& shape, const TrainingStrategy& s, const MemoryInputs& in,
    const StageShapes* stages = nullptr);

} // namespace clusterscope::engine
