#pragma once

// How fast one GPU runs the kernels of a training step: GEMMs by shape and dtype with tile and
// wave quantization against a per-GPU, per-dtype achievable peak; fused (flash) attention by
// head_dim, sequence, causal mask; memory-bound kernels from the bytes they move over HBM; and a
// per-kernel launch/host overhead. Every constant is a documented default that calibration may replace.

#include "engine/core/status.h"

namespace clusterscope::engine {

struct GpuModel;
enum class DType;

/// Calibratable constants of the per-GPU compute model ("calibration": {"compute": {...}} keys in
/// brackets). Defaults and their sources:
/// - gemmPeakFraction [gemm_peak_fraction] 0 = the catalog's sustained fraction of the dense peak for
///   the GPU and the training dtype (GpuModel::gemmBf16Fraction / gemmFp8Fraction); a value
///   replaces it for the training dtype.
/// - gemmHalfDimension [gemm_half_dimension] 40: a reduction dimension K of this size halves GEMM
///   efficiency (k / (k + half): prologue, epilogue and pipeline fill of each output tile; NVIDIA
///   Deep Learning Performance Guide, "Matrix multiplication background").
/// - Tile and wave quantization: cuBLAS / CUTLASS compute a GEMM as output tiles of 128 x 256,
///   128 x 128 or 64 x 128 (Hopper warp-specialised kernels; CUTLASS 3 profiler defaults), one per
///   SM at a time; partial tiles and a partial last wave leave SMs idle. The heuristic picks the
///   tile with the best utilisation; smaller tiles run at 0.92 / 0.80 of the large tile's rate.
/// - gemmFixedSeconds [gemm_fixed_seconds] 3e-6: per-GEMM latency besides the math (launch on the
///   stream, prologue, epilogue and the tail of the last wave; a 2048^3 bf16 GEMM on H200 takes
///   ~3 us more than its math at the sustained rate: resources/validation/h200_bf16_gemm.csv).
/// - memoryBandwidthFraction [memory_bandwidth_fraction] 0.80: element-wise kernels reach ~75-85% of
///   HBM bandwidth (STREAM-like; NVIDIA's Hopper tuning guide).
/// - scoreBytesPerElement 7: without fused (flash) attention each attention score element is
///   written by Q K^T (2 B), read and written by Megatron's fused scale-mask-softmax (4 B) and gets
///   a 1-byte dropout mask; the V product reads it mostly from L2: ~7 bytes per element.
/// - flashAttention [flash_attention]: attention computed by a fused kernel (Dao et al. 2022).
/// - flashPeakFraction [flash_peak_fraction] 0 = the catalog's attention fraction of the bf16 peak
///   (forward, head_dim 128, long sequences); efficiency scales with d / (d + 32) relative to
///   d = 128 and with s / (s + 512) in the sequence (FlashAttention-2/3 papers, Fig. 4-5: head_dim
///   64 runs ~25% slower than 128; short sequences cannot fill the SMs). Attention runs in bf16
///   even in fp8 training (Transformer Engine keeps dot-product attention in bf16 by default,
///   NVTE_FP8_DPA=0).
/// - attentionBackwardFlopsFactor 2.5 and attentionBackwardEfficiency [attention_backward_efficiency]
///   0.80: the backward pass recomputes the scores and runs five GEMMs to the forward's two, at
///   ~80% of the forward's rate (Dao 2023, Sec. 3.2 and Fig. 6).
/// - backwardElementwiseFactor 2: backward element-wise kernels read the saved input and the
///   incoming gradient and write the outgoing gradient: about twice the forward bytes.
/// - fp8CastBytesPerElement [fp8_cast_bytes_per_element] 3: fp8 training casts every GEMM input
///   (activations forward, gradients backward): read 2 B, write 1 B fp8 plus 1 B transposed copy
///   for the weight gradient, partly fused with the norm (Transformer Engine LayerNormLinear); amax
///   reductions ride along.
/// - mxfp8CastBytesPerElement [mxfp8_cast_bytes_per_element] 4.0625: an MXFP8 cast (training.dtype
///   mxfp8) reads the 16-bit input once and writes both MXFP8 copies, row-wise for the forward (or
///   data-gradient) GEMM and column-wise for the weight gradient, each 1 B per element plus one E8M0
///   scale per 32 elements: 2 + 2 x (1 + 1/32) B (Transformer Engine common/cast/mxfp8/
///   quantize_mxfp8.cuh, one bidimensional kernel; the two copies cannot be derived from each other,
///   docs/features/low_precision_training/mxfp8/mxfp8.rst). Nothing is fused with the norm: a norm
///   writes MXFP8 directly only through cuDNN with NVTE_NORM_FWD_USE_CUDNN set
///   (pytorch/csrc/extensions/normalization.cpp), else it writes 16-bit and the cast runs apart;
///   no amax pass or reduction (MXFP8Quantizer::set_quantization_params is empty).
/// - nvfp4CastBytesPerElement [nvfp4_cast_bytes_per_element] 5.125: an NVFP4 cast (training.dtype
///   nvfp4) of an activation or gradient runs two kernels: the per-tensor amax (after the random
///   Hadamard transform, for the second-level fp32 scale) reads the 16-bit input, then one fused
///   kernel reads it again and writes the row-wise copy and the Hadamard-transformed column-wise
///   copy for the weight gradient, each 0.5 B per element plus one E4M3 scale per 16: 2 + 2 + 2 x
///   (0.5 + 1/16) B (Transformer Engine pytorch/csrc/quantizer.cpp NVFP4Quantizer::quantize_impl:
///   nvte_hadamard_transform_amax, then nvte_quantize_with_hadamard_transform, common/
///   hadamard_transform/row_cast_col_hadamard_transform_cast_fusion.cu; recipe NVFP4BlockScaling).
///   The norm is not fused with it (normalization.cpp runs the NVFP4 quantizer unfused when the
///   Hadamard amax is on).
/// - optimizerBytesPerParam [optimizer_bytes_per_param] 28: Adam reads/writes fp32 master weights, m
///   and v (24 B), reads the gradient (2 B) and writes the 16-bit weights (2 B) (Rajbhandari et al.,
///   ZeRO, 2020 Sec. 3).
/// - overlapInterferenceFraction [overlap_interference_fraction] 0.15: share of communication hidden
///   behind compute that still lengthens the step, because NCCL kernels take SMs (one per channel)
///   and HBM bandwidth from the GEMMs they overlap (Megatron-LM and TorchTitan overlap studies).
/// - sustainedClockFraction [sustained_clock_fraction] 0 = the catalog's (GpuModel::
///   sustainedClockFraction): the tensor-core clock a training step holds at the board's power
///   limit relative to the boost clock the peak and the GEMM fractions are measured at (H100 SXM:
///   ~1.5-1.6 GHz under sustained load against 1.98 GHz boost, NVIDIA H100 datasheet; nvidia-smi
///   clocks.sm during training). Applies to tensor-core work in training steps, not to isolated
///   GEMM benchmarks.
/// - kernelLaunchSeconds [kernel_launch_seconds] 2e-6: GPU idle gap between dependent kernels
///   (launch latency on the stream; CUDA C++ Best Practices Guide).
/// - hostSecondsPerKernel [host_seconds_per_kernel] 17e-6: CPU time PyTorch and Transformer Engine
///   spend per launched kernel (Python, dispatcher, autograd, module hooks). When a layer's kernels
///   are shorter than this the GPU waits for the host (small models, high TP): a layer takes at
///   least its kernel count times this. PyTorch eager dispatch costs 10-20 us per op; the H200 sweep
///   in resources/validation times a 1024^3 GEMM call at 17 us against ~3 us of GPU work.
/// - groupedGemmStreams [grouped_gemm_streams] 4: Transformer Engine runs a grouped GEMM (the
///   routed experts of an MoE layer, GroupedLinear) as one cuBLAS GEMM per local expert, issued
///   round-robin on 4 compute streams (transformer_engine/common/gemm/cublaslt_gemm.cu
///   multi_stream_cublas_gemm; common/util/multi_stream.cpp num_compute_streams = 4); its fp8
///   split quantization likewise launches one cast per expert (common/cast/cast.cu). At most this
///   many experts' GEMMs share the SMs at a time, each paying its own tile/wave quantization and
///   fixed latency.
/// - libraryHostSecondsPerLaunch [library_host_seconds_per_launch] 8e-6: host time of each such
///   launch from the C++ loop: Transformer Engine creates the matmul and layout descriptors and
///   queries cublasLtMatmulAlgoGetHeuristic on every GEMM (cublaslt_gemm.cu), then launches
///   (a bare launch is ~2-5 us, CUDA C++ Best Practices Guide). Chosen within that range on all
///   validation tables together (resources/validation/README.md); only MoE models depend on it.
/// - moeSyncSeconds [moe_sync_seconds] 30e-6: one device-to-host synchronisation of a dropless MoE
///   layer's token counts (Megatron-Core token_dispatcher.py: the counts are copied on a side stream,
///   the host then blocks on its event): the small copy (~10 us for a pageable device-to-host
///   cudaMemcpyAsync), the blocking event wait and the host thread's wake-up, and the Python around
///   it (CUDA C++ Best Practices Guide, "Asynchronous and overlapping transfers"; PyTorch
///   `.cpu()` of a small tensor takes 15-30 us). The host work after the sync runs with the GPU
///   idle (trainingevaluator.cpp).
/// - moeExpertHostSecondsForward [moe_expert_host_seconds_forward] 35e-6 and
///   moeExpertHostSecondsBackward [moe_expert_host_seconds_backward] 60e-6: host time per local
///   expert and grouped-GEMM pass of an un-graphed MoE layer (forward: fprop; backward: dgrad and
///   wgrad, two passes), beyond the per-launch costs: TE's Python loops (torch.split, torch.empty per
///   GEMM, quantizer set-up; TransformerEngine issue #1499), the wgrad allocations and
///   clear_tensor_data of the backward (TransformerEngine issue #2897 measures ~19 / 33 us per
///   expert for the fused grouped MLP on GB200). Fitted on the MoE validation tables together
///   (resources/validation/README.md); public anchors give ~0.6x of the fit.
/// - groupedLinearCallHostSeconds [grouped_linear_call_host_seconds] 275e-6: host time per
///   GroupedLinear call and direction independent of the expert count (module and fp8-state
///   set-up, workspace allocations; TransformerEngine issue #2897's 64-expert breakdown: wgrad
///   allocations 350 us, clear_tensor_data 200 us, weight-quantizer init 90 us). Fitted as above.
/// - moeA2aOverlapHostSeconds [moe_a2a_overlap_host_seconds] 2.1e-3: host time per MoE layer and
///   micro-batch of Megatron-Core's combined-1F1B expert-parallel overlap schedule
///   (overlap_moe_expert_parallel_comm, models/common/model_chunk_schedule_plan.py) when routing is
///   dropless: NVIDIA-NeMo/Megatron-Bridge pull request 1760 measured 20.1 s -> 16.9 s per step when
///   disabling it on Qwen3-235B-A22B / 64 B200 "due to CPU overhead" (3.2 s over 128 micro-batches x
///   ~11.75 MoE layers).
/// - graphLaunchHostSeconds [graph_launch_host_seconds] 25e-6: host time to replay one captured
///   CUDA graph (cudaGraphLaunch plus Transformer Engine's graph wrapper), which replaces the
///   per-kernel host time of the ops in a graphed scope (CUDA C++ Programming Guide, "CUDA Graphs";
///   Megatron-Core cuda_graphs.py).
/// - hostJitterFraction [host_jitter_fraction] 0: coefficient of variation of the host time of a
///   synchronising MoE layer across the expert-parallel ranks; every dropless layer waits for the
///   slowest of `ep` hosts at its token-count exchange, adding E[max of ep standard normals] x this
///   x the layer's host time (DeepEP issue 28: "dispatch is a natural barrier"). 0 = not modelled.
struct ComputeEfficiencyParams {
    double gemmPeakFraction = 0.0;
    double gemmHalfDimension = 40.0;
    double gemmFixedSeconds = 3e-6;
    double memoryBandwidthFraction = 0.80;
    double scoreBytesPerElement = 7.0;
    bool flashAttention = true;
    double flashPeakFraction = 0.0;
    double attentionBackwardFlopsFactor = 2.5;
    double attentionBackwardEfficiency = 0.80;
    double backwardElementwiseFactor = 2.0;
    double fp8CastBytesPerElement = 3.0;
    double mxfp8CastBytesPerElement = 4.0625;
    double nvfp4CastBytesPerElement = 5.125;
    double optimizerBytesPerParam = 28.0;
    double overlapInterferenceFraction = 0.15;
    double sustainedClockFraction = 0.0;
    double kernelLaunchSeconds = 2e-6;
    double hostSecondsPerKernel = 17e-6;
    double groupedGemmStreams = 4.0;
    double libraryHostSecondsPerLaunch = 8e-6;
    double moeSyncSeconds = 30e-6;
    double moeExpertHostSecondsForward = 35e-6;
    double moeExpertHostSecondsBackward = 60e-6;
    double groupedLinearCallHostSeconds = 275e-6;
    double moeA2aOverlapHostSeconds = 2.1e-3;
    double graphLaunchHostSeconds = 25e-6;
    double hostJitterFraction = 0.0;
};

/// The catalog's sustained fraction of the dense peak for large GEMMs of `dtype` on `gpu`
/// (achievable gemm_bf16, gemm_fp8, gemm_mxfp8 or gemm_nvfp4; the last two fall back to gemm_fp8).
double catalogGemmFraction(const GpuModel& gpu, DType dtype);

/// Per-GPU kernel timing for one scenario's GPU and dtype.
class ComputeEfficiency {
public:
    ComputeEfficiency() = default;
    /// `peakFlopsPerSecond`: dense tensor-core peak for the training dtype (FLOP/s);
    /// `hbmBytesPerSecond`: HBM bandwidth (B/s); `elementBytes`: bytes per GEMM operand element.
    /// `gemmFraction`: sustained fraction of that peak for large GEMMs; `bf16Peak` / `bf16Fraction`:
    /// the same for 16-bit GEMMs (output layer and attention stay 16-bit under fp8);
    /// `attentionFraction`: flash attention forward at head_dim 128 of the bf16 peak; `sms`: SMs;
    /// `clockFraction`: the clock held relative to the one the peaks are quoted at.
    ComputeEfficiency(const ComputeEfficiencyParams& params, double peakFlopsPerSecond, double hbmBytesPerSecond,
        double elementBytes, double gemmFraction = 0.72, double bf16Peak = 0.0, double bf16Fraction = 0.0,
        double attentionFraction = 0.55, int sms = 132, double clockFraction = 1.0);

    /// The model of `gpu` training in `dtype` (peak and achievable fraction of that dtype's tensor
    /// cores, element bytes of the dtype); fails when the GPU has no tensor cores for the dtype.
    /// `sustained`: at the clock a training step holds (true), or at the boost clock of short
    /// benchmarks (false: isolated GEMM sweeps).
    static Result<ComputeEfficiency> forGpu(
        const ComputeEfficiencyParams& params, const GpuModel& gpu, DType dtype, bool sustained = true);

    const ComputeEfficiencyParams& params() const { return m_params; }
    /// The datasheet dense peak of the training dtype (FLOP/s; MFU is measured against it).
    double peakFlopsPerSecond() const { return m_quotedPeak; }
    double hbmBytesPerSecond() const { return m_hbm; }
    bool lowPrecision() const { return m_elementBytes < 2.0; }
    /// HBM bytes per element of quantizing a 16-bit GEMM input for a low-precision GEMM:
    /// fp8CastBytesPerElement for per-tensor fp8, mxfp8CastBytesPerElement for MXFP8,
    /// nvfp4CastBytesPerElement for NVFP4.
    double castBytesPerElement() const;

    /// Fraction of peak a GEMM of shape (m x k) * (k x n) reaches on tensor cores (training dtype,
    /// or 16-bit when `sixteenBit`); `batch` GEMMs launched together share the waves.
    double gemmEfficiency(double m, double n, double k, bool sixteenBit = false, double batch = 1.0) const;
    /// Seconds of a batched (or grouped) launch of `count` GEMMs (m x k) * (k x n): max of
    /// tensor-core time and HBM traffic (roofline) plus the fixed per-launch latency.
    /// `outputBytes`: HBM bytes per output element (2: a 16-bit result written once; 8: an fp32
    /// gradient accumulated in place, read and written).
    double gemmSeconds(
        double m, double n, double k, double count = 1.0, bool sixteenBit = false, double outputBytes = 2.0) const;
    /// Seconds to move `bytes` through HBM in element-wise kernels.
    double memoryBoundSeconds(double bytes) const { return bytes / m_effectiveHbm; }
    /// Seconds of fused (flash) attention forward doing `flops` (already causal-halved) at `headDim`
    /// over sequences of `seqLen` keys.
    double flashAttentionSeconds(double flops, double headDim = 128.0, double seqLen = 1e9) const;

private:
    ComputeEfficiencyParams m_params;
    double m_peak = 1.0; ///< at the sustained clock
    double m_quotedPeak = 1.0; ///< datasheet
    double m_hbm = 1.0;
    double m_effectiveHbm = 1.0;
    double m_elementBytes = 2.0;
    DType m_dtype {}; ///< the training dtype (BF16 when value-initialised)
    double m_gemmFraction = 0.72;
    double m_bf16Peak = 1.0;
    double m_bf16Fraction = 0.72;
    double m_attentionFraction = 0.55;
    double m_sms = 132.0;
};

} // namespace clusterscope::engine
