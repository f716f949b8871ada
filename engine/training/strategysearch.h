#pragma once

// Exhaustive search over training strategies of one scenario: every combination of TP, CP, PP,
// virtual stages, DP, EP, micro-batch, ZeRO stage and recomputation (plus the CP flavour), pruned
// only by validity (TrainingEvaluator::invalidReason) and by memory (out-of-memory strategies are
// counted, not ranked). Runs synchronously; the caller runs it on a worker thread.

#include "engine/training/trainingestimate.h"

#include <functional>
#include <stop_token>
#include <vector>

namespace clusterscope::engine {

class TrainingEvaluator;

struct SearchOptions {
    int topK = 10; ///< ranked strategies kept (fastest first)
    std::stop_token stop; ///< cancellation: the search returns early with cancelled = true
    /// Called with the fraction done (0..1), at most ~100 times per search, on the searching thread.
    std::function<void(double fraction)> progress;
};

struct SearchResult {
    std::vector<TrainingEstimate> ranked; ///< fitting strategies, fastest first (at most topK)
    /// Fitting strategies not dominated in (iteration time, memory per GPU, cost per iteration).
    /// On a fixed cluster the cost is proportional to time, so the front trades time against memory.
    std::vector<TrainingEstimate> pareto;
    long long candidates = 0; ///< combinations enumerated
    long long valid = 0; ///< of which valid
    long long fitting = 0; ///< of which fit in GPU memory (and were timed)
    bool cancelled = false;
};

class StrategySearch {
public:
    static SearchResult run(const TrainingEvaluator& evaluator, const SearchOptions& options = {});
};

} // namespace clusterscope::engine
