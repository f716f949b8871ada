#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "importers/ibnetdiscover/fabriccomparison.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"

#include <nlohmann/json.hpp>

#include <map>
#include <ostream>

namespace clusterscope::app {

int runImportFabricCommand(const std::vector<std::string>& args, CliIo io)
{
    using nlohmann::json;
    auto cl = CommandLine::parse(args, { "json" }, { "plan" });
    if (!cl)
        return cliUsageError(io, "import-fabric", cl.message());
    if (cl->positionals().size() != 1)
        return cliUsageError(io, "import-fabric", "expected exactly one ibnetdiscover FILE (see --help)");
    auto fabric = importers::importIbnetdiscoverFile(cl->positionals().front());
    if (!fabric) {
        io.err << fabric.message() << "\n";
        return 1;
    }
    std::vector<importers::FabricFlag> flags = fabric->flags;
    if (auto planPath = cl->value("plan")) {
        auto plan = importers::importIbnlFile(*planPath);
        if (!plan) {
            io.err << plan.message() << "\n";
            return 1;
        }
        const auto planFlags = importers::compareWithPlan(*fabric, *plan);
        flags.insert(flags.end(), planFlags.begin(), planFlags.end());
    }
    const engine::FabricGraph& g = fabric->graph;
    std::size_t links = 0;
    for (const auto& l : g.links())
        links += (l.flags & engine::kLinkMissing) ? 0 : 1;
    std::map<std::string, std::size_t> tiers;
    std::size_t unknownTier = 0;
    for (const auto& n : g.nodes())
        if (n.kind == engine::NodeKind::Switch) {
            if (n.tier >= 0)
                ++tiers[engine::tierName(n.tier)];
            else
                ++unknownTier;
        }
    const std::size_t switches = g.countNodes(engine::NodeKind::Switch);
    const std::size_t hcas = g.countNodes(engine::NodeKind::Nic);
    if (cl->flag("json")) {
        json out;
        out["switches"] = switches;
        out["hcas"] = hcas;
        out["links"] = links;
        json t = json::object();
        for (const auto& [name, n] : tiers)
            t[name] = n;
        if (unknownTier)
            t["unknown"] = unknownTier;
        out["tiers"] = t;
        json f = json::array();
        for (const auto& x : flags)
            f.push_back({ { "kind", importers::toString(x.kind) }, { "ports", x.ports }, { "message", x.message } });
        out["flags"] = f;
        json d = json::array();
        for (const auto& x : fabric->diagnostics.items())
            d.push_back({ { "id", x.id }, { "severity", engine::toString(x.severity) }, { "count", x.count }, { "message", x.message } });
        out["diagnostics"] = d;
        io.out << out.dump(2) << "\n";
        return 0;
    }
    io.out << cl->positionals().front() << ": " << switches << " switches, " << hcas << " HCAs, " << links << " links\n";
    io.out << "tiers:";
    for (const auto& [name, n] : tiers)
        io.out << " " << name << " " << n;
    if (unknownTier)
        io.out << " unknown " << unknownTier;
    io.out << "\n";
    if (flags.empty())
        io.out << "no flagged links\n";
    for (const auto& x : flags)
        io.out << importers::toString(x.kind) << ": " << x.message << "\n";
    for (const auto& x : fabric->diagnostics.items())
        io.out << engine::toString(x.severity) << " " << x.id << " (x" << x.count << "): " << x.message << "\n";
    return 0;
}

} // namespace clusterscope::app
