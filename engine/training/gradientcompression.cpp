#include "engine/training/gradientcompression.h"

#include "engine/scenario/scenario.h"

namespace clusterscope::engine {

namespace {
    constexpr double kIndexBytes = 4.0; // int32 index per kept top-k element
    constexpr double kScaleBytesPerElement = 4.0 / 2048.0; // one fp32 scale per 2,048-element chunk
} // namespace

double GradientCompression::volumeRatio(const CompressionSpec& spec, double valueBytes)
{
    switch (spec.method) {
    case CompressionMethod::None:
        return 1.0;
    case CompressionMethod::TopK:
        return spec.topkFraction * (valueBytes + kIndexBytes) / valueBytes;
    case CompressionMethod::Int8:
    case CompressionMethod::Fp8:
        return (1.0 + kScaleBytesPerElement) / valueBytes;
    case CompressionMethod::OneBit:
        return (1.0 / 8.0 + kScaleBytesPerElement) / valueBytes;
    }
    return 1.0;
}

double GradientCompression::runTrafficReduction(const CompressionSpec& spec, double valueBytes)
{
    const double w = spec.method == CompressionMethod::None ? 1.0 : spec.warmupFraction;
    return 1.0 - (w + (1.0 - w) * volumeRatio(spec, valueBytes));
}

CompressedSync GradientCompression::sync(
    const CompressionSpec& spec, double elements, double valueBytes, int ranks, double hbmBytesPerSecond)
{
    CompressedSync s;
    const double payload = elements * valueBytes * volumeRatio(spec, valueBytes);
    const double feedbackBytes = spec.errorFeedback ? 8.0 : 0.0;
    switch (spec.method) {
    case CompressionMethod::None:
        s.op = CollectiveOp::AllReduce;
        s.bytes = payload;
        return s;
    case CompressionMethod::TopK:
        s.op = CollectiveOp::AllGather;
        s.bytes = payload * ranks;
        // Selection passes per element, plus scattering the ranks x k gathered pairs into a dense sum.
        s.computeSeconds = (elements * (16.0 + feedbackBytes) + payload * ranks * 2.0) / hbmBytesPerSecond;
        return s;
    case CompressionMethod::Int8:
    case CompressionMethod::Fp8:
    case CompressionMethod::OneBit:
        s.op = CollectiveOp::AllReduce;
        s.bytes = payload;
        s.computeSeconds = elements * (10.0 + feedbackBytes) / hbmBytesPerSecond;
        return s;
    }
    return s;
}

} // namespace clusterscope::engine
