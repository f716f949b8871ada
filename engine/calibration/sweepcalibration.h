#pragma once

// A measured message-size sweep of one collective (from nccl-tests) and the calibration fitted to
// it: per model regime (algorithm x protocol the model picks at those sizes) the model's own
// latency/bandwidth law, the law fitted to the measurements, and the ratios between them.

#include "engine/calibration/latencybandwidthfit.h"

#include <string>
#include <vector>

namespace clusterscope::engine {

/// What was measured, in neutral terms (importers fill it; the engine never reads log files).
struct MeasuredSweep {
    std::string op;           ///< collective, CollectiveOp spelling: "allreduce", "allgather", ...
    int ranks = 0;            ///< ranks in the group
    int ranksPerNode = 0;     ///< ranks on one node
    int nodes = 0;            ///< distinct hosts
    std::string gpuName;      ///< device name as the log prints it ("NVIDIA H100 80GB HBM3")
    double busbwFactor = 1;   ///< nccl-tests busbw / algbw for op and ranks (notes/collectives.md)
    std::vector<std::string> sources; ///< files the points come from
    std::vector<SweepPoint> points;   ///< one per size (and per dtype when a log has several), sorted by bytes
};

/// One regime's correction. The calibrated time of a size in this regime is fitted.timeAt(bytes),
/// i.e. model latency x latencyScale + bytes / (model bandwidth x bandwidthScale).
struct RegimeCorrection {
    std::string algorithm;   ///< CollectiveAlgorithm spelling ("ring", "nvls", ...)
    std::string protocol;    ///< "LL", "LL128", "Simple"
    double minBytes = 0, maxBytes = 0; ///< measured sizes the regime covers
    int points = 0;
    LatencyBandwidth model;  ///< the model's law over those sizes (fitted to its own predictions)
    LatencyBandwidth fitted; ///< the law fitted to the measurements
    double latencyScale = 1;   ///< fitted / model latency (1 when the model latency is 0)
    double bandwidthScale = 1; ///< fitted / model bandwidth (1 when either is not identifiable)
    /// False when the fitted law does not beat the model on these sizes (the model's own curve is
    /// not of the a + S/b form there, e.g. NCCL's Tree correction table): the model is kept as is.
    bool applied = true;
};

/// Model versus measurement at one size, before and after calibration.
struct ResidualRow {
    double bytes = 0;
    double measuredSeconds = 0;
    double beforeSeconds = 0;  ///< uncalibrated model
    double afterSeconds = 0;   ///< calibrated
    std::string algorithm, protocol; ///< the model's choice at this size (uncalibrated)
    double residualBefore() const { return (beforeSeconds - measuredSeconds) / measuredSeconds; } ///< relative
    double residualAfter() const { return (afterSeconds - measuredSeconds) / measuredSeconds; }   ///< relative
};

struct SweepCalibration {
    MeasuredSweep sweep;
    std::vector<RegimeCorrection> regimes;
    std::vector<ResidualRow> rows; ///< one per measured point
    double rmsBefore = 0;          ///< RMS of relative residuals, uncalibrated model
    double rmsAfter = 0;           ///< RMS of relative residuals, calibrated

    /// The calibrated time (s) for `bytes` when the model picks (algorithm, protocol) and predicts
    /// `modelSeconds`: the regime's fitted law, or modelSeconds for a regime the sweep did not cover
    /// (or whose fit was not applied).
    double calibratedSeconds(const std::string& algorithm, const std::string& protocol, double bytes, double modelSeconds) const;
    const RegimeCorrection* findRegime(const std::string& algorithm, const std::string& protocol) const;
};

} // namespace clusterscope::engine
