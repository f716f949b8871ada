#include "engine/analysis/contendedranking.h"

#include "engine/analysis/scenarioanalysis.h"
#include "engine/training/trafficmatrix.h"
#include "engine/training/trainingevaluator.h"

namespace clusterscope::engine {

std::vector<TrainingEstimate> rankedWithContention(
    const Scenario& scenario, const ScenarioAnalysis& a, std::size_t count, const std::stop_token& stop)
{
    std::vector<TrainingEstimate> out;
    if (!a.fabric || !a.search || !a.evaluator || !a.load.routed)
        return out;
    TrainingEvaluator evaluator = *a.evaluator;
    for (std::size_t i = 0; i < a.search->ranked.size() && i < count && !stop.stop_requested(); ++i) {
        // As analyseScenario does for the scenario's own strategy: evaluated without contention,
        // its traffic routed on the fabric, the contention fed back.
        evaluator.setFabricContention(1.0, 1.0);
        TrainingEstimate e = evaluator.evaluate(a.search->ranked[i].strategy);
        const TrafficMatrix traffic = TrafficMatrix::fromEstimate(e, evaluator.placer());
        if (!loadFabric(*a.fabric, scenario, traffic, evaluator, e, false).routed)
            break;
        out.push_back(std::move(e));
    }
    return out;
}

} // namespace clusterscope::engine
