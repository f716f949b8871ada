#pragma once

// Fits the compute model to the user's own measurements: a GEMM sweep (m, n, k, seconds) and/or
// measured training steps (step time of a scenario as it ran). The fit is a set of
// calibration.compute keys; every estimate made with them says it is calibrated.

#include "engine/core/status.h"
#include "engine/scenario/scenario.h"
#include "engine/training/computeefficiency.h"

#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::engine {

class Catalog;
struct GpuModel;
struct IterationBreakdown;

/// One timed GEMM (m x k) * (k x n).
struct GemmMeasurement {
    double m = 0, n = 0, k = 0;
    double seconds = 0;
};

/// What a measured step's seconds are.
enum class MeasuredQuantity {
    StepTime, ///< the whole iteration (TrainingEstimate::iterationSeconds)
    ComputeTime, ///< the compute kernels of one GPU per iteration (modelledComputeSeconds)
};

const char* toString(MeasuredQuantity quantity); ///< "step time", "compute time"

/// One measured training step: the scenario (with its parallelism) and the measured seconds per
/// iteration (tokens/s converts as global_batch x seq_len / tokens_per_second), or the compute
/// time of one GPU per iteration when a profiler measured it.
struct MeasuredStep {
    std::string label;
    Scenario scenario;
    double seconds = 0;
    MeasuredQuantity quantity = MeasuredQuantity::StepTime;
};

/// A measurement beside the model before and after the fit (seconds).
struct FitResidual {
    std::string label;
    double measured = 0, before = 0, after = 0;
};

struct ComputeFit {
    ComputeCalibrationSpec calibration; ///< the fitted calibration.compute keys (calibratedFrom set)
    std::string fittedGpu; ///< catalog id of the GPU the measurements ran on
    std::string fittedDtype; ///< "bf16", "fp16", "fp8", "mxfp8" or "nvfp4"
    std::vector<FitResidual> residuals;
    double meanAbsErrorBefore = 0; ///< mean |model / measured - 1| before the fit
    double meanAbsErrorAfter = 0; ///< the same after
};

/// Reads a GEMM sweep CSV: '#' comment lines, a header with columns m, n, k and seconds (others
/// ignored). Errors name the file and the line.
Result<std::vector<GemmMeasurement>> parseGemmSweepCsv(const std::string& text, const std::string& file);

/// Fits gemm_peak_fraction, gemm_fixed_seconds and gemm_half_dimension to a sweep on `gpu` in
/// `dtype` by weighted least squares on relative time errors (all rows at once; the half dimension
/// by a scan, the other two linear for each). `start` holds keys already set (kept unless refitted).
Result<ComputeFit> fitGemmSweep(const std::vector<GemmMeasurement>& sweep, const GpuModel& gpu, DType dtype,
    const ComputeCalibrationSpec& start = {});

/// Fits one efficiency scale shared by the GEMM and attention fractions (gemm_peak_fraction,
/// flash_peak_fraction) so that the predicted step times match the measured ones in the least-squares
/// sense on log time (all steps at once). `start` is applied first (e.g. a GEMM sweep fit).
Result<ComputeFit> fitMeasuredSteps(
    const std::vector<MeasuredStep>& steps, const Catalog& catalog, const ComputeCalibrationSpec& start = {});

/// (The JSON document of a calibration: computeCalibrationToJson / parseComputeCalibrationJson in
/// engine/scenario/scenariojson.h.)

/// Overlays the keys set in `fit` onto `target` (keys absent from `fit` keep their value).
void applyComputeCalibration(const ComputeCalibrationSpec& fit, ComputeCalibrationSpec& target);

/// The compute calibration a project keeps: the calibration.compute keys and the catalog GPU and
/// dtype ("bf16", "fp16", "fp8", "mxfp8", "nvfp4") they were fitted on (empty when typed by hand: they apply to every
/// scenario). Stored as {format: clusterscope-compute-calibration, version, compute, fitted: {gpu, dtype}}.
struct ProjectComputeCalibration {
    ComputeCalibrationSpec compute;
    std::string fittedGpu;
    std::string fittedDtype;
};

/// What a project keeps of `fit`.
inline ProjectComputeCalibration projectCalibration(const ComputeFit& fit)
{
    return { fit.calibration, fit.fittedGpu, fit.fittedDtype };
}

std::string projectComputeCalibrationToJson(const ProjectComputeCalibration& calibration);
/// Reads what projectComputeCalibrationToJson wrote (and the documents without "fitted" that
/// earlier versions stored); errors name `origin` and the JSON pointer.
Result<ProjectComputeCalibration> parseProjectComputeCalibrationJson(std::string_view text, std::string_view origin);

/// Applies a project's calibration to `scenario` when it was fitted on the scenario's GPU and dtype
/// (or states neither): returns true. Otherwise leaves `scenario` as it was, returns false and says
/// why in `whyNot` (when given). The CLI, the GUI and the report all apply it through here.
bool applyProjectComputeCalibration(
    const ProjectComputeCalibration& calibration, Scenario& scenario, std::string* whyNot = nullptr);

/// Where the compute model's constants come from, as every output states it: empty when
/// uncalibrated (the documented defaults and the catalog), else the calibration's calibratedFrom
/// ("scenario calibration.compute keys" when they were typed by hand).
std::string computeCalibrationSource(const ComputeCalibrationSpec& calibration);

/// The compute a profiler measures on one GPU per iteration (the union of its compute kernels) as
/// the model has it: forward and backward kernels, their recomputation and the optimizer step
/// (seconds). Calibrating from a run's compute time compares with this.
double modelledComputeSeconds(const IterationBreakdown& breakdown);

/// Project document holding the compute calibration (ProjectStore::putDocument kind and name).
inline constexpr const char* kComputeCalibrationDocumentKind = "compute-calibration";
inline constexpr const char* kComputeCalibrationDocumentName = "compute";

} // namespace clusterscope::engine
