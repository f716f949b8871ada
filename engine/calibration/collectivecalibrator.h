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
/// tier together). Then, for an algorithm whose sizes ran more than one protocol, each protocol's
/// sizes get a refinement of one value (a bandwidth scale, with the algorithm's latency terms; a
/// latency offset where bandwidth is not identifiable), held in CollectiveCalibration's protocol
/// corrections: the calibrated model keeps NCCL's (uncalibrated) choice of algorithm and protocol,
/// NCCL does not know the calibration, so the protocol switches stay where NCCL's tuner puts them
/// and one correction per algorithm would have to bend LL, LL128 and Simple sizes onto one line.
/// One value and not three: three per protocol fitted the 18 public logs closer but predicted their
/// held-out sizes worse (summed 4-fold held-out RMS 145.0 against 120.2 points). If the fit does
/// not beat the model as given, its calibration is returned unchanged. `corrections` lists the
/// per-group fits (protocol -1 for an algorithm's own); `calibration` also holds the pooled entries.
Result<SweepCalibration> calibrateSweep(const CollectiveModel& model, const MeasuredSweep& sweep);

/// Restates the "before" side of a calibrated sweep against `reference` (the uncalibrated model) when
/// the sweep was calibrated starting from another calibration (the runs before it in one import):
/// rows' before times, algorithms and protocols, rmsBefore, rmsBeforeKept and heldOutRmsBefore (every
/// size that is not an outlier is held out once in the 4 folds, so that is rmsBeforeKept). The fit and
/// the cross-validation's verdict are unchanged.
void restateBefore(const CollectiveModel& reference, SweepCalibration& calibrated);

} // namespace clusterscope::engine
