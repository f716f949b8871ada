#pragma once

#include "engine/core/status.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::engine {

class Catalog;
struct Scenario;
struct ModelSpec;
struct TrainingSpec;

/// One problem found by validateScenario(): where (JSON pointer) and what.
struct ValidationIssue {
    std::string pointer;
    std::string message;
};

/// The quantized primary weights' dtype rule, one definition for the validator and the evaluator:
/// training.fp8_param_gather needs dtype fp8 or mxfp8 (Megatron-Core --fp8-param-gather), and
/// training.fp4_param_gather dtype nvfp4 (--fp4-param-gather). The first rule broken, or none.
std::optional<ValidationIssue> primaryWeightsIssue(const TrainingSpec& training);

/// The CUDA graph scope's rule, one definition for the JSON reader, the validator and the evaluator:
/// a whole-layer graph ("full_layer") needs static shapes, so an MoE model needs a capacity factor
/// (dropless layers size their all-to-alls and grouped GEMMs from token counts known only at run time:
/// Megatron-LM megatron/core/transformer/moe/README.md, "CUDA Graph"). The issue, or none.
std::optional<ValidationIssue> cudaGraphScopeIssue(const ModelSpec& model, const TrainingSpec& training);

/// Cross-field and catalog checks that the JSON reader cannot make alone: the GPU id exists,
/// GPUs fill whole nodes, parallelism sizes multiply to the GPU count and divide the model,
/// batch sizes divide evenly, fabric parameters fit the switch radix. Returns every issue found
/// (empty = valid).
std::vector<ValidationIssue> findScenarioIssues(const Scenario& scenario, const Catalog& catalog);

/// The first issue as a Status "<fileName>: <pointer>: <message>" (success if none).
Status validateScenario(const Scenario& scenario, const Catalog& catalog, std::string_view fileName);

} // namespace clusterscope::engine
