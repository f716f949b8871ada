#include "engine/training/modelvalidation.h"

#include "engine/catalog/catalog.h"
#include "engine/core/jsonfields.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace clusterscope::engine {

namespace {

    using nlohmann::json;

    /// A CSV table: the header's column names and the data rows (with their 1-based line numbers).
    struct CsvTable {
        std::vector<std::string> columns;
        std::vector<std::vector<std::string>> rows;
        std::vector<int> lines;
    };

    std::vector<std::string> splitCsvLine(const std::string& line)
    {
        std::vector<std::string> fields(1);
        bool quoted = false;
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (quoted) {
                if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                    fields.back() += '"';
                    ++i;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    fields.back() += c;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.emplace_back();
            } else if (c != '\r') {
                fields.back() += c;
            }
        }
        return fields;
    }

    Result<CsvTable> parseCsv(const std::string& text, const std::string& file)
    {
        CsvTable t;
        std::size_t start = 0;
        int lineNumber = 0;
        while (start < text.size()) {
            std::size_t end = text.find('\n', start);
            if (end == std::string::npos)
                end = text.size();
            std::string line = text.substr(start, end - start);
            start = end + 1;
            ++lineNumber;
            if (line.empty() || line[0] == '#' || line == "\r")
                continue;
            std::vector<std::string> fields = splitCsvLine(line);
            if (t.columns.empty()) {
                t.columns = std::move(fields);
                continue;
            }
            if (fields.size() != t.columns.size())
                return Status::error(file + ": line " + std::to_string(lineNumber) + ": expected "
                    + std::to_string(t.columns.size()) + " fields as in the header, got "
                    + std::to_string(fields.size()));
            t.rows.push_back(std::move(fields));
            t.lines.push_back(lineNumber);
        }
        if (t.columns.empty())
            return Status::error(file + ": no header line");
        return t;
    }

    /// Typed access to one CSV row; errors name the file, line and column.
    class CsvRow {
    public:
        CsvRow(const CsvTable& table, std::size_t index, const std::string& file, const json& fillEmpty)
            : m_table(table)
            , m_index(index)
            , m_file(file)
            , m_fill(fillEmpty)
        {
        }
        std::optional<std::string> text(const std::string& column) const
        {
            const auto it = std::find(m_table.columns.begin(), m_table.columns.end(), column);
            if (it != m_table.columns.end()) {
                const std::string& v = m_table.rows[m_index][static_cast<std::size_t>(it - m_table.columns.begin())];
                if (!v.empty())
                    return v;
            }
            if (m_fill.is_object() && m_fill.contains(column))
                return m_fill[column].is_string() ? m_fill[column].get<std::string>() : m_fill[column].dump();
            return std::nullopt;
        }
        std::optional<double> number(const std::string& column) const
        {
            const auto v = text(column);
            if (!v)
                return std::nullopt;
            char* end = nullptr;
            const double d = std::strtod(v->c_str(), &end);
            if (end == v->c_str() || *end != '\0' || !std::isfinite(d))
                throw JsonFieldError(place(column), "expected a number, got \"" + *v + "\"");
            return d;
        }
        int integer(const std::string& column, std::optional<int> fallback = std::nullopt) const
        {
            const auto d = number(column);
            if (!d) {
                if (fallback)
                    return *fallback;
                throw JsonFieldError(place(column), "a value is required");
            }
            if (*d < 1 || *d > 1e9 || std::floor(*d) != *d)
                throw JsonFieldError(place(column), "expected a positive integer");
            return static_cast<int>(*d);
        }
        std::string place(const std::string& column) const
        {
            return "line " + std::to_string(m_table.lines[m_index]) + ", column " + column;
        }

    private:
        const CsvTable& m_table;
        std::size_t m_index;
        std::string m_file;
        const json& m_fill;
    };

    struct RowOutcome {
        std::optional<TrainingEstimate> estimate;
        std::string detail;
        bool fits = true;
        std::string scenarioJson; // the scenario of `estimate`
        std::string gpu; // its catalog GPU
        bool moe = false; // its model has MoE layers
    };

    std::string strategyText(const TrainingEstimate& e)
    {
        const ParallelismSpec& p = e.strategy.parallelism;
        char buffer[160];
        std::snprintf(buffer, sizeof buffer, "tp %d pp %d vpp %d cp %d ep %d dp %d, micro-batch %d, recompute %s", p.tp,
            p.pp, p.vpp, p.cp, p.ep, p.dp, e.strategy.microBatch, recomputeText(e.strategy).c_str());
        std::string text = buffer;
        if (p.expertTp() != p.tp) // folded MoE (parallelism.etp)
            text += ", etp " + std::to_string(p.etp);
        if (e.offloadedLayers > 0)
            text += ", " + std::to_string(e.offloadedLayers) + " layers' activations offloaded";
        return text;
    }

    /// Builds the row's scenario (table defaults + the row's columns) and evaluates it. What the source
    /// does not state is chosen as a user would: the recomputation (none, selective, full) and, for
    /// pipelines, the interleaving depth (virtual stages dividing the layers per stage) that give the
    /// fastest step that fits in memory.
    RowOutcome evaluateTrainingRow(const CsvRow& row, const json& defaults, const json& aliases,
        const std::string& label, const Catalog& catalog, const ComputeEfficiencyParams& params)
    {
        const std::string gpuName = row.text("gpu").value_or("");
        const std::string gpuId = aliases.contains(gpuName) ? aliases[gpuName].get<std::string>() : gpuName;
        const int gpus = row.integer("gpus");
        const int tp = row.integer("tp", 1), pp = row.integer("pp", 1), cp = row.integer("cp", 1);
        const int layers = row.integer("layers"), hidden = row.integer("hidden");
        if (gpus % (tp * pp * cp) != 0)
            throw JsonFieldError(row.place("gpus"), "gpus are not divisible by tp x pp x cp");
        // Megatron-LM pads the vocabulary to a multiple of 128 x tp (--make-vocab-size-divisible-by 128,
        // megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding).
        const long long multiple = 128LL * tp;
        const long long vocab = (row.integer("vocab") + multiple - 1) / multiple * multiple;
        json s = { { "format", "clusterscope-scenario" }, { "version", 1 }, { "name", label } };
        s["cluster"] = { { "gpu", gpuId }, { "gpus", gpus } };
        s["model"] = { { "layers", layers }, { "hidden", hidden }, { "heads", row.integer("heads") },
            { "kv_heads", row.integer("kv_heads", row.integer("heads")) },
            { "ffn_hidden", row.integer("ffn", 4 * hidden) }, { "vocab", vocab }, { "seq_len", row.integer("seq") } };
        if (row.number("moe_experts")) {
            s["model"]["moe"] = { { "experts", row.integer("moe_experts") }, { "top_k", row.integer("moe_topk") },
                { "expert_ffn_hidden", row.integer("moe_ffn", row.integer("ffn", 4 * hidden)) } };
            // DeepSeek-style MoE: shared experts every token passes, leading dense layers.
            if (row.number("moe_shared_experts")) {
                s["model"]["moe"]["shared_experts"] = row.integer("moe_shared_experts");
                s["model"]["moe"]["shared_expert_ffn_hidden"]
                    = row.integer("moe_shared_ffn", row.integer("moe_ffn", row.integer("ffn", 4 * hidden)));
            }
            if (row.number("moe_dense_layers"))
                s["model"]["moe"]["dense_layers"] = row.integer("moe_dense_layers");
            // Latent MoE (Nemotron 3 Super): the routed experts' width.
            if (row.number("moe_latent"))
                s["model"]["moe"]["latent_size"] = row.integer("moe_latent");
        }
        // Multi-head latent attention (DeepSeek-V3) and multi-token prediction modules.
        for (const char* key : { "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim", "mtp_layers" })
            if (row.number(key))
                s["model"][key] = row.integer(key);
        // Shapes of newer models (Qwen3, GPT-OSS): head_dim apart from hidden / heads, sliding-window
        // attention on a fraction of the layers.
        if (row.number("head_dim"))
            s["model"]["head_dim"] = row.integer("head_dim");
        if (row.number("sliding_window")) {
            s["model"]["sliding_window"] = row.integer("sliding_window");
            s["model"]["sliding_window_fraction"] = *row.number("sliding_window_fraction");
        }
        // Hybrid stacks (Nemotron-H, Nemotron 3): the layer pattern (Megatron-Core hybrid_layer_pattern)
        // and the Mamba-2 mixer's dimensions; columns left empty take Megatron-Core's defaults.
        if (const auto pattern = row.text("hybrid_pattern")) {
            s["model"]["hybrid_pattern"] = *pattern;
            json mamba = json::object();
            for (const auto& [column, key] : { std::pair { "mamba_heads", "heads" }, { "mamba_head_dim", "head_dim" },
                     { "mamba_state_dim", "state_dim" }, { "mamba_groups", "groups" } })
                if (row.number(column))
                    mamba[key] = row.integer(column);
            if (pattern->find('M') != std::string::npos)
                s["model"]["mamba"] = mamba;
        }
        const int globalBatch = row.integer("global_batch"), microBatch = row.integer("micro_batch", 1);
        s["training"] = { { "global_batch", globalBatch }, { "micro_batch", microBatch },
            { "dtype", row.text("dtype").value_or("bf16") } };
        const int dp = gpus / (tp * pp * cp);
        s["parallelism"] = { { "tp", tp }, { "pp", pp }, { "cp", cp }, { "dp", dp }, { "ep", row.integer("ep", 1) },
            { "sequence_parallel", tp > 1 } };
        // A published pipeline layout that is not Megatron's default split (layers on the first / last stage).
        if (row.number("first_stage_layers"))
            s["parallelism"]["first_stage_layers"] = row.integer("first_stage_layers");
        if (row.number("last_stage_layers"))
            s["parallelism"]["last_stage_layers"] = row.integer("last_stage_layers");
        // Expert tensor parallelism where the run folded the experts over the tp ranks (etp != tp).
        if (row.number("etp"))
            s["parallelism"]["etp"] = row.integer("etp");
        // A table's MoE defaults (model.moe) apply to its MoE rows; its dense rows have no model.moe.
        if (!s["model"].contains("moe") && defaults.contains("model") && defaults["model"].contains("moe")) {
            json dense = defaults;
            dense["model"].erase("moe");
            s.merge_patch(dense);
        } else {
            s.merge_patch(defaults);
        }
        // A table that compares runs with and without sequence parallelism states it per row (0 or 1).
        if (const auto sp = row.number("sequence_parallel")) {
            if (*sp != 0.0 && *sp != 1.0)
                throw JsonFieldError(row.place("sequence_parallel"), "expected 0 or 1");
            s["parallelism"]["sequence_parallel"] = *sp == 1.0;
        }
        // The row's system where it differs from the table's (GB200 trays hold 4 GPUs and 4 NICs).
        if (row.number("gpus_per_node")) {
            s["cluster"]["gpus_per_node"] = row.integer("gpus_per_node");
            s["cluster"]["nic"]["per_node"] = row.integer("nics_per_node", row.integer("gpus_per_node"));
        }
        // Activation offloading to host memory as the recipe sets it (Megatron-Core --cpu-offloading-num-layers).
        if (row.number("activation_offload_layers"))
            s["training"]["activation_offload_layers"] = row.integer("activation_offload_layers");
        // Recipe settings of Megatron-Core / Megatron-Bridge: CUDA-graph scopes (--cuda-graph-scope, listed
        // with '+', e.g. "attn+moe_router"), the expert-parallel all-to-all overlap schedule
        // (--overlap-moe-expert-parallel-comm), token drop with padding (--moe-expert-capacity-factor),
        // dropout off (hidden_dropout = attention_dropout = 0) and fp8 primary weights (--fp8-param-gather).
        const auto plusList = [](const std::string& text) {
            json list = json::array();
            std::size_t start = 0;
            while (start <= text.size()) {
                const std::size_t plus = std::min(text.find('+', start), text.size());
                if (plus > start)
                    list.push_back(text.substr(start, plus - start));
                start = plus + 1;
            }
            return list;
        };
        if (const auto scope = row.text("cuda_graph_scope"))
            s["training"]["cuda_graph_scope"] = plusList(*scope);
        // Selective recomputation of the recipe's modules (--recompute-granularity selective
        // --recompute-modules, listed with '+', e.g. "mla_up_proj").
        const std::optional<std::string> recomputeModules = row.text("recompute_modules");
        if (recomputeModules)
            s["training"]["recompute_modules"] = plusList(*recomputeModules);
        const auto flag = [&row](const char* column) -> std::optional<bool> {
            const auto v = row.number(column);
            if (!v)
                return std::nullopt;
            if (*v != 0.0 && *v != 1.0)
                throw JsonFieldError(row.place(column), "expected 0 or 1");
            return *v == 1.0;
        };
        if (const auto on = flag("moe_a2a_overlap"))
            s["communication"]["moe_a2a_overlap"] = *on;
        if (const auto on = flag("dropout"))
            s["model"]["dropout"] = *on;
        if (const auto on = flag("fp8_param_gather"))
            s["training"]["fp8_param_gather"] = *on;
        if (const auto on = flag("fp4_param_gather"))
            s["training"]["fp4_param_gather"] = *on;
        // Layers a quantized recipe keeps in BF16 (Megatron-Core --num-layers-at-start/end-in-bf16).
        for (const char* key : { "bf16_layers_at_start", "bf16_layers_at_end" })
            if (row.number(key))
                s["training"][key] = row.integer(key);
        // The optimizer where the recipe does not use Adam ("muon": Megatron-Core's distributed Muon).
        if (const auto optimizer = row.text("optimizer"))
            s["training"]["optimizer"] = *optimizer;
        // Architecture: biases on the linear layers (add_bias_linear) and a clamped gated activation
        // (activation_func_clamp_value), as GPT-OSS has them.
        if (const auto on = flag("linear_bias"))
            s["model"]["linear_bias"] = *on;
        // A two-matrix MLP whose width is not 4 h (Nemotron's squared ReLU): gated_mlp 0.
        if (const auto on = flag("gated_mlp"))
            s["model"]["gated_mlp"] = *on;
        // Query / key normalisation (qk_layernorm), as the Qwen3 and DeepSeek-V3 providers set it.
        if (const auto on = flag("qk_layernorm"))
            s["model"]["qk_layernorm"] = *on;
        // Rotary embedding by Megatron-Core's unfused path (rope_fusion 0), as Megatron-Bridge runs
        // GPT-OSS's YaRN position embeddings.
        if (const auto on = flag("rope_fusion"))
            s["model"]["rope_fusion"] = *on;
        // The MLP's activation and whether it runs fused (activation_fusion 0: NeMo 2.x's eager squared
        // ReLU of Nemotron-4).
        if (const auto activation = row.text("activation"))
            s["model"]["activation"] = *activation;
        if (const auto on = flag("activation_fusion"))
            s["model"]["activation_fusion"] = *on;
        if (const auto clamp = row.number("activation_clamp_value"))
            s["model"]["activation_clamp_value"] = *clamp;
        // Megatron-Core's token dispatcher as the recipe sets it ("alltoall", "flex" = DeepEP, "hybridep").
        if (const auto dispatcher = row.text("moe_dispatcher")) {
            if (!s["model"].contains("moe"))
                throw JsonFieldError(row.place("moe_dispatcher"), "moe_dispatcher needs an MoE model (moe_experts)");
            s["model"]["moe"]["dispatcher"] = *dispatcher;
        }
        if (const auto capacity = row.number("capacity_factor")) {
            if (!s["model"].contains("moe"))
                throw JsonFieldError(row.place("capacity_factor"), "capacity_factor needs an MoE model (moe_experts)");
            s["model"]["moe"]["capacity_factor"] = *capacity;
        }
        // Megatron FSDP shards parameters, gradients and optimizer state like ZeRO-3.
        if (row.number("fsdp").value_or(0.0) == 1.0)
            s["parallelism"]["zero"] = 3;

        // Full recomputation of some layers only (--recompute-num-layers n; Megatron-Bridge's
        // scripts/performance/utils/overrides.py sets --recompute-granularity full with --recompute-method
        // block when a recipe states recompute_num_layers; column recompute_method "uniform" says otherwise).
        const std::optional<int> recomputeNumLayers
            = row.text("recompute_num_layers") ? std::optional<int>(row.integer("recompute_num_layers")) : std::nullopt;
        if (recomputeNumLayers) {
            if (recomputeModules || (row.text("recompute") && *row.text("recompute") != "full"))
                throw JsonFieldError(row.place("recompute_num_layers"),
                    "recompute_num_layers needs full recomputation (recompute full or empty, no recompute_modules)");
            s["training"]["recompute_num_layers"] = *recomputeNumLayers;
            s["training"]["recompute_method"] = row.text("recompute_method").value_or("block");
        }
        const std::optional<std::string> stated = recomputeModules ? std::optional<std::string>("selective")
            : recomputeNumLayers                                   ? std::optional<std::string>("full")
                                                                   : row.text("recompute");
        // Not stated: the cheapest that fits, as a user would pick it: none, selective, full, or block
        // recomputation of 1 .. (layers per chunk - 1) layers per chunk (recipes use it: column
        // recompute_num_layers), each with its method stated below.
        std::vector<std::pair<std::string, int>> recomputes;
        if (stated) {
            recomputes.emplace_back(*stated, 0);
        } else {
            for (const char* r : { "none", "selective", "full" })
                recomputes.emplace_back(r, 0);
            for (int n = 1; n < (layers + pp - 1) / pp; ++n)
                recomputes.emplace_back("full", n);
        }
        std::vector<int> interleavings { row.integer("vpp", 1) };
        if (!row.text("vpp") && pp > 1) {
            const int microBatches = globalBatch / std::max(1, dp * microBatch);
            for (int v = 2; v <= layers / pp; ++v)
                if ((layers / pp) % v == 0 && layers % pp == 0 && microBatches % pp == 0)
                    interleavings.push_back(v);
        }
        RowOutcome out;
        std::optional<TrainingEstimate> best;
        bool bestFits = false;
        for (int vpp : interleavings) {
            // Block candidates only when neither none nor selective fits, the fewest layers that fit (more
            // recompute more); beyond a chunk's layers they recompute every layer, which full covers.
            bool cheaperFits = false;
            for (const auto& [recompute, blockLayers] : recomputes) {
                if (blockLayers > 0 && (cheaperFits || blockLayers >= (layers + pp * vpp - 1) / (pp * vpp)))
                    continue;
                s["parallelism"]["vpp"] = vpp;
                s["parallelism"]["pipeline_schedule"] = vpp > 1 ? "interleaved" : "1f1b";
                s["training"]["recompute"] = recompute;
                if (blockLayers > 0) {
                    s["training"]["recompute_method"] = "block";
                    s["training"]["recompute_num_layers"] = blockLayers;
                } else if (!recomputeNumLayers) {
                    s["training"].erase("recompute_method");
                    s["training"].erase("recompute_num_layers");
                }
                auto scenario = parseScenarioJson(s.dump(), label);
                if (!scenario) {
                    out.detail = scenario.message();
                    return out;
                }
                if (auto status = validateScenario(*scenario, catalog, label); !status) {
                    out.detail = status.message();
                    return out;
                }
                auto evaluator = TrainingEvaluator::create(*scenario, catalog, params);
                if (!evaluator) {
                    out.detail = evaluator.message();
                    return out;
                }
                const TrainingStrategy strategy = TrainingStrategy::fromScenario(*scenario);
                if (const char* reason = evaluator->invalidReason(strategy)) {
                    if (interleavings.size() == 1) {
                        out.detail = reason;
                        return out;
                    }
                    continue;
                }
                TrainingEstimate e = evaluator->evaluate(strategy);
                const bool fits = e.memory.fits();
                if (fits && (recompute != "full" || blockLayers > 0))
                    cheaperFits = true;
                if (!best || (fits && !bestFits) || (fits == bestFits && e.iterationSeconds < best->iterationSeconds)) {
                    best = e;
                    bestFits = fits;
                    out.scenarioJson = s.dump(2);
                    out.gpu = scenario->cluster.gpu;
                    out.moe = scenario->model.moe.has_value();
                }
            }
        }
        if (best) {
            out.fits = bestFits;
            out.detail = strategyText(*best) + (bestFits ? "" : " (does not fit in memory)");
            out.estimate = best;
        } else if (out.detail.empty()) {
            out.detail = "no valid strategy";
        }
        return out;
    }

    /// The measured figures a training table may compare (its CSV column names).
    const std::string kTrainingMetrics[] = { "measured_tokens_per_s_per_gpu", "measured_tflops_per_gpu",
        "measured_hardware_tflops_per_gpu", "measured_mfu", "measured_iteration_seconds" };

    double predictedMetric(const std::string& metric, const TrainingEstimate& e, int gpus)
    {
        if (metric == "measured_tokens_per_s_per_gpu")
            return e.tokensPerSecond / gpus;
        if (metric == "measured_tflops_per_gpu")
            return e.tflopsPerGpu;
        if (metric == "measured_hardware_tflops_per_gpu")
            return e.hardwareTflopsPerGpu;
        // Step time (a time, so a model that is too fast has a negative error here).
        if (metric == "measured_iteration_seconds")
            return e.iterationSeconds;
        return e.mfu; // measured_mfu
    }

    void summarise(ValidationTable& t)
    {
        double sumAbs = 0, sum = 0;
        int n = 0;
        t.refused = 0;
        t.maxError = 0;
        for (const ValidationRow& r : t.rows) {
            if (!r.evaluated) {
                ++t.refused;
                continue;
            }
            sumAbs += std::abs(r.error);
            sum += r.error;
            t.maxError = std::max(t.maxError, std::abs(r.error));
            ++n;
        }
        t.mape = n ? sumAbs / n : 0.0;
        t.bias = n ? sum / n : 0.0;
    }

    ValidationTable runTable(JsonObjectReader& spec, const json& aliases, const ValidationFileReader& read,
        const Catalog& catalog, const ComputeEfficiencyParams& params)
    {
        ValidationTable t;
        t.id = spec.string("id");
        t.title = spec.string("title");
        t.file = spec.string("file");
        t.kind = spec.choice("kind", { "training", "gemm" });
        const std::string metric = spec.string("metric");
        const std::string fallbackMetric = spec.string("fallback_metric", "");
        t.mapeLimit = spec.number("mape_limit", 0.0, 10.0);
        t.biasLimit = spec.number("bias_limit", 0.0, 10.0);
        const json* defaultsRaw = spec.raw("defaults");
        const json defaults = defaultsRaw ? *defaultsRaw : json::object();
        const json* fillRaw = spec.raw("fill_empty");
        const json fill = fillRaw ? *fillRaw : json::object();
        std::string gemmGpu, gemmDtype;
        if (t.kind == "gemm") {
            gemmGpu = spec.string("gpu");
            gemmDtype = spec.choice("dtype", { "bf16", "fp16", "fp8", "mxfp8", "nvfp4" });
        }
        spec.finish();
        if (t.kind == "training")
            for (const std::string& m : { metric, fallbackMetric })
                if (!m.empty()
                    && std::find(std::begin(kTrainingMetrics), std::end(kTrainingMetrics), m)
                        == std::end(kTrainingMetrics))
                    throw JsonFieldError(spec.pointerOf(m == metric ? "metric" : "fallback_metric"),
                        "unknown metric \"" + m
                            + "\" (measured_tokens_per_s_per_gpu, measured_tflops_per_gpu, "
                              "measured_hardware_tflops_per_gpu, measured_mfu, measured_iteration_seconds)");

        auto text = read(t.file);
        if (!text)
            throw JsonFieldError(spec.pointerOf("file"), text.message());
        auto csv = parseCsv(*text, t.file);
        if (!csv)
            throw JsonFieldError(spec.pointerOf("file"), csv.message());

        std::optional<ComputeEfficiency> gemmModel;
        if (t.kind == "gemm") {
            const GpuModel* gpu = catalog.findGpu(gemmGpu);
            if (!gpu)
                throw JsonFieldError(spec.pointerOf("gpu"), "unknown GPU \"" + gemmGpu + "\"");
            const DType dtype = *dtypeFromString(gemmDtype); // choice() above admits only dtype names
            auto model = ComputeEfficiency::forGpu(params, *gpu, dtype, false); // isolated GEMMs: boost clock
            if (!model)
                throw JsonFieldError(spec.pointerOf("dtype"), model.message());
            gemmModel = *model;
        }
        for (std::size_t i = 0; i < csv->rows.size(); ++i) {
            const CsvRow row(*csv, i, t.file, fill);
            ValidationRow r;
            try {
                if (t.kind == "gemm") {
                    const double m = row.integer("m"), n = row.integer("n"), k = row.integer("k");
                    r.label = std::to_string(int(m)) + "x" + std::to_string(int(n)) + "x" + std::to_string(int(k));
                    r.metric = metric;
                    r.measured = row.number(metric).value_or(0.0);
                    // Timed back to back from Python: a call cannot finish faster than the host issues it.
                    const double seconds
                        = std::max(gemmModel->gemmSeconds(m, n, k), gemmModel->params().hostSecondsPerKernel);
                    r.predicted = 2.0 * m * n * k / seconds / 1e12;
                    r.evaluated = r.measured > 0;
                    r.detail = r.evaluated ? "" : "no measured value";
                } else {
                    r.label = row.text("model").value_or("?") + " x" + std::to_string(row.integer("gpus"));
                    r.metric = row.number(metric) ? metric : fallbackMetric;
                    if (r.metric.empty() || !row.number(r.metric))
                        throw JsonFieldError(row.place(metric), "no measured value");
                    r.measured = *row.number(r.metric);
                    const RowOutcome o = evaluateTrainingRow(row, defaults, aliases, r.label, catalog, params);
                    r.detail = o.detail;
                    r.fitsMemory = o.fits;
                    if (o.estimate) {
                        r.evaluated = true;
                        r.scenarioJson = o.scenarioJson;
                        r.gpu = o.gpu;
                        r.moe = o.moe;
                        r.predicted = predictedMetric(r.metric, *o.estimate, row.integer("gpus"));
                    }
                }
            } catch (const JsonFieldError& e) {
                throw JsonFieldError(t.file + ": " + e.pointer, e.what());
            }
            if (r.evaluated)
                r.error = r.predicted / r.measured - 1.0;
            t.rows.push_back(std::move(r));
        }
        summarise(t);
        return t;
    }

} // namespace

Result<std::vector<ValidationTable>> runModelValidation(std::string_view manifestJson, const ValidationFileReader& read,
    const Catalog& catalog, const ComputeEfficiencyParams& params)
{
    json root;
    try {
        root = json::parse(manifestJson.begin(), manifestJson.end());
    } catch (const json::parse_error& e) {
        return Status::error("tables.json: byte " + std::to_string(e.byte) + ": not valid JSON");
    }
    try {
        JsonObjectReader r(root, "");
        if (r.string("format") != "clusterscope-validation")
            throw JsonFieldError("/format", "expected \"clusterscope-validation\"");
        if (r.integer("version", 1) != 1)
            throw JsonFieldError("/version", "this ClusterScope reads version 1");
        r.string("note", "");
        const json* aliasesRaw = r.raw("gpu_aliases");
        const json aliases = aliasesRaw ? *aliasesRaw : json::object();
        const json* tables = r.raw("tables");
        if (!tables || !tables->is_array())
            throw JsonFieldError("/tables", "expected an array of tables");
        r.finish();
        std::vector<ValidationTable> out;
        for (std::size_t i = 0; i < tables->size(); ++i) {
            if (!(*tables)[i].is_object())
                throw JsonFieldError("/tables/" + std::to_string(i), "expected an object");
            JsonObjectReader spec((*tables)[i], "/tables/" + std::to_string(i));
            out.push_back(runTable(spec, aliases, read, catalog, params));
        }
        return out;
    } catch (const JsonFieldError& e) {
        const bool inCsv = e.pointer.find(".csv: ") != std::string::npos;
        return Status::error((inCsv ? "" : std::string("tables.json: ")) + e.pointer + ": " + e.what());
    }
}

std::vector<ValidationGroup> groupByKindAndArchitecture(
    const std::vector<ValidationTable>& tables, const Catalog& catalog)
{
    std::map<std::pair<std::string, std::string>, ValidationGroup> groups;
    for (const ValidationTable& t : tables) {
        if (t.kind != "training")
            continue;
        for (const ValidationRow& r : t.rows) {
            const GpuModel* gpu = r.evaluated ? catalog.findGpu(r.gpu) : nullptr;
            if (!gpu)
                continue;
            const std::string kind = r.moe ? "MoE" : "dense";
            const std::string arch = toString(gpu->arch);
            // As a throughput error (> 0: predicted too fast): a step time's error inverted.
            const double e = r.metric == "measured_iteration_seconds" ? 1.0 / (1.0 + r.error) - 1.0 : r.error;
            ValidationGroup& g = groups[{ kind, arch }];
            g.kind = kind;
            g.architecture = arch;
            ++g.rows;
            g.mape += std::abs(e);
            g.bias += e;
            g.maxError = std::max(g.maxError, std::abs(e));
        }
    }
    std::vector<ValidationGroup> out;
    for (auto& [key, g] : groups) {
        g.mape /= g.rows;
        g.bias /= g.rows;
        out.push_back(g);
    }
    return out;
}

Result<std::vector<ValidationTable>> runBuiltinModelValidation(
    const Catalog& catalog, const ComputeEfficiencyParams& params)
{
    const std::string_view manifest = resources::embeddedFile("validation/tables.json");
    if (manifest.empty())
        return Status::error("validation/tables.json: not compiled into this program");
    const ValidationFileReader read = [](const std::string& file) -> Result<std::string> {
        const std::string_view text = resources::embeddedFile("validation/" + file);
        if (text.empty())
            return Status::error("validation/" + file + ": not compiled into this program");
        return std::string(text);
    };
    return runModelValidation(manifest, read, catalog, params);
}

} // namespace clusterscope::engine
