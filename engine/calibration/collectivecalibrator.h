#pragma once

#include "engine/calibration/sweepcalibration.h"
#include "engine/core/status.h"

namespace clusterscope::engine {

/// Model-versus-measurement rows for `sweep` on `model` (before = after = the model as given).
std::vector<ResidualRow> compareSweep(const CollectiveModel& model, const MeasuredSweep& sweep);

/// Fits the collective model's calibration to a measured sweep.
///
/// Method. NCCL costs each (algorithm, protocol) as t = latency + bytes / bandwidth
/// (src/graph/tuning.cc, notes/collectives.md); CollectiveModel::terms() gives the two
/// uncalibrated terms L_i and W_i of the (algorithm, protocol) the model picks at size S_i, and
/// collectivecalibration.h defines the calibrated time as latencyScale L + latencyOffset +
/// W / bandwidthScale. The points are grouped by the (algorithm, tier) the model picks, and each
/// group is fitted by weighted linear least squares of t_i on (L_i, 1, W_i) with weights 1/t_i^2,
/// i.e. minimising the RELATIVE residuals so that small sizes (latency-bound) and large ones
/// (bandwidth-bound) both count. When L_i does not vary within a group (one protocol) the latency
/// scale is not identifiable and stays 1: the fit is then t - L = offset + W / bandwidthScale,
/// which is the t = a + S/b law of that regime. Solutions with a negative latency scale, a
/// non-positive bandwidth or a negative total latency fall back to the 2- and then 1-parameter
/// fits. Because the calibrated model may then pick other algorithms at some sizes (it compares
/// calibrated times the way NCCL's tuner does), the fit is repeated on the new choices (at most 4
/// rounds) and the calibration with the lowest overall RMS is kept; if none beats the model as
/// given, its calibration is returned unchanged.
Result<SweepCalibration> calibrateSweep(const CollectiveModel& model, const MeasuredSweep& sweep);

} // namespace clusterscope::engine
