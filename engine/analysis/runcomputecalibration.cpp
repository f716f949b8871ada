#include "engine/analysis/runcomputecalibration.h"

#include "engine/catalog/catalog.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"
#include "engine/training/trainingevaluator.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace clusterscope::engine {

namespace {

    double median(std::vector<double> values)
    {
        if (values.empty())
            return 0.0;
        std::sort(values.begin(), values.end());
        const std::size_t n = values.size();
        return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
    }

    std::string lower(std::string text)
    {
        for (char& c : text)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return text;
    }

    // `word` in `text` with no letter or digit either side (case-insensitive).
    bool containsWord(const std::string& text, const std::string& word)
    {
        const std::string t = lower(text), w = lower(word);
        const auto isWordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
        for (std::size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
            const bool before = at == 0 || !isWordChar(t[at - 1]);
            const bool after = at + w.size() == t.size() || !isWordChar(t[at + w.size()]);
            if (before && after)
                return true;
        }
        return false;
    }

    std::string seconds(double s)
    {
        char text[48];
        std::snprintf(text, sizeof text, "%.4g s", s);
        return text;
    }

    Result<double> modelIteration(const Scenario& scenario, const Catalog& catalog)
    {
        auto evaluator = TrainingEvaluator::create(scenario, catalog);
        if (!evaluator)
            return evaluator.status();
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(scenario);
        if (const char* reason = evaluator->invalidReason(strategy))
            return Status::error(reason);
        return evaluator->evaluate(strategy).iterationSeconds;
    }

} // namespace

RunStepMeasurement measureRunSteps(const RunAnalysis& analysis)
{
    RunStepMeasurement out;
    std::vector<double> steps, compute;
    for (const StepBreakdown& step : analysis.steps) {
        if (step.ranks.empty())
            continue;
        double duration = 0, kernels = 0;
        for (const RankStepBreakdown& r : step.ranks) {
            duration += r.durationSeconds;
            kernels += r.computeSeconds;
        }
        steps.push_back(duration / double(step.ranks.size()));
        compute.push_back(kernels / double(step.ranks.size()));
    }
    out.steps = int(steps.size());
    out.stepSeconds = median(steps);
    out.computeSeconds = median(compute);
    return out;
}

std::vector<std::string> runScenarioMismatches(const StoredRunSummary& run, const Scenario& scenario)
{
    std::vector<std::string> out;
    const int ranks = run.worldSize > 0 ? run.worldSize : run.rankCount;
    if (ranks > 0 && ranks != scenario.cluster.gpus)
        out.push_back("the run has " + std::to_string(ranks) + " ranks and the scenario " + scenario.name + " "
            + std::to_string(scenario.cluster.gpus) + " GPUs");
    // The catalog id's model token ("H100" of "H100-SXM-80GB") as a word of the trace's device name.
    const std::string model = scenario.cluster.gpu.substr(0, scenario.cluster.gpu.find('-'));
    if (!run.gpuName.empty() && !model.empty() && !containsWord(run.gpuName, model))
        out.push_back(
            "the run ran on " + run.gpuName + " and the scenario " + scenario.name + " models " + scenario.cluster.gpu);
    return out;
}

Result<RunComputeCalibration> calibrateComputeFromRun(
    const StoredRun& run, const Scenario& scenario, const Catalog& catalog, const ComputeCalibrationSpec& start)
{
    const std::string label = "run \"" + run.summary.name + "\"";
    if (const auto mismatches = runScenarioMismatches(run.summary, scenario); !mismatches.empty()) {
        std::string text;
        for (const std::string& m : mismatches)
            text += (text.empty() ? "" : "; ") + m;
        return Status::error(label + " is not the job of scenario \"" + scenario.name + "\": " + text
            + " (calibrate with the scenario of the cluster and job the run measured)");
    }
    if (!scenario.parallelism)
        return Status::error("scenario \"" + scenario.name
            + "\": /parallelism: calibrating from a run needs the parallelism the run used");
    RunComputeCalibration out;
    out.measured = measureRunSteps(run.analysis);
    if (out.measured.steps == 0 || !(out.measured.stepSeconds > 0))
        return Status::error(label + " has no ProfilerStep with a duration: nothing to calibrate against");
    MeasuredStep step;
    step.scenario = scenario;
    // The compute model's own quantity when the profiler measured it: the step time also holds the
    // communication, idle and host time that the efficiency fractions do not model.
    if (out.measured.computeSeconds > 0) {
        out.quantity = MeasuredQuantity::ComputeTime;
        step.seconds = out.measured.computeSeconds;
    } else {
        out.quantity = MeasuredQuantity::StepTime;
        step.seconds = out.measured.stepSeconds;
    }
    step.quantity = out.quantity;
    step.label = label + " " + toString(out.quantity);
    auto fit = fitMeasuredSteps({ step }, catalog, start);
    if (!fit)
        return fit.status();
    out.fit = std::move(*fit);
    out.fit.calibration.calibratedFrom = (start.calibratedFrom.empty() ? "" : start.calibratedFrom + "; ") + label
        + " (median " + toString(out.quantity) + " " + seconds(step.seconds) + " over "
        + std::to_string(out.measured.steps) + (out.measured.steps == 1 ? " step" : " steps") + ")";

    Scenario before = scenario, after = scenario;
    applyComputeCalibration(start, before.computeCalibration);
    applyComputeCalibration(out.fit.calibration, after.computeCalibration);
    auto b = modelIteration(before, catalog);
    if (!b)
        return Status::error("scenario \"" + scenario.name + "\": " + b.message());
    auto a = modelIteration(after, catalog);
    if (!a)
        return Status::error("scenario \"" + scenario.name + "\": " + a.message());
    out.iterationSecondsBefore = *b;
    out.iterationSecondsAfter = *a;
    if (out.fit.meanAbsErrorAfter > 0.05) {
        char text[400];
        std::snprintf(text, sizeof text,
            "the fit leaves %.0f%% error: it scales only the GEMM and attention efficiency (now %.2f and %.2f of "
            "peak); the rest of the modelled %s (element-wise kernels, launch and host overhead, the optimizer) "
            "does not move, so the run's work differs from the scenario's model",
            100.0 * out.fit.meanAbsErrorAfter, out.fit.calibration.gemmPeakFraction.value_or(0.0),
            out.fit.calibration.flashPeakFraction.value_or(0.0), toString(out.quantity));
        out.warnings.push_back(text);
    }
    return out;
}

Result<std::optional<ProjectComputeCalibration>> readProjectComputeCalibration(
    const ProjectStore& project, const std::string& origin)
{
    auto names = project.documentNames(kComputeCalibrationDocumentKind);
    if (!names)
        return Status::error(origin + ": " + names.message());
    if (std::find(names->begin(), names->end(), std::string(kComputeCalibrationDocumentName)) == names->end())
        return std::optional<ProjectComputeCalibration>();
    auto text = project.document(kComputeCalibrationDocumentKind, kComputeCalibrationDocumentName);
    if (!text)
        return Status::error(origin + ": " + text.message());
    auto fit = parseProjectComputeCalibrationJson(*text, origin + " (compute calibration)");
    if (!fit)
        return fit.status();
    if (fit->compute.calibratedFrom.empty())
        fit->compute.calibratedFrom = "project " + origin;
    return std::optional<ProjectComputeCalibration>(std::move(*fit));
}

Status storeProjectComputeCalibration(ProjectStore& project, const ProjectComputeCalibration& calibration)
{
    return project.putDocument(
        kComputeCalibrationDocumentKind, kComputeCalibrationDocumentName, projectComputeCalibrationToJson(calibration));
}

} // namespace clusterscope::engine
