#pragma once

// Helpers shared by CLI commands: loading the catalog and a scenario with the standard messages.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenario.h"

#include <optional>
#include <string>

namespace clusterscope::app {

struct CliIo;
class CommandLine;

/// The built-in catalog, or the one in --catalog DIR. Prints the error and returns nothing on failure.
std::optional<engine::Catalog> loadCatalogForCli(const CommandLine& cl, CliIo io);

/// Reads, parses and validates the scenario at `path` against `catalog`. Prints the error
/// ("FILE: /pointer: message") and returns nothing on failure.
std::optional<engine::Scenario> loadValidScenarioForCli(const std::string& path, const engine::Catalog& catalog, CliIo io);

/// Prints "clusterscope-cli <command>: <message>" to err and returns 1.
int cliUsageError(CliIo io, const char* command, const std::string& message);

} // namespace clusterscope::app
