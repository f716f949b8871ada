#pragma once

// Helpers shared by CLI commands: loading the catalog and a scenario with the standard messages.

#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivecalibration.h"
#include "engine/scenario/scenario.h"
#include "engine/store/projectstore.h"
#include "engine/training/trainingevaluator.h"

#include <optional>
#include <string>

namespace clusterscope::app {

struct CliIo;
class CommandLine;

/// The built-in catalog, or the one in --catalog DIR. Prints the error and returns nothing on failure.
std::optional<engine::Catalog> loadCatalogForCli(const CommandLine& cl, CliIo io);

/// Reads, parses and validates the scenario at `path` against `catalog`. Prints the error
/// ("FILE: /pointer: message") and returns nothing on failure.
std::optional<engine::Scenario> loadValidScenarioForCli(
    const std::string& path, const engine::Catalog& catalog, CliIo io);

/// The collective calibration named by --calibration FILE (JSON from import-nccl-tests
/// --save-calibration) or stored in --project P by import-nccl-tests --project. Sets `out` (left
/// empty when neither option is given); prints the error and returns false on failure.
bool loadCalibrationForCli(const CommandLine& cl, CliIo io, std::optional<engine::CollectiveCalibration>& out);

/// Opens the project --project P, creating it when the file does not exist. Prints the error and
/// returns nothing on failure.
std::optional<engine::ProjectStore> openOrCreateProjectForCli(const std::string& path, CliIo io);

/// What evaluate and search need: the catalog (--catalog), the validated scenario at `path`, the
/// collective calibration (--calibration / --project) and a training evaluator using it.
struct TrainingContext {
    engine::Catalog catalog;
    engine::Scenario scenario;
    std::optional<engine::CollectiveCalibration> calibration;
    std::optional<engine::TrainingEvaluator> evaluator;
};

/// Loads a TrainingContext; prints the error (naming the file and place) and returns nothing on failure.
std::optional<TrainingContext> loadTrainingContextForCli(const CommandLine& cl, const std::string& path, CliIo io);

/// The analysis evaluate and search run, as the GUI does: the fabric built unless --no-fabric (not
/// priced), the traffic routed without the max-min timing, the scenario taken as validated by
/// loadTrainingContextForCli, and the context's collective calibration (which must outlive the options).
engine::AnalysisOptions cliAnalysisOptions(const CommandLine& cl, const TrainingContext& context);

/// Prints "clusterscope-cli <command>: <message>" to err and returns 1.
int cliUsageError(CliIo io, const char* command, const std::string& message);

} // namespace clusterscope::app
