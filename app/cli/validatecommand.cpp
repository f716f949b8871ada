#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace clusterscope::app {

int runValidateCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(args, { "json" }, { "catalog" });
    if (!cl)
        return cliUsageError(io, "validate", cl.message());
    if (cl->positionals().size() != 1)
        return cliUsageError(io, "validate", "expected exactly one scenario FILE (see --help)");
    const std::string path = cl->positionals().front();
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;

    std::vector<engine::ValidationIssue> issues;
    auto scenario = engine::loadScenarioFile(path);
    if (!scenario) {
        // Syntax and key errors stop the reader at the first problem; report that one.
        if (cl->flag("json")) {
            io.out << nlohmann::json { { "valid", false }, { "issues", { { { "message", scenario.message() } } } } }
                          .dump(2)
                   << "\n";
        }
        io.err << scenario.message() << "\n";
        return 1;
    }
    issues = engine::findScenarioIssues(*scenario, *catalog);
    if (cl->flag("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& i : issues)
            list.push_back({ { "pointer", i.pointer }, { "message", path + ": " + i.pointer + ": " + i.message } });
        io.out << nlohmann::json { { "valid", issues.empty() }, { "name", scenario->name }, { "issues", list } }.dump(2)
               << "\n";
    }
    for (const auto& i : issues)
        io.err << path << ": " << i.pointer << ": " << i.message << "\n";
    if (!issues.empty())
        return 1;
    if (!cl->flag("json"))
        io.out << path << ": valid (\"" << scenario->name << "\": " << scenario->cluster.gpus << " x "
               << scenario->cluster.gpu << ", " << engine::toString(scenario->cluster.fabric.type) << ", "
               << engine::toString(scenario->cluster.transport) << ")\n";
    return 0;
}

} // namespace clusterscope::app
