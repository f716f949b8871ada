#pragma once

// Corrections of the collective model fitted to a cluster's own measurements (nccl-tests sweeps).
// NCCL lets a tuner plugin override every latency and bandwidth constant of its model
// (notes/collectives.md); these are the same knobs, one set per algorithm and per tier.

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

    CollectiveTermCorrection& at(int algorithm, int tier) { return corrections[algorithm][tier]; }
    const CollectiveTermCorrection& at(int algorithm, int tier) const { return corrections[algorithm][tier]; }
    /// True when every correction is the identity.
    bool isIdentity() const
    {
        const CollectiveTermCorrection identity;
        for (const auto& row : corrections)
            for (const auto& c : row)
                if (!(c == identity))
                    return false;
        return true;
    }
};

} // namespace clusterscope::engine
