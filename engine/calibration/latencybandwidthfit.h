#pragma once

// Least-squares fit of the latency/bandwidth ("alpha-beta", Hockney) law t = a + S / b to measured
// (message size, time) points. The fit is what the nccl-tests calibration is built from; see
// fitLatencyBandwidth() for the method.

#include "engine/core/status.h"

#include <span>

namespace clusterscope::engine {

/// One measurement: a message of `bytes` took `seconds`.
struct SweepPoint {
    double bytes = 0; ///< message size S (bytes)
    double seconds = 0; ///< measured time (s), > 0
};

/// t = latencySeconds + bytes / bytesPerSecond.
struct LatencyBandwidth {
    double latencySeconds = 0; ///< a (s), >= 0
    double bytesPerSecond = 0; ///< b (B/s); 0 = not identifiable (times did not grow with size)
    double timeAt(double bytes) const { return latencySeconds + (bytesPerSecond > 0 ? bytes / bytesPerSecond : 0.0); }
};

/// Fits t = a + S x c (c = 1/b) by weighted linear least squares, minimising
///     sum_i ((a + S_i c - t_i) / t_i)^2,
/// i.e. the RELATIVE error of every point counts the same, so the 8-byte sizes (where t is almost
/// all latency) and the gigabyte sizes (almost all bandwidth) both shape the result; an unweighted
/// fit would let the largest sizes decide alone. Closed form from the 2x2 normal equations
/// (weights w_i = 1/t_i^2), sizes scaled by the largest for conditioning. Constraints: a < 0 is
/// refitted with a = 0 (c alone); c <= 0 (flat curve) is refitted with c = 0 (a = weighted mean).
/// Fails with fewer than two distinct sizes or a non-positive size/time.
Result<LatencyBandwidth> fitLatencyBandwidth(std::span<const SweepPoint> points);

/// Weighted fit of the bandwidth term alone with a fixed latency (used when a regime has a single
/// size): c = sum w S (t - a) / sum w S^2, clamped at 0.
LatencyBandwidth fitBandwidthWithLatency(std::span<const SweepPoint> points, double latencySeconds);

/// Root mean square of the relative residuals (model - measured) / measured (0.05 = 5%).
double relativeRms(std::span<const SweepPoint> points, const LatencyBandwidth& law);

} // namespace clusterscope::engine
