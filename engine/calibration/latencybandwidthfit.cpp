#include "engine/calibration/latencybandwidthfit.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace clusterscope::engine {

Result<LatencyBandwidth> fitLatencyBandwidth(std::span<const SweepPoint> points)
{
    std::set<double> sizes;
    double scale = 0;
    for (const auto& p : points) {
        if (!(p.bytes > 0) || !(p.seconds > 0) || !std::isfinite(p.bytes) || !std::isfinite(p.seconds))
            return Status::error("latency/bandwidth fit: sizes and times must be positive and finite");
        sizes.insert(p.bytes);
        scale = std::max(scale, p.bytes);
    }
    if (sizes.size() < 2)
        return Status::error(
            "latency/bandwidth fit: needs at least two different message sizes, got " + std::to_string(sizes.size()));

    // Normal equations of min sum w (a + x c' - t)^2 with x = S / scale, w = 1/t^2.
    double sw = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
    for (const auto& p : points) {
        const double w = 1.0 / (p.seconds * p.seconds);
        const double x = p.bytes / scale;
        sw += w;
        sx += w * x;
        sxx += w * x * x;
        sy += w * p.seconds;
        sxy += w * x * p.seconds;
    }
    const double det = sw * sxx - sx * sx;
    double a = det != 0 ? (sy * sxx - sx * sxy) / det : 0.0;
    double c = det != 0 ? (sw * sxy - sx * sy) / det : 0.0;
    if (a < 0) {
        a = 0;
        c = sxy / sxx;
    }
    if (c <= 0) {
        c = 0;
        a = sy / sw;
    }
    LatencyBandwidth law;
    law.latencySeconds = a;
    law.bytesPerSecond = c > 0 ? scale / c : 0.0;
    return law;
}

LatencyBandwidth fitBandwidthWithLatency(std::span<const SweepPoint> points, double latencySeconds)
{
    double num = 0, den = 0;
    for (const auto& p : points) {
        if (!(p.seconds > 0))
            continue;
        const double w = 1.0 / (p.seconds * p.seconds);
        num += w * p.bytes * (p.seconds - latencySeconds);
        den += w * p.bytes * p.bytes;
    }
    LatencyBandwidth law;
    law.latencySeconds = latencySeconds;
    const double c = den > 0 ? num / den : 0.0;
    law.bytesPerSecond = c > 0 ? 1.0 / c : 0.0;
    return law;
}

double relativeRms(std::span<const SweepPoint> points, const LatencyBandwidth& law)
{
    if (points.empty())
        return 0;
    double sum = 0;
    for (const auto& p : points) {
        const double r = (law.timeAt(p.bytes) - p.seconds) / p.seconds;
        sum += r * r;
    }
    return std::sqrt(sum / static_cast<double>(points.size()));
}

} // namespace clusterscope::engine
