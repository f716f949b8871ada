#include "app/cli/clisupport.h"

#include "engine/store/projectdocuments.h"

#include "app/cli/clicommand.h"
#include "app/cli/commandline.h"
#include "engine/analysis/runcomputecalibration.h"
#include "engine/calibration/calibrationjson.h"
#include "engine/core/atomicfile.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/computecalibration.h"

#include <ostream>

#include <unistd.h>

namespace clusterscope::app {

std::optional<engine::Catalog> loadCatalogForCli(const CommandLine& cl, CliIo io)
{
    auto catalog
        = cl.value("catalog") ? engine::Catalog::loadFromDirectory(*cl.value("catalog")) : engine::Catalog::builtin();
    if (!catalog) {
        io.err << catalog.message() << "\n";
        return std::nullopt;
    }
    return std::move(*catalog);
}

std::optional<engine::Scenario> loadValidScenarioForCli(
    const std::string& path, const engine::Catalog& catalog, CliIo io)
{
    auto scenario = engine::loadScenarioFile(path);
    if (!scenario) {
        io.err << scenario.message() << "\n";
        return std::nullopt;
    }
    if (auto status = engine::validateScenario(*scenario, catalog, path); !status) {
        io.err << status.message() << "\n";
        return std::nullopt;
    }
    return std::move(*scenario);
}

bool loadCalibrationForCli(const CommandLine& cl, CliIo io, std::optional<engine::CollectiveCalibration>& out)
{
    out.reset();
    const auto file = cl.value("calibration");
    const auto project = cl.value("project");
    if (file && project) {
        io.err << "clusterscope-cli: give --calibration or --project, not both\n";
        return false;
    }
    std::string text, origin;
    if (file) {
        auto read = engine::readWholeFile(*file);
        if (!read) {
            io.err << read.message() << "\n";
            return false;
        }
        text = std::move(*read);
        origin = *file;
    } else if (project) {
        auto store = engine::ProjectStore::open(*project);
        if (!store) {
            io.err << store.message() << "\n";
            return false;
        }
        auto doc = store->document(engine::kCalibrationDocumentKind, engine::kCalibrationDocumentName);
        if (!doc && store->document(engine::kComputeCalibrationDocumentKind, engine::kComputeCalibrationDocumentName))
            return true; // only a compute calibration (calibrate-compute --project): applied by the caller
        if (!doc) {
            io.err << *project
                   << ": the project holds no calibration (run clusterscope-cli import-nccl-tests LOG... --project "
                   << *project << ")\n";
            return false;
        }
        text = std::move(*doc);
        origin = *project + " (calibration)";
    } else {
        return true;
    }
    auto set = engine::calibrationFromJson(text, origin);
    if (!set) {
        io.err << set.message() << "\n";
        return false;
    }
    out = set->calibration;
    return true;
}

std::optional<engine::ProjectStore> openOrCreateProjectForCli(const std::string& path, CliIo io)
{
    auto store
        = ::access(path.c_str(), F_OK) == 0 ? engine::ProjectStore::open(path) : engine::ProjectStore::create(path);
    if (!store) {
        io.err << store.message() << "\n";
        return std::nullopt;
    }
    return std::move(*store);
}

std::optional<TrainingContext> loadTrainingContextForCli(const CommandLine& cl, const std::string& path, CliIo io)
{
    TrainingContext context;
    auto catalog = loadCatalogForCli(cl, io);
    if (!catalog)
        return std::nullopt;
    context.catalog = std::move(*catalog);
    auto scenario = loadValidScenarioForCli(path, context.catalog, io);
    if (!scenario)
        return std::nullopt;
    context.scenario = std::move(*scenario);
    if (!loadCalibrationForCli(cl, io, context.calibration))
        return std::nullopt;
    // A compute calibration stored by calibrate-compute --project overlays the scenario's keys when it
    // was fitted on the scenario's GPU and dtype (the GUI and the report apply it the same way).
    if (const auto project = cl.value("project")) {
        if (auto store = engine::ProjectStore::open(*project)) {
            auto fit = engine::readProjectComputeCalibration(*store, *project);
            if (!fit) {
                io.err << fit.message() << "\n";
                return std::nullopt;
            }
            std::string whyNot;
            if (*fit && !engine::applyProjectComputeCalibration(**fit, context.scenario, &whyNot))
                io.err << "note: " << *project << ": " << whyNot << "\n";
        }
    }
    auto evaluator = engine::TrainingEvaluator::create(context.scenario, context.catalog);
    if (!evaluator) {
        io.err << path << ": " << evaluator.message() << "\n";
        return std::nullopt;
    }
    if (context.calibration)
        evaluator->setCollectiveCalibration(*context.calibration);
    context.evaluator = std::move(*evaluator);
    return context;
}

int cliUsageError(CliIo io, const char* command, const std::string& message)
{
    io.err << "clusterscope-cli " << command << ": " << message << "\n";
    return 1;
}

engine::AnalysisOptions cliAnalysisOptions(const CommandLine& cl, const TrainingContext& context)
{
    engine::AnalysisOptions options;
    options.buildFabric = !cl.flag("no-fabric");
    options.priceFabric = false;
    options.timeContention = false;
    options.knownIssues.emplace(); // loadTrainingContextForCli validated the scenario
    options.calibration = context.calibration ? &*context.calibration : nullptr;
    return options;
}

} // namespace clusterscope::app
