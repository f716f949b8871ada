#pragma once

// How fast one GPU runs the kernels of a transformer layer: a GEMM-shape-dependent efficiency
// model for tensor-core work plus a bandwidth model for memory-bound (element-wise) work.
// Every constant is a documented default that calibration may replace.

namespace clusterscope::engine {

/// Calibratable constants of the per-GPU compute model. Defaults and their sources:
/// - gemmPeakFraction 0.72: sustained fraction of peak of large 16-bit GEMMs inside a training step
///   (cuBLAS reaches ~75-85% in isolation on A100/H100: NVIDIA "Matrix multiplication background"
///   guide; clocks drop under sustained load). gemmPeakFraction, gemmHalfDimension and
///   scoreBytesPerElement were fitted once, jointly, on SC21 Table 1 as a whole (A100).
/// - gemmHalfDimension 40: a GEMM dimension of this size halves efficiency (tile quantisation and
///   wave effects; the factor is x / (x + half) per dimension M, N and K).
/// - memoryBandwidthFraction 0.80: element-wise kernels reach ~75-85% of HBM bandwidth (STREAM-like).
/// - elementwiseBytesPerTokenPerHidden 32: bytes each token moves per unit of hidden size in one
///   layer's forward element-wise kernels: two LayerNorms (read + write, 8), bias + GeLU on the 4h
///   FFN activation (fused, 14, scaled by the FFN width), two fused
///   bias-dropout-add (10) (Korthikanti et al. 2022 activation accounting; Megatron fused kernels).
/// - scoreBytesPerElement 7: without fused (flash) attention each attention score element is
///   written by Q K^T (2 B), read and written by Megatron's fused scale-mask-softmax (4 B) and gets
///   a 1-byte dropout mask; the V product reads it mostly from L2: ~7 bytes per element.
/// - flashAttention: attention computed by a fused kernel (Dao et al. 2022): no score traffic, the
///   core runs at flashPeakFraction of peak (FlashAttention-2 reports 50-73% on A100/H100).
/// - backwardElementwiseFactor 2: backward element-wise kernels move about twice the forward bytes.
/// - optimizerBytesPerParam 28: Adam reads/writes fp32 master weights, m and v (24 B), reads the
///   gradient (2 B) and writes the 16-bit weights (2 B) (Rajbhandari et al., ZeRO, 2020 Sec. 3).
/// - overlapInterferenceFraction 0.15: share of communication hidden behind compute that still
///   lengthens the step, because NCCL kernels take SMs (one per channel) and HBM bandwidth from the
///   GEMMs they overlap (Megatron-LM and TorchTitan overlap studies report 10-20% slow-downs).
/// - kernelLaunchSeconds 4e-6 x kernelsPerLayer 24: fixed launch cost of one layer's forward pass.
struct ComputeEfficiencyParams {
    double gemmPeakFraction = 0.72;
    double gemmHalfDimension = 40.0;
    double memoryBandwidthFraction = 0.80;
    double elementwiseBytesPerTokenPerHidden = 32.0;
    double scoreBytesPerElement = 7.0;
    bool flashAttention = true;
    double flashPeakFraction = 0.55;
    double backwardElementwiseFactor = 2.0;
    double optimizerBytesPerParam = 28.0;
    double overlapInterferenceFraction = 0.15;
    double kernelLaunchSeconds = 4e-6;
    double kernelsPerLayer = 24.0;
};

/// Per-GPU kernel timing for one scenario's GPU and dtype.
class ComputeEfficiency {
public:
    ComputeEfficiency() = default;
    /// `peakFlopsPerSecond`: dense tensor-core peak for the training dtype (FLOP/s);
    /// `hbmBytesPerSecond`: HBM bandwidth (B/s); `elementBytes`: bytes per activation element.
    ComputeEfficiency(const ComputeEfficiencyParams& params, double peakFlopsPerSecond, double hbmBytesPerSecond,
        double elementBytes);

    const ComputeEfficiencyParams& params() const { return m_params; }
    double peakFlopsPerSecond() const { return m_peak; }
    double hbmBytesPerSecond() const { return m_hbm; }

    /// Fraction of peak a GEMM of shape (m x k) * (k x n) reaches on tensor cores.
    double gemmEfficiency(double m, double n, double k) const;
    /// Seconds of `count` GEMMs (m x k) * (k x n): max of tensor-core time and HBM traffic (roofline).
    double gemmSeconds(double m, double n, double k, double count = 1.0) const;
    /// Seconds to move `bytes` through HBM in element-wise kernels.
    double memoryBoundSeconds(double bytes) const { return bytes / m_effectiveHbm; }
    /// Seconds of fused (flash) attention doing `flops`.
    double flashAttentionSeconds(double flops) const { return flops / (m_peak * m_params.flashPeakFraction); }

private:
    ComputeEfficiencyParams m_params;
    double m_peak = 1.0;
    double m_hbm = 1.0;
    double m_effectiveHbm = 1.0;
    double m_elementBytes = 2.0;
};

} // namespace clusterscope::engine
