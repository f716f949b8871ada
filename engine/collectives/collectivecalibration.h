#pragma once

// Corrections of the collective model fitted to a cluster's own measurements (nccl-tests sweeps).
// NCCL lets a tuner plugin override the cost of every algorithm and protocol of its model
// (plugins/tuner, getCollInfo's cost table); these are the same knobs, one set per algorithm and per
// tier, optionally refined per protocol.

#include <cmath>

namespace clusterscope::engine {

/// One correction of the two terms of the model for one (algorithm, tier). With L and W the
/// uncalibrated latency and bandwidth terms of CollectiveModel::terms() (seconds), the calibrated
/// time is
///
///     t = latencyScale * L + latencyOffsetSeconds + W / bandwidthScale
///
/// This is linear in (latencyScale, latencyOffsetSeconds, 1 / bandwidthScale), so an ordinary
/// least-squares fit of measured times t_i over a message-size sweep (regressors L_i, 1, W_i) gives
/// the three values directly. bandwidthScale multiplies the effective bandwidth: 0.9 means the
/// cluster reaches 90% of what the model expects. The identity (1, 0, 1) leaves the model unchanged.
struct CollectiveTermCorrection {
    double latencyScale = 1.0; ///< multiplies NCCL's latency term (dimensionless, >= 0)
    double latencyOffsetSeconds = 0.0; ///< added to the latency term (seconds, may be negative)
    double bandwidthScale = 1.0; ///< multiplies the effective bandwidth (dimensionless, > 0)
    bool operator==(const CollectiveTermCorrection& o) const
    {
        return latencyScale == o.latencyScale && latencyOffsetSeconds == o.latencyOffsetSeconds
            && bandwidthScale == o.bandwidthScale;
    }
};

/// Corrections per algorithm (indexed by int(CollectiveAlgorithm); the Auto slot is unused) and per
/// tier: [0] groups inside one node / scale-up domain, [1] groups spanning nodes.
struct CollectiveCalibration {
    static constexpr int kAlgorithms = 12; ///< entries of CollectiveAlgorithm
    static constexpr int kTiers = 2; ///< 0 intra-node, 1 inter-node
    CollectiveTermCorrection corrections[kAlgorithms][kTiers] = {};

    /// A smooth size-dependent correction on top of the per-algorithm ones, per tier, for what they
    /// leave: ln(t_corrected / t) is interpolated linearly in log2(bytes) between knots 8x apart from
    /// 1 KiB (latency-bound) through 8 KiB .. 32 MiB (the transition) to 2 GiB (bandwidth-bound), and
    /// held constant beyond the end knots. All zero: no correction.
    static constexpr int kSizeKnots = 8;
    static constexpr double kSizeKnotLog2Bytes[kSizeKnots] = { 10, 13, 16, 19, 22, 25, 28, 31 };
    double logTimeAtKnot[kTiers][kSizeKnots] = {};

    CollectiveTermCorrection& at(int algorithm, int tier) { return corrections[algorithm][tier]; }
    const CollectiveTermCorrection& at(int algorithm, int tier) const { return corrections[algorithm][tier]; }

    /// Corrections for one protocol of an algorithm (indexed by int(CollectiveProtocol): LL, LL128,
    /// Simple), which replace the algorithm's own for that protocol where `protocolFitted` is set.
    /// NCCL chooses the (algorithm, protocol) by its own tuner, which knows no calibration, so a
    /// calibration cannot move NCCL's protocol switches: the algorithm's sizes of each protocol need
    /// their own latency and bandwidth (as NCCL's tuner plugins cost each pair apart,
    /// src/include/plugin/tuner/tuner_v4.h getCollInfo collCostTable[algorithm][protocol], NCCL 2.26).
    static constexpr int kProtocols = 3;
    CollectiveTermCorrection protocolCorrections[kAlgorithms][kProtocols][kTiers] = {};
    bool protocolFitted[kAlgorithms][kProtocols][kTiers] = {};
    /// The correction the model applies to (algorithm, protocol, tier).
    const CollectiveTermCorrection& forProtocol(int algorithm, int protocol, int tier) const
    {
        return protocolFitted[algorithm][protocol][tier] ? protocolCorrections[algorithm][protocol][tier]
                                                         : corrections[algorithm][tier];
    }
    void setProtocol(int algorithm, int protocol, int tier, const CollectiveTermCorrection& c)
    {
        protocolCorrections[algorithm][protocol][tier] = c;
        protocolFitted[algorithm][protocol][tier] = true;
    }
    /// Weight of knot k at log2(bytes) (the linear interpolation basis; the weights sum to 1).
    static double knotWeight(int k, double log2Bytes)
    {
        const double* x = kSizeKnotLog2Bytes;
        if (log2Bytes <= x[0])
            return k == 0 ? 1.0 : 0.0;
        if (log2Bytes >= x[kSizeKnots - 1])
            return k == kSizeKnots - 1 ? 1.0 : 0.0;
        for (int i = 0; i + 1 < kSizeKnots; ++i) {
            if (log2Bytes <= x[i + 1]) {
                const double f = (log2Bytes - x[i]) / (x[i + 1] - x[i]);
                return k == i ? 1.0 - f : k == i + 1 ? f : 0.0;
            }
        }
        return 0.0;
    }
    bool hasSizeCorrection(int tier) const
    {
        for (double v : logTimeAtKnot[tier])
            if (v != 0.0)
                return true;
        return false;
    }
    /// The factor the size correction multiplies a time of `bytes` by (1 without one).
    double sizeFactor(int tier, double bytes) const
    {
        if (!hasSizeCorrection(tier) || !(bytes > 0))
            return 1.0;
        const double l = std::log2(bytes);
        double sum = 0;
        for (int k = 0; k < kSizeKnots; ++k)
            sum += knotWeight(k, l) * logTimeAtKnot[tier][k];
        return std::exp(sum);
    }
    /// True when every correction is the identity.
    bool isIdentity() const
    {
        const CollectiveTermCorrection identity;
        for (const auto& row : corrections)
            for (const auto& c : row)
                if (!(c == identity))
                    return false;
        for (int a = 0; a < kAlgorithms; ++a)
            for (int p = 0; p < kProtocols; ++p)
                for (int t = 0; t < kTiers; ++t)
                    if (protocolFitted[a][p][t] && !(protocolCorrections[a][p][t] == identity))
                        return false;
        for (int t = 0; t < kTiers; ++t)
            if (hasSizeCorrection(t))
                return false;
        return true;
    }
};

} // namespace clusterscope::engine
