#include "engine/training/trainingjson.h"

#include "engine/scenario/pipelinesplit.h"
#include "engine/training/computecalibration.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trafficmatrix.h"
#include "engine/training/trainingevaluator.h"

#include <nlohmann/json.hpp>

namespace clusterscope::engine {

namespace {

    using nlohmann::json;

    json placementJson(const GroupPlacement& g)
    {
        return { { "ranks", g.ranks }, { "ranks_per_node", g.ranksPerNode }, { "nics_per_node", g.nicsPerNode },
            { "span_tier", g.spanTier } };
    }

    json estimateJson(const TrainingEstimate& e, const TrainingEvaluator& evaluator)
    {
        const ParallelismSpec& p = e.strategy.parallelism;
        const IterationBreakdown& b = e.breakdown;
        const MemoryBreakdown& m = e.memory;
        json j;
        j["iteration_seconds"] = e.iterationSeconds;
        j["tflops_per_gpu"] = e.tflopsPerGpu;
        j["hardware_tflops_per_gpu"] = e.hardwareTflopsPerGpu;
        j["mfu"] = e.mfu;
        j["tokens_per_second"] = e.tokensPerSecond;
        j["network_share"] = e.networkShare;
        j["network_share_guideline"] = kNetworkShareGuideline;
        j["network_share_above_guideline"] = e.networkShareAboveGuideline;
        j["memory_bytes_per_gpu"] = m.totalBytes();
        j["memory"]
            = { { "weights", m.weightsBytes }, { "gradients", m.gradientsBytes }, { "optimizer", m.optimizerBytes },
                  { "activations", m.activationsBytes }, { "compression", m.compressionBytes },
                  { "other", m.otherBytes }, { "cuda_context", m.cudaContextBytes }, { "nccl_buffers", m.ncclBytes },
                  { "allocator_reserve", m.allocatorReserveBytes }, { "capacity", m.capacityBytes },
                  { "out_of_memory", !m.fits() }, { "offloaded_activations_host", m.offloadedActivationsBytes } };
        j["activation_offload"] = { { "layers", e.offloadedLayers }, { "copy_seconds_per_layer", e.offloadCopySeconds },
            { "exposed_seconds", e.offloadExposedSeconds } };
        j["breakdown"] = { { "compute", b.compute }, { "recompute", b.recompute }, { "tp_exposed", b.tpExposed },
            { "pp_exposed", b.ppExposed }, { "dp_exposed", b.dpExposed }, { "cp_exposed", b.cpExposed },
            { "ep_exposed", b.epExposed }, { "bubble", b.bubble }, { "optimizer", b.optimizer }, { "other", b.other } };
        const std::string source = computeCalibrationSource(evaluator.scenario().computeCalibration);
        j["compute_calibration"] = { { "calibrated", !source.empty() },
            { "source",
                source.empty() ? "documented defaults and the catalog's achievable fractions (uncalibrated)"
                               : source } };
        const ComputeBreakdown& cb = e.computeBreakdown;
        j["compute_breakdown"] = { { "gemm", cb.gemm }, { "attention", cb.attention },
            { "elementwise", cb.elementwise }, { "fp8_casts", cb.fp8Casts }, { "kernel_overhead", cb.overhead },
            { "logits", cb.logits }, { "kernels", cb.kernels } };
        j["pipeline_split"] = { { "rule", e.pipelineSplitRule }, { "first_stage_layers", e.firstStageLayers },
            { "middle_stage_layers", e.middleStageLayers }, { "last_stage_layers", e.lastStageLayers } };
        const CommunicationSeconds& c = e.communication;
        j["communication_seconds"] = { { "tp", c.tp }, { "pp", c.pp }, { "dp", c.dp }, { "cp", c.cp }, { "ep", c.ep } };
        j["parallelism"] = { { "tp", p.tp }, { "pp", p.pp }, { "dp", p.dp }, { "cp", p.cp }, { "ep", p.ep },
            { "vpp", p.vpp }, { "zero", p.zero }, { "sequence_parallel", p.sequenceParallel },
            { "pipeline_schedule", toString(p.schedule) }, { "cp_kind", toString(p.cpKind) },
            { "placement_order", p.placementOrder }, { "first_stage_layers", p.firstStageLayers },
            { "last_stage_layers", p.lastStageLayers }, { "etp", p.expertTp() },
            { "vpp_microbatch_group", p.vpp > 1 ? interleavingGroup(p.pp, p.vppMicrobatchGroup) : 0 } };
        const double tokens = evaluator.scenario().training.tokens;
        j["training"] = { { "micro_batch", e.strategy.microBatch }, { "recompute", toString(e.strategy.recompute) },
            { "micro_batches_per_pipeline", e.microBatchesPerPipeline }, { "tokens", tokens },
            { "seconds", e.trainingSeconds }, { "days", e.trainingSeconds / 86400.0 },
            { "cost_usd", e.trainingCostUsd }, { "gpu_hour_usd", e.gpuHourUsd },
            { "gpu_hour_source",
                evaluator.scenario().training.gpuHourUsd > 0
                    ? "scenario training.gpu_hour_usd"
                    : "catalog GPU price over 4 years + TDP x PUE 1.3 at 0.10 USD/kWh" },
            { "cost_per_iteration_usd", e.costPerIterationUsd } };
        // Under full recomputation, Megatron-Core's method and layers (as the scenario states them).
        if (e.strategy.recompute == Recompute::Full) {
            j["training"]["recompute_method"] = toString(e.strategy.recomputeMethod);
            j["training"]["recompute_num_layers"] = e.strategy.recomputeNumLayers;
        }
        return j;
    }

} // namespace

std::string trainingEstimateToJson(const TrainingEstimate& e, const TrainingEvaluator& evaluator,
    const std::string& strategySource, TrafficDetail detail)
{
    json j = estimateJson(e, evaluator);
    j["name"] = evaluator.scenario().name;
    j["strategy_source"] = strategySource;
    const StrategyGroups g = evaluator.groups(e.strategy.parallelism);
    j["groups"] = { { "tp", placementJson(g.tp) }, { "cp", placementJson(g.cp) }, { "dp", placementJson(g.dpGrad) },
        { "ep", placementJson(g.ep) }, { "pp", placementJson(g.pipelineSends(e.strategy.parallelism.vpp)) } };

    const TrafficMatrix traffic = TrafficMatrix::fromEstimate(e, evaluator.placer());
    const CommunicationBytes& sent = e.bytesSent;
    json t;
    t["bytes_sent_per_gpu"] = { { "tp", sent.tp }, { "cp", sent.cp }, { "dp", sent.dp + sent.expertDp },
        { "ep", sent.ep }, { "pp", sent.pp } };
    json byClass = json::object();
    const auto totals = traffic.totalsByClass();
    for (int d = 0; d < kTrafficDimensions; ++d) {
        json row = json::object();
        for (int c = 0; c < kLinkClasses; ++c)
            row[linkClassName(c)] = totals[d][c];
        byClass[toString(static_cast<TrafficDimension>(d))] = row;
    }
    t["bytes_by_link_class"] = byClass;
    json patterns = json::array();
    static const char* const shapes[] = { "ring", "all_to_all", "chain", "bidirectional_ring" };
    for (const TrafficPattern& pt : traffic.patterns())
        patterns.push_back({ { "dimension", toString(pt.dimension) }, { "shape", shapes[static_cast<int>(pt.shape)] },
            { "group_size", pt.groupSize }, { "stride_gpus", pt.strideGpus }, { "bytes_per_pair", pt.bytesPerPair } });
    t["patterns"] = patterns;
    if (detail != TrafficDetail::Summary) {
        const Scenario& s = evaluator.scenario();
        const int nodesPerRack = s.layout ? s.layout->nodesPerRack : LayoutSpec {}.nodesPerRack;
        const long long perBlock
            = detail == TrafficDetail::Nodes ? s.cluster.gpusPerNode : 1LL * s.cluster.gpusPerNode * nodesPerRack;
        const BlockTraffic blocks = traffic.aggregate(perBlock);
        json cells = json::array();
        for (long long a = 0; a < blocks.blocks; ++a)
            for (long long b2 = 0; b2 < blocks.blocks; ++b2)
                if (blocks.at(a, b2) > 0)
                    cells.push_back({ a, b2, blocks.at(a, b2) });
        t[detail == TrafficDetail::Nodes ? "nodes" : "racks"]
            = { { "gpus_per_block", perBlock }, { "blocks", blocks.blocks }, { "cells", cells } };
    }
    j["traffic"] = t;
    return j.dump(2) + "\n";
}

std::string searchResultToJson(const SearchResult& r, const TrainingEvaluator& evaluator)
{
    json j;
    j["name"] = evaluator.scenario().name;
    j["candidates"] = r.candidates;
    j["valid"] = r.valid;
    j["fitting"] = r.fitting;
    j["cancelled"] = r.cancelled;
    json ranked = json::array();
    for (const TrainingEstimate& e : r.ranked)
        ranked.push_back(estimateJson(e, evaluator));
    j["ranked"] = ranked;
    json pareto = json::array();
    for (const TrainingEstimate& e : r.pareto)
        pareto.push_back(estimateJson(e, evaluator));
    j["pareto"] = pareto;
    return j.dump(2) + "\n";
}

} // namespace clusterscope::engine
