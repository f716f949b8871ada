#pragma once

// A measured message-size sweep of one collective (from nccl-tests) and the calibration of the
// collective model fitted to it, with the residuals per size before and after.

#include "engine/calibration/latencybandwidthfit.h"
#include "engine/collectives/collectivecalibration.h"
#include "engine/collectives/collectivemodel.h"

#include <string>
#include <utility>
#include <vector>

namespace clusterscope::engine {

/// What was measured, in neutral terms (importers fill it; the engine never reads log files).
struct MeasuredSweep {
    CollectiveOp op = CollectiveOp::AllReduce;
    int ranks = 0; ///< ranks in the group
    int nodes = 0; ///< distinct hosts the ranks ran on
    /// GPUs one thread of the test drove (nccl-tests header `nGpus`, option -g); 1 when not stated.
    int gpusPerThread = 1;
    std::string gpuName; ///< device name as the log prints it ("NVIDIA H100 80GB HBM3")
    /// The algorithm the run was pinned to (NCCL_ALGO), Auto when NCCL chose.
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
    std::vector<std::string> sources; ///< files the points come from
    /// "half prod" when the sweep is one data type / reduction of a table that ran several (nccl-tests
    /// -d all / -o all), empty otherwise: it tells the sweeps of one table apart in reports.
    std::string variant;
    std::vector<SweepPoint> points; ///< measured times (s) per size (bytes), sorted by size
    /// Sizes (bytes) the measurement itself calls noisy, with why (e.g. nccl-tests -I: the spread of
    /// the size's own iterations): the calibration leaves them out of its fit with that reason.
    std::vector<std::pair<double, std::string>> noisySizes;
};

/// The correction fitted for one (algorithm, tier) and the sizes it was fitted on.
struct AlgorithmCorrection {
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
    int tier = 0; ///< CollectiveCalibration tier: 0 intra-node, 1 inter-node
    /// int(CollectiveProtocol) when the correction is for that protocol of the algorithm only
    /// (CollectiveCalibration::protocolCorrections); -1: for all its protocols.
    int protocol = -1;
    CollectiveTermCorrection correction; ///< what CollectiveCalibration now holds for it
    int points = 0;
    double minBytes = 0, maxBytes = 0;
    LatencyBandwidth measuredLaw; ///< t = a + S/b fitted to these measurements (for the report)
    int parameters = 0; ///< fitted values: 3 (latency scale, offset, bandwidth), 2 or 1
};

/// Model versus measurement at one size, before and after calibration.
struct ResidualRow {
    double bytes = 0;
    double measuredSeconds = 0;
    double beforeSeconds = 0; ///< model as given
    double afterSeconds = 0; ///< model with the fitted calibration
    CollectiveAlgorithm algorithmBefore = CollectiveAlgorithm::Ring, algorithmAfter = CollectiveAlgorithm::Ring;
    CollectiveProtocol protocolBefore = CollectiveProtocol::Simple, protocolAfter = CollectiveProtocol::Simple;
    /// Left out of the fit as an outlier (its residual against the robust fit of the others is far
    /// beyond their spread); `outlierReason` says by how much.
    bool outlier = false;
    std::string outlierReason;
    double residualBefore() const { return (beforeSeconds - measuredSeconds) / measuredSeconds; } ///< relative
    double residualAfter() const { return (afterSeconds - measuredSeconds) / measuredSeconds; } ///< relative
};

struct SweepCalibration {
    MeasuredSweep sweep;
    CollectiveCalibration calibration; ///< hand to CollectiveModel::setCalibration()
    std::vector<AlgorithmCorrection> corrections; ///< the entries of `calibration` this sweep set
    std::vector<ResidualRow> rows; ///< one per measured point
    double rmsBefore = 0; ///< RMS of relative residuals, model as given
    double rmsAfter = 0; ///< RMS of relative residuals, calibrated model
    int outliers = 0; ///< rows flagged as outliers (left out of the fit; still in the RMS above)
    /// RMS of relative residuals over the sizes kept (outliers left out), model as given and calibrated:
    /// what the fit is judged on; equal to rmsBefore / rmsAfter when no size is an outlier.
    double rmsBeforeKept = 0;
    double rmsAfterKept = 0;
    /// Cross-validation inside the sweep: RMS of relative residuals on held-out sizes (each size
    /// predicted by a calibration fitted without its fold), uncalibrated and calibrated. When the
    /// calibrated figure is worse, the calibration is dropped (`calibration` = the model's own).
    double heldOutRmsBefore = 0;
    double heldOutRmsAfter = 0;
    bool rejectedByCrossValidation = false;
};

/// Several sweeps (one per nccl-tests run) calibrated in turn, each starting from the calibration
/// the previous ones produced; `calibration` is the final, combined result (a later sweep's fit of
/// the same algorithm and tier replaces an earlier one).
struct CalibrationSet {
    CollectiveCalibration calibration;
    std::vector<SweepCalibration> sweeps;
};

} // namespace clusterscope::engine
