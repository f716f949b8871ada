#include "engine/scenario/scenariovalidator.h"

#include "engine/catalog/catalog.h"
#include "engine/scenario/pipelinesplit.h"
#include "engine/scenario/scenario.h"

namespace clusterscope::engine {

namespace {
    std::string str(long long v) { return std::to_string(v); }
}

std::optional<ValidationIssue> primaryWeightsIssue(const TrainingSpec& t)
{
    if (t.fp8ParamGather && !isFp8(t.dtype))
        return ValidationIssue { "/training/fp8_param_gather",
            std::string("fp8 primary weights need training.dtype fp8 or mxfp8, not ") + toString(t.dtype) };
    if (t.fp4ParamGather && t.dtype != DType::NVFP4)
        return ValidationIssue { "/training/fp4_param_gather",
            std::string("NVFP4 primary weights need training.dtype nvfp4, not ") + toString(t.dtype) };
    return std::nullopt;
}

std::optional<ValidationIssue> cudaGraphScopeIssue(const ModelSpec& m, const TrainingSpec& t)
{
    if ((t.cudaGraphScope & CudaGraphFullLayer) && m.moe && m.moe->capacityFactor <= 0)
        return ValidationIssue { "/training/cuda_graph_scope",
            "\"full_layer\" needs static shapes: set model.moe.capacity_factor > 0 (token drop with padding), or "
            "graph only \"attn\", \"moe_router\" and \"moe_preprocess\" with dropless routing" };
    return std::nullopt;
}

std::vector<ValidationIssue> findScenarioIssues(const Scenario& s, const Catalog& catalog)
{
    std::vector<ValidationIssue> issues;
    const auto add = [&issues](std::string pointer, std::string message) {
        issues.push_back({ std::move(pointer), std::move(message) });
    };
    const ClusterSpec& c = s.cluster;
    if (!catalog.findGpu(c.gpu)) {
        std::string known;
        for (const auto& g : catalog.gpus())
            known += (known.empty() ? "" : ", ") + g.id;
        add("/cluster/gpu", "unknown GPU \"" + c.gpu + "\" (catalog has: " + known + ")");
    }
    if (!c.nic.net.empty()) {
        const NetTransportModel* net = catalog.findNetTransport(c.nic.net);
        if (!net) {
            std::string known;
            for (const auto& t : catalog.netTransports())
                known += (known.empty() ? "" : ", ") + t.id;
            add("/cluster/nic/net", "unknown net transport \"" + c.nic.net + "\" (catalog has: " + known + ")");
        } else if (net->fabric != "any" && net->fabric != toString(c.transport)) {
            add("/cluster/nic/net",
                net->id + " runs on " + net->fabric + " fabrics but /cluster/transport is " + toString(c.transport));
        }
    }
    if (c.gpus % c.gpusPerNode != 0)
        add("/cluster/gpus", str(c.gpus) + " GPUs do not fill whole nodes of " + str(c.gpusPerNode));
    if (c.fabric.switchRadix < 4 || c.fabric.switchRadix % 2 != 0)
        add("/cluster/fabric/switch_radix", "expected an even radix of at least 4, got " + str(c.fabric.switchRadix));
    if (c.fabric.type == FabricType::Dragonfly) {
        const int radix = c.fabric.dragonflyP + c.fabric.dragonflyA - 1 + c.fabric.dragonflyH;
        if (radix > c.fabric.switchRadix)
            add("/cluster/fabric",
                "dragonfly p + a - 1 + h = " + str(radix) + " exceeds the switch radix " + str(c.fabric.switchRadix));
    }
    if (c.fabric.type == FabricType::Torus) {
        long long product = 1;
        for (int d : c.fabric.torusDims)
            product *= d;
        const long long nodes = c.gpus / c.gpusPerNode;
        if (product != nodes)
            add("/cluster/fabric/dims",
                "torus dims multiply to " + str(product) + " but the cluster has " + str(nodes) + " nodes");
    }

    const ModelSpec& m = s.model;
    if (m.headDim == 0 && m.hidden % m.heads != 0)
        add("/model/heads", "hidden (" + str(m.hidden) + ") is not a multiple of heads (" + str(m.heads) + ")");
    if (m.heads % m.kvHeads != 0)
        add("/model/kv_heads", "heads (" + str(m.heads) + ") is not a multiple of kv_heads (" + str(m.kvHeads) + ")");

    const TrainingSpec& t = s.training;
    if (t.globalBatch % t.microBatch != 0)
        add("/training/micro_batch",
            "global_batch (" + str(t.globalBatch) + ") is not a multiple of micro_batch (" + str(t.microBatch) + ")");
    if (isFp8(t.dtype)) {
        if (const GpuModel* g = catalog.findGpu(c.gpu); g && !g->fp8FlopsPerSecond)
            add("/training/dtype", "GPU " + c.gpu + " has no FP8 tensor cores");
        else if (g && t.dtype == DType::MXFP8 && !hasBlockScaledFp8(*g))
            add("/training/dtype", mxfp8Unsupported(*g));
    }
    if (t.dtype == DType::NVFP4)
        if (const GpuModel* g = catalog.findGpu(c.gpu); g && !hasNvfp4(*g))
            add("/training/dtype", nvfp4Unsupported(*g));
    if (auto weights = primaryWeightsIssue(t))
        issues.push_back(std::move(*weights));
    if (auto graphs = cudaGraphScopeIssue(m, t))
        issues.push_back(std::move(*graphs));
    if (t.bf16LayersAtStart + t.bf16LayersAtEnd >= m.layers)
        add(t.bf16LayersAtEnd > 0 ? "/training/bf16_layers_at_end" : "/training/bf16_layers_at_start",
            "the BF16 layers (" + str(t.bf16LayersAtStart + t.bf16LayersAtEnd) + ") must be fewer than the layers ("
                + str(m.layers) + ")");
    if (t.moduleDtypes.moeLatentProj && !(m.moe && m.moe->latentSize > 0))
        add("/training/module_dtypes/moe_latent_proj", "the model has no latent MoE (model.moe.latent_size)");
    if ((t.moduleDtypes.mambaInProj || t.moduleDtypes.mambaOutProj) && m.hybridPattern.find('M') == std::string::npos)
        add(t.moduleDtypes.mambaInProj ? "/training/module_dtypes/mamba_in_proj"
                                       : "/training/module_dtypes/mamba_out_proj",
            "the model has no Mamba-2 layers (model.hybrid_pattern 'M')");
    if (t.bf16Mtp && m.mtpLayers == 0)
        add("/training/bf16_mtp", "BF16 MTP modules need model.mtp_layers > 0");
    if (t.activationOffloadLayers >= m.layers)
        add("/training/activation_offload_layers",
            "activation_offload_layers (" + str(t.activationOffloadLayers) + ") must be fewer than the layers ("
                + str(m.layers) + ")");
    // Megatron-Core refuses --cpu-offloading with any --recompute-granularity (transformer_config.py: "CPU
    // offloading does not work when activation recomputation is enabled").
    if (t.activationOffloadLayers > 0 && t.recompute != Recompute::None)
        add("/training/activation_offload_layers",
            std::string("activation offloading runs without recomputation (Megatron-Core refuses CPU offloading with "
                        "activation recomputation); the scenario has recompute \"")
                + toString(t.recompute) + "\"");

    if (s.parallelism) {
        const ParallelismSpec& p = *s.parallelism;
        const long long product = 1LL * p.tp * p.pp * p.dp * p.cp;
        if (product != c.gpus)
            add("/parallelism",
                "tp x pp x dp x cp = " + str(product) + " does not equal cluster.gpus = " + str(c.gpus));
        if (m.heads % p.tp != 0)
            add("/parallelism/tp", "heads (" + str(m.heads) + ") are not divisible by tp (" + str(p.tp) + ")");
        PipelineSplit split;
        if (p.pp > m.layers)
            add("/parallelism/pp", "pp (" + str(p.pp) + ") exceeds the layers (" + str(m.layers) + ")");
        else if (const char* reason = splitPipelineOf(m, p, split)) {
            const std::string text = reason;
            const std::size_t colon = text.find(": ");
            add(text.substr(0, colon),
                text.substr(colon + 2) + " (layers " + str(m.layers) + ", pp " + str(p.pp) + ", first "
                    + str(p.firstStageLayers) + ", last " + str(p.lastStageLayers) + ")");
        }
        if (t.globalBatch % (1LL * p.dp * t.microBatch) != 0)
            add("/parallelism/dp",
                "global_batch (" + str(t.globalBatch) + ") is not divisible by dp x micro_batch ("
                    + str(1LL * p.dp * t.microBatch) + ")");
        if (m.seqLen % p.cp != 0)
            add("/parallelism/cp", "seq_len (" + str(m.seqLen) + ") is not divisible by cp (" + str(p.cp) + ")");
        if (const char* reason = ulyssesProblem(m, p)) {
            const std::string text = reason;
            add("/parallelism/cp",
                text.substr(text.find(": ") + 2) + " (heads " + str(m.heads) + ", kv_heads " + str(m.kvHeads) + ", tp "
                    + str(p.tp) + ", cp " + str(p.cp) + "; Transformer Engine context_parallel.py)");
        }
        if (m.mamba) {
            // Megatron-Core MambaMixer splits the heads and the B / C groups over tp (ngroups % tp == 0).
            if (m.mamba->heads % p.tp != 0 || m.mamba->groups % p.tp != 0)
                add("/parallelism/tp",
                    "the Mamba heads (" + str(m.mamba->heads) + ") and groups (" + str(m.mamba->groups)
                        + ") must be divisible by tp (" + str(p.tp) + ")");
            if (const char* reason = mambaContextParallelProblem(*m.mamba, p.tp, p.cp)) {
                const std::string text = reason;
                add("/parallelism/cp",
                    text.substr(text.find(": ") + 2) + " (heads " + str(m.mamba->heads) + ", groups "
                        + str(m.mamba->groups) + ", tp " + str(p.tp) + ", cp " + str(p.cp)
                        + "; Megatron-Core ssm/mamba_context_parallel.py)");
            }
        }
        if (p.ep > 1) {
            if (!m.moe)
                add("/parallelism/ep", "ep > 1 needs a mixture-of-experts model (model.moe)");
            else if (m.moe->experts % p.ep != 0)
                add("/parallelism/ep",
                    "experts (" + str(m.moe->experts) + ") are not divisible by ep (" + str(p.ep) + ")");
            if (p.etp == 0 && 1LL * p.dp * p.cp % p.ep != 0)
                add("/parallelism/ep",
                    "ep (" + str(p.ep) + ") must divide dp x cp (" + str(1LL * p.dp * p.cp)
                        + "); with parallelism.etp the experts fold over the tp ranks too");
        }
        if (p.etp > 0) {
            // Megatron-Core parallel_state.initialize_model_parallel: the expert ranks
            // etp x ep x expert-dp tile the tp x cp x dp ranks of each pipeline stage.
            if (p.etp != p.tp && !m.moe)
                add("/parallelism/etp", "etp different from tp needs a mixture-of-experts model (model.moe)");
            else if (1LL * p.tp * p.cp * p.dp % (1LL * p.etp * p.ep) != 0)
                add("/parallelism/etp",
                    "etp x ep (" + str(1LL * p.etp * p.ep) + ") must divide tp x cp x dp ("
                        + str(1LL * p.tp * p.cp * p.dp) + ")");
            else if (p.etp != p.tp && p.tp > 1 && !p.sequenceParallel)
                add("/parallelism/etp",
                    "etp different from tp needs sequence_parallel (Megatron-LM arguments.py: MoE with tensor "
                    "parallelism requires sequence parallelism)");
            else if (p.etp != p.tp && !p.placementOrder.ends_with("pp"))
                add("/parallelism/etp", "etp different from tp needs pp outermost in placement_order");
        }
        if (p.vpp > 1 && p.pp == 1)
            add("/parallelism/vpp", "virtual stages need pipeline parallelism (pp > 1)");
        else if (t.globalBatch % (1LL * p.dp * t.microBatch) == 0) {
            const long long microBatches = t.globalBatch / (1LL * p.dp * t.microBatch);
            if (const char* reason = interleavingProblem(p.pp, p.vpp, p.vppMicrobatchGroup, microBatches)) {
                const std::string text = reason;
                const std::size_t colon = text.find(": ");
                add(text.substr(0, colon),
                    text.substr(colon + 2) + " (pp " + str(p.pp) + ", vpp " + str(p.vpp) + ", micro-batches "
                        + str(microBatches)
                        + (p.vppMicrobatchGroup > 0 ? ", group " + str(p.vppMicrobatchGroup) : std::string()) + ")");
            }
        }
        if (p.schedule == PipelineSchedule::Interleaved && p.vpp == 1)
            add("/parallelism/pipeline_schedule", "the interleaved schedule needs vpp > 1");
    }
    return issues;
}

Status validateScenario(const Scenario& scenario, const Catalog& catalog, std::string_view fileName)
{
    const auto issues = findScenarioIssues(scenario, catalog);
    if (issues.empty())
        return Status::success();
    return Status::error(std::string(fileName) + ": " + issues.front().pointer + ": " + issues.front().message);
}

} // namespace clusterscope::engine
