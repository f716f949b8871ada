#pragma once

// Calibrating the compute model from a profiled run stored in the project: the run's measured step
// (median over its ProfilerSteps) and, when the trace has compute kernels, its compute time, fitted
// by the same least-squares fit as a typed step time (computecalibration.h, fitMeasuredSteps).

#include "engine/core/status.h"
#include "engine/training/computecalibration.h"

#include <optional>
#include <string>
#include <vector>

namespace clusterscope::engine {

class Catalog;
class ProjectStore;
struct RunAnalysis;
struct StoredRun;
struct StoredRunSummary;

/// What a stored run measured per step, as the calibration uses it.
struct RunStepMeasurement {
    int steps = 0; ///< ProfilerSteps with at least one rank
    /// Seconds of one step: per step the mean over ranks of the step's duration, then the median
    /// over steps (robust to a warm-up or profiler-flush step).
    double stepSeconds = 0;
    /// The same of the union of compute kernels per rank (RankStepBreakdown::computeSeconds); 0 when
    /// the trace holds no compute kernels.
    double computeSeconds = 0;
};

RunStepMeasurement measureRunSteps(const RunAnalysis& analysis);

/// Why `run` cannot be the job `scenario` models: its rank count differs from the scenario's GPUs,
/// or its GPU's name does not contain the model of the scenario's catalog GPU ("H100" of
/// "H100-SXM-80GB" as a word of "NVIDIA H100 80GB HBM3"). Empty when they match; a run that does
/// not state its GPU is not judged on the type.
std::vector<std::string> runScenarioMismatches(const StoredRunSummary& run, const Scenario& scenario);

struct RunComputeCalibration {
    RunStepMeasurement measured;
    MeasuredQuantity quantity = MeasuredQuantity::StepTime; ///< what the fit matched
    ComputeFit fit; ///< the calibration (calibratedFrom and fitted GPU/dtype set) and its residuals
    double iterationSecondsBefore = 0; ///< the scenario's modelled iteration with `start` only
    double iterationSecondsAfter = 0; ///< ... and with the fit
    /// What the user should know about the fit (e.g. the scale reached its limit and the error left
    /// is in the parts it does not move), one sentence each.
    std::vector<std::string> warnings;
};

/// Fits the compute model to `run` as the job of `scenario` (which needs its parallelism): to the
/// run's compute time when it has one (the compute model's own quantity), else to its step time.
/// `start` (e.g. a GEMM-sweep fit) is applied first. Refuses, naming the difference, a run whose
/// GPU count or type is not the scenario's, and a run without steps.
Result<RunComputeCalibration> calibrateComputeFromRun(
    const StoredRun& run, const Scenario& scenario, const Catalog& catalog, const ComputeCalibrationSpec& start = {});

/// The compute calibration stored in `project` (document kComputeCalibrationDocumentKind); none
/// when the project holds none; an error naming `origin` when it cannot be read.
Result<std::optional<ProjectComputeCalibration>> readProjectComputeCalibration(
    const ProjectStore& project, const std::string& origin);

/// Stores `calibration` as the project's compute calibration (replacing the previous one).
Status storeProjectComputeCalibration(ProjectStore& project, const ProjectComputeCalibration& calibration);

} // namespace clusterscope::engine
