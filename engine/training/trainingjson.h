#pragma once

// JSON documents of `clusterscope-cli evaluate` and `search` (keys of the scenario contract, README.md "Scenario
// files", plus the additions listed in each function). Returned as text so that headers stay free of nlohmann.

#include <string>

namespace clusterscope::engine {

struct TrainingEstimate;
struct SearchResult;
class TrainingEvaluator;

/// Level of detail of the traffic matrix in an evaluate document.
enum class TrafficDetail { Summary, Nodes, Racks };

/// One estimate: iteration_seconds, tflops_per_gpu, hardware_tflops_per_gpu, mfu, tokens_per_second,
/// network_share (+ network_share_guideline, network_share_above_guideline), memory_bytes_per_gpu,
/// memory {weights, gradients, optimizer, activations, compression, other, capacity, out_of_memory},
/// breakdown {compute, recompute, tp_exposed, pp_exposed, dp_exposed, cp_exposed, ep_exposed, bubble,
/// optimizer, other}, communication_seconds, parallelism (scenario keys), training {micro_batch,
/// recompute, micro_batches_per_pipeline, tokens, seconds, days, cost_usd, gpu_hour_usd},
/// groups (placement per dimension) and traffic {bytes_sent_per_gpu, bytes_by_link_class, patterns,
/// and with Nodes/Racks a sparse block matrix [[src, dst, bytes], ...]}.
std::string trainingEstimateToJson(const TrainingEstimate& estimate, const TrainingEvaluator& evaluator,
    const std::string& strategySource, TrafficDetail traffic = TrafficDetail::Summary);

/// A search: candidates, valid, fitting, cancelled, ranked [estimates] and pareto [estimates]
/// (each estimate without the traffic section).
std::string searchResultToJson(const SearchResult& result, const TrainingEvaluator& evaluator);

} // namespace clusterscope::engine
