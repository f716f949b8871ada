#include "engine/training/computeefficiency.h"

#include <algorithm>

namespace clusterscope::engine {

ComputeEfficiency::ComputeEfficiency(
    const ComputeEfficiencyParams& params, double peakFlopsPerSecond, double hbmBytesPerSecond, double elementBytes)
    : m_params(params)
    , m_peak(peakFlopsPerSecond)
    , m_hbm(hbmBytesPerSecond)
    , m_effectiveHbm(hbmBytesPerSecond * params.memoryBandwidthFraction)
    , m_elementBytes(elementBytes)
{
}

double ComputeEfficiency::gemmEfficiency(double m, double n, double k) const
{
    // Saturating efficiency per dimension: small dimensions leave tensor-core tiles and SM waves
    // partly idle (NVIDIA Deep Learning Performance Guide, "Matrix multiplication background").
    const double half = m_params.gemmHalfDimension;
    return m_params.gemmPeakFraction * (m / (m + half)) * (n / (n + half)) * (k / (k + half));
}

double ComputeEfficiency::gemmSeconds(double m, double n, double k, double count) const
{
    if (m <= 0 || n <= 0 || k <= 0)
        return 0.0;
    const double flops = 2.0 * m * n * k;
    const double tensorSeconds = flops / (m_peak * gemmEfficiency(m, n, k));
    // Roofline: the GEMM reads both operands and writes the result once.
    const double bytes = m_elementBytes * (m * k + k * n + m * n);
    return count * std::max(tensorSeconds, bytes / m_effectiveHbm);
}

} // namespace clusterscope::engine
