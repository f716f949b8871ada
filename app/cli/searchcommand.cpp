#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "engine/training/trainingjson.h"

#include <ostream>
#include <string>

namespace clusterscope::app {

void printTrainingEstimate(std::ostream& out, const engine::TrainingEstimate& e); // evaluatecommand.cpp

int runSearchCommand(const std::vector<std::string>& args, CliIo io)
{
    using namespace engine;
    auto cl = CommandLine::parse(args, { "json" }, { "catalog", "top", "calibration", "project" });
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
    // Only the search: the ranking is before fabric contention (evaluate and the GUI's "Current"
    // route the chosen strategy's traffic on the fabric).
    SearchOptions options;
    options.topK = top;
    const SearchResult result = StrategySearch::run(*evaluator, options);
    if (cl->flag("json")) {
        io.out << searchResultToJson(result, *evaluator);
        return 0;
    }
    io.out << scenario->name << ": " << result.candidates << " strategies enumerated, " << result.valid << " valid, "
           << result.fitting << " fit in memory\n";
    // The GUI's Strategies tab heads the same column "Iteration, no contention (s)".
    io.out << "Ranked without fabric contention: each iteration time is the model's alone; evaluate routes a "
              "strategy's traffic on the fabric and includes the contention it meets\n";
    int rank = 1;
    for (const TrainingEstimate& e : result.ranked) {
        io.out << "#" << rank++ << "\n";
        printTrainingEstimate(io.out, e);
    }
    io.out << "Pareto front (iteration time vs memory per GPU vs cost): " << result.pareto.size() << " strategies\n";
    for (const TrainingEstimate& e : result.pareto)
        io.out << "  " << e.iterationSeconds << " s, " << e.memory.totalBytes() / 1e9 << " GB, tp "
               << e.strategy.parallelism.tp << " pp " << e.strategy.parallelism.pp << " dp "
               << e.strategy.parallelism.dp << " cp " << e.strategy.parallelism.cp << " zero "
               << e.strategy.parallelism.zero << " mb " << e.strategy.microBatch << " recompute "
               << toString(e.strategy.recompute) << "\n";
    return result.ranked.empty() ? 1 : 0;
}

} // namespace clusterscope::app
