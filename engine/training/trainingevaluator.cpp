#include "engine/training/trainingevaluator.h"

#include "engine/catalog/catalog.h"
#include "engine/core/linkclass.h"
#include "engine/scenario/pipelinesplit.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/gradientcompression.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

namespace clusterscope::engine {

namespace {

    CollectiveAlgorithm algorithmFromName(const std::string& name)
    {
        if (name == "ring")
            return CollectiveAlgorithm::Ring;
        if (name == "tree")
            return CollectiveAlgorithm::Tree;
        if (name == "nvls")
            return CollectiveAlgorithm::Nvls;
        if (name == "nvlstree")
            return CollectiveAlgorithm::NvlsTree;
        if (name == "collnet")
            return CollectiveAlgorithm::CollNetDirect;
        if (name == "pat")
            return CollectiveAlgorithm::Pat;
        if (name == "hierarchical")
            return CollectiveAlgorithm::Hierarchical;
        if (name == "direct")
            return CollectiveAlgorithm::Direct;
        return CollectiveAlgorithm::Auto;
    }

    constexpr double kHoursPerYear = 8766.0;
    // Python-level ops of one MoE layer beyond its GEMMs (see layerTimes()).
    constexpr double kMoeForwardOps = 24.0;
    constexpr double kMoeBackwardOps = 18.0;
    // Of those, the router's (megatron/core/transformer/moe/router.py: gating cast, fused top-k /
    // score, aux-loss scores, aux loss and its scaler, forced balance, z-loss, the probabilities'
    // cast), which --cuda-graph-scope moe_router captures, forward and in autograd's backward ...
    constexpr double kMoeRouterForwardOps = 8.0;
    constexpr double kMoeRouterBackwardOps = 6.0;
    // ... and the dispatcher's preprocessing before its host synchronisation (token_dispatcher.py
    // dispatch_preprocess: routing-map sums, the EP all-gather of the token counts, row-id map,
    // permute, the splits' device-to-host copies), which moe_preprocess captures (forward only: no
    // gradient flows through the routing map).
    constexpr double kMoePreprocessForwardOps = 7.0;
    // Of the 6 norm / residual / rotary / activation kernels, those inside the attention block
    // (input norm, rotary, residual add, pre-MLP norm), which --cuda-graph-scope attn captures.
    constexpr double kAttentionBlockElementwiseOps = 4.0;

    // E[max of n independent standard normals] (Tippett 1925 tables; Blom's approximation for
    // n > 64): the slowest of the expert-parallel hosts at a per-layer rendezvous.
    double expectedMaxOfNormals(double n)
    {
        static const double table[] = { 0.0, 0.5642, 1.0294, 1.4236, 1.7660, 2.0697, 2.3414 }; // n = 1, 2, ..., 64
        if (n <= 1.0)
            return 0.0;
        const double l = std::log2(n);
        if (l >= 6.0) {
            // Asymptotic expansion (Cramer 1946, 28.6), shifted to meet the table at n = 64.
            const auto asymptotic = [](double x) {
                const double r = std::sqrt(2.0 * std::log(x));
                return r - (std::log(std::log(x)) + std::log(4.0 * M_PI)) / (2.0 * r);
            };
            return table[6] + asymptotic(n) - asymptotic(64.0);
        }
        const int i = static_cast<int>(l);
        return table[i] + (l - i) * (table[i + 1] - table[i]);
    }

    // Fused attention kernels walk the scores in tiles of 128 queries x 128 keys and skip only the
    // tiles the mask leaves entirely empty; a tile the mask cuts is computed whole (FlashAttention-2,
    // Dao 2023, Alg. 1-2: the causal loop stops at the diagonal block; cuDNN's SDPA with a sliding
    // window, Transformer Engine FusedAttention window_size (w, 0), the same). A causal window of w
    // keys ((i - w, i]) therefore touches ceil((w - 1) / 128) + 1 key tiles per query tile, fewer
    // near the start, against j + 1 tiles of the causal mask for query tile j. Returns the windowed
    // layer's work relative to the causal layer's, 1 when the window spans the sequence. Measured:
    // NVIDIA/cudnn-frontend pull request 505 (cuDNN SDPA backward, S 4096, D 64) times window 511
    // at 0.306 and window 1023 at 0.496 of causal; this gives 0.284 and 0.494 (the smooth w/s share,
    // 0.234 and 0.437, was too low).
    double windowedTileShare(double seq, double window)
    {
        if (window >= seq)
            return 1.0;
        constexpr double kTile = 128.0;
        const double tiles = std::ceil(seq / kTile);
        const double reach = std::ceil(std::max(0.0, window - 1.0) / kTile) + 1.0; // key tiles per query tile
        if (reach >= tiles)
            return 1.0;
        // Query tiles j = 0 .. reach - 1 touch j + 1 tiles; the rest touch `reach`.
        const double windowed = reach * (reach + 1.0) / 2.0 + (tiles - reach) * reach;
        return windowed / (tiles * (tiles + 1.0) / 2.0);
    }

    // Per-thread direct-mapped memo of collective estimates. The key holds every input of the
    // estimate (evaluator tag, op, bytes, placement), so a hit returns exactly what estimate() would.
    struct CollectiveMemoEntry {
        unsigned long long tag = 0;
        double bytes = 0;
        int op = -1, ranks = 0, ranksPerNode = 0, nicsPerNode = 0, spanTier = 0, nodesPerLeaf = 0;
        double seconds = 0;
    };
    constexpr std::size_t kMemoEntries = 1 << 15; // 1.5 MB per thread
    thread_local CollectiveMemoEntry t_memo[kMemoEntries];
    // Memo key of TrainingEvaluator::fusedExchangeSeconds, beside the CollectiveOp values.
    constexpr int kFusedExchangeKey = 1000;
    std::atomic<unsigned long long> g_nextCacheTag { 1 };

    std::size_t memoSlot(unsigned long long tag, int op, double bytes, const GroupPlacement& g)
    {
        unsigned long long bits;
        std::memcpy(&bits, &bytes, sizeof bits);
        // Message sizes are mostly powers of two: their doubles differ only in the exponent bits
        // (52-62), so every bit must reach the slot index. The splitmix64 finalizer (Steele, Lea and
        // Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) mixes all 64 bits
        // into the low ones; a plain multiply left such sizes in one slot, evicting each other.
        unsigned long long h = bits
            ^ (tag + static_cast<unsigned long long>(op) * 31 + static_cast<unsigned long long>(g.ranks) * 1009
                  + static_cast<unsigned long long>(g.ranksPerNode) * 7919
                  + static_cast<unsigned long long>(g.nicsPerNode) * 104729
                  + static_cast<unsigned long long>(g.spanTier) * 1299709
                  + static_cast<unsigned long long>(g.nodesPerLeaf) * 15485863)
                * 0x9E3779B97F4A7C15ull;
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
        return static_cast<std::size_t>((h ^ (h >> 31)) % kMemoEntries);
    }

} // namespace

TrainingEvaluator::TrainingEvaluator(const Scenario& scenario, const CollectiveModel& collectives)
    : m_scenario(scenario)
    , m_collectives(collectives)
{
}

Result<TrainingEvaluator> TrainingEvaluator::create(
    const Scenario& scenario, const Catalog& catalog, const ComputeEfficiencyParams& defaults)
{
    ComputeEfficiencyParams efficiency = defaults;
    const ComputeCalibrationSpec& cal = scenario.computeCalibration;
    efficiency.gemmPeakFraction = cal.gemmPeakFraction.value_or(efficiency.gemmPeakFraction);
    efficiency.gemmHalfDimension = cal.gemmHalfDimension.value_or(efficiency.gemmHalfDimension);
    efficiency.memoryBandwidthFraction = cal.memoryBandwidthFraction.value_or(efficiency.memoryBandwidthFraction);
    efficiency.flashAttention = cal.flashAttention.value_or(efficiency.flashAttention);
    efficiency.flashPeakFraction = cal.flashPeakFraction.value_or(efficiency.flashPeakFraction);
    efficiency.overlapInterferenceFraction
        = cal.overlapInterferenceFraction.value_or(efficiency.overlapInterferenceFraction);
    efficiency.gemmFixedSeconds = cal.gemmFixedSeconds.value_or(efficiency.gemmFixedSeconds);
    efficiency.attentionBackwardEfficiency
        = cal.attentionBackwardEfficiency.value_or(efficiency.attentionBackwardEfficiency);
    efficiency.fp8CastBytesPerElement = cal.fp8CastBytesPerElement.value_or(efficiency.fp8CastBytesPerElement);
    efficiency.mxfp8CastBytesPerElement = cal.mxfp8CastBytesPerElement.value_or(efficiency.mxfp8CastBytesPerElement);
    efficiency.nvfp4CastBytesPerElement = cal.nvfp4CastBytesPerElement.value_or(efficiency.nvfp4CastBytesPerElement);
    efficiency.optimizerBytesPerParam = cal.optimizerBytesPerParam.value_or(efficiency.optimizerBytesPerParam);
    efficiency.kernelLaunchSeconds = cal.kernelLaunchSeconds.value_or(efficiency.kernelLaunchSeconds);
    efficiency.hostSecondsPerKernel = cal.hostSecondsPerKernel.value_or(efficiency.hostSecondsPerKernel);
    efficiency.sustainedClockFraction = cal.sustainedClockFraction.value_or(efficiency.sustainedClockFraction);
    efficiency.groupedGemmStreams = cal.groupedGemmStreams.value_or(efficiency.groupedGemmStreams);
    efficiency.libraryHostSecondsPerLaunch
        = cal.libraryHostSecondsPerLaunch.value_or(efficiency.libraryHostSecondsPerLaunch);
    efficiency.moeSyncSeconds = cal.moeSyncSeconds.value_or(efficiency.moeSyncSeconds);
    efficiency.moeExpertHostSecondsForward
        = cal.moeExpertHostSecondsForward.value_or(efficiency.moeExpertHostSecondsForward);
    efficiency.moeExpertHostSecondsBackward
        = cal.moeExpertHostSecondsBackward.value_or(efficiency.moeExpertHostSecondsBackward);
    efficiency.groupedLinearCallHostSeconds
        = cal.groupedLinearCallHostSeconds.value_or(efficiency.groupedLinearCallHostSeconds);
    efficiency.moeA2aOverlapHostSeconds = cal.moeA2aOverlapHostSeconds.value_or(efficiency.moeA2aOverlapHostSeconds);
    efficiency.graphLaunchHostSeconds = cal.graphLaunchHostSeconds.value_or(efficiency.graphLaunchHostSeconds);
    efficiency.hostJitterFraction = cal.hostJitterFraction.value_or(efficiency.hostJitterFraction);
    {
        // Host-time constants are seconds >= 0 and the jitter a fraction (same ranges as the JSON
        // reader, for scenarios built in code).
        const std::pair<const char*, double> hostTimes[]
            = { { "moe_expert_host_seconds_forward", efficiency.moeExpertHostSecondsForward },
                  { "moe_expert_host_seconds_backward", efficiency.moeExpertHostSecondsBackward },
                  { "grouped_linear_call_host_seconds", efficiency.groupedLinearCallHostSeconds },
                  { "moe_a2a_overlap_host_seconds", efficiency.moeA2aOverlapHostSeconds },
                  { "graph_launch_host_seconds", efficiency.graphLaunchHostSeconds } };
        for (const auto& [key, value] : hostTimes)
            if (!(value >= 0.0 && value <= 1.0))
                return Status::error(std::string("/calibration/compute/") + key + ": expected seconds in [0, 1]");
        if (!(efficiency.hostJitterFraction >= 0.0 && efficiency.hostJitterFraction <= 1.0))
            return Status::error("/calibration/compute/host_jitter_fraction: expected a fraction in [0, 1]");
    }
    if (const auto graphs = cudaGraphScopeIssue(scenario.model, scenario.training))
        return Status::error(graphs->pointer + ": " + graphs->message);
    const GpuModel* gpu = catalog.findGpu(scenario.cluster.gpu);
    if (!gpu)
        return Status::error("/cluster/gpu: unknown GPU \"" + scenario.cluster.gpu + "\"");
    if (const auto weights = primaryWeightsIssue(scenario.training))
        return Status::error(weights->pointer + ": " + weights->message);
    auto compute = ComputeEfficiency::forGpu(efficiency, *gpu, scenario.training.dtype);
    if (!compute)
        return compute.status();
    auto collectives = CollectiveModel::fromScenario(scenario, catalog);
    if (!collectives)
        return collectives.status();
    TrainingEvaluator e(scenario, *collectives);
    e.m_shape = TransformerShape::fromModel(scenario.model);
    e.m_elementBytes = bytesPerElement(scenario.training.dtype);
    e.m_efficiency = *compute;
    if (isQuantized(scenario.training.dtype)) {
        // Transformer Engine applies the quantization recipe module by module (Megatron-Core
        // model.quant_recipe): a BF16 module runs outside the quantized autocast, another quantized
        // dtype at that dtype's tensor-core rate and efficiency.
        static_assert(std::size(TrainingSpec::ModuleDtypes::kKeys) == ModuleCount);
        for (int i = 0; i < ModuleCount; ++i) {
            const auto& [name, member] = TrainingSpec::ModuleDtypes::kKeys[i];
            const std::optional<DType>& dtype = scenario.training.moduleDtypes.*member;
            if (!dtype || *dtype == scenario.training.dtype)
                continue;
            if (!isQuantized(*dtype)) {
                e.m_modules[i].bf16 = true;
                continue;
            }
            auto other = ComputeEfficiency::forGpu(efficiency, *gpu, *dtype);
            if (!other) {
                const std::string& message = other.message();
                const auto colon = message.find(": ");
                return Status::error(std::string("/training/module_dtypes/") + name + ": "
                    + (colon == std::string::npos ? message : message.substr(colon + 2)));
            }
            e.m_modules[i].other = std::make_shared<const ComputeEfficiency>(*other);
        }
        if (const auto& attention = scenario.training.moduleDtypes.attentionLinears) // inputs kept for wgrad
            e.m_memoryInputs.attentionInputBytes = bytesPerElement(*attention);
    }
    e.m_placer = GroupPlacer(ClusterGeometry::fromScenario(scenario, *gpu));
    e.m_memoryInputs.globalBatch = scenario.training.globalBatch;
    e.m_memoryInputs.flashAttention = efficiency.flashAttention;
    e.m_memoryInputs.fp8GemmInputs = isQuantized(scenario.training.dtype);
    e.m_memoryInputs.quantizedInputBytes = bytesPerElement(scenario.training.dtype);
    e.m_memoryInputs.dropout = scenario.model.dropout;
    e.m_memoryInputs.fp8Weights = scenario.training.fp8ParamGather || scenario.training.fp4ParamGather;
    // Quantized primary weights hold (MXFP8, NVFP4) both copies: row-wise for the forward GEMM,
    // column-wise for the data gradient (Transformer Engine module/base.py reset_parameters sets both
    // usages; NVFP4's 2D 16 x 16 scaling makes the column-wise copy a transpose of the row-wise one).
    e.m_memoryInputs.weightBytesPerParam = scenario.training.dtype == DType::MXFP8 ? 2.0 + 2.0 / 32.0
        : scenario.training.dtype == DType::NVFP4                                  ? 2.0 * (0.5 + 1.0 / 16.0)
                                                                                   : 1.0;
    e.m_memoryInputs.fusedCrossEntropy = isQuantized(scenario.training.dtype);
    e.m_memoryInputs.muon = scenario.training.muon;
    e.m_memoryInputs.errorFeedback = scenario.communication.compression.method != CompressionMethod::None
        && scenario.communication.compression.errorFeedback;
    e.m_memoryInputs.capacityBytes = gpu->hbmBytes;
    e.m_memoryInputs.activationOffloadLayers = scenario.training.activationOffloadLayers;
    e.m_memoryInputs.recomputeModules = scenario.training.recomputeModules;
    e.m_hostLinkBytesPerSecond
        = gpu->hostLinkBytesPerSecond > 0 ? gpu->hostLinkBytesPerSecond : std::max(1e9, gpu->pcieBytesPerSecond);
    e.m_memoryInputs.cudaContextBytes = cal.cudaContextBytes.value_or(e.m_memoryInputs.cudaContextBytes);
    e.m_memoryInputs.ncclBytesPerCommunicator = cal.ncclBufferBytes.value_or(e.m_memoryInputs.ncclBytesPerCommunicator);
    e.m_memoryInputs.allocatorReserveFraction
        = cal.allocatorReserveFraction.value_or(e.m_memoryInputs.allocatorReserveFraction);
    e.m_algorithm = algorithmFromName(scenario.communication.algorithm);
    e.m_cacheTag = g_nextCacheTag.fetch_add(1);
    if (const int bf16Layers = scenario.training.bf16LayersAtStart + scenario.training.bf16LayersAtEnd;
        bf16Layers > 0 && isQuantized(scenario.training.dtype)) {
        // Megatron-Core --first-last-layers-bf16 (fp8_utils.py / fp4_utils.py is_first_last_bf16_layer by
        // global layer number): those layers run outside the quantized autocast, as in a BF16 run.
        Scenario twin = scenario;
        twin.training.dtype = DType::BF16;
        twin.training.moduleDtypes = {};
        twin.training.bf16LayersAtStart = twin.training.bf16LayersAtEnd = 0;
        twin.training.fp8ParamGather = twin.training.fp4ParamGather = false;
        auto bf16 = create(twin, catalog, efficiency);
        if (!bf16)
            return bf16.status();
        e.m_bf16Twin = std::make_shared<const TrainingEvaluator>(std::move(*bf16));
        e.m_memoryInputs.bf16LayersAtStart = scenario.training.bf16LayersAtStart;
        e.m_memoryInputs.bf16LayersAtEnd = scenario.training.bf16LayersAtEnd;
        if (e.m_shape.hybrid)
            e.m_memoryInputs.wholeBf16Blocks = std::make_shared<const Bf16Blocks>(
                hybridBf16Blocks(scenario.model, hybridBlocks(scenario.model.hybridPattern),
                    scenario.training.bf16LayersAtStart, scenario.training.bf16LayersAtEnd));
    }
    if (const ModelSpec& m = scenario.model; m.mtpLayers > 0
        && (!m.mtpPattern.empty() || (scenario.training.bf16Mtp && isQuantized(scenario.training.dtype)))) {
        // The MTP layer timed as a model of its own layers: the blocks of model.mtp_pattern (Megatron-Core
        // mtp_hybrid_override_pattern), in BF16 with training.bf16_mtp; the iteration counts mtp_layers x
        // its blocks on the last stage.
        Scenario twin = scenario;
        if (!m.mtpPattern.empty()) {
            twin.model.hybridPattern = m.mtpPattern;
            twin.model.layers = static_cast<int>(m.mtpPattern.size());
            if (m.mtpPattern.find('M') == std::string::npos)
                twin.model.mamba.reset();
        }
        twin.model.mtpLayers = 1; // its layerTimes() also times the MTP module (norms, eh_proj) in its dtype
        twin.model.mtpPattern.clear();
        twin.model.mtpSharedWeights = false;
        twin.training.bf16LayersAtStart = twin.training.bf16LayersAtEnd = 0;
        twin.training.bf16Mtp = false;
        twin.training.activationOffloadLayers = 0;
        if (scenario.training.bf16Mtp && isQuantized(scenario.training.dtype)) {
            twin.training.dtype = DType::BF16;
            twin.training.moduleDtypes = {};
            twin.training.fp8ParamGather = twin.training.fp4ParamGather = false;
        }
        auto mtp = create(twin, catalog, efficiency);
        if (!mtp)
            return mtp.status();
        e.m_mtpTwin = std::make_shared<const TrainingEvaluator>(std::move(*mtp));
    }
    e.m_gpuHourUsd = scenario.training.gpuHourUsd > 0
        ? scenario.training.gpuHourUsd
        : gpu->priceUsd / (4.0 * kHoursPerYear) + gpu->tdpWatts / 1000.0 * 1.3 * 0.10;
    return e;
}

double TrainingEvaluator::collectiveSeconds(CollectiveOp op, double bytes, const GroupPlacement& group) const
{
    return memoisedSeconds(static_cast<int>(op), bytes, group);
}

double TrainingEvaluator::fusedExchangeSeconds(double bytes, const GroupPlacement& group) const
{
    return memoisedSeconds(kFusedExchangeKey, bytes, group);
}

double TrainingEvaluator::memoisedSeconds(int key, double bytes, const GroupPlacement& group) const
{
    if (group.ranks <= 1 || bytes <= 0)
        return 0.0;
    CollectiveMemoEntry* entry = nullptr;
    if (m_memoize) {
        entry = &t_memo[memoSlot(m_cacheTag, key, bytes, group)];
        if (entry->tag == m_cacheTag && entry->bytes == bytes && entry->op == key && entry->ranks == group.ranks
            && entry->ranksPerNode == group.ranksPerNode && entry->nicsPerNode == group.nicsPerNode
            && entry->spanTier == group.spanTier && entry->nodesPerLeaf == group.nodesPerLeaf)
            return entry->seconds;
    }
    double seconds = 0;
    if (key == kFusedExchangeKey) {
        // A direct all-gather moves the same bytes / n to every peer over the same links in one step
        // (extracost.cpp direct), which is what a fused dispatch kernel does.
        CollectiveRequest request;
        request.op = CollectiveOp::AllGather;
        request.bytes = bytes;
        request.group = group;
        request.algorithm = CollectiveAlgorithm::Direct;
        seconds = contended(m_collectives.estimate(request).seconds, group);
    } else {
        seconds = estimateCollective(static_cast<CollectiveOp>(key), bytes, group);
    }
    if (entry)
        *entry = { m_cacheTag, bytes, key, group.ranks, group.ranksPerNode, group.nicsPerNode, group.spanTier,
            group.nodesPerLeaf, seconds };
    return seconds;
}

void TrainingEvaluator::setFabricContention(double spineSlowdown, double coreSlowdown)
{
    m_spineSlowdown = std::max(1.0, spineSlowdown);
    m_coreSlowdown = std::max(m_spineSlowdown, coreSlowdown);
    m_cacheTag = g_nextCacheTag.fetch_add(1); // memoised times are stale
}

void TrainingEvaluator::setCollectiveCalibration(const CollectiveCalibration& calibration)
{
    m_collectives.setCalibration(calibration);
    m_cacheTag = g_nextCacheTag.fetch_add(1);
}

double TrainingEvaluator::estimateCollective(CollectiveOp op, double bytes, const GroupPlacement& group) const
{
    CollectiveRequest request;
    request.op = op;
    request.bytes = bytes;
    request.group = group;
    request.algorithm = m_algorithm;
    CollectiveEstimate estimate = m_collectives.estimate(request);
    if (!estimate.valid && m_algorithm != CollectiveAlgorithm::Auto) {
        // The scenario's algorithm override cannot run this collective (e.g. NVLS across nodes):
        // NCCL falls back to its own choice, and so do we.
        request.algorithm = CollectiveAlgorithm::Auto;
        estimate = m_collectives.estimate(request);
    }
    return contended(estimate.seconds, group);
}

double TrainingEvaluator::contended(double seconds, const GroupPlacement& group) const
{
    if (group.spanTier >= kLinkClassCore)
        return seconds * m_coreSlowdown;
    if (group.spanTier >= kLinkClassSpine)
        return seconds * m_spineSlowdown;
    return seconds;
}

const char* TrainingEvaluator::invalidReason(const TrainingStrategy& s) const
{
    const ParallelismSpec& p = s.parallelism;
    const ModelSpec& m = m_scenario.model;
    const int batch = m_scenario.training.globalBatch;
    if (p.tp < 1 || p.pp < 1 || p.dp < 1 || p.cp < 1 || p.ep < 1 || p.vpp < 1 || s.microBatch < 1)
        return "/parallelism: every size must be at least 1";
    if (1LL * p.tp * p.pp * p.dp * p.cp != m_scenario.cluster.gpus)
        return "/parallelism: tp x pp x dp x cp must equal cluster.gpus";
    if (m.heads % p.tp != 0)
        return "/parallelism/tp: heads must be divisible by tp";
    if (m.kvHeads % p.tp != 0 && p.tp % m.kvHeads != 0)
        return "/parallelism/tp: kv_heads and tp must divide one another";
    if (p.pp > m.layers)
        return "/parallelism/pp: pp cannot exceed the layers";
    // Megatron-Core refuses CPU offloading with activation recomputation (transformer_config.py).
    if (m_scenario.training.activationOffloadLayers > 0 && s.recompute != Recompute::None)
        return "/training/activation_offload_layers: activation offloading runs without recomputation";
    if (m.mamba) {
        // Megatron-Core MambaMixer splits the heads and the B / C groups over tp (ngroups % tp == 0).
        if (m.mamba->heads % p.tp != 0 || m.mamba->groups % p.tp != 0)
            return "/parallelism/tp: the Mamba heads and groups must be divisible by tp";
        if (const char* reason = mambaContextParallelProblem(*m.mamba, p.tp, p.cp))
            return reason;
    }
    PipelineSplit split;
    if (const char* reason = splitPipelineOf(m, p, split))
        return reason;
    // Megatron-Core keeps its BF16 layers within the first / last pipeline stage (transformer_config.py:
    // at most the layers per stage each).
    if (m_bf16Twin && p.pp > 1) {
        if (m_scenario.training.bf16LayersAtStart > split.first)
            return "/training/bf16_layers_at_start: more BF16 layers than the first pipeline stage holds";
        if (m_scenario.training.bf16LayersAtEnd > split.last)
            return "/training/bf16_layers_at_end: more BF16 layers than the last pipeline stage holds";
    }
    if (batch % (p.dp * s.microBatch) != 0)
        return "/parallelism/dp: global_batch must be divisible by dp x micro_batch";
    if (m.seqLen % p.cp != 0)
        return "/parallelism/cp: seq_len must be divisible by cp";
    if (const char* reason = ulyssesProblem(m, p))
        return reason;
    if (p.ep > 1) {
        if (!m.moe)
            return "/parallelism/ep: ep > 1 needs a mixture-of-experts model";
        if (m.moe->experts % p.ep != 0)
            return "/parallelism/ep: experts must be divisible by ep";
        if (p.etp == 0 && (p.dp * p.cp) % p.ep != 0)
            return "/parallelism/ep: ep must divide dp x cp";
    }
    if (p.etp > 0) {
        // MoE parallel folding (Megatron-Core parallel_state.py): etp x ep x expert-dp = tp x cp x dp.
        if (p.etp != p.tp && !m.moe)
            return "/parallelism/etp: etp different from tp needs a mixture-of-experts model";
        if ((1LL * p.tp * p.cp * p.dp) % (1LL * p.etp * p.ep) != 0)
            return "/parallelism/etp: etp x ep must divide tp x cp x dp";
        if (p.etp != p.tp && p.tp > 1 && !p.sequenceParallel)
            return "/parallelism/etp: etp different from tp needs sequence_parallel";
        if (p.etp != p.tp && !p.placementOrder.ends_with("pp"))
            return "/parallelism/etp: etp different from tp needs pp outermost in placement_order";
    }
    if (p.vpp > 1 && p.pp == 1)
        return "/parallelism/vpp: virtual stages need pp > 1";
    if (const char* reason = interleavingProblem(p.pp, p.vpp, p.vppMicrobatchGroup, batch / (p.dp * s.microBatch)))
        return reason;
    if (p.schedule == PipelineSchedule::Interleaved && p.vpp == 1)
        return "/parallelism/pipeline_schedule: the interleaved schedule needs vpp > 1";
    // DeepSpeed: ZeRO-2 and ZeRO-3 partition gradients per micro-batch and are not supported with
    // pipeline parallelism (deepspeed/runtime/pipe/engine.py asserts zero stage < 2).
    if (p.zero >= 2 && p.pp > 1)
        return "/parallelism/zero: ZeRO-2/3 cannot be combined with pipeline parallelism";
    return nullptr;
}

MemoryBreakdown TrainingEvaluator::memory(const TrainingStrategy& s) const
{
    const ParallelismSpec& p = s.parallelism;
    PipelineSplit split;
    const bool splits = splitPipelineOf(m_scenario.model, p, split) == nullptr;
    const std::shared_ptr<const StageShapes> stages = splits ? stageShapes(p, split) : nullptr;
    return estimateMemory(m_shape, s, m_memoryInputs, stages.get());
}

std::shared_ptr<const StageShapes> TrainingEvaluator::stageShapes(
    const ParallelismSpec& p, const PipelineSplit& split) const
{
    if (!m_shape.hybrid || p.pp <= 1)
        return nullptr;
    // A search asks for a few pipeline layouts many times (every tp, cp, ep, micro-batch and ZeRO choice
    // around them): each thread keeps the last ones it built.
    struct Entry {
        unsigned long long tag = 0;
        int pp = 0, vpp = 0, first = 0, middle = 0, last = 0;
        std::shared_ptr<const StageShapes> stages;
    };
    constexpr std::size_t kSlots = 64;
    thread_local Entry cache[kSlots];
    Entry& e = cache[(static_cast<std::size_t>(p.pp) * 31u + static_cast<std::size_t>(p.vpp) * 7u
                         + static_cast<std::size_t>(split.first) * 3u + static_cast<std::size_t>(split.last))
        % kSlots];
    if (!(e.stages && e.tag == m_cacheTag && e.pp == p.pp && e.vpp == p.vpp && e.first == split.first
            && e.middle == split.middle && e.last == split.last))
        e = { m_cacheTag, p.pp, p.vpp, split.first, split.middle, split.last,
            std::make_shared<const StageShapes>(hybridStageShapes(m_scenario.model, p, split.first, split.middle,
                split.last, m_bf16Twin ? m_scenario.training.bf16LayersAtStart : 0,
                m_bf16Twin ? m_scenario.training.bf16LayersAtEnd : 0)) };
    return e.stages;
}

LayerTimes TrainingEvaluator::layerTimes(const TrainingStrategy& s) const { return layerTimesOf(s, m_shape); }

LayerTimes TrainingEvaluator::layerTimesOf(const TrainingStrategy& s, const TransformerShape& shape) const
{
    const ParallelismSpec& p = s.parallelism;
    const ComputeEfficiency& e = m_efficiency;
    const ComputeEfficiencyParams& k = e.params();
    const TransformerShape& m = shape;
    const double t = p.tp, h = m.hidden, d = m.headDim, seq = m.seqLen;
    const double q = m.heads * d, kv = m.kvHeads * d; // query and key/value widths
    const double seqLocal = seq / p.cp;
    const double tokens = s.microBatch * seqLocal;
    const bool sp = p.sequenceParallel && p.tp > 1;
    const bool fp8 = e.lowPrecision();
    const double act = 2.0; // activations stay 16-bit (fp8 only feeds the GEMMs)

    LayerTimes lt;
    KernelTimes& f = lt.forwardKernels;
    KernelTimes& b = lt.backwardKernels;
    // A linear layer (m x k) * (k x n): forward one GEMM; backward the data gradient (m x n) * (n x k)
    // and the weight gradient (k x m) * (m x n) (Megatron ColumnParallel / RowParallelLinear). The
    // weight gradient is accumulated in place into the fp32 main_grad buffer (Megatron-Core
    // gradient_accumulation_fusion, Transformer Engine fuse_wgrad_accumulation: beta = 1 into fp32),
    // reading and writing 8 bytes per weight every micro-batch.
    constexpr double kWgradBytes = 8.0;
    // Host-side accounting beyond one host cost per kernel (see `finish` below):
    //  - hostExtra: host time added to (+) or removed from (-) the pooled per-kernel host time: MoE
    //    bookkeeping of Transformer Engine's GroupedLinear, CUDA-graph replays replacing the per-op
    //    host time of the ops they capture;
    //  - opExcess / trackedKernels / trackedGpu: the forward's ops tracked one by one for the rule
    //    after a host synchronisation, sum over ops of max(0, host - GPU) (forward only).
    // All are per-layer averages, blended over dense and MoE layers like the kernel times.
    struct HostAccount {
        double fExtra = 0, bExtra = 0;
        double opExcess = 0, trackedKernels = 0, trackedGpu = 0;
        double fGraphedOps = 0; // untracked forward kernels captured in a graph (no host cost)
    } ha;
    const unsigned graphScope = m_scenario.training.cudaGraphScope;
    const bool fullLayerGraph = (graphScope & CudaGraphFullLayer) != 0;
    bool graphedNow = false; // the linear layers being added run inside a captured graph
    const auto linearOn
        = [&](const ComputeEfficiency& ge, double rows, double out, double in, double count, bool sixteenBit) {
              const double forward = ge.gemmSeconds(rows, out, in, count, sixteenBit);
              f.gemm += forward;
              b.gemm += ge.gemmSeconds(rows, in, out, count, sixteenBit)
                  + ge.gemmSeconds(in, out, rows, count, sixteenBit, kWgradBytes);
              const double launches = count > 1 ? 1.0 : count; // grouped GEMMs launch once
              f.kernels += launches;
              b.kernels += 2.0 * launches;
              ha.opExcess += launches * std::max(0.0, (graphedNow ? 0.0 : k.hostSecondsPerKernel) - forward / launches);
              ha.trackedKernels += launches;
              ha.trackedGpu += forward;
              if (graphedNow) {
                  ha.fExtra -= launches * k.hostSecondsPerKernel;
                  ha.bExtra -= 2.0 * launches * k.hostSecondsPerKernel;
              }
          };
    const auto linear = [&](double rows, double out, double in, double count = 1.0, bool sixteenBit = false) {
        linearOn(e, rows, out, in, count, sixteenBit);
    };
    // A linear layer of a module with its own precision (training.module_dtypes).
    const auto moduleLinear = [&](Module module, double rows, double out, double in) {
        const ModulePrecision& mp = m_modules[module];
        linearOn(mp.other ? *mp.other : e, rows, out, in, 1.0, mp.bf16);
    };
    // A hybrid stack's blocks are shares of the layer (TransformerShape::attentionShare, ffnShare,
    // mambaShare): what `body` adds to the kernel times and host accounts is weighted by `share`.
    // A plain transformer's shares are 1 and nothing is rescaled.
    const auto weighted = [&](double share, const auto& body) {
        const KernelTimes f0 = f, b0 = b;
        const HostAccount h0 = ha;
        body();
        if (share == 1.0)
            return;
        const auto scale = [share](double& now, double before) { now = before + share * (now - before); };
        for (auto [now, before] : { std::pair { &f, &f0 }, std::pair { &b, &b0 } })
            for (const auto field : kKernelTimesFields)
                scale(now->*field, before->*field); // overhead is still 0 here (set when the layer is pooled)
        scale(ha.fExtra, h0.fExtra);
        scale(ha.bExtra, h0.bExtra);
        scale(ha.opExcess, h0.opExcess);
        scale(ha.trackedKernels, h0.trackedKernels);
        scale(ha.trackedGpu, h0.trackedGpu);
        scale(ha.fGraphedOps, h0.fGraphedOps);
    };
    // --cuda-graph-scope attn: the attention block (its linear layers, core, norms and rotary) is
    // replayed as one graph per direction (Megatron-Core transformer_layer.py / cuda_graphs.py).
    const bool attentionGraph = (graphScope & CudaGraphAttention) != 0 && !fullLayerGraph;
    graphedNow = attentionGraph;
    double mlaQUpForward = 0, mlaUpGemm = 0, mlaUpRecompute = 0; // seconds (mla_up_proj recomputation)
    // Attention block (column-parallel QKV, row-parallel output projection); multi-head latent
    // attention projects through its low-rank latents (DeepSeek-V2 Sec. 2.1).
    weighted(m.attentionShare, [&] {
        const auto attnLinear
            = [&](double rows, double out, double in) { moduleLinear(AttentionLinears, rows, out, in); };
        if (m.mla) {
            const double qk = d + m.qkRopeHeadDim;
            if (m.qLoraRank > 0) {
                attnLinear(tokens, m.qLoraRank, h);
                const double gemmBefore = f.gemm;
                attnLinear(tokens, m.heads * qk / t, m.qLoraRank);
                mlaQUpForward = f.gemm - gemmBefore;
            } else {
                attnLinear(tokens, m.heads * qk / t, h);
            }
            attnLinear(tokens, m.kvLoraRank + m.qkRopeHeadDim, h);
            const double gemmBeforeUp = f.gemm;
            attnLinear(tokens, m.heads * (d + m.vHeadDim) / t, m.kvLoraRank);
            // mla_up_proj recomputation (Megatron-Core multi_latent_attention.py recompute_up_proj): the
            // q and kv up-projections (the q one lives above, only with a q_lora_rank) and the rotary
            // embedding applied to their q and k outputs (read + write).
            mlaUpGemm = f.gemm - gemmBeforeUp + mlaQUpForward;
            mlaUpRecompute = mlaUpGemm + e.memoryBoundSeconds(tokens * 2.0 * act * 2.0 * m.heads * qk / t)
                + 4.0 * k.kernelLaunchSeconds;
            attnLinear(tokens, h, m.heads * m.vHeadDim / t);
        } else {
            attnLinear(tokens, (q + 2.0 * kv) / t, h);
            attnLinear(tokens, h, q / t);
        }
    });
    mlaQUpForward *= m.attentionShare;
    mlaUpGemm *= m.attentionShare;
    mlaUpRecompute *= m.attentionShare;
    graphedNow = false;
    const double fc1Matrices = m.gatedMlp ? 2.0 : 1.0;
    double ffnPerToken = m.ffnHidden; // FFN width a token goes through
    // GEMM inputs cast to fp8 per token: QKV, projection, FC1 (a hybrid stack: of its blocks).
    double fp8Elements = m.hybrid ? m.attentionShare * (h + q / t) + m.ffnShare * h : h + q / t + h;
    const bool droplessMoe = m.moe && m.capacityFactor <= 0;
    double moeSyncShare = 0; // share of layers that synchronise with the host (dropless MoE layers)
    double fp8PaddingSeconds = 0; // Fp8Padding / unpadding per direction (dropless fp8 MoE)
    double expertBiasForward = 0, expertBiasBackward = 0; // eager per-expert FC2 bias (linear_bias)
    double moeShareOfLayers = 0; // share of the layers that are MoE layers
    double denseMlpGemm = 0; // forward GEMM seconds of a dense layer's MLP (FC1 and FC2)
    double moeMlpForward = 0; // forward seconds of an MoE layer's MLP
    if (m.moe) {
        // Per-layer averages over the model's layers: a share of them are dense (dense_layers, or a
        // hybrid stack's '-' layers), a share MoE; a hybrid stack's other layers have no MLP.
        const double moeShare = m.moeShare;
        const double denseShare = m.ffnShare - moeShare;
        moeShareOfLayers = moeShare;
        KernelTimes fSaved = f, bSaved = b;
        const HostAccount haSaved = ha;
        // Dense MLP of the leading dense layers.
        linear(tokens, fc1Matrices * m.ffnHidden / t, h);
        linear(tokens, h, m.ffnHidden / t);
        const KernelTimes fDense = f, bDense = b;
        const HostAccount haDense = ha;
        denseMlpGemm = fDense.gemm - fSaved.gemm;
        f = fSaved;
        b = bSaved;
        ha = haSaved;
        // MoE MLP: router, routed experts as grouped GEMMs over this rank's experts, shared experts.
        // The busiest expert sets the pace: load_imbalance x the mean tokens, capped by the
        // capacity factor when tokens beyond it are dropped (Switch Transformer, Fedus et al. 2021).
        const double localExperts = m.experts / p.ep;
        const double imbalance = m.capacityFactor > 0 ? std::min(m.loadImbalance, m.capacityFactor) : m.loadImbalance;
        // Expert tensor parallelism et (etp; tp unless stated): an expert's FFN is split over et
        // ranks, which together hold the tokens of et sequence-parallel shards (all of the tp group's
        // tokens when et = tp; one shard each with et = 1, MoE parallel folding, Megatron-Core
        // token_dispatcher.py: all-to-all over ep, then all-gather over the expert-tp group).
        const double et = p.expertTp();
        const double moeTokens = sp ? tokens * et / t : tokens;
        const double tokensPerExpert = moeTokens * m.topK * p.ep / m.experts * imbalance;
        const bool routerGraph = (graphScope & CudaGraphMoeRouter) != 0 && !fullLayerGraph;
        const bool preprocessGraph = (graphScope & CudaGraphMoePreprocess) != 0 && !fullLayerGraph;
        graphedNow = routerGraph;
        linear(tokens, m.experts, h, 1.0, true); // router (kept in 16/32-bit)
        // Latent MoE: the MoE layer's input goes down to the latent width before the dispatch and the
        // combined output back up (Megatron-Core moe/moe_layer.py fc1_latent_proj in preprocess(),
        // fc2_latent_proj after the combine; TELinear "duplicated": whole on every tp rank, over the
        // rank's sequence-parallel tokens).
        const double xe = m.expertInput; // width of a token through dispatch, experts and combine
        if (xe != h) {
            const double rows = sp ? tokens / t : tokens;
            graphedNow = preprocessGraph;
            moduleLinear(MoeLatentProj, rows, xe, h);
            graphedNow = false;
            moduleLinear(MoeLatentProj, rows, h, xe);
        }
        graphedNow = false;
        // Routed experts as Transformer Engine's GroupedLinear runs them: one cuBLAS GEMM per local
        // expert, round-robin on groupedGemmStreams streams (computeefficiency.h). Each expert's GEMM
        // has its own tiles, waves and fixed latency; up to `streams` of them share the SMs at once.
        // With fp8 the inputs are split-quantized per expert too (one cast per expert, forward and
        // backward).
        const double streams = std::max(1.0, std::min(k.groupedGemmStreams, localExperts));
        const double rounds = std::ceil(localExperts / streams);
        // Host work of an un-graphed GroupedLinear call beyond its launches: a fixed part per call and
        // direction (module and fp8-state set-up, quantizer lists, workspace and wgrad allocations,
        // clear_tensor_data) and a part per local expert and grouped-GEMM pass (TE's Python loops over
        // the experts: torch.split, torch.empty per GEMM output, quantizer set-up): one pass forward
        // (fprop), two backward (dgrad and wgrad, each its own general_grouped_gemm over the experts).
        // Transformer Engine module/grouped_linear.py; TransformerEngine issues 1499 and 2897
        // (computeefficiency.h).
        const double expertHostForward = k.moeExpertHostSecondsForward;
        const auto grouped = [&](double rows, double out, double in) {
            const double forward = rounds * e.gemmSeconds(rows, out, in, streams);
            f.gemm += forward;
            b.gemm += rounds
                * (e.gemmSeconds(rows, in, out, streams) + e.gemmSeconds(in, out, rows, streams, false, kWgradBytes));
            const double castsForward = fp8 ? localExperts : 0.0, castsBackward = fp8 ? localExperts : 0.0;
            f.kernels += localExperts + castsForward;
            b.kernels += 2.0 * localExperts + castsBackward;
            f.libraryLaunches += localExperts + castsForward;
            b.libraryLaunches += 2.0 * localExperts + castsBackward;
            ha.fExtra += k.groupedLinearCallHostSeconds + localExperts * expertHostForward;
            ha.bExtra += k.groupedLinearCallHostSeconds + 2.0 * localExperts * k.moeExpertHostSecondsBackward;
            // Forward ops one by one: one GEMM per expert (its share of the streamed time), the
            // per-expert fp8 split quantization of the received rows, and the call's fixed host work
            // (no GPU work of its own).
            ha.opExcess += localExperts
                    * std::max(0.0, k.libraryHostSecondsPerLaunch + expertHostForward - forward / localExperts)
                + k.groupedLinearCallHostSeconds;
            ha.trackedKernels += localExperts;
            ha.trackedGpu += forward;
            if (fp8) {
                const double cast = e.memoryBoundSeconds(rows * localExperts * e.castBytesPerElement() * in);
                ha.opExcess += localExperts * std::max(0.0, k.libraryHostSecondsPerLaunch - cast / localExperts);
                ha.trackedKernels += localExperts;
                ha.trackedGpu += cast;
            }
        };
        grouped(tokensPerExpert, fc1Matrices * m.expertFfnHidden / et, xe);
        grouped(tokensPerExpert, xe, m.expertFfnHidden / et);
        if (m.linearBias) {
            // Expert biases (add_bias_linear, GPT-OSS). FC1's bias rides in the grouped GEMM (cuBLAS
            // bias epilogue forward, fused into the wgrad GEMM backward: Transformer Engine
            // module/grouped_linear.py). FC2 returns its per-expert biases (skip_bias_add) and
            // Megatron-Core adds them eagerly, expert by expert (transformer/moe/experts.py
            // TEGroupedMLP._apply_bias, core_v0.15.0 to core_v0.18.0): torch.split of the output and of
            // the probabilities, per local expert t + b * p (a multiply writing the rows, an add reading
            // two and writing one), torch.cat of the results (read + write): 6 element passes of the
            // received top-k rows forward. Autograd backward per expert: grad x p and its sum over the
            // rows (the bias gradient), grad x b and its sum over h (the probabilities' gradient), and
            // split's backward concatenating the rows' gradients: 8 passes. Kernels: 2 per expert + the
            // cat forward; 4 per expert + 2 concatenations backward.
            const double rowElements = tokens * m.topK * xe / (sp ? t : 1.0);
            expertBiasForward = e.memoryBoundSeconds(6.0 * act * rowElements);
            expertBiasBackward = e.memoryBoundSeconds(8.0 * act * rowElements);
            f.kernels += 2.0 * localExperts + 1.0;
            b.kernels += 4.0 * localExperts + 2.0;
        }
        if (m.sharedExperts > 0) {
            linear(tokens, fc1Matrices * m.sharedExperts * m.sharedExpertFfnHidden / t, h);
            linear(tokens, h, m.sharedExperts * m.sharedExpertFfnHidden / t);
        }
        // Token permutation as Megatron-Core's alltoall dispatcher runs it (megatron/core/transformer/
        // moe/token_dispatcher.py MoEAlltoAllTokenDispatcher with moe_permute_fusion): permute the
        // top-k copies of each token by expert, all-to-all, sort the received chunks by local expert
        // (when a rank holds more than one), and the reverse after the experts: four passes that
        // each read and write the top-k copies of the hidden state, plus the router's softmax / top-k
        // over the expert logits.
        // The flex dispatcher (DeepEP / HybridEP) delivers the tokens grouped by source and Megatron-Core
        // permutes them once after the dispatch and unpermutes once before the combine (token_dispatcher.py
        // MoEFlexTokenDispatcher, _DeepepManager.get_permuted_hidden_states_by_experts /
        // get_restored_hidden_states_by_experts): two passes, no chunk sort.
        const double permutePasses = m.flexDispatcher ? 2.0 : (localExperts > 1 ? 4.0 : 2.0);
        f.elementwise += e.memoryBoundSeconds(
            tokens * (m.topK * permutePasses * 2.0 * act * xe / (sp ? t : 1.0) + 4.0 * m.experts));
        // Dropless routing: the alltoall dispatcher needs the token counts on the host (the all-to-all
        // split sizes and Transformer Engine's per-expert m_splits), so every MoE layer forward copies
        // them device-to-host and blocks the host on that copy before the EP all-to-all (Megatron-Core
        // token_dispatcher.py MoEAlltoAllTokenDispatcher._maybe_dtoh_and_synchronize, d2h_event.
        // synchronize() at cuda_sync_point "before_ep_alltoall" / "before_finish"; the flex
        // dispatcher's DeepEP / HybridEP paths wait the same way when no static token budget is
        // given). The GPU drains its queue meanwhile, so the host work after the sync point, the
        // all-to-alls, chunk sort / unsort, activation, unpermute and every per-expert launch of the
        // grouped GEMMs and their fp8 split quantization, is no longer hidden behind earlier GPU work.
        // Tokens dropped and padded to a capacity (capacity_factor > 0) have static shapes: no sync.
        // `finish` below charges such a forward op by op (the host has no lead after the sync).
        if (droplessMoe)
            moeSyncShare = moeShare;
        // Fp8Padding (Transformer Engine module/fp8_padding.py, called by Megatron-Core experts.py
        // TEGroupedMLP for fp8): pads each expert's rows to a multiple of 16 (32 for MXFP8) before the
        // grouped GEMM and unpads the output; it copies nothing when the splits are already aligned,
        // which static capacity-padded shapes are and random dropless splits almost never. Forward:
        // pad read + write and unpad read + write of the received top-k copies; the backward the same.
        if (fp8 && droplessMoe) {
            fp8PaddingSeconds = e.memoryBoundSeconds(4.0 * tokens * m.topK * act * xe / (sp ? t : 1.0));
            f.kernels += 2.0;
            b.kernels += 2.0;
        }
        // Megatron-Core's combined-1F1B expert-parallel overlap (--overlap-moe-expert-parallel-comm with
        // delay_wgrad_compute, models/common/model_chunk_schedule_plan.py) splits every MoE layer into
        // scheduled sub-modules with their own streams and events: host work per MoE layer and
        // micro-batch (NVIDIA-NeMo/Megatron-Bridge pull request 1760 measured it on Qwen3-235B-A22B /
        // B200, "due to CPU overhead"). Host-only: with dropless routing the host has no lead to hide
        // it; with static shapes it hides behind the GPU like any host time.
        if (m_scenario.communication.moeA2aOverlap) {
            ha.fExtra += k.moeA2aOverlapHostSeconds;
            ha.opExcess += k.moeA2aOverlapHostSeconds;
        }
        // CUDA-graphed MoE scopes: the router's ops (forward and backward) and the dispatcher's
        // preprocessing (forward) replay as one graph instead of launching op by op.
        if (routerGraph || preprocessGraph) {
            const double fOps
                = (routerGraph ? kMoeRouterForwardOps : 0.0) + (preprocessGraph ? kMoePreprocessForwardOps : 0.0);
            ha.fExtra += k.graphLaunchHostSeconds - fOps * k.hostSecondsPerKernel;
            ha.fGraphedOps += fOps;
            ha.opExcess += k.graphLaunchHostSeconds;
            if (routerGraph)
                ha.bExtra += k.graphLaunchHostSeconds - kMoeRouterBackwardOps * k.hostSecondsPerKernel;
        }

        // Python-level ops of an MoE layer besides its GEMMs, counted in Megatron-Core's router.py
        // (gating cast, fused top-k/score, aux-loss scores, aux loss and its scaler, forced balance),
        // token_dispatcher.py (routing-map sums, the EP all-gather of token counts, device-to-host
        // copies of the splits, row-id map, permute, chunk sort, the two all-to-alls, unsort,
        // unpermute) and experts.py (activation): ~24 forward, ~18 in autograd's backward.
        f.kernels += kMoeForwardOps;
        b.kernels += kMoeBackwardOps;
        // One MoE MLP's forward on the GPU (recompute module "moe"): its GEMMs, element-wise kernels
        // and launch gaps, the fp8 padding and the eager expert biases, and the casts of its GEMM inputs.
        moeMlpForward = (f.gemm - fSaved.gemm) + (f.elementwise - fSaved.elementwise) + fp8PaddingSeconds
            + expertBiasForward + (f.kernels - fSaved.kernels) * k.kernelLaunchSeconds
            + (fp8 ? e.memoryBoundSeconds(tokens * e.castBytesPerElement()
                   * (m.topK * xe + (m.sharedExperts > 0 ? 1.0 : 0.0) * h
                       + (m.topK * m.expertFfnHidden + m.sharedExperts * m.sharedExpertFfnHidden) / t))
                   : 0.0);
        const auto blend = [&](KernelTimes& moe, const KernelTimes& dense, const KernelTimes& saved) {
            moe.gemm = saved.gemm + moeShare * (moe.gemm - saved.gemm) + denseShare * (dense.gemm - saved.gemm);
            moe.elementwise = saved.elementwise + moeShare * (moe.elementwise - saved.elementwise);
            moe.kernels = saved.kernels + moeShare * (moe.kernels - saved.kernels)
                + denseShare * (dense.kernels - saved.kernels);
            moe.libraryLaunches = saved.libraryLaunches + moeShare * (moe.libraryLaunches - saved.libraryLaunches);
        };
        blend(f, fDense, fSaved);
        blend(b, bDense, bSaved);
        const auto mix = [&](double& moe, double dense, double saved) {
            moe = saved + moeShare * (moe - saved) + denseShare * (dense - saved);
        };
        mix(ha.fExtra, haDense.fExtra, haSaved.fExtra);
        mix(ha.bExtra, haDense.bExtra, haSaved.bExtra);
        mix(ha.opExcess, haDense.opExcess, haSaved.opExcess);
        mix(ha.trackedKernels, haDense.trackedKernels, haSaved.trackedKernels);
        mix(ha.trackedGpu, haDense.trackedGpu, haSaved.trackedGpu);
        mix(ha.fGraphedOps, haDense.fGraphedOps, haSaved.fGraphedOps);
        fp8PaddingSeconds *= moeShare;
        expertBiasForward *= moeShare;
        expertBiasBackward *= moeShare;
        ffnPerToken = moeShare * (m.topK * m.expertFfnHidden + m.sharedExperts * m.sharedExpertFfnHidden)
            + denseShare * m.ffnHidden;
        // fp8: an MoE layer casts the top-k copies of each token (and the shared experts' input) for FC1.
        fp8Elements += moeShare * (m.topK * xe + (m.sharedExperts > 0 ? 1.0 : 0.0) * h - h);
        if (xe != h) // the latent projections' inputs
            fp8Elements += moeShare * (h + xe) / (sp ? t : 1.0);
    } else {
        const double gemmBefore = f.gemm;
        weighted(m.ffnShare, [&] {
            linear(tokens, fc1Matrices * m.ffnHidden / t, h);
            linear(tokens, h, m.ffnHidden / t);
            denseMlpGemm = f.gemm - gemmBefore; // one MLP's
        });
        ffnPerToken = m.ffnShare * m.ffnHidden;
    }
    fp8Elements += ffnPerToken / t;
    // Attention core. Fused (flash) attention skips the masked half of the causal scores and runs in
    // bf16; unfused attention runs two batched GEMMs per head plus the score traffic.
    const double headsLocal = m.heads / t;
    // Keys attended: windowed layers (sliding_window) see at most the window.
    const double window = m.slidingWindow > 0 ? std::min(m.slidingWindow, seq) : seq;
    const double attended = (1.0 - m.slidingWindowFraction) * seq + m.slidingWindowFraction * window;
    const double qkDim = m.mla ? d + m.qkRopeHeadDim : d, vDim = m.mla ? m.vHeadDim : d;
    weighted(m.attentionShare, [&] {
        if (k.flashAttention) {
            // Share of the s x s scores computed: causal half of a full sequence. A windowed layer is
            // computed tile by tile like the causal one (windowedTileShare).
            const double computed = (1.0 - m.slidingWindowFraction) * 0.5
                + m.slidingWindowFraction * 0.5 * windowedTileShare(seq, window);
            const double flops = computed * 2.0 * tokens * seq * m.heads * (qkDim + vDim) / t;
            // The tiles already hold a window's cost: windowed layers keep the whole sequence's query
            // tiles to fill the SMs, so the sequence-length efficiency is the sequence's.
            f.attention = e.flashAttentionSeconds(flops, qkDim, seq);
            b.attention = k.attentionBackwardFlopsFactor * f.attention / k.attentionBackwardEfficiency;
            f.kernels += 1.0;
            b.kernels += 2.0; // preprocess (dO . O) + the backward kernel
            ha.opExcess += std::max(0.0, (attentionGraph ? 0.0 : k.hostSecondsPerKernel) - f.attention);
            ha.trackedKernels += 1.0;
            ha.trackedGpu += f.attention;
        } else {
            const double batched = s.microBatch * headsLocal;
            f.attention = e.gemmSeconds(seqLocal, attended, qkDim, batched, true)
                + e.gemmSeconds(seqLocal, vDim, attended, batched, true)
                + e.memoryBoundSeconds(k.scoreBytesPerElement * batched * seqLocal * attended);
            b.attention = 2.0 * f.attention;
            f.kernels += 3.0;
            b.kernels += 5.0;
            ha.opExcess += 3.0 * std::max(0.0, (attentionGraph ? 0.0 : k.hostSecondsPerKernel) - f.attention / 3.0);
            ha.trackedKernels += 3.0;
            ha.trackedGpu += f.attention;
        }
        if (attentionGraph) {
            // The graph holds the core, the block's linear layers (removed above) and its norms, rotary
            // and residual add (and their fp8 casts); one replay per direction.
            const double coreForward = k.flashAttention ? 1.0 : 3.0, coreBackward = k.flashAttention ? 2.0 : 5.0;
            const double elementwiseOps = kAttentionBlockElementwiseOps + (fp8 ? 2.0 : 0.0);
            ha.fExtra += k.graphLaunchHostSeconds - (coreForward + elementwiseOps) * k.hostSecondsPerKernel;
            ha.bExtra += k.graphLaunchHostSeconds - (coreBackward + elementwiseOps) * k.hostSecondsPerKernel;
            ha.fGraphedOps += elementwiseOps;
            ha.opExcess += k.graphLaunchHostSeconds;
        }
    });
    // Mamba-2 mixer layers of a hybrid stack (Megatron-Core ssm/mamba_mixer.py MambaMixer, training
    // path _ssm_training): in_proj (column-parallel, pre-norm fused), the [z, x, B, C, dt] output made
    // contiguous batch-first, mamba_ssm's mamba_split_conv1d_scan_combined (the causal depthwise conv1d
    // + SiLU over x, B, C, then the SSD chunked scan, Dao & Gu 2024 Sec. 6, with the D skip and the
    // z gate inside), y made contiguous sequence-first again, the RMSNorm and out_proj (row-parallel).
    // Tensor parallelism splits the heads and the B / C groups. The SSD scan (mamba_ssm
    // ops/triton/ssd_combined.py _mamba_chunk_scan_combined_fwd / _bwd) runs per chunk of Q tokens
    // (c = tokens / Q chunks): forward C B^T per group (Q x Q x N, fp32 out), the chunk states B^T x per
    // head (P x N x Q, fp32), the state passing across chunks (fp32 states read and written), and the
    // output (L o C B^T) x + C h per head (Q x P x (Q + N)). The backward recomputes the chunk
    // states, C B^T and the passing, then runs per head dstates (P x N x Q), dx (Q x P x (Q + N)), dB
    // and dC (Q x N x P each), dCB and ddA (Q x Q x P each), per group the two products of dCB
    // (Q x N x Q), and the passing backward (states read twice, written once). Each product is costed
    // as one batched GEMM launch (its tiles share the waves), in 16-bit as the Triton kernels run;
    // the SSD time counts with the attention core (the layer's sequence mixing).
    // Context parallelism (Megatron-Core ssm/mamba_context_parallel.py): the in_proj output goes from
    // sequence shards to head shards before the conv1d and the scan and y comes back before the norm
    // and out_proj, so a rank scans the whole sequence (tokens x cp) for heads / (tp cp) heads
    // (TransformerShape::mambaRankLayout); the all-to-alls are in trainingiteration.cpp.
    double mambaRecomputeElementwise = 0, mambaCpCopies = 0, ssdSeconds = 0; // ssd: forward scan
    if (m.mambaShare > 0) {
        const TransformerShape::MambaRankLayout rank = m.mambaRankLayout(t, p.cp);
        const double scanTokens = tokens * p.cp;
        const double heads = rank.heads, groups = rank.groups;
        const double pd = m.mambaHeadDim, n = m.mambaStateDim, qc = m.mambaChunk;
        const double inner = m.mambaInner() / t, inWidth = m.mambaInProjWidth() / t; // the GEMMs' widths
        const double chunks = std::max(1.0, scanTokens / qc);
        const double stateBytes = 4.0 * chunks * heads * pd * n; // fp32 states of every chunk
        // --cuda-graph-scope mamba: the Mamba layer replays as one graph per direction
        // (Megatron-Core ssm/mamba_layer.py MambaLayer is graphable like the attention block).
        const bool mambaGraph = (graphScope & CudaGraphMamba) != 0 && !fullLayerGraph;
        weighted(m.mambaShare, [&] {
            graphedNow = mambaGraph;
            moduleLinear(MambaInProj, tokens, inWidth, h);
            moduleLinear(MambaOutProj, tokens, h, inner);
            graphedNow = false;
            const double cb = e.gemmSeconds(qc, qc, n, chunks * groups, true, 4.0);
            const double chunkState = e.gemmSeconds(pd, n, qc, chunks * heads, true, 4.0);
            const double passing = e.memoryBoundSeconds(2.0 * stateBytes);
            const double scan = e.gemmSeconds(qc, pd, qc + n, chunks * heads, true);
            const double cumsum = e.memoryBoundSeconds(3.0 * 4.0 * scanTokens * heads);
            f.attention += cb + chunkState + passing + scan + cumsum;
            b.attention += cb + chunkState + passing + cumsum // recomputed
                + e.gemmSeconds(pd, n, qc, chunks * heads, true, 4.0) // dstates
                + e.memoryBoundSeconds(3.0 * stateBytes) // state passing backward
                + e.gemmSeconds(qc, pd, qc + n, chunks * heads, true) // dx
                + 2.0 * e.gemmSeconds(qc, n, pd, chunks * heads, true, 4.0) // dB, dC
                + 2.0 * e.gemmSeconds(qc, qc, pd, chunks * heads, true, 4.0) // dCB, ddA
                + 2.0 * e.gemmSeconds(qc, n, qc, chunks * groups, true, 4.0) // the products of dCB
                + e.memoryBoundSeconds(scanTokens * act * 4.0 * rank.inner); // dz: reads z, y, dout; writes dz
            // Memory-bound forward: the two contiguous copies (in_proj's output, y), the conv1d + SiLU
            // (reads and writes x, B, C) and the RMSNorm of y (read + write); their backward follows the
            // other element-wise kernels' rule below. The memory-efficient path recomputes the conv1d
            // in the backward (mamba_ssm ops/triton/ssd_combined.py MambaSplitConv1dScanCombinedFn).
            f.elementwise += e.memoryBoundSeconds(
                scanTokens * act * 2.0 * (rank.scanInputWidth + rank.inner + rank.convChannels + rank.inner));
            mambaRecomputeElementwise = e.memoryBoundSeconds(scanTokens * act * 2.0 * rank.convChannels);
            if (p.cp > 1) {
                // The reshuffles around the all-to-alls, each a copy read and written: pre_conv_ssm's
                // five all_to_all_sp2hp (z, x, B, C, dt: split along the width and concatenated along
                // the sequence, tensor_parallel/mappings.py), the concatenation of the five and
                // _undo_attention_load_balancing's reordering of the sequence chunks; post_conv_ssm's
                // _redo_attention_load_balancing and _all_to_all_hp2cp's split and concatenation of y.
                // With repeated groups, einops.repeat writes B and C r times. The backward moves the
                // gradients through the same reshuffles in reverse (a concatenation's backward slices,
                // a split's concatenates): the same bytes and kernels.
                double bytes
                    = act * (3.0 * 2.0 * scanTokens * rank.scanInputWidth + 2.0 * 2.0 * scanTokens * rank.inner);
                double copies = 9.0;
                if (rank.groupRepeat > 1) {
                    bytes += act * 2.0 * tokens * (m.mambaGroups / t) * n * (1.0 + rank.groupRepeat);
                    copies += 2.0;
                }
                mambaCpCopies = e.memoryBoundSeconds(bytes);
                f.kernels += copies;
                b.kernels += copies;
            }
            // Kernels: norm + in_proj and out_proj (counted by linear), two copies, conv1d, the five
            // SSD kernels, the norm, the A = -exp(A_log) and fp32 casts of dt_bias / D (4 small ops);
            // backward: the conv1d recomputation and its backward, the four recomputed and ten
            // backward SSD kernels, dz, the copies' and the norm's backward.
            const double ssdForward = 5.0, ssdBackward = 14.0;
            const double forwardOps = 2.0 + 1.0 + ssdForward + 1.0 + 4.0;
            const double backwardOps = 2.0 + ssdBackward + 1.0 + 2.0 + 1.0;
            f.kernels += forwardOps;
            b.kernels += backwardOps;
            const double ssd = cb + chunkState + passing + scan + cumsum;
            ssdSeconds = ssd;
            ha.opExcess += ssdForward * std::max(0.0, (mambaGraph ? 0.0 : k.hostSecondsPerKernel) - ssd / ssdForward);
            ha.trackedKernels += ssdForward;
            ha.trackedGpu += ssd;
            if (mambaGraph) {
                // The graph holds the block's ops above, its linear layers (removed in linear()) and its
                // residual add (the norm rides in in_proj); one replay per direction.
                ha.fExtra += k.graphLaunchHostSeconds - (forwardOps + 1.0) * k.hostSecondsPerKernel;
                ha.bExtra += k.graphLaunchHostSeconds - (backwardOps + 1.0) * k.hostSecondsPerKernel;
                ha.fGraphedOps += forwardOps - ssdForward + 1.0;
                ha.opExcess += k.graphLaunchHostSeconds;
            }
        });
        mambaRecomputeElementwise *= m.mambaShare;
        mambaCpCopies *= m.mambaShare;
        ssdSeconds *= m.mambaShare;
        fp8Elements += m.mambaShare * (h + inner);
    }
    // Memory-bound kernels, bytes per token of one layer forward (16-bit activations):
    //   two norms (read + write h each), two residual adds (read 2 h, write h each): replicated
    //   across TP unless sequence parallelism splits them;
    //   rotary embedding on q and k (read + write), the MLP activation (SwiGLU reads 2 f and writes f,
    //   GeLU reads and writes f): split by TP.
    //   A hybrid stack: one norm and one residual add per block, rotary in its attention layers and the
    //   activation in its MLP layers.
    const double blocks = m.blocksPerLayer;
    const double replicated = act * (blocks * 2.0 * h + blocks * 3.0 * h);
    const double split = act * (m.attentionShare * 2.0 * (q + kv) + (m.gatedMlp ? 3.0 : 2.0) * ffnPerToken) / t;
    f.elementwise += e.memoryBoundSeconds(tokens * ((sp ? replicated / t : replicated) + split));
    const double elementwiseKernels = 2.0 * blocks + m.attentionShare + m.ffnShare; // norms, adds, rotary, activation
    f.kernels += elementwiseKernels;
    b.kernels += elementwiseKernels;
    if (m.qkLayerNorm) {
        // Query / key normalisation (qk_layernorm; Qwen3, OLMo 2, DeepSeek-V3). Standard attention:
        // an RMSNorm over head_dim of every query head and every key head, each its own kernel after
        // the QKV projection (Megatron-Core transformer/attention.py SelfAttention.
        // get_query_key_value_tensors: q_layernorm(query), k_layernorm(key); gpt_layer_specs.py
        // q_layernorm / k_layernorm = TENorm): read + write q + kv per token, split by TP. Multi-head
        // latent attention: the q and kv latents are normalised in the up-projections' fused
        // LayerNormLinear (gpt_layer_specs.py linear_q_up_proj / linear_kv_up_proj =
        // column_parallel_layer_norm_linear): read + write q_lora_rank + kv_lora_rank per token (the
        // latents are not split by TP). The backward reads the input and the gradient and writes the
        // gradient, as the other norms (backwardElementwiseFactor below).
        const double normed = m.attentionShare * (m.mla ? m.qLoraRank + m.kvLoraRank : (q + kv) / t);
        f.elementwise += e.memoryBoundSeconds(tokens * 2.0 * act * normed);
        const double kernels = m.attentionShare * (m.mla ? (m.qLoraRank > 0 ? 2.0 : 1.0) : 2.0);
        f.kernels += kernels;
        b.kernels += kernels;
    }
    if (fp8) {
        // fp8 casts (and amax) of every GEMM input forward and of every output gradient backward.
        // Modules of their own precision (training.module_dtypes): a BF16 module's GEMM inputs are not
        // cast; another quantized dtype's are cast at that dtype's bytes per element.
        double moduleCastSeconds = 0, uncastKernels = 0;
        const auto moduleInputs = [&](Module module, double elements, double castKernelsOfModule) {
            const ModulePrecision& mp = m_modules[module];
            if (!mp.differs())
                return;
            fp8Elements -= elements;
            if (mp.other)
                moduleCastSeconds += mp.other->memoryBoundSeconds(tokens * mp.other->castBytesPerElement() * elements);
            else
                uncastKernels += castKernelsOfModule;
        };
        moduleInputs(AttentionLinears, m.attentionShare * (h + q / t), 2.0 * m.attentionShare);
        if (m.expertInput != h)
            moduleInputs(MoeLatentProj, m.moeShare * (h + m.expertInput) / (sp ? t : 1.0), 0.0);
        moduleInputs(MambaInProj, m.mambaShare * h, m.mambaShare);
        moduleInputs(MambaOutProj, m.mambaShare * m.mambaInner() / t, m.mambaShare);
        f.fp8Casts = e.memoryBoundSeconds(tokens * e.castBytesPerElement() * fp8Elements) + moduleCastSeconds;
        b.fp8Casts = f.fp8Casts;
        // Four casts per layer (two GEMM inputs per block); a hybrid stack's blocks two each.
        const double castKernels = 2.0 * m.blocksPerLayer - uncastKernels;
        f.kernels += castKernels;
        b.kernels += castKernels;
        if (m_scenario.training.dtype == DType::NVFP4) {
            // NVFP4: each cast is two kernels (the Hadamard amax pass, then the fused cast), and every
            // NVFP4 GEMM is preceded by a kernel combining the operands' per-tensor scales into its
            // alpha (Transformer Engine common/gemm/cublaslt_gemm.cu nvte_nvfp4_compute_per_tensor_scale):
            // 4 casts + 4 GEMMs forward, 4 casts + 8 GEMMs backward per layer.
            f.kernels += castKernels + castKernels;
            b.kernels += castKernels + 2.0 * castKernels;
        }
    }
    // Forward of the kernels training.recompute_modules may recompute (before the additions below).
    const double layerNormForward = e.memoryBoundSeconds(tokens * blocks * 2.0 * act * h / (sp ? t : 1.0));
    double activationForward = e.memoryBoundSeconds(tokens * act * (m.gatedMlp ? 3.0 : 2.0) * ffnPerToken / t);
    b.elementwise = k.backwardElementwiseFactor * f.elementwise + mambaRecomputeElementwise;
    f.elementwise += mambaCpCopies;
    b.elementwise += mambaCpCopies;
    f.elementwise += fp8PaddingSeconds;
    b.elementwise += fp8PaddingSeconds;
    if (m.activationClampValue > 0) {
        // Clamped gated activation (GPT-OSS; Megatron-Core fusions/fused_bias_geglu.py
        // weighted_bias_quick_geglu_impl and transformer/mlp.py): the FC1 output is chunked, both halves
        // clamped (each reads and writes f) and concatenated again (reads and writes 2 f) before the
        // fused activation, all unfused: 8 f element passes forward. Backward: each clamp's gradient
        // reads the gradient and its input and writes f (6 f), and chunk's backward concatenates the
        // two halves (4 f): 10 f. f = the FFN width a token goes through (top-k experts' in MoE layers).
        const double halfElements = tokens * ffnPerToken / t;
        const double clampForward = e.memoryBoundSeconds(8.0 * act * halfElements);
        f.elementwise += clampForward;
        b.elementwise += e.memoryBoundSeconds(10.0 * act * halfElements);
        activationForward += clampForward;
        f.kernels += 3.0;
        b.kernels += 3.0;
    }
    if (m.squaredReluEager) {
        // Squared ReLU as eager PyTorch ops (model.activation_fusion false; NeMo 2.x's Nemotron-4:
        // nemo/collections/llm/fn/activation.py squared_relu = torch.pow(F.relu(x), 2), its
        // @torch.jit.script commented out): relu and pow each read and write f, 4 f element passes
        // forward in 2 kernels against the fused kernel's 2 f in 1 counted above. Autograd (PyTorch
        // tools/autograd/derivatives.yaml; torch/csrc/autograd/FunctionsManual.cpp pow_backward =
        // grad * (2 * x.pow(1))): x.pow(1) (2 f), the product with 2 (2 f) and with the gradient (3 f),
        // then relu's threshold_backward (3 f): 10 f in 4 kernels against the 2 x 2 f in 1 counted
        // above. f = the FFN width a token goes through. The saved tensor is relu's output, f as for
        // the fused kernel's input: no memory change.
        const double elements = tokens * ffnPerToken / t;
        const double extraForward = e.memoryBoundSeconds(2.0 * act * elements);
        f.elementwise += extraForward;
        b.elementwise += e.memoryBoundSeconds(6.0 * act * elements);
        activationForward += extraForward;
        f.kernels += 1.0;
        b.kernels += 3.0;
    }
    if (!m.ropeFusion) {
        // Rotary embedding without apply_rope_fusion (Megatron-Core models/common/embeddings/
        // rope_utils.py _apply_rotary_pos_emb_bshd, called once for the queries and once for the keys,
        // transformer/attention.py): on a tensor of E elements the forward runs t * cos (2 E element
        // accesses), _rotate_half's negation of one half (E) and concatenation (2 E), * sin (2 E),
        // the sum (3 E) and the final torch.cat with the empty pass-through part (2 E): 12 E, against
        // the fused kernel's read + write (2 E, counted above). Autograd runs * sin (2 E), the
        // negation (E), the halves' concatenation (2 E), * cos (2 E), the sum of t's two gradients
        // (3 E) and the slice's zero-fill and copy (3 E): 13 E, against the 4 E of the fused
        // backward above. Kernels per call: 6 forward (plus cos, sin, their mscale products and
        // casts on the small [s, d] table: 6) and 7 backward, against 1 and 1 counted above.
        const double rotated = m.attentionShare * tokens * (q + kv) / t;
        f.elementwise += e.memoryBoundSeconds(10.0 * act * rotated);
        b.elementwise += e.memoryBoundSeconds(9.0 * act * rotated);
        f.kernels += m.attentionShare * (2.0 * 12.0 - 1.0);
        b.kernels += m.attentionShare * (2.0 * 7.0 - 1.0);
    }
    if (m.linearBias) {
        // Biases of the attention projection and, in dense layers, of FC2: both row-parallel with
        // skip_bias_add; unfused bias-dropout-add (bias_dropout_fusion false, GPT-OSS provider;
        // Megatron-Core fusions/fused_bias_dropout.py _bias_dropout_add_func) adds the bias in a pass of
        // its own (read + write h); backward, the bias gradient reduces the output gradient over the
        // tokens (read h). QKV's and dense FC1's biases ride in the GEMM epilogues.
        const double passes = m.attentionShare + (m.ffnShare - moeShareOfLayers);
        const double perToken = act * h / (sp ? t : 1.0);
        f.elementwise += e.memoryBoundSeconds(passes * tokens * 2.0 * perToken) + expertBiasForward;
        b.elementwise += e.memoryBoundSeconds(passes * tokens * perToken) + expertBiasBackward;
        f.kernels += passes;
        b.kernels += passes;
    }
    if (p.tp > 1) { // the TP collectives are kernels too (2 forward, 2 backward per layer; 1 per hybrid block)
        f.kernels += blocks;
        b.kernels += blocks;
    }
    // Per-kernel overhead: the GPU idles kernelLaunchSeconds between dependent kernels, and a layer
    // cannot run faster than the host launches its kernels (PyTorch / Transformer Engine dispatch).
    // A host synchronisation inside the layer (MoE dispatcher, forward only) adds the host time after it
    // to the GPU time: the GPU waits, empty, while the host issues those kernels.
    //
    // Without a sync the host runs ahead of the GPU and only a host slower than the GPU over the
    // whole layer shows: overhead = max(0, host - GPU) (pooled). After a sync (dropless MoE, forward)
    // the host starts level with the GPU and has no lead to absorb any op whose launch takes longer
    // than its kernel, so each op costs max(host, GPU): overhead = t_sync + sum over ops of
    // max(0, host - GPU). The ops whose times differ (GEMMs, per-expert GEMMs and casts, attention,
    // GroupedLinear bookkeeping, graph replays) are tracked one by one above; the remaining
    // Python-level ops share the remaining GPU time evenly. This is an upper bound of the host/GPU
    // pipeline (any earlier lead would shorten it), matching the layer-level behaviour NVIDIA
    // describes for dropless MoE in Megatron-Bridge docs/training/moe-optimization.md ("CPU
    // overhead: gaps between GPU kernels").
    // A whole-layer graph (--cuda-graph-scope full_layer, static shapes only) replaces the layer's
    // host work by one replay per direction.
    const auto gpuSeconds = [&](const KernelTimes& kt) {
        return kt.gemm + kt.attention + kt.elementwise + kt.fp8Casts + kt.kernels * k.kernelLaunchSeconds;
    };
    const auto hostSeconds = [&](const KernelTimes& kt, double extra) {
        if (fullLayerGraph)
            return k.graphLaunchHostSeconds;
        return (kt.kernels - kt.libraryLaunches) * k.hostSecondsPerKernel
            + kt.libraryLaunches * k.libraryHostSecondsPerLaunch + extra;
    };
    const auto pooled = [&](KernelTimes& kt, double extra) {
        kt.overhead = kt.kernels * k.kernelLaunchSeconds + std::max(0.0, hostSeconds(kt, extra) - gpuSeconds(kt));
        return kt.gemm + kt.attention + kt.elementwise + kt.fp8Casts + kt.overhead;
    };
    lt.forward = pooled(f, ha.fExtra);
    lt.backward = pooled(b, ha.bExtra);
    if (moeSyncShare > 0) {
        // Dropless MoE forward, op by op (the leading dense layers of such a model are averaged in
        // and charged the same way; the sync itself only in the MoE layers).
        const double kernelsLeft = std::max(0.0, f.kernels - ha.trackedKernels);
        const double gpuLeft = std::max(0.0, f.gemm + f.attention + f.elementwise + f.fp8Casts - ha.trackedGpu);
        const double hostOpsLeft = std::max(0.0, kernelsLeft - ha.fGraphedOps);
        const double perOpGpu = kernelsLeft > 0 ? gpuLeft / kernelsLeft : 0.0;
        double exposed = ha.opExcess + hostOpsLeft * std::max(0.0, k.hostSecondsPerKernel - perOpGpu);
        // The layer also cannot end before the host is done with it (the pooled rule is a lower bound).
        const double pooledExcess = std::max(0.0, hostSeconds(f, ha.fExtra) - gpuSeconds(f));
        exposed += moeSyncShare * k.moeSyncSeconds;
        // The sync is also a rendezvous of the expert-parallel group (the token counts are
        // all-gathered first): each layer waits for the slowest of `ep` hosts (DeepEP issue 28,
        // "dispatch is a natural barrier"); host_jitter_fraction is the hosts' coefficient of variation.
        if (k.hostJitterFraction > 0 && p.ep > 1)
            exposed += moeSyncShare * expectedMaxOfNormals(p.ep) * k.hostJitterFraction * hostSeconds(f, ha.fExtra);
        f.overhead = f.kernels * k.kernelLaunchSeconds + std::max(exposed, pooledExcess);
        lt.forward = f.gemm + f.attention + f.elementwise + f.fp8Casts + f.overhead;
    }
    lt.attentionCore = f.attention - ssdSeconds; // attention layers only: what hides their cp traffic
    // Selective recomputation: the forward of the modules of training.recompute_modules, run again
    // in the backward (Megatron-Core transformer_layer.py, attention.py, moe/experts.py,
    // multi_latent_attention.py). Default (not stated): the attention core only; a fused (flash)
    // attention is not charged (it keeps no scores to recompute).
    const unsigned modules = m_scenario.training.recomputeModules != RecomputeModulesDefault
        ? m_scenario.training.recomputeModules
        : static_cast<unsigned>(RecomputeCoreAttention);
    if (modules & RecomputeCoreAttention)
        lt.selectiveRecomputeAttention = k.flashAttention ? 0.0 : f.attention;
    lt.selectiveRecompute = lt.selectiveRecomputeAttention;
    if (modules & RecomputeLayerNorm)
        lt.selectiveRecompute += layerNormForward + 2.0 * k.kernelLaunchSeconds;
    if ((modules & RecomputeMoe) && m.moe) {
        // The whole MoE MLP of every MoE layer (Megatron-Core transformer_layer.py: "moe" in
        // recompute_modules checkpoints self.mlp, te_checkpoint under fp8): router, permutation,
        // experts and unpermutation forward again in the backward; its all-to-alls run again too
        // (trainingiteration.cpp). Its activation is then recomputed with it, so "moe_act" adds nothing.
        lt.selectiveRecompute += moeShareOfLayers * moeMlpForward;
    } else if ((modules & RecomputeMoeAct) && m.moe) {
        // The routed experts' activation only (the MoE layers' share of the averaged activation).
        const double expertShare = moeShareOfLayers * m.topK * m.expertFfnHidden / std::max(1.0, ffnPerToken);
        lt.selectiveRecompute += expertShare * activationForward + moeShareOfLayers * k.kernelLaunchSeconds;
    }
    if (modules & RecomputeMlaUpProj) {
        lt.selectiveRecompute += mlaUpRecompute;
        lt.selectiveRecomputeGemm = mlaUpGemm;
    }
    if (modules & RecomputeMlp) {
        // The whole MLP of the dense layers (Megatron-Core transformer_layer.py recompute_mlp, set only
        // when the layer is not an MoE layer; te_checkpoint under fp8): Transformer Engine's
        // LayerNormMLP / LayerNormLinear FC1 with its pre-MLP norm, the activation, FC2 and their casts,
        // forward again in the backward. Not counted: with tp > 1 the recomputed FC1 gathers its
        // sequence-parallel input again over the TP group.
        const double denseShare = m.ffnShare - moeShareOfLayers;
        const double normForward = e.memoryBoundSeconds(tokens * 2.0 * act * h / (sp ? t : 1.0));
        const double activationPasses = m.gatedMlp ? 3.0 : (m.squaredReluEager ? 4.0 : 2.0); // eager: see above
        const double activation = e.memoryBoundSeconds(tokens * act * activationPasses * m.ffnHidden / t);
        const double casts = fp8 ? e.memoryBoundSeconds(tokens * e.castBytesPerElement() * (h + m.ffnHidden / t)) : 0.0;
        lt.selectiveRecompute
            += denseShare * (denseMlpGemm + normForward + activation + casts + 5.0 * k.kernelLaunchSeconds);
        lt.selectiveRecomputeGemm += denseShare * denseMlpGemm;
    }
    // Output layer (vocabulary split over TP; 16-bit even in fp8 training: Megatron's output layer is
    // not a Transformer Engine module) and fp32 softmax cross-entropy (write, read, write grad).
    const double vocabLocal = m.vocab / t;
    lt.logitsForward
        = e.gemmSeconds(tokens, vocabLocal, h, 1.0, true) + e.memoryBoundSeconds(8.0 * tokens * vocabLocal);
    lt.logitsBackward = e.gemmSeconds(tokens, h, vocabLocal, 1.0, true)
        + e.gemmSeconds(h, vocabLocal, tokens, 1.0, true) + e.memoryBoundSeconds(6.0 * tokens * vocabLocal);
    if (m.mtpLayers > 0) {
        // A multi-token prediction module (Megatron-Core transformer/multi_token_prediction.py
        // MultiTokenPredictionLayer.forward): the shifted tokens' embedding (write h), enorm and hnorm
        // (read + write h each), their concatenation (read + write 2 h), eh_proj (column-parallel
        // linear 2 h -> h, in the training dtype) and the final layernorm (read + write h), before its
        // transformer layer and the shared output layer counted apart. Backward: the linear's data and
        // weight gradients and twice the element-wise bytes.
        const double elementwise
            = e.memoryBoundSeconds(tokens * act * h * (1.0 + 2.0 * 2.0 + 4.0 + 2.0) / (sp ? t : 1.0));
        lt.mtpForward = e.gemmSeconds(tokens, h / t, 2.0 * h) + elementwise + 6.0 * k.kernelLaunchSeconds;
        lt.mtpBackward = e.gemmSeconds(tokens, 2.0 * h, h / t)
            + e.gemmSeconds(2.0 * h, h / t, tokens, 1.0, false, kWgradBytes) + k.backwardElementwiseFactor * elementwise
            + 8.0 * k.kernelLaunchSeconds;
    }
    return lt;
}

} // namespace clusterscope::engine
