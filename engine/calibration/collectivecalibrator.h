#pragma once

#include "engine/calibration/sweepcalibration.h"
#include "engine/core/status.h"

namespace clusterscope::engine {

/// Model-versus-measurement rows for `sweep` on `model` (before = after = the model as given).
std::vector<ResidualRow> compareSweep(const CollectiveModel& model, const MeasuredSweep& sweep);

/// Fits the collective model's calibration to a measured sweep.
///
/// Method. NCCL costs each (algorithm, protocol) as t = latency + bytes / bandwidth
/// (src/graph/tuning.cc) and runs it as a chunk pipeline (src/enqueue.cc); CollectiveModel::terms()
/// gives the two uncalibrated terms of the time it takes, L_i (achievedLatencySeconds) and W_i
/// (achievedBandwidthSeconds), of the (algorithm, protocol) the model picks at size S_i, and
/// collectivecalibration.h defines the calibrated time as latencyScale L + latencyOffset +
/// W / bandwidthScale. The points are grouped by the (algorithm, tier) the model picks, and each
/// group is fitted by weighted linear least squares of t_i on (L_i, 1, W_i) with weights 1/t_i^2,
/// i.e. minimising the RELATIVE residuals so that small sizes (latency-bound) and large ones
/// (bandwidth-bound) both count. When L_i does not vary within a group (one protocol) the latency
/// scale is not identifiable and stays 1: the fit is then t - L = offset + W / bandwidthScale,
/// which is the t = a + S/b law of that regime. A term is fitted only when it is at least 25% of
/// some modelled time in the group (otherwise it is not identifiable from these sizes and is taken
/// from the tier's pooled fit described below: latency-bound groups fit a latency offset only,
/// bandwidth-bound ones a bandwidth scale only). Solutions with a negative latency scale, a
/// non-positive bandwidth or a negative total latency fall back to the 2- and then 1-parameter
/// fits. Algorithms of a tier that no group exercised get the tier's pooled fit (all points of the
/// tier together), so the calibrated model does not switch to an algorithm merely because it alone
/// kept its optimistic uncalibrated figures. Because the calibrated model may still pick other
/// algorithms at some sizes (it compares calibrated times the way NCCL's tuner does), the fit is
/// repeated on the new choices (6 rounds) and the calibration with the lowest overall RMS is kept;
/// if none beats the model as given, its calibration is returned unchanged. `corrections` lists
/// the per-group fits; `calibration` also holds the pooled entries.
Result<SweepCalibration> calibrateSweep(const CollectiveModel& model, const MeasuredSweep& sweep);

} // namespace clusterscope::engine
