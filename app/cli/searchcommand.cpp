#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/analysis/contendedranking.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/fabric/pricebook.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "engine/training/trainingjson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

namespace clusterscope::app {

void printTrainingEstimate(std::ostream& out, const engine::TrainingEstimate& e); // evaluatecommand.cpp

namespace {

    std::string strategyText(const engine::TrainingEstimate& e)
    {
        const engine::ParallelismSpec& p = e.strategy.parallelism;
        return "tp " + std::to_string(p.tp) + " pp " + std::to_string(p.pp) + " dp " + std::to_string(p.dp) + " cp "
            + std::to_string(p.cp) + " ep " + std::to_string(p.ep)
            + (p.expertTp() != p.tp ? " etp " + std::to_string(p.etp) : std::string()) + " vpp " + std::to_string(p.vpp)
            + " zero " + std::to_string(p.zero) + " mb " + std::to_string(e.strategy.microBatch) + " recompute "
            + engine::recomputeText(e.strategy);
    }

} // namespace

int runSearchCommand(const std::vector<std::string>& args, CliIo io)
{
    using namespace engine;
    auto cl = CommandLine::parse(args, { "json", "no-fabric" }, { "catalog", "top", "calibration", "project" });
    if (!cl)
        return cliUsageError(io, "search", cl.message());
    if (cl->positionals().size() != 1)
        return cliUsageError(io, "search", "expected exactly one scenario FILE (see --help)");
    int top = 10;
    if (auto text = cl->value("top")) {
        std::size_t used = 0;
        try {
            top = std::stoi(*text, &used);
        } catch (...) {
            used = 0;
        }
        if (used != text->size() || top < 1 || top > 100000)
            return cliUsageError(io, "search", "--top expects a positive integer, got \"" + *text + "\"");
    }
    const std::string path = cl->positionals().front();
    auto context = loadTrainingContextForCli(*cl, path, io);
    if (!context)
        return 1;
    const Scenario* scenario = &context->scenario;
    const TrainingEvaluator* evaluator = &*context->evaluator;
    const std::optional<CollectiveCalibration>& calibration = context->calibration;

    // The analysis the GUI runs (AnalysisRunner): the search ranks every strategy on the model's
    // time alone; the fabric is built and, for the fastest kContendedRankedCount, each strategy's
    // traffic routed on it and the contention it meets fed back, as evaluate times the scenario's.
    AnalysisOptions options = cliAnalysisOptions(*cl, *context);
    options.searchTopK = top;
    const ScenarioAnalysis a = analyseScenario(*scenario, context->catalog, PriceBook {}, options);
    if (!a.search) {
        io.err << path << ": " << (a.trainingError.empty() ? "the search did not run" : a.trainingError) << "\n";
        return 1;
    }
    const SearchResult& result = *a.search;
    if (result.ranked.empty()) // exit code 1, with the reason (also under --json, whose document follows)
        io.err << path << ": none of the " << result.valid << " valid strategies (of " << result.candidates
               << " enumerated) fits in GPU memory\n";
    const std::vector<TrainingEstimate> contended
        = rankedWithContention(*scenario, a, std::min<std::size_t>(kContendedRankedCount, result.ranked.size()));
    // Why the contended column is short or absent.
    std::string notContended;
    if (cl->flag("no-fabric"))
        notContended = "not computed (--no-fabric)";
    else if (!a.fabric)
        notContended = "not computed: the fabric cannot be built: " + a.fabricError;
    else if (!a.load.error.empty())
        notContended = "not computed: traffic not routed: " + a.load.error;
    else if (contended.size() < std::min<std::size_t>(kContendedRankedCount, result.ranked.size()))
        notContended = "computed for the first " + std::to_string(contended.size())
            + " only: the next strategy's traffic could not be routed";

    if (cl->flag("json")) {
        nlohmann::json doc = nlohmann::json::parse(searchResultToJson(result, *evaluator));
        // The Strategies tab's "With contention (s)" column, row by row in the same order.
        for (std::size_t i = 0; i < contended.size() && i < doc["ranked"].size(); ++i)
            doc["ranked"][i]["iteration_seconds_with_contention"] = contended[i].iterationSeconds;
        nlohmann::json fabric = { { "routing", toString(scenario->communication.routing) },
            { "calibrated", calibration.has_value() }, { "ranked_with_contention", contended.size() } };
        if (!notContended.empty())
            fabric["error"] = notContended;
        doc["fabric_contention"] = fabric;
        io.out << doc.dump(2) << "\n";
        return result.ranked.empty() ? 1 : 0;
    }
    io.out << scenario->name << ": " << result.candidates << " strategies enumerated, " << result.valid << " valid, "
           << result.fitting << " fit in memory\n";
    // The GUI's Strategies tab: the same order, the same two columns.
    io.out << "Ranked without fabric contention (the model's iteration time alone); the first "
           << std::min<std::size_t>(kContendedRankedCount, result.ranked.size())
           << " also with contention: each one's traffic routed on the fabric ("
           << toString(scenario->communication.routing)
           << " routing), the time evaluate and the GUI show once that strategy is applied\n";
    if (!notContended.empty())
        io.out << "With contention: " << notContended << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%4s  %28s  %19s  %s\n", "#", "Iteration, no contention (s)",
        "With contention (s)", "strategy");
    io.out << line;
    for (std::size_t i = 0; i < result.ranked.size(); ++i) {
        const TrainingEstimate& e = result.ranked[i];
        char with[32] = "-";
        if (i < contended.size())
            std::snprintf(with, sizeof with, "%.3f", contended[i].iterationSeconds);
        std::snprintf(line, sizeof line, "%4zu  %28.3f  %19s  ", i + 1, e.iterationSeconds, with);
        io.out << line << strategyText(e) << "\n";
    }
    for (std::size_t i = 0; i < result.ranked.size(); ++i) {
        io.out << "#" << i + 1 << "\n";
        printTrainingEstimate(io.out, result.ranked[i]);
        if (i < contended.size()) {
            std::snprintf(line, sizeof line, "%.3f s (%.3f s without)", contended[i].iterationSeconds,
                result.ranked[i].iterationSeconds);
            io.out << "  with contention " << line << "\n";
        }
    }
    io.out << "Pareto front (iteration time vs memory per GPU vs cost, without contention): " << result.pareto.size()
           << " strategies\n";
    for (const TrainingEstimate& e : result.pareto)
        io.out << "  " << e.iterationSeconds << " s, " << e.memory.totalBytes() / 1e9 << " GB, " << strategyText(e)
               << "\n";
    return result.ranked.empty() ? 1 : 0;
}

} // namespace clusterscope::app
