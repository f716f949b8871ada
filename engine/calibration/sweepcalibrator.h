#pragma once

#include "engine/calibration/sweepcalibration.h"
#include "engine/core/status.h"

#include <functional>
#include <string>

namespace clusterscope::engine {

/// The model's answer at one size, as the calibrator needs it.
struct ModelPoint {
    double seconds = 0;
    std::string algorithm; ///< chosen algorithm ("ring", ...)
    std::string protocol;  ///< chosen protocol ("Simple", ...)
};

/// The uncalibrated model for the sweep's collective and group, as a function of message size (bytes).
using ModelCurve = std::function<ModelPoint(double bytes)>;

/// Fits a calibration to a measured sweep.
///
/// Method: the measured points are grouped by the regime (algorithm, protocol) the uncalibrated
/// model picks at their size; NCCL's own cost model is t = latency + S / bandwidth per regime
/// (notes/collectives.md, src/graph/tuning.cc), so each group gets its own fit of t = a + S/b
/// (fitLatencyBandwidth: weighted least squares on relative error, so small and large sizes both
/// count). A group with a single size keeps the model's latency and fits the bandwidth only. The
/// model's law for the same group is obtained the same way from its own predictions at those
/// sizes, and the ratios fitted/model are the corrections. Residuals are reported per size before
/// (model) and after (regime's fitted law).
Result<SweepCalibration> calibrateSweep(const MeasuredSweep& sweep, const ModelCurve& model);

} // namespace clusterscope::engine
