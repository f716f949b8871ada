#pragma once

// One way to train a model on a cluster: the parallelism layout plus the per-strategy training
// knobs the search varies (micro-batch size and activation recomputation).

#include "engine/scenario/scenario.h"

#include <string>

namespace clusterscope::engine {

struct TrainingStrategy {
    ParallelismSpec parallelism; ///< tp, pp, dp, cp, ep, vpp, zero, schedule, ...
    int microBatch = 1; ///< sequences per micro-batch
    Recompute recompute = Recompute::Selective; ///< activation recomputation
    /// Under Recompute::Full: Megatron-Core's --recompute-method and --recompute-num-layers (uniform 1 =
    /// every layer's input checkpointed and every layer recomputed; block N = the first N layers of each
    /// pipeline chunk recomputed, the others keep their activations). Ignored otherwise.
    RecomputeMethod recomputeMethod = RecomputeMethod::Uniform;
    int recomputeNumLayers = 1;

    bool operator==(const TrainingStrategy&) const = default;

    /// Whether this is block recomputation of only some layers (recompute full, method block).
    bool blockRecompute() const { return recompute == Recompute::Full && recomputeMethod == RecomputeMethod::Block; }

    /// The strategy a scenario states (its parallelism section must be present).
    static TrainingStrategy fromScenario(const Scenario& scenario)
    {
        TrainingStrategy s;
        s.parallelism = scenario.parallelism.value_or(ParallelismSpec {});
        s.microBatch = scenario.training.microBatch;
        s.recompute = scenario.training.recompute;
        s.recomputeMethod = scenario.training.recomputeMethod;
        s.recomputeNumLayers = scenario.training.recomputeNumLayers;
        return s;
    }

    /// The inverse of fromScenario(): states this strategy in `scenario` (its parallelism section,
    /// training.micro_batch, training.recompute and, under full recomputation, its method and layers),
    /// e.g. to apply a strategy the search found.
    void applyTo(Scenario& scenario) const
    {
        scenario.parallelism = parallelism;
        scenario.training.microBatch = microBatch;
        scenario.training.recompute = recompute;
        scenario.training.recomputeMethod = recompute == Recompute::Full ? recomputeMethod : RecomputeMethod::Uniform;
        scenario.training.recomputeNumLayers = recompute == Recompute::Full ? recomputeNumLayers : 1;
    }
};

/// The recomputation as people write it: "none", "selective", "full", "full (block 5)" (Megatron-Core
/// --recompute-method block --recompute-num-layers 5), "full (uniform 4)". One text for the CLI, the
/// GUI and the reports.
std::string recomputeText(const TrainingStrategy& s);

} // namespace clusterscope::engine
