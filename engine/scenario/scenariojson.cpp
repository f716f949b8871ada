#include "engine/scenario/scenariojson.h"

#include "engine/core/atomicfile.h"
#include "engine/core/jsonfields.h"
#include "engine/scenario/scenariovalidator.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace clusterscope::engine {

namespace {

    using nlohmann::json;

    template <typename Enum, std::size_t N>
    Enum enumFrom(const std::string& text, const std::pair<const char*, Enum> (&table)[N])
    {
        for (const auto& [name, value] : table)
            if (text == name)
                return value;
        return table[0].second; // unreachable: choice() has already checked the text
    }

    FabricSpec readFabric(JsonObjectReader r)
    {
        FabricSpec f;
        static const std::pair<const char*, FabricType> types[] = { { "fat-tree", FabricType::FatTree },
            { "leaf-spine", FabricType::LeafSpine }, { "rail-optimized", FabricType::RailOptimized },
            { "dragonfly", FabricType::Dragonfly }, { "torus", FabricType::Torus } };
        f.type
            = enumFrom(r.choice("type", { "fat-tree", "leaf-spine", "rail-optimized", "dragonfly", "torus" }), types);
        f.switchRadix = r.positiveInt("switch_radix", 64);
        f.tiers = r.boundedInt("tiers", 1, 3, 2);
        f.oversubscription = r.number("oversubscription", 1.0, 64.0, 1.0);
        f.planes = r.positiveInt("planes", 1);
        f.dualTor = r.boolean("dual_tor", false);
        // Keys that belong to one fabric type only are an error elsewhere, so a misplaced key is noticed.
        const auto onlyFor = [&r](const char* key, FabricType owner, FabricType actual) {
            if (actual != owner && r.raw(key))
                throw JsonFieldError(r.pointerOf(key),
                    std::string("\"") + key + "\" only applies to fabric type \"" + toString(owner) + "\"");
        };
        if (f.type == FabricType::Dragonfly) {
            f.dragonflyP = r.positiveInt("p");
            f.dragonflyA = r.positiveInt("a");
            f.dragonflyH = r.positiveInt("h");
        } else {
            onlyFor("p", FabricType::Dragonfly, f.type);
            onlyFor("a", FabricType::Dragonfly, f.type);
            onlyFor("h", FabricType::Dragonfly, f.type);
        }
        if (f.type == FabricType::Torus) {
            const json* dims = r.raw("dims");
            if (!dims)
                throw JsonFieldError(r.pointerOf("dims"), "a torus needs \"dims\", e.g. [4, 4, 4]");
            if (!dims->is_array() || dims->size() < 2 || dims->size() > 3)
                throw JsonFieldError(r.pointerOf("dims"),
                    "expected an array of 2 or 3 positive integers, got " + describeJsonValue(*dims));
            for (std::size_t i = 0; i < dims->size(); ++i) {
                const json& d = (*dims)[i];
                if (!d.is_number_integer() || d.get<long long>() < 1 || d.get<long long>() > 1 << 16)
                    throw JsonFieldError(r.pointerOf("dims") + "/" + std::to_string(i),
                        "expected a positive integer, got " + describeJsonValue(d));
                f.torusDims.push_back(d.get<int>());
            }
        } else {
            onlyFor("dims", FabricType::Torus, f.type);
        }
        r.finish();
        return f;
    }

    ClusterSpec readCluster(JsonObjectReader r)
    {
        ClusterSpec c;
        c.gpu = r.string("gpu");
        c.gpus = r.positiveInt("gpus");
        c.gpusPerNode = r.positiveInt("gpus_per_node", 8);
        auto nic = r.object("nic", true);
        c.nic.gbps = nic->number("gbps", 1.0, 1e5);
        c.nic.perNode = nic->positiveInt("per_node");
        c.nic.net = nic->string("net", "");
        c.nic.gpuDirectRdma = nic->boolean("gpudirect_rdma", true);
        nic->finish();
        c.transport
            = r.choice("transport", { "infiniband", "roce" }) == "infiniband" ? Transport::InfiniBand : Transport::RoCE;
        c.fabric = readFabric(*r.object("fabric", true));
        r.finish();
        return c;
    }

    /// Refuses a hybrid pattern symbol ClusterScope does not model (Megatron-Core hybrid_layer_allocation.py
    /// Symbols), at `where`; the main pattern may hold '|' pipeline separators.
    void checkHybridSymbols(const std::string& pattern, const std::string& where, bool pipes)
    {
        for (std::size_t i = 0; i < pattern.size(); ++i) {
            const char c = pattern[i];
            if (c != 'M' && c != '*' && c != '-' && c != 'E' && !(pipes && c == '|'))
                throw JsonFieldError(where,
                    "symbol '" + std::string(1, c) + "' at position " + std::to_string(i + 1)
                        + " is not modelled; expected 'M' (Mamba-2), '*' (attention), '-' (MLP) or 'E' (MoE)"
                        + (pipes ? std::string(", or '|' between pipeline segments") : std::string()));
        }
    }

    ModelSpec readModel(JsonObjectReader r)
    {
        ModelSpec m;
        m.layers = r.positiveInt("layers");
        m.hidden = r.positiveInt("hidden");
        m.heads = r.positiveInt("heads");
        m.kvHeads = r.positiveInt("kv_heads", m.heads);
        // Without ffn_hidden, GPT's MLP: 4 x hidden wide (Radford et al. 2018, "Improving Language
        // Understanding by Generative Pre-Training", section 4.1). A hidden size whose 4x does not fit
        // an int is refused rather than wrapped.
        if (!r.has("ffn_hidden") && m.hidden > std::numeric_limits<int>::max() / 4)
            throw JsonFieldError(r.pointerOf("hidden"),
                "hidden " + std::to_string(m.hidden)
                    + " is too large for the default ffn_hidden (4 x hidden); give ffn_hidden");
        m.ffnHidden = r.has("ffn_hidden") ? r.positiveInt("ffn_hidden") : 4 * m.hidden;
        m.headDim = r.boundedInt("head_dim", 0, 1 << 20, 0);
        m.slidingWindow = r.boundedInt("sliding_window", 0, 1 << 30, 0);
        m.slidingWindowFraction = r.number("sliding_window_fraction", 0.0, 1.0, m.slidingWindow > 0 ? 1.0 : 0.0);
        m.qLoraRank = r.boundedInt("q_lora_rank", 0, 1 << 20, 0);
        m.kvLoraRank = r.boundedInt("kv_lora_rank", 0, 1 << 20, 0);
        m.qkRopeHeadDim = r.boundedInt("qk_rope_head_dim", 0, 1 << 20, 0);
        m.vHeadDim = r.boundedInt("v_head_dim", 0, 1 << 20, 0);
        m.tiedEmbeddings = r.boolean("tied_embeddings", false);
        m.mtpLayers = r.boundedInt("mtp_layers", 0, 64, 0);
        m.vocab = r.positiveInt("vocab");
        m.seqLen = r.positiveInt("seq_len");
        // GPT-style models use a 4h two-matrix MLP; other FFN sizes are SwiGLU models (LLaMA, Mixtral).
        m.gatedMlp = r.boolean("gated_mlp", static_cast<long long>(m.ffnHidden) != 4LL * m.hidden);
        m.dropout = r.boolean("dropout", true);
        m.linearBias = r.boolean("linear_bias", false);
        m.qkLayerNorm = r.boolean("qk_layernorm", false);
        m.ropeFusion = r.boolean("rope_fusion", true);
        m.activationClampValue = r.number("activation_clamp_value", 0.0, 1e6, 0.0);
        if (m.activationClampValue > 0 && !m.gatedMlp)
            throw JsonFieldError(r.pointerOf("activation_clamp_value"),
                "the clamp applies to a gated activation (Megatron-Core fused_bias_geglu.py); set gated_mlp true");
        if (r.has("activation")) {
            m.activation = r.string("activation");
            if (m.activation != "swiglu" && m.activation != "gelu" && m.activation != "squared_relu")
                throw JsonFieldError(r.pointerOf("activation"),
                    "expected \"swiglu\", \"gelu\" or \"squared_relu\", got \"" + m.activation + "\"");
            if ((m.activation == "swiglu") != m.gatedMlp)
                throw JsonFieldError(r.pointerOf("activation"),
                    m.gatedMlp ? "\"" + m.activation
                            + "\" is a two-matrix MLP's activation but the MLP is gated "
                              "(gated_mlp, or ffn_hidden != 4 x hidden); set gated_mlp false"
                               : std::string("\"swiglu\" needs a gated MLP; set gated_mlp true"));
        }
        m.activationFusion = r.boolean("activation_fusion", true);
        if (!m.activationFusion && m.gatedMlp)
            throw JsonFieldError(r.pointerOf("activation_fusion"),
                "an eager gated activation (SwiGLU as separate PyTorch ops) is not modelled; eager activations are "
                "modelled for two-matrix MLPs (gelu, squared_relu)");
        if (auto moe = r.object("moe")) {
            MoeSpec s;
            s.experts = moe->positiveInt("experts");
            s.topK = moe->positiveInt("top_k");
            s.expertFfnHidden = moe->positiveInt("expert_ffn_hidden", m.ffnHidden);
            s.sharedExperts = moe->boundedInt("shared_experts", 0, 1 << 16, 0);
            s.sharedExpertFfnHidden = moe->boundedInt("shared_expert_ffn_hidden", 0, 1 << 24, 0);
            s.denseLayers = moe->boundedInt("dense_layers", 0, 1 << 20, 0);
            s.latentSize = moe->boundedInt("latent_size", 0, 1 << 24, 0);
            s.capacityFactor = moe->number("capacity_factor", 0.0, 1e3, 0.0);
            s.loadImbalance = moe->number("load_imbalance", 1.0, 1e3, 1.1);
            if (moe->has("dispatcher")) {
                s.dispatcher = moe->string("dispatcher");
                if (s.dispatcher == "allgather")
                    throw JsonFieldError(moe->pointerOf("dispatcher"),
                        "the allgather dispatcher is not modelled by ClusterScope; expected \"alltoall\", \"flex\" "
                        "or \"hybridep\"");
                if (s.dispatcher != "alltoall" && s.dispatcher != "flex" && s.dispatcher != "hybridep")
                    throw JsonFieldError(moe->pointerOf("dispatcher"),
                        "expected \"alltoall\", \"flex\" or \"hybridep\", got \"" + s.dispatcher + "\"");
            }
            moe->finish();
            if (s.denseLayers >= m.layers)
                throw JsonFieldError(moe->pointerOf("dense_layers"),
                    "dense_layers (" + std::to_string(s.denseLayers) + ") must leave at least one MoE layer of the "
                        + std::to_string(m.layers));
            if (s.topK > s.experts)
                throw JsonFieldError(moe->pointerOf("top_k"),
                    "top_k (" + std::to_string(s.topK) + ") cannot exceed experts (" + std::to_string(s.experts) + ")");
            m.moe = s;
        }
        if (r.has("hybrid_pattern")) {
            m.hybridPattern = r.string("hybrid_pattern");
            const std::string where = r.pointerOf("hybrid_pattern");
            if (const auto slash = m.hybridPattern.find('/'); slash != std::string::npos) {
                // Megatron-Core's unified pattern "<main>/<mtp>/<mtp>..." (models/hybrid/
                // hybrid_layer_allocation.py parse_hybrid_pattern): one identical MTP pattern per depth.
                std::vector<std::string> depths;
                for (std::size_t from = slash + 1;;) {
                    const auto next = m.hybridPattern.find('/', from);
                    depths.push_back(m.hybridPattern.substr(from, next == std::string::npos ? next : next - from));
                    if (next == std::string::npos)
                        break;
                    from = next + 1;
                }
                m.hybridPattern.resize(slash);
                if (!std::all_of(depths.begin(), depths.end(), [](const std::string& d) { return d.empty(); })) {
                    for (std::size_t i = 1; i < depths.size(); ++i)
                        if (depths[i] != depths[0])
                            throw JsonFieldError(where,
                                "all MTP patterns after '/' must be identical (Megatron-Core parse_hybrid_pattern): "
                                "depth 1 "
                                "is '"
                                    + depths[0] + "', depth " + std::to_string(i + 1) + " is '" + depths[i] + "'");
                    if (r.has("mtp_pattern"))
                        throw JsonFieldError(where,
                            "the pattern's MTP part (after '/') and model.mtp_pattern both state the MTP layer; give "
                            "one");
                    const int count = static_cast<int>(depths.size());
                    if (r.has("mtp_layers") && m.mtpLayers != count)
                        throw JsonFieldError(where,
                            "the pattern has " + std::to_string(count) + " MTP depths after '/', model.mtp_layers says "
                                + std::to_string(m.mtpLayers));
                    m.mtpLayers = count;
                    m.mtpPattern = depths[0];
                }
            }
            // '|' separates pipeline segments (Megatron-Core select_pipeline_segment): not layers.
            const auto symbols = static_cast<std::size_t>(
                m.hybridPattern.size() - std::count(m.hybridPattern.begin(), m.hybridPattern.end(), '|'));
            if (symbols != static_cast<std::size_t>(m.layers))
                throw JsonFieldError(where,
                    "the pattern has " + std::to_string(symbols) + " layers, model.layers says "
                        + std::to_string(m.layers) + " (one symbol per layer)");
            checkHybridSymbols(m.hybridPattern, where, true);
            const auto has = [&](char c) { return m.hybridPattern.find(c) != std::string::npos; };
            if (has('E') != m.moe.has_value())
                throw JsonFieldError(where,
                    has('E') ? "'E' layers need model.moe" : "model.moe is given but the pattern has no 'E' layer");
            if (m.moe && m.moe->denseLayers > 0)
                throw JsonFieldError(r.pointerOf("moe") + "/dense_layers",
                    "a hybrid model's dense layers are its pattern's '-' symbols; leave dense_layers out");
            if (has('M') && !r.has("mamba"))
                throw JsonFieldError(
                    where, "'M' layers need model.mamba (an empty object takes Megatron-Core's defaults)");
        }
        if (auto mamba = r.object("mamba")) {
            if (m.hybridPattern.find('M') == std::string::npos)
                throw JsonFieldError(r.pointerOf("mamba"), "model.mamba needs 'M' layers in model.hybrid_pattern");
            MambaSpec s;
            s.headDim = mamba->boundedInt("head_dim", 1, 1 << 16, s.headDim);
            // Megatron-Core MambaMixer: d_inner = expand x hidden with expand 2 unless the heads are stated.
            s.heads = mamba->boundedInt("heads", 1, 1 << 20, std::max(1, 2 * m.hidden / s.headDim));
            s.stateDim = mamba->boundedInt("state_dim", 1, 1 << 16, s.stateDim);
            s.groups = mamba->boundedInt("groups", 1, 1 << 16, s.groups);
            s.convKernel = mamba->boundedInt("conv_kernel", 1, 1 << 10, s.convKernel);
            s.chunkSize = mamba->boundedInt("chunk_size", 1, 1 << 16, s.chunkSize);
            if (s.heads % s.groups != 0)
                throw JsonFieldError(mamba->pointerOf("groups"),
                    "heads (" + std::to_string(s.heads) + ") must be a multiple of groups (" + std::to_string(s.groups)
                        + ")");
            mamba->finish();
            m.mamba = s;
        }
        if (r.has("mtp_pattern") || !m.mtpPattern.empty()) {
            // Megatron-Core mtp_hybrid_override_pattern: the blocks of each MTP depth's layer (or the
            // hybrid pattern's part after '/').
            const std::string where = r.has("mtp_pattern") ? r.pointerOf("mtp_pattern") : r.pointerOf("hybrid_pattern");
            if (r.has("mtp_pattern"))
                m.mtpPattern = r.string("mtp_pattern");
            if (m.hybridPattern.empty())
                throw JsonFieldError(where,
                    "an MTP pattern applies to a hybrid stack (model.hybrid_pattern); a transformer's MTP layer is "
                    "one of its layers");
            if (m.mtpLayers == 0)
                throw JsonFieldError(where, "the pattern of the MTP layers needs model.mtp_layers > 0");
            if (m.mtpPattern.empty())
                throw JsonFieldError(where, "the pattern is empty; leave mtp_pattern out for one average layer");
            checkHybridSymbols(m.mtpPattern, where, false);
            if (m.mtpPattern.find('E') != std::string::npos && !m.moe)
                throw JsonFieldError(where, "'E' blocks need model.moe");
            if (m.mtpPattern.find('M') != std::string::npos && !m.mamba)
                throw JsonFieldError(where, "'M' blocks need model.mamba");
        }
        m.mtpSharedWeights = r.boolean("mtp_shared_weights", false);
        if (m.mtpSharedWeights && m.mtpLayers == 0)
            throw JsonFieldError(r.pointerOf("mtp_shared_weights"), "shared MTP weights need model.mtp_layers > 0");
        r.finish();
        return m;
    }

    TrainingSpec readTraining(JsonObjectReader r)
    {
        TrainingSpec t;
        t.globalBatch = r.positiveInt("global_batch");
        t.microBatch = r.positiveInt("micro_batch", 1);
        t.dtype = *dtypeFromString(r.choice("dtype", { "bf16", "fp16", "fp8", "mxfp8", "nvfp4" }, "bf16"));
        static const std::pair<const char*, Recompute> recomputes[]
            = { { "none", Recompute::None }, { "selective", Recompute::Selective }, { "full", Recompute::Full } };
        t.recompute = enumFrom(r.choice("recompute", { "none", "selective", "full" }, "selective"), recomputes);
        // Megatron-Core --recompute-method / --recompute-num-layers, which it takes under
        // --recompute-granularity full only (transformer_config.py: "recompute_num_layers must be None"
        // for selective).
        for (const char* key : { "recompute_method", "recompute_num_layers" })
            if (r.has(key) && t.recompute != Recompute::Full)
                throw JsonFieldError(r.pointerOf(key),
                    std::string(key) + " applies to recompute \"full\" (Megatron-Core --recompute-granularity full), "
                        + "the scenario has \"" + toString(t.recompute) + "\"");
        t.recomputeMethod = r.choice("recompute_method", { "uniform", "block" }, "uniform") == "block"
            ? RecomputeMethod::Block
            : RecomputeMethod::Uniform;
        t.recomputeNumLayers = r.boundedInt("recompute_num_layers", 1, 1 << 20, 1);
        t.tokens = r.number("tokens", 0.0, 1e18, 0.0);
        t.gpuHourUsd = r.number("gpu_hour_usd", 0.0, 1e6, 0.0);
        t.activationOffloadLayers = r.boundedInt("activation_offload_layers", 0, 100000, 0);
        t.fp8ParamGather = r.boolean("fp8_param_gather", false);
        t.fp4ParamGather = r.boolean("fp4_param_gather", false);
        t.muon = r.choice("optimizer", { "adam", "muon" }, "adam") == "muon";
        t.bf16LayersAtStart = r.boundedInt("bf16_layers_at_start", 0, 1 << 20, 0);
        t.bf16LayersAtEnd = r.boundedInt("bf16_layers_at_end", 0, 1 << 20, 0);
        if ((t.bf16LayersAtStart > 0 || t.bf16LayersAtEnd > 0) && !isQuantized(t.dtype))
            throw JsonFieldError(r.pointerOf(t.bf16LayersAtStart > 0 ? "bf16_layers_at_start" : "bf16_layers_at_end"),
                std::string("BF16 layers apply to a quantized dtype (fp8, mxfp8, nvfp4); the scenario trains in ")
                    + toString(t.dtype));
        if (auto modules = r.object("module_dtypes")) {
            if (!isQuantized(t.dtype))
                throw JsonFieldError(r.pointerOf("module_dtypes"),
                    std::string("module precisions apply to a quantized dtype (fp8, mxfp8, nvfp4); the scenario "
                                "trains in ")
                        + toString(t.dtype));
            for (const auto& [key, dtype] : TrainingSpec::ModuleDtypes::kKeys)
                if (modules->has(key))
                    t.moduleDtypes.*dtype = *dtypeFromString(modules->choice(key, { "bf16", "fp8", "mxfp8", "nvfp4" }));
            modules->finish();
        }
        t.bf16Mtp = r.boolean("bf16_mtp", false);
        if (t.bf16Mtp && !isQuantized(t.dtype))
            throw JsonFieldError(r.pointerOf("bf16_mtp"),
                std::string("BF16 MTP modules apply to a quantized dtype (fp8, mxfp8, nvfp4); the scenario trains in ")
                    + toString(t.dtype));
        if (const json* scope = r.raw("cuda_graph_scope")) {
            // Megatron-Core --cuda-graph-scope (megatron/core/transformer/cuda_graphs.py).
            if (!scope->is_array())
                throw JsonFieldError(r.pointerOf("cuda_graph_scope"),
                    "expected a list of \"attn\", \"mamba\", \"moe_router\", \"moe_preprocess\", \"full_layer\", got "
                        + describeJsonValue(*scope));
            static const std::pair<const char*, unsigned> scopes[] = { { "attn", CudaGraphAttention },
                { "moe_router", CudaGraphMoeRouter }, { "moe_preprocess", CudaGraphMoePreprocess },
                { "full_layer", CudaGraphFullLayer }, { "mamba", CudaGraphMamba } };
            for (std::size_t i = 0; i < scope->size(); ++i) {
                const json& item = (*scope)[i];
                unsigned bit = 0;
                if (item.is_string())
                    for (const auto& [name, value] : scopes)
                        if (item.get<std::string>() == name)
                            bit = value;
                if (bit == 0)
                    throw JsonFieldError(r.pointerOf("cuda_graph_scope") + "/" + std::to_string(i),
                        "expected \"attn\", \"mamba\", \"moe_router\", \"moe_preprocess\" or \"full_layer\", got "
                            + describeJsonValue(item));
                t.cudaGraphScope |= bit;
            }
        }
        if (const json* modules = r.raw("recompute_modules")) {
            // Megatron-Core --recompute-modules (transformer_config.py); the modules ClusterScope
            // models. Megatron-Core recomputes them only under --recompute-granularity selective.
            static const std::pair<const char*, unsigned> names[] = { { "core_attn", RecomputeCoreAttention },
                { "layernorm", RecomputeLayerNorm }, { "moe_act", RecomputeMoeAct },
                { "mla_up_proj", RecomputeMlaUpProj }, { "mlp", RecomputeMlp }, { "moe", RecomputeMoe } };
            if (!modules->is_array() || modules->empty())
                throw JsonFieldError(r.pointerOf("recompute_modules"),
                    "expected a non-empty list of \"core_attn\", \"layernorm\", \"moe_act\", \"mla_up_proj\", \"mlp\", "
                    "\"moe\", got "
                        + describeJsonValue(*modules));
            if (t.recompute != Recompute::Selective)
                throw JsonFieldError(r.pointerOf("recompute_modules"),
                    "modules are recomputed only under recompute \"selective\" (Megatron-Core "
                    "recompute_granularity), the scenario has \""
                        + std::string(toString(t.recompute)) + "\"");
            for (std::size_t i = 0; i < modules->size(); ++i) {
                const json& item = (*modules)[i];
                unsigned bit = 0;
                if (item.is_string())
                    for (const auto& [name, value] : names)
                        if (item.get<std::string>() == name)
                            bit = value;
                if (bit == 0) {
                    const bool other = item.is_string() && item.get<std::string>() == "shared_experts";
                    throw JsonFieldError(r.pointerOf("recompute_modules") + "/" + std::to_string(i),
                        (other ? "Megatron-Core module " + describeJsonValue(item)
                                    + " is not modelled by ClusterScope; "
                               : std::string())
                            + "expected \"core_attn\", \"layernorm\", \"moe_act\", \"mla_up_proj\", \"mlp\" or "
                              "\"moe\", got "
                            + describeJsonValue(item));
                }
                t.recomputeModules |= bit;
            }
        }
        r.finish();
        return t;
    }

    ParallelismSpec readParallelism(JsonObjectReader r)
    {
        ParallelismSpec p;
        p.tp = r.positiveInt("tp", 1);
        p.pp = r.positiveInt("pp", 1);
        p.dp = r.positiveInt("dp", 1);
        p.cp = r.positiveInt("cp", 1);
        p.ep = r.positiveInt("ep", 1);
        p.etp = r.positiveInt("etp", 0);
        p.vpp = r.positiveInt("vpp", 1);
        p.zero = r.boundedInt("zero", 0, 3, 0); // a ZeRO stage
        p.sequenceParallel = r.boolean("sequence_parallel", false);
        static const std::pair<const char*, PipelineSchedule> schedules[] = { { "1f1b", PipelineSchedule::OneFOneB },
            { "gpipe", PipelineSchedule::GPipe }, { "interleaved", PipelineSchedule::Interleaved } };
        p.schedule = enumFrom(
            r.choice("pipeline_schedule", { "1f1b", "gpipe", "interleaved" }, p.vpp > 1 ? "interleaved" : "1f1b"),
            schedules);
        p.cpKind = r.choice("cp_kind", { "ring", "ulysses" }, "ring") == "ring" ? ContextParallelKind::Ring
                                                                                : ContextParallelKind::Ulysses;
        p.placementOrder = r.string("placement_order", "tp-cp-dp-pp");
        p.firstStageLayers = r.boundedInt("first_stage_layers", 0, 1 << 20, 0);
        p.lastStageLayers = r.boundedInt("last_stage_layers", 0, 1 << 20, 0);
        p.vppMicrobatchGroup = r.boundedInt("vpp_microbatch_group", 0, 1 << 30, 0);
        {
            // A permutation of the four rank dimensions, innermost first (e.g. "tp-cp-dp-pp").
            std::size_t start = 0;
            std::vector<std::string> parts;
            while (start <= p.placementOrder.size()) {
                const std::size_t dash = std::min(p.placementOrder.find('-', start), p.placementOrder.size());
                parts.push_back(p.placementOrder.substr(start, dash - start));
                start = dash + 1;
            }
            std::sort(parts.begin(), parts.end());
            if (parts != std::vector<std::string> { "cp", "dp", "pp", "tp" })
                throw JsonFieldError(r.pointerOf("placement_order"),
                    "expected the dimensions tp, cp, dp and pp each once, joined by '-' (innermost first), got \""
                        + p.placementOrder + "\"");
        }
        r.finish();
        return p;
    }

    CommunicationSpec readCommunication(JsonObjectReader r)
    {
        CommunicationSpec c;
        if (auto comp = r.object("compression")) {
            static const std::pair<const char*, CompressionMethod> methods[] = { { "none", CompressionMethod::None },
                { "topk", CompressionMethod::TopK }, { "int8", CompressionMethod::Int8 },
                { "fp8", CompressionMethod::Fp8 }, { "onebit", CompressionMethod::OneBit } };
            c.compression.method
                = enumFrom(comp->choice("method", { "none", "topk", "int8", "fp8", "onebit" }), methods);
            c.compression.topkFraction = comp->number("topk_fraction", 1e-6, 1.0, 0.01);
            c.compression.errorFeedback = comp->boolean("error_feedback", true);
            c.compression.warmupFraction = comp->number("warmup_fraction", 0.0, 1.0, 0.0);
            comp->finish();
        }
        c.dpOverlap = r.boolean("dp_overlap", true);
        c.dpBucketBytes = r.number("dp_bucket_bytes", 1.0, 1e12, 25e6);
        c.tpOverlapFraction = r.number("tp_overlap_fraction", 0.0, 1.0, 0.0);
        c.algorithm = r.choice("algorithm",
            { "auto", "ring", "tree", "nvls", "nvlstree", "collnet", "pat", "hierarchical", "direct" }, "auto");
        static const std::pair<const char*, Routing> routings[]
            = { { "ecmp", Routing::Ecmp }, { "adaptive", Routing::Adaptive }, { "spray", Routing::Spray } };
        c.routing = enumFrom(r.choice("routing", { "ecmp", "adaptive", "spray" }, "ecmp"), routings);
        c.lossRate = r.number("loss_rate", 0.0, 0.5, 0.0);
        c.moeA2aOverlap = r.boolean("moe_a2a_overlap", false);
        r.finish();
        return c;
    }

    LayoutSpec readLayout(JsonObjectReader r)
    {
        LayoutSpec l;
        l.nodesPerRack = r.positiveInt("nodes_per_rack", l.nodesPerRack);
        l.racksPerRow = r.positiveInt("racks_per_row", l.racksPerRow);
        l.rackPitchMetres = r.number("rack_pitch_m", 0.1, 100.0, l.rackPitchMetres);
        l.rowPitchMetres = r.number("row_pitch_m", 0.1, 1000.0, l.rowPitchMetres);
        l.slackMetres = r.number("slack_m", 0.0, 100.0, l.slackMetres);
        r.finish();
        return l;
    }

    ComputeCalibrationSpec readComputeCalibration(JsonObjectReader r)
    {
        ComputeCalibrationSpec c;
        const auto optionalNumber = [&r](const char* key, double minimum, double maximum) -> std::optional<double> {
            if (!r.has(key))
                return std::nullopt;
            return r.number(key, minimum, maximum);
        };
        c.gemmPeakFraction = optionalNumber("gemm_peak_fraction", 1e-3, 1.0);
        c.gemmHalfDimension = optionalNumber("gemm_half_dimension", 0.0, 1e6);
        c.memoryBandwidthFraction = optionalNumber("memory_bandwidth_fraction", 1e-3, 1.0);
        if (r.has("flash_attention"))
            c.flashAttention = r.boolean("flash_attention");
        c.flashPeakFraction = optionalNumber("flash_peak_fraction", 1e-3, 1.0);
        c.overlapInterferenceFraction = optionalNumber("overlap_interference_fraction", 0.0, 1.0);
        c.gemmFixedSeconds = optionalNumber("gemm_fixed_seconds", 0.0, 1.0);
        c.attentionBackwardEfficiency = optionalNumber("attention_backward_efficiency", 1e-3, 2.0);
        c.fp8CastBytesPerElement = optionalNumber("fp8_cast_bytes_per_element", 0.0, 100.0);
        c.mxfp8CastBytesPerElement = optionalNumber("mxfp8_cast_bytes_per_element", 0.0, 100.0);
        c.nvfp4CastBytesPerElement = optionalNumber("nvfp4_cast_bytes_per_element", 0.0, 100.0);
        c.optimizerBytesPerParam = optionalNumber("optimizer_bytes_per_param", 0.0, 1000.0);
        c.kernelLaunchSeconds = optionalNumber("kernel_launch_seconds", 0.0, 1.0);
        c.hostSecondsPerKernel = optionalNumber("host_seconds_per_kernel", 0.0, 1.0);
        c.groupedGemmStreams = optionalNumber("grouped_gemm_streams", 1.0, 1024.0);
        c.libraryHostSecondsPerLaunch = optionalNumber("library_host_seconds_per_launch", 0.0, 1.0);
        c.moeSyncSeconds = optionalNumber("moe_sync_seconds", 0.0, 1.0);
        c.moeExpertHostSecondsForward = optionalNumber("moe_expert_host_seconds_forward", 0.0, 1.0);
        c.moeExpertHostSecondsBackward = optionalNumber("moe_expert_host_seconds_backward", 0.0, 1.0);
        c.groupedLinearCallHostSeconds = optionalNumber("grouped_linear_call_host_seconds", 0.0, 1.0);
        c.moeA2aOverlapHostSeconds = optionalNumber("moe_a2a_overlap_host_seconds", 0.0, 1.0);
        c.graphLaunchHostSeconds = optionalNumber("graph_launch_host_seconds", 0.0, 1.0);
        c.hostJitterFraction = optionalNumber("host_jitter_fraction", 0.0, 1.0);
        c.sustainedClockFraction = optionalNumber("sustained_clock_fraction", 1e-3, 1.0);
        c.cudaContextBytes = optionalNumber("cuda_context_bytes", 0.0, 1e12);
        c.ncclBufferBytes = optionalNumber("nccl_buffer_bytes", 0.0, 1e12);
        c.allocatorReserveFraction = optionalNumber("allocator_reserve_fraction", 0.0, 1.0);
        c.calibratedFrom = r.string("calibrated_from", "");
        r.finish();
        return c;
    }

    json computeCalibrationObject(const ComputeCalibrationSpec& c)
    {
        json compute = json::object();
        if (c.gemmPeakFraction)
            compute["gemm_peak_fraction"] = *c.gemmPeakFraction;
        if (c.gemmHalfDimension)
            compute["gemm_half_dimension"] = *c.gemmHalfDimension;
        if (c.memoryBandwidthFraction)
            compute["memory_bandwidth_fraction"] = *c.memoryBandwidthFraction;
        if (c.flashAttention)
            compute["flash_attention"] = *c.flashAttention;
        if (c.flashPeakFraction)
            compute["flash_peak_fraction"] = *c.flashPeakFraction;
        if (c.overlapInterferenceFraction)
            compute["overlap_interference_fraction"] = *c.overlapInterferenceFraction;
        const std::pair<const char*, const std::optional<double>*> more[] = {
            { "gemm_fixed_seconds", &c.gemmFixedSeconds },
            { "attention_backward_efficiency", &c.attentionBackwardEfficiency },
            { "fp8_cast_bytes_per_element", &c.fp8CastBytesPerElement },
            { "mxfp8_cast_bytes_per_element", &c.mxfp8CastBytesPerElement },
            { "nvfp4_cast_bytes_per_element", &c.nvfp4CastBytesPerElement },
            { "optimizer_bytes_per_param", &c.optimizerBytesPerParam },
            { "kernel_launch_seconds", &c.kernelLaunchSeconds }, { "host_seconds_per_kernel", &c.hostSecondsPerKernel },
            { "grouped_gemm_streams", &c.groupedGemmStreams },
            { "library_host_seconds_per_launch", &c.libraryHostSecondsPerLaunch },
            { "moe_sync_seconds", &c.moeSyncSeconds },
            { "moe_expert_host_seconds_forward", &c.moeExpertHostSecondsForward },
            { "moe_expert_host_seconds_backward", &c.moeExpertHostSecondsBackward },
            { "grouped_linear_call_host_seconds", &c.groupedLinearCallHostSeconds },
            { "moe_a2a_overlap_host_seconds", &c.moeA2aOverlapHostSeconds },
            { "graph_launch_host_seconds", &c.graphLaunchHostSeconds },
            { "host_jitter_fraction", &c.hostJitterFraction },
            { "sustained_clock_fraction", &c.sustainedClockFraction }, { "cuda_context_bytes", &c.cudaContextBytes },
            { "nccl_buffer_bytes", &c.ncclBufferBytes }, { "allocator_reserve_fraction", &c.allocatorReserveFraction }
        };
        for (const auto& [key, value] : more)
            if (*value)
                compute[key] = **value;
        if (!c.calibratedFrom.empty())
            compute["calibrated_from"] = c.calibratedFrom;
        return compute;
    }

    Scenario readScenario(const json& root)
    {
        JsonObjectReader r(root, "");
        const std::string format = r.string("format");
        if (format != "clusterscope-scenario")
            throw JsonFieldError("/format", "expected \"clusterscope-scenario\", got \"" + format + "\"");
        const long long version = r.integer("version", 1);
        if (version != 1)
            throw JsonFieldError("/version",
                "this ClusterScope reads scenario version 1, the file has version " + std::to_string(version));
        Scenario s;
        s.name = r.string("name");
        s.cluster = readCluster(*r.object("cluster", true));
        s.model = readModel(*r.object("model", true));
        s.training = readTraining(*r.object("training", true));
        if (auto graphs = cudaGraphScopeIssue(s.model, s.training))
            throw JsonFieldError(graphs->pointer, graphs->message);
        if (auto p = r.object("parallelism"))
            s.parallelism = readParallelism(*p);
        if (auto c = r.object("communication"))
            s.communication = readCommunication(*c);
        if (auto l = r.object("layout"))
            s.layout = readLayout(*l);
        if (auto cal = r.object("calibration")) {
            if (auto compute = cal->object("compute"))
                s.computeCalibration = readComputeCalibration(*compute);
            cal->finish();
        }
        r.finish();
        return s;
    }

} // namespace

Result<Scenario> parseScenarioJson(std::string_view text, std::string_view fileName)
{
    const std::string file(fileName);
    auto root = parseJsonText(text, file);
    if (!root)
        return root.status();
    return guardJsonRead(file, [&]() -> Result<Scenario> { return readScenario(*root); });
}

Result<Scenario> loadScenarioFile(const std::string& path)
{
    auto text = readWholeFile(path);
    if (!text)
        return text.status();
    return parseScenarioJson(*text, path);
}

std::string scenarioToJson(const Scenario& s)
{
    json fabric = { { "type", toString(s.cluster.fabric.type) }, { "switch_radix", s.cluster.fabric.switchRadix },
        { "tiers", s.cluster.fabric.tiers }, { "oversubscription", s.cluster.fabric.oversubscription } };
    if (s.cluster.fabric.planes != 1)
        fabric["planes"] = s.cluster.fabric.planes;
    if (s.cluster.fabric.dualTor)
        fabric["dual_tor"] = true;
    if (s.cluster.fabric.type == FabricType::Dragonfly) {
        fabric["p"] = s.cluster.fabric.dragonflyP;
        fabric["a"] = s.cluster.fabric.dragonflyA;
        fabric["h"] = s.cluster.fabric.dragonflyH;
    }
    if (!s.cluster.fabric.torusDims.empty())
        fabric["dims"] = s.cluster.fabric.torusDims;
    json root = { { "format", "clusterscope-scenario" }, { "version", 1 }, { "name", s.name } };
    root["cluster"]
        = { { "gpu", s.cluster.gpu }, { "gpus", s.cluster.gpus }, { "gpus_per_node", s.cluster.gpusPerNode },
              { "nic", { { "gbps", s.cluster.nic.gbps }, { "per_node", s.cluster.nic.perNode } } },
              { "transport", toString(s.cluster.transport) }, { "fabric", fabric } };
    if (!s.cluster.nic.net.empty())
        root["cluster"]["nic"]["net"] = s.cluster.nic.net;
    if (!s.cluster.nic.gpuDirectRdma)
        root["cluster"]["nic"]["gpudirect_rdma"] = false;
    const ModelSpec& m = s.model;
    root["model"] = { { "layers", m.layers }, { "hidden", m.hidden }, { "heads", m.heads }, { "kv_heads", m.kvHeads },
        { "ffn_hidden", m.ffnHidden }, { "vocab", m.vocab }, { "seq_len", m.seqLen }, { "moe", nullptr } };
    if (m.gatedMlp != (static_cast<long long>(m.ffnHidden) != 4LL * m.hidden))
        root["model"]["gated_mlp"] = m.gatedMlp;
    if (!m.dropout)
        root["model"]["dropout"] = false;
    if (m.headDim > 0)
        root["model"]["head_dim"] = m.headDim;
    if (m.slidingWindow > 0) {
        root["model"]["sliding_window"] = m.slidingWindow;
        root["model"]["sliding_window_fraction"] = m.slidingWindowFraction;
    }
    const std::pair<const char*, int> mla[] = { { "q_lora_rank", m.qLoraRank }, { "kv_lora_rank", m.kvLoraRank },
        { "qk_rope_head_dim", m.qkRopeHeadDim }, { "v_head_dim", m.vHeadDim } };
    for (const auto& [key, value] : mla)
        if (value > 0)
            root["model"][key] = value;
    if (m.tiedEmbeddings)
        root["model"]["tied_embeddings"] = true;
    if (m.mtpLayers > 0)
        root["model"]["mtp_layers"] = m.mtpLayers;
    if (m.linearBias)
        root["model"]["linear_bias"] = true;
    if (m.qkLayerNorm)
        root["model"]["qk_layernorm"] = true;
    if (!m.ropeFusion)
        root["model"]["rope_fusion"] = false;
    if (m.activationClampValue > 0)
        root["model"]["activation_clamp_value"] = m.activationClampValue;
    if (!m.activation.empty())
        root["model"]["activation"] = m.activation;
    if (!m.activationFusion)
        root["model"]["activation_fusion"] = false;
    if (!m.hybridPattern.empty())
        root["model"]["hybrid_pattern"] = m.hybridPattern;
    if (!m.mtpPattern.empty())
        root["model"]["mtp_pattern"] = m.mtpPattern;
    if (m.mtpSharedWeights)
        root["model"]["mtp_shared_weights"] = true;
    if (m.mamba)
        root["model"]["mamba"] = { { "heads", m.mamba->heads }, { "head_dim", m.mamba->headDim },
            { "state_dim", m.mamba->stateDim }, { "groups", m.mamba->groups }, { "conv_kernel", m.mamba->convKernel },
            { "chunk_size", m.mamba->chunkSize } };
    if (m.moe) {
        root["model"]["moe"] = { { "experts", m.moe->experts }, { "top_k", m.moe->topK },
            { "expert_ffn_hidden", m.moe->expertFfnHidden } };
        const MoeSpec& e = *m.moe;
        if (e.sharedExperts > 0)
            root["model"]["moe"]["shared_experts"] = e.sharedExperts;
        if (e.sharedExpertFfnHidden > 0)
            root["model"]["moe"]["shared_expert_ffn_hidden"] = e.sharedExpertFfnHidden;
        if (e.denseLayers > 0)
            root["model"]["moe"]["dense_layers"] = e.denseLayers;
        if (e.latentSize > 0)
            root["model"]["moe"]["latent_size"] = e.latentSize;
        if (e.capacityFactor > 0)
            root["model"]["moe"]["capacity_factor"] = e.capacityFactor;
        if (e.loadImbalance != 1.1)
            root["model"]["moe"]["load_imbalance"] = e.loadImbalance;
        if (e.dispatcher != "alltoall")
            root["model"]["moe"]["dispatcher"] = e.dispatcher;
    }
    root["training"] = { { "global_batch", s.training.globalBatch }, { "micro_batch", s.training.microBatch },
        { "dtype", toString(s.training.dtype) }, { "recompute", toString(s.training.recompute) },
        { "tokens", s.training.tokens } };
    // Written only under recompute "full" (the reader refuses them otherwise) and when not the default.
    if (s.training.recompute == Recompute::Full && s.training.recomputeMethod == RecomputeMethod::Block)
        root["training"]["recompute_method"] = "block";
    if (s.training.recompute == Recompute::Full
        && (s.training.recomputeNumLayers != 1 || s.training.recomputeMethod == RecomputeMethod::Block))
        root["training"]["recompute_num_layers"] = s.training.recomputeNumLayers;
    if (s.training.gpuHourUsd > 0)
        root["training"]["gpu_hour_usd"] = s.training.gpuHourUsd;
    if (s.training.activationOffloadLayers > 0)
        root["training"]["activation_offload_layers"] = s.training.activationOffloadLayers;
    if (s.training.fp8ParamGather)
        root["training"]["fp8_param_gather"] = true;
    if (s.training.fp4ParamGather)
        root["training"]["fp4_param_gather"] = true;
    if (s.training.muon)
        root["training"]["optimizer"] = "muon";
    // BF16 layers apply to quantized dtypes only (the reader refuses them otherwise): a scenario edited
    // to bf16 or fp16 is written without them, so that what is saved always loads.
    if (isQuantized(s.training.dtype)) {
        if (s.training.bf16LayersAtStart > 0)
            root["training"]["bf16_layers_at_start"] = s.training.bf16LayersAtStart;
        if (s.training.bf16LayersAtEnd > 0)
            root["training"]["bf16_layers_at_end"] = s.training.bf16LayersAtEnd;
        if (s.training.bf16Mtp)
            root["training"]["bf16_mtp"] = true;
        for (const auto& [key, dtype] : TrainingSpec::ModuleDtypes::kKeys)
            if (const auto& stated = s.training.moduleDtypes.*dtype)
                root["training"]["module_dtypes"][key] = toString(*stated);
    }
    if (s.training.cudaGraphScope != CudaGraphNone) {
        json scope = json::array();
        const std::pair<const char*, unsigned> scopes[] = { { "attn", CudaGraphAttention },
            { "moe_router", CudaGraphMoeRouter }, { "moe_preprocess", CudaGraphMoePreprocess },
            { "full_layer", CudaGraphFullLayer }, { "mamba", CudaGraphMamba } };
        for (const auto& [name, bit] : scopes)
            if (s.training.cudaGraphScope & bit)
                scope.push_back(name);
        root["training"]["cuda_graph_scope"] = scope;
    }
    // The modules apply under selective recomputation only (and the reader refuses them otherwise):
    // a scenario edited from selective to none or full (editor, applied strategy) is written without
    // them, so that what is saved always loads.
    if (s.training.recomputeModules != RecomputeModulesDefault && s.training.recompute == Recompute::Selective) {
        json modules = json::array();
        const std::pair<const char*, unsigned> names[] = { { "core_attn", RecomputeCoreAttention },
            { "layernorm", RecomputeLayerNorm }, { "moe_act", RecomputeMoeAct }, { "mla_up_proj", RecomputeMlaUpProj },
            { "mlp", RecomputeMlp }, { "moe", RecomputeMoe } };
        for (const auto& [name, bit] : names)
            if (s.training.recomputeModules & bit)
                modules.push_back(name);
        root["training"]["recompute_modules"] = modules;
    }
    if (s.parallelism) {
        const ParallelismSpec& p = *s.parallelism;
        root["parallelism"] = { { "tp", p.tp }, { "pp", p.pp }, { "dp", p.dp }, { "cp", p.cp }, { "ep", p.ep },
            { "vpp", p.vpp }, { "zero", p.zero }, { "sequence_parallel", p.sequenceParallel },
            { "pipeline_schedule", toString(p.schedule) }, { "cp_kind", toString(p.cpKind) } };
        if (p.placementOrder != "tp-cp-dp-pp")
            root["parallelism"]["placement_order"] = p.placementOrder;
        if (p.etp > 0)
            root["parallelism"]["etp"] = p.etp;
        if (p.firstStageLayers > 0)
            root["parallelism"]["first_stage_layers"] = p.firstStageLayers;
        if (p.lastStageLayers > 0)
            root["parallelism"]["last_stage_layers"] = p.lastStageLayers;
        if (p.vppMicrobatchGroup > 0)
            root["parallelism"]["vpp_microbatch_group"] = p.vppMicrobatchGroup;
    }
    if (s.communication != CommunicationSpec {}) {
        const CommunicationSpec& c = s.communication;
        root["communication"]
            = { { "compression",
                    { { "method", toString(c.compression.method) }, { "topk_fraction", c.compression.topkFraction },
                        { "error_feedback", c.compression.errorFeedback },
                        { "warmup_fraction", c.compression.warmupFraction } } },
                  { "dp_overlap", c.dpOverlap }, { "dp_bucket_bytes", c.dpBucketBytes },
                  { "tp_overlap_fraction", c.tpOverlapFraction }, { "algorithm", c.algorithm },
                  { "routing", toString(c.routing) }, { "loss_rate", c.lossRate } };
        if (c.moeA2aOverlap)
            root["communication"]["moe_a2a_overlap"] = true;
    }
    if (s.layout) {
        const LayoutSpec& l = *s.layout;
        root["layout"] = { { "nodes_per_rack", l.nodesPerRack }, { "racks_per_row", l.racksPerRow },
            { "rack_pitch_m", l.rackPitchMetres }, { "row_pitch_m", l.rowPitchMetres }, { "slack_m", l.slackMetres } };
    }
    if (s.computeCalibration != ComputeCalibrationSpec {})
        root["calibration"] = { { "compute", computeCalibrationObject(s.computeCalibration) } };
    return root.dump(2) + "\n";
}

std::string computeCalibrationToJson(const ComputeCalibrationSpec& calibration)
{
    const json doc = { { "format", "clusterscope-compute-calibration" }, { "version", 1 },
        { "compute", computeCalibrationObject(calibration) } };
    return doc.dump(2) + "\n";
}

Result<ComputeCalibrationSpec> parseComputeCalibrationJson(std::string_view text, std::string_view origin)
{
    json root;
    try {
        root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        return Status::error(std::string(origin) + ": byte " + std::to_string(e.byte) + ": not valid JSON");
    }
    try {
        JsonObjectReader r(root, "");
        if (r.string("format") != "clusterscope-compute-calibration")
            throw JsonFieldError("/format", "expected \"clusterscope-compute-calibration\"");
        if (r.integer("version", 1) != 1)
            throw JsonFieldError("/version", "this ClusterScope reads version 1");
        ComputeCalibrationSpec c = readComputeCalibration(*r.object("compute", true));
        r.finish();
        return c;
    } catch (const JsonFieldError& e) {
        return Status::error(std::string(origin) + ": " + e.pointer + ": " + e.what());
    }
}

Status saveScenarioFile(const Scenario& scenario, const std::string& path)
{
    return writeFileAtomically(path, scenarioToJson(scenario));
}

} // namespace clusterscope::engine
