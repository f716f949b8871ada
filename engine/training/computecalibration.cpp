#include "engine/training/computecalibration.h"

#include "engine/calibration/weightedleastsquares.h"
#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/trainingevaluator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace clusterscope::engine {

namespace {

    std::vector<std::string> splitFields(const std::string& line)
    {
        std::vector<std::string> out(1);
        for (char c : line) {
            if (c == ',')
                out.emplace_back();
            else if (c != '\r' && c != ' ' && c != '"')
                out.back() += c;
        }
        return out;
    }

    double meanAbsError(const std::vector<FitResidual>& rows, bool after)
    {
        double sum = 0;
        for (const FitResidual& r : rows)
            sum += std::abs((after ? r.after : r.before) / r.measured - 1.0);
        return rows.empty() ? 0.0 : sum / rows.size();
    }

    std::string gemmLabel(const GemmMeasurement& g)
    {
        char buffer[96];
        std::snprintf(buffer, sizeof buffer, "%.0fx%.0fx%.0f", g.m, g.n, g.k);
        return buffer;
    }

} // namespace

void applyComputeCalibration(const ComputeCalibrationSpec& fit, ComputeCalibrationSpec& target)
{
    const auto take = [](const auto& from, auto& to) {
        if (from)
            to = from;
    };
    take(fit.gemmPeakFraction, target.gemmPeakFraction);
    take(fit.gemmHalfDimension, target.gemmHalfDimension);
    take(fit.memoryBandwidthFraction, target.memoryBandwidthFraction);
    take(fit.flashAttention, target.flashAttention);
    take(fit.flashPeakFraction, target.flashPeakFraction);
    take(fit.overlapInterferenceFraction, target.overlapInterferenceFraction);
    take(fit.gemmFixedSeconds, target.gemmFixedSeconds);
    take(fit.attentionBackwardEfficiency, target.attentionBackwardEfficiency);
    take(fit.fp8CastBytesPerElement, target.fp8CastBytesPerElement);
    take(fit.mxfp8CastBytesPerElement, target.mxfp8CastBytesPerElement);
    take(fit.nvfp4CastBytesPerElement, target.nvfp4CastBytesPerElement);
    take(fit.optimizerBytesPerParam, target.optimizerBytesPerParam);
    take(fit.kernelLaunchSeconds, target.kernelLaunchSeconds);
    take(fit.hostSecondsPerKernel, target.hostSecondsPerKernel);
    take(fit.groupedGemmStreams, target.groupedGemmStreams);
    take(fit.libraryHostSecondsPerLaunch, target.libraryHostSecondsPerLaunch);
    take(fit.moeSyncSeconds, target.moeSyncSeconds);
    take(fit.moeExpertHostSecondsForward, target.moeExpertHostSecondsForward);
    take(fit.moeExpertHostSecondsBackward, target.moeExpertHostSecondsBackward);
    take(fit.groupedLinearCallHostSeconds, target.groupedLinearCallHostSeconds);
    take(fit.moeA2aOverlapHostSeconds, target.moeA2aOverlapHostSeconds);
    take(fit.graphLaunchHostSeconds, target.graphLaunchHostSeconds);
    take(fit.hostJitterFraction, target.hostJitterFraction);
    take(fit.sustainedClockFraction, target.sustainedClockFraction);
    take(fit.cudaContextBytes, target.cudaContextBytes);
    take(fit.ncclBufferBytes, target.ncclBufferBytes);
    take(fit.allocatorReserveFraction, target.allocatorReserveFraction);
    if (!fit.calibratedFrom.empty())
        target.calibratedFrom = target.calibratedFrom.empty() || target.calibratedFrom == fit.calibratedFrom
            ? fit.calibratedFrom
            : target.calibratedFrom + "; " + fit.calibratedFrom;
}

std::string projectComputeCalibrationToJson(const ProjectComputeCalibration& calibration)
{
    nlohmann::json doc = nlohmann::json::parse(computeCalibrationToJson(calibration.compute));
    if (!calibration.fittedGpu.empty() || !calibration.fittedDtype.empty())
        doc["fitted"] = { { "gpu", calibration.fittedGpu }, { "dtype", calibration.fittedDtype } };
    return doc.dump(2) + "\n";
}

Result<ProjectComputeCalibration> parseProjectComputeCalibrationJson(std::string_view text, std::string_view origin)
{
    nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    ProjectComputeCalibration out;
    // "fitted" is read here; the rest is the calibration document of scenariojson.h.
    if (doc.is_object() && doc.contains("fitted")) {
        const nlohmann::json fitted = doc["fitted"];
        if (!fitted.is_object() || !fitted.value("gpu", nlohmann::json()).is_string()
            || !fitted.value("dtype", nlohmann::json()).is_string() || fitted.size() != 2)
            return Status::error(
                std::string(origin) + ": /fitted: expected {\"gpu\": ID, \"dtype\": bf16|fp16|fp8|mxfp8|nvfp4}");
        out.fittedGpu = fitted["gpu"].get<std::string>();
        out.fittedDtype = fitted["dtype"].get<std::string>();
        if (!out.fittedDtype.empty() && !dtypeFromString(out.fittedDtype))
            return Status::error(std::string(origin) + ": /fitted/dtype: expected bf16, fp16, fp8, mxfp8 or nvfp4");
        doc.erase("fitted");
        auto compute = parseComputeCalibrationJson(doc.dump(), origin);
        if (!compute)
            return compute.status();
        out.compute = std::move(*compute);
        return out;
    }
    auto compute = parseComputeCalibrationJson(text, origin);
    if (!compute)
        return compute.status();
    out.compute = std::move(*compute);
    return out;
}

bool applyProjectComputeCalibration(
    const ProjectComputeCalibration& calibration, Scenario& scenario, std::string* whyNot)
{
    const std::string dtype = toString(scenario.training.dtype);
    if ((!calibration.fittedGpu.empty() && calibration.fittedGpu != scenario.cluster.gpu)
        || (!calibration.fittedDtype.empty() && calibration.fittedDtype != dtype)) {
        if (whyNot)
            *whyNot = "the compute calibration was fitted on " + calibration.fittedGpu + " " + calibration.fittedDtype
                + " and scenario \"" + scenario.name + "\" runs " + scenario.cluster.gpu + " " + dtype
                + ": not applied";
        return false;
    }
    applyComputeCalibration(calibration.compute, scenario.computeCalibration);
    return true;
}

std::string computeCalibrationSource(const ComputeCalibrationSpec& calibration)
{
    if (calibration == ComputeCalibrationSpec {})
        return {};
    return calibration.calibratedFrom.empty() ? "scenario calibration.compute keys" : calibration.calibratedFrom;
}

double modelledComputeSeconds(const IterationBreakdown& b) { return b.compute + b.recompute + b.optimizer; }

const char* toString(MeasuredQuantity quantity)
{
    return quantity == MeasuredQuantity::ComputeTime ? "compute time" : "step time";
}

Result<std::vector<GemmMeasurement>> parseGemmSweepCsv(const std::string& text, const std::string& file)
{
    std::vector<GemmMeasurement> out;
    std::vector<std::string> header;
    int column[4] = { -1, -1, -1, -1 };
    std::size_t start = 0;
    int line = 0;
    while (start < text.size()) {
        std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string row = text.substr(start, end - start);
        start = end + 1;
        ++line;
        if (row.empty() || row[0] == '#' || row == "\r")
            continue;
        const std::vector<std::string> fields = splitFields(row);
        if (header.empty()) {
            header = fields;
            static const char* const names[] = { "m", "n", "k", "seconds" };
            for (int c = 0; c < 4; ++c) {
                const auto it = std::find(header.begin(), header.end(), names[c]);
                if (it == header.end())
                    return Status::error(file + ": line " + std::to_string(line) + ": the header has no column \""
                        + names[c] + "\" (expected m, n, k, seconds)");
                column[c] = static_cast<int>(it - header.begin());
            }
            continue;
        }
        if (fields.size() != header.size())
            return Status::error(file + ": line " + std::to_string(line) + ": expected " + std::to_string(header.size())
                + " fields as in the header, got " + std::to_string(fields.size()));
        double v[4];
        for (int c = 0; c < 4; ++c) {
            const std::string& f = fields[static_cast<std::size_t>(column[c])];
            char* endp = nullptr;
            v[c] = std::strtod(f.c_str(), &endp);
            if (f.empty() || *endp != '\0' || !std::isfinite(v[c]) || v[c] <= 0)
                return Status::error(file + ": line " + std::to_string(line) + ", column " + header[column[c]]
                    + ": expected a positive number, got \"" + f + "\"");
        }
        out.push_back({ v[0], v[1], v[2], v[3] });
    }
    if (out.empty())
        return Status::error(file + ": no measurements (expected a header m,n,k,seconds and rows)");
    return out;
}

Result<ComputeFit> fitGemmSweep(
    const std::vector<GemmMeasurement>& sweep, const GpuModel& gpu, DType dtype, const ComputeCalibrationSpec& start)
{
    if (sweep.size() < 3)
        return Status::error(
            "a GEMM sweep needs at least 3 shapes to fit 3 constants, got " + std::to_string(sweep.size()));
    ComputeEfficiencyParams base;
    if (start.gemmPeakFraction)
        base.gemmPeakFraction = *start.gemmPeakFraction;
    if (start.gemmHalfDimension)
        base.gemmHalfDimension = *start.gemmHalfDimension;
    if (start.gemmFixedSeconds)
        base.gemmFixedSeconds = *start.gemmFixedSeconds;
    auto before = ComputeEfficiency::forGpu(base, gpu, dtype, false);
    if (!before)
        return before.status();

    // For a fixed half dimension H the model is linear in (1 / fraction, fixed seconds):
    //   t = [2 m n k / (peak utilisation(m, n) k / (k + H))] x (1 / fraction) + fixed.
    // Weighted by 1 / t^2 so that every shape counts by its relative error; H by a scan.
    double bestCost = INFINITY, bestFraction = 0, bestFixed = 0, bestHalf = 0;
    for (double half = 0.0; half <= 512.0; half += 4.0) {
        ComputeEfficiencyParams unit = base;
        unit.gemmPeakFraction = 1.0;
        unit.gemmHalfDimension = half;
        unit.gemmFixedSeconds = 0.0;
        const ComputeEfficiency model = *ComputeEfficiency::forGpu(unit, gpu, dtype, false);
        std::vector<double> rows, y, w;
        for (const GemmMeasurement& g : sweep) {
            // Calls shorter than twice the host's per-call cost measure the host, not the GPU.
            if (g.seconds < 2.0 * base.hostSecondsPerKernel)
                continue;
            rows.push_back(2.0 * g.m * g.n * g.k / (model.peakFlopsPerSecond() * model.gemmEfficiency(g.m, g.n, g.k)));
            rows.push_back(1.0);
            y.push_back(g.seconds);
            w.push_back(1.0 / (g.seconds * g.seconds));
        }
        if (y.size() < 3)
            break;
        auto x = solveWeightedLeastSquares(rows, 2, y, w);
        if (x && (*x)[1] < 0.0) {
            // A negative latency is not physical: the shapes do not resolve it; fit the rate alone.
            double num = 0, den = 0;
            for (std::size_t i = 0; i < y.size(); ++i) {
                num += w[i] * rows[2 * i] * y[i];
                den += w[i] * rows[2 * i] * rows[2 * i];
            }
            x = std::vector<double> { den > 0 ? num / den : 0.0, 0.0 };
        }
        if (!x || (*x)[0] <= 1.0)
            continue; // a fraction of peak above 1 is not physical
        double cost = 0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            const double e = (rows[2 * i] * (*x)[0] + (*x)[1]) / y[i] - 1.0;
            cost += e * e;
        }
        if (cost < bestCost) {
            bestCost = cost;
            bestFraction = 1.0 / (*x)[0];
            bestFixed = (*x)[1];
            bestHalf = half;
        }
    }
    if (!std::isfinite(bestCost))
        return Status::error("the GEMM sweep does not determine a physical fit (needs 3 shapes longer than twice the "
                             "host's per-call time, a fraction of peak <= 1 and a latency >= 0)");
    ComputeFit fit;
    fit.calibration = start;
    fit.calibration.gemmPeakFraction = bestFraction;
    fit.calibration.gemmFixedSeconds = bestFixed;
    fit.calibration.gemmHalfDimension = bestHalf;
    fit.fittedGpu = gpu.id;
    fit.fittedDtype = toString(dtype);
    ComputeEfficiencyParams fitted = base;
    fitted.gemmPeakFraction = bestFraction;
    fitted.gemmFixedSeconds = bestFixed;
    fitted.gemmHalfDimension = bestHalf;
    const ComputeEfficiency after = *ComputeEfficiency::forGpu(fitted, gpu, dtype, false);
    const double host = base.hostSecondsPerKernel; // each timed call costs the host at least this
    for (const GemmMeasurement& g : sweep)
        fit.residuals.push_back({ gemmLabel(g), g.seconds, std::max(host, before->gemmSeconds(g.m, g.n, g.k)),
            std::max(host, after.gemmSeconds(g.m, g.n, g.k)) });
    fit.meanAbsErrorBefore = meanAbsError(fit.residuals, false);
    fit.meanAbsErrorAfter = meanAbsError(fit.residuals, true);
    return fit;
}

Result<ComputeFit> fitMeasuredSteps(
    const std::vector<MeasuredStep>& steps, const Catalog& catalog, const ComputeCalibrationSpec& start)
{
    if (steps.empty())
        return Status::error("no measured steps to fit");
    for (const MeasuredStep& step : steps) {
        if (!(step.seconds > 0))
            return Status::error(step.label + ": the measured step time must be positive");
        if (step.scenario.cluster.gpu != steps.front().scenario.cluster.gpu
            || step.scenario.training.dtype != steps.front().scenario.training.dtype)
            return Status::error(step.label + ": one fit covers one GPU and dtype (the first step has "
                + steps.front().scenario.cluster.gpu + " " + toString(steps.front().scenario.training.dtype) + ")");
    }
    if (!catalog.findGpu(steps.front().scenario.cluster.gpu))
        return Status::error(
            steps.front().label + ": /cluster/gpu: unknown GPU \"" + steps.front().scenario.cluster.gpu + "\"");
    // The fractions the scale multiplies: the start's, else the catalog's for each step's GPU and dtype.
    const auto predict = [&](const MeasuredStep& step, double scale, bool scaled) -> Result<double> {
        Scenario s = step.scenario;
        applyComputeCalibration(start, s.computeCalibration);
        const GpuModel* gpu = catalog.findGpu(s.cluster.gpu);
        if (!gpu)
            return Status::error(step.label + ": /cluster/gpu: unknown GPU \"" + s.cluster.gpu + "\"");
        if (scaled) {
            const double gemm
                = s.computeCalibration.gemmPeakFraction.value_or(catalogGemmFraction(*gpu, s.training.dtype));
            const double attention = s.computeCalibration.flashPeakFraction.value_or(gpu->attentionFraction);
            s.computeCalibration.gemmPeakFraction = std::min(1.0, gemm * scale);
            s.computeCalibration.flashPeakFraction = std::min(1.0, attention * scale);
        }
        auto evaluator = TrainingEvaluator::create(s, catalog);
        if (!evaluator)
            return Status::error(step.label + ": " + evaluator.message());
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        if (const char* reason = evaluator->invalidReason(strategy))
            return Status::error(step.label + ": " + reason);
        const TrainingEstimate e = evaluator->evaluate(strategy);
        return step.quantity == MeasuredQuantity::ComputeTime ? modelledComputeSeconds(e.breakdown)
                                                              : e.iterationSeconds;
    };
    const auto cost = [&](double logScale) -> Result<double> {
        double sum = 0;
        for (const MeasuredStep& step : steps) {
            auto t = predict(step, std::exp(logScale), true);
            if (!t)
                return t.status();
            const double e = std::log(*t / step.seconds);
            sum += e * e;
        }
        return sum;
    };
    // Golden-section search on log(scale) in [log 0.2, log 3]: the step time falls monotonically as
    // the efficiency rises, so the least-squares cost is unimodal.
    const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
    double a = std::log(0.2), b = std::log(3.0);
    double c = b - phi * (b - a), d = a + phi * (b - a);
    auto fc = cost(c), fd = cost(d);
    if (!fc)
        return fc.status();
    if (!fd)
        return fd.status();
    for (int i = 0; i < 60; ++i) {
        if (*fc < *fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - phi * (b - a);
            fc = cost(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + phi * (b - a);
            fd = cost(d);
        }
        if (!fc)
            return fc.status();
        if (!fd)
            return fd.status();
    }
    const double scale = std::exp(0.5 * (a + b));
    ComputeFit fit;
    fit.calibration = start;
    {
        const MeasuredStep& first = steps.front();
        const GpuModel* gpu = catalog.findGpu(first.scenario.cluster.gpu);
        const double gemm = start.gemmPeakFraction.value_or(catalogGemmFraction(*gpu, first.scenario.training.dtype));
        const double attention = start.flashPeakFraction.value_or(gpu->attentionFraction);
        fit.calibration.gemmPeakFraction = std::min(1.0, gemm * scale);
        fit.calibration.flashPeakFraction = std::min(1.0, attention * scale);
        fit.fittedGpu = first.scenario.cluster.gpu;
        fit.fittedDtype = toString(first.scenario.training.dtype);
    }
    for (const MeasuredStep& step : steps) {
        auto before = predict(step, 1.0, false);
        auto after = predict(step, scale, true);
        if (!before)
            return before.status();
        if (!after)
            return after.status();
        fit.residuals.push_back({ step.label, step.seconds, *before, *after });
    }
    fit.meanAbsErrorBefore = meanAbsError(fit.residuals, false);
    fit.meanAbsErrorAfter = meanAbsError(fit.residuals, true);
    return fit;
}

} // namespace clusterscope::engine
