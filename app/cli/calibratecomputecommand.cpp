#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/analysis/runcomputecalibration.h"
#include "engine/core/atomicfile.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"
#include "engine/training/computecalibration.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ostream>

#include <unistd.h>

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

    // --run RUN: a stored run's id or name.
    engine::Result<engine::StoredRun> findRun(
        const engine::ProjectStore& store, const std::string& project, const std::string& which)
    {
        engine::RunStore runs(const_cast<engine::ProjectStore&>(store));
        auto list = runs.list();
        if (!list)
            return engine::Status::error(project + ": " + list.message());
        std::string names;
        for (const engine::StoredRunSummary& r : *list) {
            if (r.name == which || std::to_string(r.id) == which)
                return runs.load(r.id);
            names += (names.empty() ? "" : ", ") + std::to_string(r.id) + " \"" + r.name + "\"";
        }
        return engine::Status::error(project + ": no run \"" + which + "\" (the project holds "
            + (names.empty() ? std::string("no run: import one with import-trace DIR --project ") + project : names)
            + ")");
    }

    // The scenario a run is calibrated with: --scenario FILE, or a project scenario by name, or the
    // project's only scenario.
    engine::Result<engine::Scenario> projectScenario(
        const engine::ProjectStore& store, const std::string& project, const std::optional<std::string>& name)
    {
        auto stored = store.scenarios();
        if (!stored)
            return engine::Status::error(project + ": " + stored.message());
        std::string names;
        for (const engine::StoredScenario& s : *stored) {
            if (name && s.scenario.name == *name)
                return s.scenario;
            names += (names.empty() ? "\"" : ", \"") + s.scenario.name + "\"";
        }
        if (!name && stored->size() == 1)
            return stored->front().scenario;
        if (name)
            return engine::Status::error(*name + ": neither a scenario file nor a scenario of " + project
                + (names.empty() ? std::string(" (it holds none)") : " (it holds " + names + ")"));
        return engine::Status::error(project + ": give --scenario FILE or NAME: the run's scenario"
            + (names.empty() ? std::string(" (the project holds none)") : " (the project holds " + names + ")"));
    }

} // namespace

int runCalibrateComputeCommand(const std::vector<std::string>& args, CliIo io)
{
    using namespace engine;
    auto cl = CommandLine::parse(args, { "json" },
        { "gemm-csv", "gpu", "dtype", "scenario", "step-seconds", "tokens-per-second", "run", "project", "save",
            "catalog" });
    if (!cl)
        return cliUsageError(io, "calibrate-compute", cl.message());
    if (!cl->positionals().empty())
        return cliUsageError(io, "calibrate-compute", "takes no positional arguments (see --help)");
    const auto gemmCsv = cl->value("gemm-csv");
    const auto scenarioPath = cl->value("scenario");
    const auto stepText = cl->value("step-seconds");
    const auto tokensText = cl->value("tokens-per-second");
    const auto runName = cl->value("run");
    if (runName && !cl->value("project"))
        return cliUsageError(io, "calibrate-compute", "--run RUN names a run stored in --project P");
    if (runName && (stepText || tokensText))
        return cliUsageError(
            io, "calibrate-compute", "give --run or a typed --step-seconds/--tokens-per-second, not both");
    if ((stepText || tokensText) && !scenarioPath)
        return cliUsageError(io, "calibrate-compute", "a measured step needs the --scenario it ran");
    if (!gemmCsv && !scenarioPath && !runName)
        return cliUsageError(io, "calibrate-compute",
            "give --gemm-csv FILE and/or a measured step (--run RUN --project P, or --scenario FILE --step-seconds S)");
    if (scenarioPath && !stepText && !tokensText && !gemmCsv && !runName)
        return cliUsageError(io, "calibrate-compute", "--scenario needs --step-seconds S or --tokens-per-second T");
    if (stepText && tokensText)
        return cliUsageError(io, "calibrate-compute", "give --step-seconds or --tokens-per-second, not both");
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    std::optional<Scenario> scenario;
    std::optional<ProjectStore> store;
    std::optional<StoredRun> run;
    if (runName) {
        const std::string project = *cl->value("project");
        auto opened = ProjectStore::open(project);
        if (!opened) {
            io.err << opened.message() << "\n";
            return 1;
        }
        store = std::move(*opened);
        auto found = findRun(*store, project, *runName);
        if (!found) {
            io.err << found.message() << "\n";
            return 1;
        }
        run = std::move(*found);
        if (!scenarioPath || ::access(scenarioPath->c_str(), F_OK) != 0) {
            auto picked = projectScenario(*store, project, scenarioPath);
            if (!picked) {
                io.err << picked.message() << "\n";
                return 1;
            }
            const std::string origin = project + ": scenario \"" + picked->name + "\"";
            if (auto status = validateScenario(*picked, *catalog, origin); !status) {
                io.err << status.message() << "\n";
                return 1;
            }
            scenario = std::move(*picked);
        }
    }
    if (scenarioPath && !scenario) {
        scenario = loadValidScenarioForCli(*scenarioPath, *catalog, io);
        if (!scenario)
            return 1;
    }
    if (scenario && !scenario->parallelism && (stepText || tokensText)) {
        io.err << (scenarioPath ? *scenarioPath : scenario->name)
               << ": /parallelism: a measured step needs the parallelism it ran with\n";
        return 1;
    }

    ComputeCalibrationSpec calibration;
    std::string fittedGpu, fittedDtype;
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
            const auto named = dtypeFromString(*d);
            if (!named)
                return cliUsageError(
                    io, "calibrate-compute", "--dtype expects bf16, fp16, fp8, mxfp8 or nvfp4, got \"" + *d + "\"");
            dtype = *named;
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
        fittedGpu = fit->fittedGpu;
        fittedDtype = fit->fittedDtype;
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
        fittedGpu = fit->fittedGpu;
        fittedDtype = fit->fittedDtype;
        calibration.calibratedFrom = (from.empty() ? "" : from + "; ") + "measured step of " + *scenarioPath + " ("
            + std::to_string(step.seconds) + " s)";
        fits.push_back(fitJson(*fit, "measured step"));
        if (!cl->flag("json"))
            printFit(io.out, *fit, ("Measured step of " + *scenarioPath).c_str());
    }
    if (run) {
        auto fit = calibrateComputeFromRun(*run, *scenario, *catalog, calibration);
        if (!fit) {
            io.err << *cl->value("project") << ": " << fit.message() << "\n";
            return 1;
        }
        calibration = fit->fit.calibration;
        fittedGpu = fit->fit.fittedGpu;
        fittedDtype = fit->fit.fittedDtype;
        nlohmann::json j = fitJson(fit->fit, "profiled run");
        j["run"] = { { "id", run->summary.id }, { "name", run->summary.name } };
        j["scenario"] = scenario->name;
        j["quantity"] = toString(fit->quantity);
        j["measured_steps"] = fit->measured.steps;
        j["measured_step_seconds"] = fit->measured.stepSeconds;
        j["measured_compute_seconds"]
            = fit->measured.computeSeconds > 0 ? nlohmann::json(fit->measured.computeSeconds) : nlohmann::json(nullptr);
        j["iteration_seconds_before"] = fit->iterationSecondsBefore;
        j["iteration_seconds_after"] = fit->iterationSecondsAfter;
        j["warnings"] = fit->warnings;
        fits.push_back(j);
        if (!cl->flag("json")) {
            char line[300];
            std::snprintf(line, sizeof line,
                "Run \"%s\" (%d %s) as scenario \"%s\": median step %.4g s, compute %s; fitted to the %s\n",
                run->summary.name.c_str(), fit->measured.steps, fit->measured.steps == 1 ? "step" : "steps",
                scenario->name.c_str(), fit->measured.stepSeconds,
                fit->measured.computeSeconds > 0 ? (std::to_string(fit->measured.computeSeconds) + " s").c_str()
                                                 : "not in the trace",
                toString(fit->quantity));
            io.out << line;
            printFit(io.out, fit->fit, ("Measured " + std::string(toString(fit->quantity))).c_str());
            std::snprintf(line, sizeof line, "  modelled iteration %.4g s -> %.4g s (measured step %.4g s)\n",
                fit->iterationSecondsBefore, fit->iterationSecondsAfter, fit->measured.stepSeconds);
            io.out << line;
            for (const std::string& w : fit->warnings)
                io.out << "  warning: " << w << "\n";
        }
    }

    const std::string document = projectComputeCalibrationToJson({ calibration, fittedGpu, fittedDtype });
    if (auto save = cl->value("save")) {
        if (auto status = writeFileAtomically(*save, document); !status) {
            io.err << status.message() << "\n";
            return 1;
        }
    }
    if (auto project = cl->value("project")) {
        if (!store)
            store = openOrCreateProjectForCli(*project, io);
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
        j["fitted"] = { { "gpu", fittedGpu }, { "dtype", fittedDtype } };
        j["stored_in_project"] = cl->value("project") ? nlohmann::json(*cl->value("project")) : nlohmann::json(nullptr);
        io.out << j.dump(2) << "\n";
    } else {
        io.out << "calibration.compute: " << nlohmann::json::parse(document)["compute"].dump() << "\n";
        if (auto project = cl->value("project"))
            io.out << "stored in " << *project << "; evaluate --project " << *project
                   << ", the GUI and the report now use it"
                   << " on " << fittedGpu << " " << fittedDtype << " scenarios\n";
    }
    return 0;
}

} // namespace clusterscope::app
