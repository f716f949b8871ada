#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/core/atomicfile.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/computecalibration.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ostream>

namespace clusterscope::app {

namespace {

    bool positiveNumber(const std::string& text, double& out)
    {
        char* end = nullptr;
        out = std::strtod(text.c_str(), &end);
        return !text.empty() && *end == '\0' && std::isfinite(out) && out > 0;
    }

    nlohmann::json fitJson(const engine::ComputeFit& fit, const char* what)
    {
        nlohmann::json rows = nlohmann::json::array();
        for (const engine::FitResidual& r : fit.residuals)
            rows.push_back({ { "label", r.label }, { "measured_seconds", r.measured },
                { "model_seconds_before", r.before }, { "model_seconds_after", r.after },
                { "error_before", r.before / r.measured - 1.0 }, { "error_after", r.after / r.measured - 1.0 } });
        return { { "what", what }, { "residuals", rows }, { "mean_abs_error_before", fit.meanAbsErrorBefore },
            { "mean_abs_error_after", fit.meanAbsErrorAfter } };
    }

    void printFit(std::ostream& out, const engine::ComputeFit& fit, const char* what)
    {
        out << what << ": measured vs model, before -> after the fit\n";
        for (const engine::FitResidual& r : fit.residuals) {
            char line[200];
            std::snprintf(line, sizeof line,
                "  %-22s measured %10.4g s  model %10.4g s (%+6.1f%%) -> %10.4g s (%+6.1f%%)\n", r.label.c_str(),
                r.measured, r.before, 100.0 * (r.before / r.measured - 1.0), r.after,
                100.0 * (r.after / r.measured - 1.0));
            out << line;
        }
        char summary[120];
        std::snprintf(summary, sizeof summary, "  mean |error| %.1f%% -> %.1f%%\n", 100.0 * fit.meanAbsErrorBefore,
            100.0 * fit.meanAbsErrorAfter);
        out << summary;
    }

} // namespace

int runCalibrateComputeCommand(const std::vector<std::string>& args, CliIo io)
{
    using namespace engine;
    auto cl = CommandLine::parse(args, { "json" },
        { "gemm-csv", "gpu", "dtype", "scenario", "step-seconds", "tokens-per-second", "project", "save", "catalog" });
    if (!cl)
        return cliUsageError(io, "calibrate-compute", cl.message());
    if (!cl->positionals().empty())
        return cliUsageError(io, "calibrate-compute", "takes no positional arguments (see --help)");
    const auto gemmCsv = cl->value("gemm-csv");
    const auto scenarioPath = cl->value("scenario");
    const auto stepText = cl->value("step-seconds");
    const auto tokensText = cl->value("tokens-per-second");
    if ((stepText || tokensText) && !scenarioPath)
        return cliUsageError(io, "calibrate-compute", "a measured step needs the --scenario it ran");
    if (!gemmCsv && !scenarioPath)
        return cliUsageError(
            io, "calibrate-compute", "give --gemm-csv FILE and/or --scenario FILE with a measured step");
    if (scenarioPath && !stepText && !tokensText && !gemmCsv)
        return cliUsageError(io, "calibrate-compute", "--scenario needs --step-seconds S or --tokens-per-second T");
    if (stepText && tokensText)
        return cliUsageError(io, "calibrate-compute", "give --step-seconds or --tokens-per-second, not both");
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    std::optional<Scenario> scenario;
    if (scenarioPath) {
        scenario = loadValidScenarioForCli(*scenarioPath, *catalog, io);
        if (!scenario)
            return 1;
        if (!scenario->parallelism && (stepText || tokensText)) {
            io.err << *scenarioPath << ": /parallelism: a measured step needs the parallelism it ran with\n";
            return 1;
        }
    }

    ComputeCalibrationSpec calibration;
    nlohmann::json fits = nlohmann::json::array();
    std::string text;
    if (gemmCsv) {
        std::string gpuId = cl->value("gpu").value_or(scenario ? scenario->cluster.gpu : "");
        if (gpuId.empty())
            return cliUsageError(io, "calibrate-compute", "--gemm-csv needs --gpu ID (or --scenario) to know the GPU");
        const GpuModel* gpu = catalog->findGpu(gpuId);
        if (!gpu) {
            io.err << "clusterscope-cli calibrate-compute: unknown GPU \"" << gpuId
                   << "\" (see clusterscope-cli catalog)\n";
            return 1;
        }
        DType dtype = scenario ? scenario->training.dtype : DType::BF16;
        if (auto d = cl->value("dtype")) {
            if (*d == "bf16" || *d == "fp16")
                dtype = *d == "bf16" ? DType::BF16 : DType::FP16;
            else if (*d == "fp8")
                dtype = DType::FP8;
            else
                return cliUsageError(io, "calibrate-compute", "--dtype expects bf16, fp16 or fp8, got \"" + *d + "\"");
        }
        auto csv = readWholeFile(*gemmCsv);
        if (!csv) {
            io.err << csv.message() << "\n";
            return 1;
        }
        auto sweep = parseGemmSweepCsv(*csv, *gemmCsv);
        if (!sweep) {
            io.err << sweep.message() << "\n";
            return 1;
        }
        auto fit = fitGemmSweep(*sweep, *gpu, dtype, calibration);
        if (!fit) {
            io.err << *gemmCsv << ": " << fit.message() << "\n";
            return 1;
        }
        calibration = fit->calibration;
        calibration.calibratedFrom = "GEMM sweep " + *gemmCsv + " (" + gpu->id + ", " + toString(dtype) + ")";
        fits.push_back(fitJson(*fit, "gemm sweep"));
        if (!cl->flag("json"))
            printFit(io.out, *fit, ("GEMM sweep " + *gemmCsv).c_str());
    }
    if (stepText || tokensText) {
        double value = 0;
        if (!positiveNumber(stepText ? *stepText : *tokensText, value))
            return cliUsageError(io, "calibrate-compute",
                std::string(stepText ? "--step-seconds" : "--tokens-per-second") + " expects a positive number");
        MeasuredStep step;
        step.label = scenario->name.empty() ? *scenarioPath : scenario->name;
        step.scenario = *scenario;
        step.seconds = stepText ? value : double(scenario->training.globalBatch) * scenario->model.seqLen / value;
        auto fit = fitMeasuredSteps({ step }, *catalog, calibration);
        if (!fit) {
            io.err << *scenarioPath << ": " << fit.message() << "\n";
            return 1;
        }
        const std::string from = calibration.calibratedFrom;
        calibration = fit->calibration;
        calibration.calibratedFrom = (from.empty() ? "" : from + "; ") + "measured step of " + *scenarioPath + " ("
            + std::to_string(step.seconds) + " s)";
        fits.push_back(fitJson(*fit, "measured step"));
        if (!cl->flag("json"))
            printFit(io.out, *fit, ("Measured step of " + *scenarioPath).c_str());
    }

    const std::string document = computeCalibrationToJson(calibration);
    if (auto save = cl->value("save")) {
        if (auto status = writeFileAtomically(*save, document); !status) {
            io.err << status.message() << "\n";
            return 1;
        }
    }
    if (auto project = cl->value("project")) {
        auto store = openOrCreateProjectForCli(*project, io);
        if (!store)
            return 1;
        if (auto status
            = store->putDocument(kComputeCalibrationDocumentKind, kComputeCalibrationDocumentName, document);
            !status) {
            io.err << *project << ": " << status.message() << "\n";
            return 1;
        }
    }
    if (cl->flag("json")) {
        nlohmann::json j;
        j["fits"] = fits;
        j["calibration"] = nlohmann::json::parse(document)["compute"];
        j["stored_in_project"] = cl->value("project") ? nlohmann::json(*cl->value("project")) : nlohmann::json(nullptr);
        io.out << j.dump(2) << "\n";
    } else {
        io.out << "calibration.compute: " << nlohmann::json::parse(document)["compute"].dump() << "\n";
        if (auto project = cl->value("project"))
            io.out << "stored in " << *project << "; evaluate --project " << *project << " now uses it\n";
    }
    return 0;
}

} // namespace clusterscope::app
