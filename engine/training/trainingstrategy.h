#pragma once

// One way to train a model on a cluster: the parallelism layout plus the per-strategy training
// knobs the search varies (micro-batch size and activation recomputation).

#include "engine/scenario/scenario.h"

namespace clusterscope::engine {

struct TrainingStrategy {
    ParallelismSpec parallelism; ///< tp, pp, dp, cp, ep, vpp, zero, schedule, ...
    int microBatch = 1; ///< sequences per micro-batch
    Recompute recompute = Recompute::Selective; ///< activation recomputation

    /// The strategy a scenario states (its parallelism section must be present).
    static TrainingStrategy fromScenario(const Scenario& scenario)
    {
        return { scenario.parallelism.value_or(ParallelismSpec {}), scenario.training.microBatch,
            scenario.training.recompute };
    }

    /// The inverse of fromScenario(): states this strategy in `scenario` (its parallelism section,
    /// training.micro_batch and training.recompute), e.g. to apply a strategy the search found.
    void applyTo(Scenario& scenario) const
    {
        scenario.parallelism = parallelism;
        scenario.training.microBatch = microBatch;
        scenario.training.recompute = recompute;
    }
};

} // namespace clusterscope::engine
