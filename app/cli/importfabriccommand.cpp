#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/store/fabricstore.h"
#include "importers/common/inputfile.h"
#include "importers/ibnetdiscover/fabriccomparison.h"
#include "importers/ibnetdiscover/fabricstructure.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/ibnetdiscover/planfromdesign.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <optional>
#include <ostream>

namespace clusterscope::app {

namespace {

    using importers::FabricFlag;

    bool cablingFlag(FabricFlag::Kind k)
    {
        return k == FabricFlag::Kind::Missing || k == FabricFlag::Kind::Miswired || k == FabricFlag::Kind::Extra
            || k == FabricFlag::Kind::FewUplinks;
    }

    struct FlagGroup {
        FabricFlag::Kind kind;
        engine::DiagnosticSeverity severity;
        std::string pattern;
        std::vector<const FabricFlag*> flags;
    };

    // One group per (kind, pattern), in order of first appearance.
    std::vector<FlagGroup> groupFlags(const std::vector<FabricFlag>& flags)
    {
        std::vector<FlagGroup> groups;
        std::map<std::pair<int, std::string>, std::size_t> index;
        for (const auto& f : flags) {
            const std::string pattern = f.pattern.empty() ? importers::toString(f.kind) : f.pattern;
            auto [it, fresh] = index.emplace(std::pair { int(f.kind), pattern }, groups.size());
            if (fresh)
                groups.push_back({ f.kind, f.severity, pattern, {} });
            groups[it->second].flags.push_back(&f);
            if (f.severity > groups[it->second].severity)
                groups[it->second].severity = f.severity;
        }
        return groups;
    }

    std::string fixed(double v, int digits)
    {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.*f", digits, v);
        return buf;
    }

} // namespace

int runImportFabricCommand(const std::vector<std::string>& args, CliIo io)
{
    using nlohmann::json;
    auto cl = CommandLine::parse(args, { "json", "details" }, { "plan", "plan-scenario", "catalog", "project" });
    if (!cl)
        return cliUsageError(io, "import-fabric", cl.message());
    if (cl->positionals().size() != 1)
        return cliUsageError(io, "import-fabric", "expected exactly one ibnetdiscover FILE (see --help)");
    if (cl->value("plan") && cl->value("plan-scenario"))
        return cliUsageError(io, "import-fabric", "give --plan or --plan-scenario, not both");
    auto fabric = importers::importIbnetdiscoverFile(cl->positionals().front());
    if (!fabric) {
        io.err << fabric.message() << "\n";
        return 1;
    }
    std::optional<importers::PlannedFabric> plan;
    std::vector<FabricFlag> countFlags;
    std::string planNote;
    if (auto planPath = cl->value("plan")) {
        auto p = importers::importIbnlFile(*planPath);
        if (!p) {
            io.err << p.message() << "\n";
            return 1;
        }
        plan = std::move(*p);
    } else if (auto scenarioPath = cl->value("plan-scenario")) {
        auto catalog = loadCatalogForCli(*cl, io);
        if (!catalog)
            return 1;
        auto scenario = loadValidScenarioForCli(*scenarioPath, *catalog, io);
        if (!scenario)
            return 1;
        auto design = engine::buildFabric(*scenario, *catalog);
        if (!design) {
            io.err << *scenarioPath << ": " << design.message() << "\n";
            return 1;
        }
        const double coverage = importers::planNameCoverage(*fabric, importers::planFromGraph(design->graph, false));
        const std::string planned
            = *scenarioPath + " (" + std::to_string(design->graph.countNodes(engine::NodeKind::Switch)) + " switches";
        if (2 * coverage < 1.0) {
            // Names do not match: compare counts per tier and level; cabling stays judged within pods.
            countFlags = importers::compareCountsWithPlan(*fabric, design->graph);
            planNote = "plan: " + planned + "; only " + fixed(100.0 * coverage, 0)
                + "% of its switches found by name: switches per tier and cables per level compared, cabling judged "
                  "within pods)";
        } else {
            // Hosts are compared only when the dump names them as the plan does (a dump written from
            // this design); a real fabric names its hosts its own way.
            auto withHosts = importers::planFromGraph(design->graph, true);
            const auto nameCheck = importers::compareWithPlan(*fabric, withHosts);
            std::size_t caSystems = 0, caMissing = 0;
            for (const auto& s : withHosts.systems)
                caSystems += s.type == "ca";
            for (const auto& f : nameCheck)
                caMissing += f.kind == FabricFlag::Kind::Missing && f.ports.size() == 1
                    && f.message.find("(ca)") != std::string::npos;
            const bool hostsNamed = caSystems > 0 && 2 * caMissing < caSystems;
            plan = hostsNamed ? std::move(withHosts) : importers::planFromGraph(design->graph, false);
            planNote = "plan: " + planned
                + (hostsNamed ? ", hosts compared by name"
                              : ", switch cabling only: the dump names its hosts differently")
                + "; " + fixed(100.0 * coverage, 0) + "% of planned switches found by name)";
        }
    }
    std::vector<FabricFlag> flags;
    for (const auto& f : fabric->flags)
        if (!plan || !cablingFlag(f.kind)) // with a plan, cabling is judged against the plan only
            flags.push_back(f);
    if (plan) {
        auto planFlags = importers::compareWithPlan(*fabric, *plan);
        for (auto& f : planFlags) {
            f.severity = f.kind == FabricFlag::Kind::Extra ? engine::DiagnosticSeverity::Info
                                                           : engine::DiagnosticSeverity::Warning;
            f.pattern = std::string("against the plan: ") + importers::toString(f.kind);
        }
        flags.insert(flags.end(), planFlags.begin(), planFlags.end());
    }
    flags.insert(flags.end(), countFlags.begin(), countFlags.end());
    const engine::FabricGraph& g = fabric->graph;
    const importers::FabricStructure& st = fabric->structure;
    std::string storedNote;
    if (auto projectPath = cl->value("project")) {
        // The dump as read (gzip undone), so reopening the project re-runs the current importer.
        auto project = openOrCreateProjectForCli(*projectPath, io);
        if (!project)
            return 1;
        auto text = importers::readInputFile(cl->positionals().front());
        if (!text) {
            io.err << text.message() << "\n";
            return 1;
        }
        const std::string& source = cl->positionals().front();
        const std::string name
            = source.substr(source.find_last_of('/') == std::string::npos ? 0 : source.find_last_of('/') + 1);
        const json summary
            = { { "switches", g.countNodes(engine::NodeKind::Switch) }, { "hcas", g.countNodes(engine::NodeKind::Nic) },
                  { "flags", flags.size() }, { "tier_confidence", st.tierConfidence } };
        auto id = engine::storeImportedFabric(*project, name, source, *text, summary.dump());
        if (!id) {
            io.err << id.message() << "\n";
            return 1;
        }
        storedNote = "stored in " + *projectPath + " as imported fabric " + std::to_string(*id) + " (\"" + name + "\")";
    }
    std::size_t links = 0;
    for (const auto& l : g.links())
        links += (l.flags & engine::kLinkMissing) ? 0 : 1;
    std::map<int, std::size_t> tierCounts;
    std::size_t unknownTier = 0;
    for (const auto& n : g.nodes())
        if (n.kind == engine::NodeKind::Switch) {
            if (n.tier >= 0)
                ++tierCounts[n.tier];
            else
                ++unknownTier;
        }
    std::size_t sharp = 0, mgmt = 0;
    for (const auto& e : st.embedded)
        (e.kind == importers::EmbeddedCa::Kind::SharpAggregationNode ? sharp : mgmt) += 1;
    const std::size_t switches = g.countNodes(engine::NodeKind::Switch);
    const std::size_t hcas = g.countNodes(engine::NodeKind::Nic);
    const auto groups = groupFlags(flags);
    std::map<int, std::vector<const importers::SwitchGroup*>> groupsByTier;
    for (const auto& sg : st.groups)
        groupsByTier[sg.tier].push_back(&sg);

    if (cl->flag("json")) {
        json out;
        out["switches"] = switches;
        out["hcas"] = hcas;
        out["links"] = links;
        json t = json::object();
        for (const auto& [tier, n] : tierCounts)
            t[engine::tierName(tier)] = n;
        if (unknownTier)
            t["unknown"] = unknownTier;
        out["tiers"] = t;
        json s;
        s["embedded_cas"] = { { "sharp_aggregation_nodes", sharp }, { "switch_management", mgmt } };
        s["tier_confidence"] = st.tierConfidence;
        s["up_down_consistency"] = st.upDownConsistency >= 0 ? json(st.upDownConsistency) : json(nullptr);
        s["switches_naming_tier"] = st.switchesNamingTier;
        s["names_agreeing"] = st.namesAgreeing;
        json parts = json::array();
        for (const auto& p : st.parts)
            parts.push_back({ { "role", importers::toString(p.role) }, { "switches", p.switches.size() },
                { "hca_links", p.hostCas }, { "tiers", p.tiers }, { "why", p.why } });
        s["parts"] = parts;
        json gj = json::array();
        for (const auto& sg : st.groups) {
            json lower = json::array(), upper = json::array();
            for (auto n : sg.lower)
                lower.push_back(g.label(n));
            for (auto n : sg.upper)
                upper.push_back(g.label(n));
            gj.push_back(
                { { "tier", engine::tierName(sg.tier) }, { "index", sg.index }, { "lower", lower }, { "upper", upper },
                    { "links_per_pair", sg.linksPerPair }, { "uplinks_per_switch", sg.uplinksPerSwitch } });
        }
        s["groups"] = gj;
        json cj = json::array();
        for (const auto& c : st.chassis)
            cj.push_back({ { "name", c.name }, { "model", c.model }, { "leaf_blades", c.leafBlades.size() },
                { "spine_blades", c.spineBlades.size() } });
        s["chassis"] = cj;
        out["structure"] = s;
        json f = json::array();
        for (const auto& x : flags)
            f.push_back({ { "kind", importers::toString(x.kind) }, { "severity", engine::toString(x.severity) },
                { "pattern", x.pattern }, { "ports", x.ports }, { "switches", x.switches }, { "message", x.message } });
        out["flags"] = f;
        json fg = json::array();
        for (const auto& gr : groups)
            fg.push_back({ { "kind", importers::toString(gr.kind) }, { "severity", engine::toString(gr.severity) },
                { "pattern", gr.pattern }, { "count", gr.flags.size() } });
        out["flag_groups"] = fg;
        if (!planNote.empty())
            out["plan"] = planNote;
        if (!storedNote.empty())
            out["stored"] = storedNote;
        json d = json::array();
        for (const auto& x : fabric->diagnostics.items())
            d.push_back({ { "id", x.id }, { "severity", engine::toString(x.severity) }, { "count", x.count },
                { "message", x.message } });
        out["diagnostics"] = d;
        io.out << out.dump(2) << "\n";
        return 0;
    }
    io.out << cl->positionals().front() << ": " << switches << " switches, " << hcas << " HCAs, " << links
           << " links\n";
    if (!st.embedded.empty())
        io.out << "switch-embedded CAs (not hosts): " << sharp << " SHARP aggregation nodes, " << mgmt
               << " switch management ports\n";
    io.out << "tiers:";
    for (const auto& [tier, n] : tierCounts)
        io.out << " " << engine::tierName(tier) << " " << n;
    if (unknownTier)
        io.out << " unknown " << unknownTier;
    io.out << " (confidence " << fixed(st.tierConfidence, 2);
    if (st.upDownConsistency >= 0)
        io.out << ": " << fixed(100.0 * st.upDownConsistency, 1) << "% of switch cables join adjacent tiers";
    if (st.switchesNamingTier > 0)
        io.out << ", names agree for " << st.namesAgreeing << " of " << st.switchesNamingTier << " switches";
    io.out << ")\n";
    for (const auto& p : st.parts)
        io.out << "part: " << importers::toString(p.role) << " fabric, " << p.switches.size() << " switches, "
               << p.hostCas << " HCA links, " << p.tiers << " tier(s) (" << p.why << ")\n";
    for (const auto& [tier, list] : groupsByTier) {
        std::map<std::pair<std::size_t, std::size_t>, int> shapes;
        for (const auto* sg : list)
            ++shapes[{ sg->lower.size(), sg->upper.size() }];
        io.out << "groups of " << engine::tierName(tier) << " switches: " << list.size() << " (";
        bool first = true;
        for (const auto& [shape, n] : shapes) {
            io.out << (first ? "" : ", ") << n << " x " << shape.first << " " << engine::tierName(tier) << " to "
                   << shape.second << " " << engine::tierName(tier + 1);
            first = false;
        }
        io.out << ")\n";
    }
    for (const auto& c : st.chassis)
        io.out << "chassis: " << c.name << " (" << c.model << ", " << c.leafBlades.size() << " leaf and "
               << c.spineBlades.size() << " spine blades: one logical switch)\n";
    if (!planNote.empty())
        io.out << planNote << "\n";
    if (!storedNote.empty())
        io.out << storedNote << "\n";
    if (flags.empty())
        io.out << "no flagged links\n";
    else
        io.out << flags.size() << " flag(s) in " << groups.size() << " pattern(s)"
               << (cl->flag("details") ? "" : " (--details lists each)") << ":\n";
    for (const auto& gr : groups) {
        io.out << importers::toString(gr.kind) << ": " << gr.pattern << " (" << gr.flags.size() << ", "
               << engine::toString(gr.severity) << ")" << (gr.flags.size() == 1 ? ": " : ", e.g.: ")
               << gr.flags.front()->message << "\n";
        if (cl->flag("details") && gr.flags.size() > 1)
            for (const auto* f : gr.flags)
                io.out << "    " << f->message << "\n";
    }
    for (const auto& x : fabric->diagnostics.items())
        io.out << engine::toString(x.severity) << " " << x.id << " (x" << x.count << "): " << x.message << "\n";
    return 0;
}

} // namespace clusterscope::app
