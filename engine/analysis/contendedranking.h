#pragma once
// The search's fastest strategies timed as the analysis times the scenario's own: each one's
// traffic routed on the scenario's fabric and the contention it meets fed back (loadFabric).
// The search itself ranks without contention (StrategySearch); this is what applying a ranked
// strategy then shows.

#include "engine/training/trainingestimate.h"

#include <cstddef>
#include <stop_token>
#include <vector>

namespace clusterscope::engine {

/// How many of the search's fastest strategies every front end times with contention (the GUI's
/// Strategies "With contention (s)" column, `clusterscope-cli search`): one count, one list.
inline constexpr std::size_t kContendedRankedCount = 5;

struct Scenario;
struct ScenarioAnalysis;

/// The first `count` ranked strategies of `analysis` (an analysis of `scenario`) with the fabric
/// contention of their own traffic. Empty without a search, an evaluator or a routed fabric; ends
/// early when `stop` is requested or a strategy's traffic cannot be routed.
std::vector<TrainingEstimate> rankedWithContention(
    const Scenario& scenario, const ScenarioAnalysis& analysis, std::size_t count, const std::stop_token& stop = {});

} // namespace clusterscope::engine
