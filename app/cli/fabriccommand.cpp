#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/analysis/linkleveltext.h"
#include "engine/core/atomicfile.h"
#include "engine/fabric/bisection.h"
#include "engine/fabric/fabricbom.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/fabriclayout.h"
#include "engine/fabric/flowmodel.h"
#include "engine/fabric/pricebook.h"
#include "engine/fabric/trafficpatterns.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ostream>

namespace clusterscope::app {

namespace {

    std::string money(double usd)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0f", usd);
        std::string s = buf, out;
        for (std::size_t i = 0; i < s.size(); ++i) {
            out += s[i];
            const std::size_t left = s.size() - i - 1;
            if (left > 0 && left % 3 == 0 && s[i] != '-')
                out += ',';
        }
        return "$" + out;
    }

} // namespace

int runFabricCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(args, { "json" }, { "catalog", "prices", "bom-csv" });
    if (!cl)
        return cliUsageError(io, "fabric", cl.message());
    if (cl->positionals().size() != 1)
        return cliUsageError(io, "fabric", "expected exactly one scenario FILE (see --help)");
    const std::string path = cl->positionals().front();
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    auto prices
        = cl->value("prices") ? engine::PriceBook::loadFile(*cl->value("prices")) : engine::PriceBook::builtin();
    if (!prices) {
        io.err << prices.message() << "\n";
        return 1;
    }
    auto scenario = loadValidScenarioForCli(path, *catalog, io);
    if (!scenario)
        return 1;

    auto design = engine::buildFabric(*scenario, *catalog);
    if (!design) {
        io.err << path << ": " << design.message() << "\n";
        return 1;
    }
    const engine::LayoutSpec layout = scenario->layout ? *scenario->layout : engine::defaultLayout(*design);
    if (auto s = engine::layOutFabric(*design, layout, *catalog); !s) {
        io.err << path << ": " << s.message() << "\n";
        return 1;
    }
    auto bom = engine::computeBom(*design, *catalog, *prices);
    if (!bom) {
        io.err << path << ": " << bom.message() << "\n";
        return 1;
    }
    const engine::FabricGraph& g = design->graph;
    const double bisection = engine::bisectionGbps(*design);
    const auto tiers = g.switchesPerTier();
    const auto tierCount = [&tiers](int t) { return t < static_cast<int>(tiers.size()) ? tiers[t] : std::size_t(0); };

    // Contention under the scenario's routing and loss: NCCL-style ring AllReduce and the half-shift
    // permutation (every GPU sends across the bisection).
    const engine::FlowOptions flowOptions = engine::flowOptionsFor(*scenario);
    const engine::FlowModel model(*design);
    auto ring = model.time(engine::ringAllReduceFlows(*design, 1e9), flowOptions);
    auto shift = model.time(
        engine::shiftFlows(*design, static_cast<std::uint32_t>(design->gpus.size() / 2), 1e9), flowOptions);
    if (!ring || !shift) {
        io.err << path << ": " << (ring ? shift.message() : ring.message()) << "\n";
        return 1;
    }
    const char* routing = engine::toString(scenario->communication.routing);

    if (auto out = cl->value("bom-csv")) {
        if (auto s = engine::writeFileAtomically(*out, engine::bomCsv(*bom)); !s) {
            io.err << *out << ": " << s.message() << "\n";
            return 1;
        }
    }

    if (cl->flag("json")) {
        nlohmann::json cablesByMedium = nlohmann::json::object();
        for (const auto& [medium, n] : bom->cablesByMedium)
            cablesByMedium[medium] = n;
        nlohmann::json lines = nlohmann::json::array();
        for (const auto& l : bom->lines)
            lines.push_back({ { "category", l.category }, { "item", l.item }, { "description", l.description },
                { "length_m", l.lengthMetres }, { "quantity", l.quantity }, { "unit_price_usd", l.unitPriceUsd },
                { "total_usd", l.totalUsd() }, { "unit_power_w", l.unitPowerWatts },
                { "total_power_w", l.totalWatts() }, { "price_source", l.priceSource },
                { "price_date", l.priceDate } });
        nlohmann::json cables = { { "node_leaf", g.countLinks(engine::LinkLevel::NodeLeaf) },
            { "leaf_spine", g.countLinks(engine::LinkLevel::LeafSpine) },
            { "spine_core", g.countLinks(engine::LinkLevel::SpineCore) } };
        if (const auto other = g.countLinks(engine::LinkLevel::Other))
            cables["other"] = other;
        nlohmann::json j = {
            { "name", scenario->name },
            { "type", engine::toString(scenario->cluster.fabric.type) },
            { "gpus", design->gpus.size() },
            { "nodes", design->hosts },
            { "tiers", design->tiers },
            { "planes", design->planes },
            { "scalable_units", design->scalableUnits },
            { "switch_model", design->switchModel },
            { "nic_model", design->nicModel },
            { "switches", { { "leaf", tierCount(0) }, { "spine", tierCount(1) }, { "core", tierCount(2) } } },
            { "cables", cables },
            { "cables_by_medium", cablesByMedium },
            { "bisection_gbps", bisection },
            { "bisection_ratio", bisection / std::max(1.0, engine::injectionHalfGbps(*design)) },
            { "cost_usd", bom->networkCostUsd },
            { "power_w", bom->networkPowerWatts },
            { "cost_per_gpu_usd", bom->networkCostPerGpuUsd() },
            { "cluster_cost_usd", bom->clusterCostUsd },
            { "cluster_cost_per_gpu_usd", bom->clusterCostPerGpuUsd() },
            { "network_share", bom->networkShare() },
            { "contention",
                { { "routing", routing }, { "link_efficiency", flowOptions.linkEfficiency },
                    { "ring_allreduce",
                        { { "slowdown", ring->slowdown }, { "max_utilisation", ring->maxUtilisation } } },
                    { "half_shift",
                        { { "slowdown", shift->slowdown }, { "max_utilisation", shift->maxUtilisation } } } } },
            { "bom", lines },
            { "notes", design->notes },
        };
        io.out << j.dump(2) << "\n";
        return 0;
    }

    io.out << scenario->name << ": " << engine::toString(scenario->cluster.fabric.type) << ", " << design->gpus.size()
           << " GPUs on " << design->hosts << " nodes, " << design->tiers << " tier(s)";
    if (design->scalableUnits)
        io.out << ", " << design->scalableUnits << " scalable units";
    // Switches per tier, naming only the tiers the fabric has (the JSON keeps every key, 0 when absent).
    io.out << "\n  switches:";
    const char* between = " ";
    for (int t = 0; t < static_cast<int>(tiers.size()); ++t)
        if (tierCount(t) > 0) {
            io.out << between << tierCount(t) << " " << engine::tierName(t);
            between = ", ";
        }
    if (between[0] == ' ' && between[1] == 0)
        io.out << " none";
    io.out << " (" << (design->switchModel.empty() ? "none" : design->switchModel) << ")\n";
    // Cables per tier boundary, in the report's words; a boundary the fabric lacks is not named.
    io.out << "  cables:";
    const char* separator = " ";
    for (const engine::LinkLevel level : { engine::LinkLevel::NodeLeaf, engine::LinkLevel::LeafSpine,
             engine::LinkLevel::SpineCore, engine::LinkLevel::Other })
        if (const auto n = g.countLinks(level); n > 0 || level == engine::LinkLevel::NodeLeaf) {
            io.out << separator << n << " " << engine::linkLevelText(level);
            separator = ", ";
        }
    io.out << "\n  by medium:";
    for (const auto& [medium, n] : bom->cablesByMedium)
        io.out << " " << medium << " " << n << ";";
    char buf[256];
    std::snprintf(buf, sizeof buf, "\n  bisection: %.1f Tb/s (%.0f%% of half the injection bandwidth)\n",
        bisection / 1000, 100 * bisection / std::max(1.0, engine::injectionHalfGbps(*design)));
    io.out << buf;
    io.out << "  network: " << money(bom->networkCostUsd) << " (" << money(bom->networkCostPerGpuUsd()) << " per GPU, ";
    std::snprintf(buf, sizeof buf, "%.1f%% of the cluster's %s), %.1f kW\n", 100 * bom->networkShare(),
        money(bom->clusterCostUsd).c_str(), bom->networkPowerWatts / 1000);
    io.out << buf;
    std::snprintf(buf, sizeof buf,
        "  contention (%s, link efficiency %.3f): ring AllReduce slowdown %.2fx, half-shift permutation %.2fx\n",
        routing, flowOptions.linkEfficiency, ring->slowdown, shift->slowdown);
    io.out << buf << "  bill of materials:\n";
    for (const auto& l : bom->lines) {
        std::snprintf(buf, sizeof buf, "    %-11s %-14s %8lld", l.category.c_str(), l.item.c_str(), l.quantity);
        io.out << buf;
        if (l.lengthMetres > 0) {
            std::snprintf(buf, sizeof buf, " x %gm", l.lengthMetres);
            io.out << buf;
        }
        io.out << "  " << money(l.totalUsd()) << "\n";
    }
    for (const auto& n : design->notes)
        io.out << "  note: " << n << "\n";
    return 0;
}

} // namespace clusterscope::app
