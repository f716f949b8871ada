#include "app/cli/clisupport.h"

#include "app/cli/clicommand.h"
#include "app/cli/commandline.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"

#include <ostream>

namespace clusterscope::app {

std::optional<engine::Catalog> loadCatalogForCli(const CommandLine& cl, CliIo io)
{
    auto catalog = cl.value("catalog") ? engine::Catalog::loadFromDirectory(*cl.value("catalog"))
                                       : engine::Catalog::builtin();
    if (!catalog) {
        io.err << catalog.message() << "\n";
        return std::nullopt;
    }
    return std::move(*catalog);
}

std::optional<engine::Scenario> loadValidScenarioForCli(const std::string& path, const engine::Catalog& catalog, CliIo io)
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

int cliUsageError(CliIo io, const char* command, const std::string& message)
{
    io.err << "clusterscope-cli " << command << ": " << message << "\n";
    return 1;
}

} // namespace clusterscope::app
