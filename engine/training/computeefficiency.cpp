#include "engine/training/computeefficiency.h"

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::engine {

ComputeEfficiency::ComputeEfficiency(const ComputeEfficiencyParams& params, double peakFlopsPerSecond,
    double hbmBytesPerSecond, double elementBytes, double gemmFraction, double bf16Peak, double bf16Fraction,
    double attentionFraction, int sms, double clockFraction)
    : m_params(params)
    , m_peak(peakFlopsPerSecond * clockFraction)
    , m_quotedPeak(peakFlopsPerSecond)
    , m_hbm(hbmBytesPerSecond)
    , m_effectiveHbm(hbmBytesPerSecond * params.memoryBandwidthFraction)
    , m_elementBytes(elementBytes)
    , m_gemmFraction(params.gemmPeakFraction > 0 ? params.gemmPeakFraction : gemmFraction)
    , m_bf16Peak((bf16Peak > 0 ? bf16Peak : peakFlopsPerSecond) * clockFraction)
    , m_bf16Fraction(bf16Fraction > 0 ? bf16Fraction : m_gemmFraction)
    , m_attentionFraction(params.flashPeakFraction > 0 ? params.flashPeakFraction : attentionFraction)
    , m_sms(std::max(1, sms))
{
    if (elementBytes >= 2.0) // 16-bit training: one fraction (a calibrated one wins)
        m_bf16Fraction = m_gemmFraction;
}

double catalogGemmFraction(const GpuModel& gpu, DType dtype)
{
    if (dtype == DType::MXFP8)
        return gpu.gemmMxfp8Fraction.value_or(gpu.gemmFp8Fraction);
    if (dtype == DType::NVFP4)
        return gpu.gemmNvfp4Fraction.value_or(gpu.gemmFp8Fraction);
    return isFp8(dtype) ? gpu.gemmFp8Fraction : gpu.gemmBf16Fraction;
}

Result<ComputeEfficiency> ComputeEfficiency::forGpu(
    const ComputeEfficiencyParams& params, const GpuModel& gpu, DType dtype, bool sustained)
{
    const double clock = !sustained         ? 1.0
        : params.sustainedClockFraction > 0 ? params.sustainedClockFraction
                                            : gpu.sustainedClockFraction;
    double peak = gpu.bf16FlopsPerSecond;
    double fraction = gpu.gemmBf16Fraction;
    if (isFp8(dtype)) {
        if (!gpu.fp8FlopsPerSecond)
            return Status::error("/training/dtype: GPU " + gpu.id + " has no FP8 tensor cores");
        if (dtype == DType::MXFP8 && !hasBlockScaledFp8(gpu))
            return Status::error("/training/dtype: " + mxfp8Unsupported(gpu));
        // MXFP8 GEMMs run on the same tensor cores at the fp8 rate: Blackwell's block-scaled MMA
        // (tcgen05.mma kind::mxf8f6f4, PTX ISA 8.7) applies the per-32-element scales inside the
        // instruction; NVIDIA's B200 / GB200 specifications quote one dense FP8 / FP6 rate for both.
        peak = *gpu.fp8FlopsPerSecond;
        fraction = catalogGemmFraction(gpu, dtype);
    } else if (dtype == DType::NVFP4) {
        // NVFP4 GEMMs run at the FP4 tensor-core rate (cuBLASLt block-scaled FP4 with 16-element
        // E4M3 scales, CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3; Transformer Engine common/gemm/
        // cublaslt_gemm.cu), all three GEMMs of every linear layer (fprop, dgrad, wgrad).
        if (!hasNvfp4(gpu))
            return Status::error("/training/dtype: " + nvfp4Unsupported(gpu));
        peak = *gpu.fp4FlopsPerSecond;
        fraction = catalogGemmFraction(gpu, dtype);
    }
    ComputeEfficiency model(params, peak, gpu.hbmBytesPerSecond, bytesPerElement(dtype), fraction,
        gpu.bf16FlopsPerSecond, gpu.gemmBf16Fraction, gpu.attentionFraction, gpu.sms, clock);
    model.m_dtype = dtype;
    return model;
}

double ComputeEfficiency::castBytesPerElement() const
{
    switch (m_dtype) {
    case DType::MXFP8:
        return m_params.mxfp8CastBytesPerElement;
    case DType::NVFP4:
        return m_params.nvfp4CastBytesPerElement;
    default:
        return m_params.fp8CastBytesPerElement;
    }
}

double ComputeEfficiency::gemmEfficiency(double m, double n, double k, bool sixteenBit, double batch) const
{
    // Tile and wave quantization: the output is cut into tiles, one tile per SM at a time; the
    // heuristic takes the tile shape with the best utilisation (smaller tiles run slower per FLOP).
    struct Tile {
        double m, n, rate;
    };
    static constexpr Tile kTiles[] = { { 128.0, 256.0, 1.0 }, { 128.0, 128.0, 0.92 }, { 64.0, 128.0, 0.80 } };
    double best = 0.0;
    const double members = std::max(1.0, std::ceil(batch));
    for (const Tile& t : kTiles) {
        const double tiles = std::ceil(m / t.m) * std::ceil(n / t.n) * members;
        const double waves = std::ceil(tiles / m_sms);
        const double utilisation = (members * m * n) / (tiles * t.m * t.n) * tiles / (waves * m_sms);
        best = std::max(best, utilisation * t.rate);
    }
    const double fraction = sixteenBit ? m_bf16Fraction : m_gemmFraction;
    return fraction * best * k / (k + m_params.gemmHalfDimension);
}

double ComputeEfficiency::gemmSeconds(
    double m, double n, double k, double count, bool sixteenBit, double outputBytes) const
{
    if (m <= 0 || n <= 0 || k <= 0 || count <= 0)
        return 0.0;
    const double flops = 2.0 * m * n * k;
    const double peak = sixteenBit ? m_bf16Peak : m_peak;
    // A batched (or grouped) GEMM launches once and spreads every member's tiles over the SMs.
    const double tensorSeconds = count * flops / (peak * gemmEfficiency(m, n, k, sixteenBit, count));
    // Roofline: the GEMM reads both operands and writes the result once.
    const double bytes = count * ((sixteenBit ? 2.0 : m_elementBytes) * (m * k + k * n) + outputBytes * m * n);
    return std::max(tensorSeconds, bytes / m_effectiveHbm) + m_params.gemmFixedSeconds;
}

double ComputeEfficiency::flashAttentionSeconds(double flops, double headDim, double seqLen) const
{
    if (flops <= 0)
        return 0.0;
    const double headFactor = (headDim / (headDim + 32.0)) / (128.0 / (128.0 + 32.0));
    const double seqFactor = seqLen / (seqLen + 512.0);
    return flops / (m_bf16Peak * m_attentionFraction * std::min(1.2, headFactor) * seqFactor);
}

} // namespace clusterscope::engine
