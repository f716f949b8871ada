#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/core/atomicfile.h"
#include "engine/fabric/fabricbuilder.h"
#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"

#include <cstdlib>
#include <ostream>

namespace clusterscope::app {

int runExportFabricCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(
        args, { "sharp", "crlf" }, { "ibnetdiscover", "management-switches", "management-hosts", "catalog" });
    if (!cl)
        return cliUsageError(io, "export-fabric", cl.message());
    if (cl->positionals().size() != 1 || !cl->value("ibnetdiscover"))
        return cliUsageError(io, "export-fabric", "expected one scenario FILE and --ibnetdiscover OUT (see --help)");
    importers::IbnetdiscoverWriteOptions o;
    o.sharpAggregationNodes = cl->flag("sharp");
    o.crlf = cl->flag("crlf");
    for (const auto& [key, target] : { std::pair { "management-switches", &o.managementSwitches },
             std::pair { "management-hosts", &o.managementHosts } }) {
        if (const auto v = cl->value(key)) {
            char* end = nullptr;
            const long n = std::strtol(v->c_str(), &end, 10);
            if (v->empty() || *end != '\0' || n < 0 || n > 1000)
                return cliUsageError(io, "export-fabric",
                    std::string("--") + key + " expects a count from 0 to 1000, got \"" + *v + "\"");
            *target = int(n);
        }
    }
    if (o.managementHosts > 0 && o.managementSwitches == 0)
        o.managementSwitches = 1;
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    const std::string path = cl->positionals().front();
    auto scenario = loadValidScenarioForCli(path, *catalog, io);
    if (!scenario)
        return 1;
    auto design = engine::buildFabric(*scenario, *catalog);
    if (!design) {
        io.err << path << ": " << design.message() << "\n";
        return 1;
    }
    const std::string out = *cl->value("ibnetdiscover");
    if (auto s = engine::writeFileAtomically(out, importers::writeIbnetdiscover(design->graph, o)); !s) {
        io.err << out << ": " << s.message() << "\n";
        return 1;
    }
    io.out << out << ": " << design->graph.countNodes(engine::NodeKind::Switch) << " switches, "
           << design->graph.countNodes(engine::NodeKind::Nic) + design->graph.countNodes(engine::NodeKind::Host)
           << " CAs" << (o.sharpAggregationNodes ? " (+ one SHARP aggregation node per switch)" : "") << "\n";
    return 0;
}

} // namespace clusterscope::app
