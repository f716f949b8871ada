#include "engine/training/trainingevaluator.h"

#include "engine/catalog/catalog.h"
#include "engine/core/linkclass.h"
#include "engine/training/gradientcompression.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

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
std::atomic<unsigned long long> g_nextCacheTag { 1 };

std::size_t memoSlot(unsigned long long tag, int op, double bytes, const GroupPlacement& g)
{
    unsigned long long bits;
    std::memcpy(&bits, &bytes, sizeof bits);
    unsigned long long h = bits * 0x9E3779B97F4A7C15ull;
    h ^= (tag + static_cast<unsigned long long>(op) * 31 + static_cast<unsigned long long>(g.ranks) * 1009
             + static_cast<unsigned long long>(g.ranksPerNode) * 7919 + static_cast<unsigned long long>(g.nicsPerNode) * 104729
             + static_cast<unsigned long long>(g.spanTier) * 1299709 + static_cast<unsigned long long>(g.nodesPerLeaf) * 15485863)
        * 0xC2B2AE3D27D4EB4Full;
    return static_cast<std::size_t>((h ^ (h >> 29)) % kMemoEntries);
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
    const GpuModel* gpu = catalog.findGpu(scenario.cluster.gpu);
    if (!gpu)
        return Status::error("/cluster/gpu: unknown GPU \"" + scenario.cluster.gpu + "\"");
    double peak = gpu->bf16FlopsPerSecond;
    if (scenario.training.dtype == DType::FP8) {
        if (!gpu->fp8FlopsPerSecond)
            return Status::error("/training/dtype: GPU " + gpu->id + " has no FP8 tensor cores");
        peak = *gpu->fp8FlopsPerSecond;
    }
    auto collectives = CollectiveModel::fromScenario(scenario, catalog);
    if (!collectives)
        return collectives.status();
    TrainingEvaluator e(scenario, *collectives);
    e.m_shape = TransformerShape::fromModel(scenario.model);
    e.m_elementBytes = bytesPerElement(scenario.training.dtype);
    e.m_efficiency = ComputeEfficiency(efficiency, peak, gpu->hbmBytesPerSecond, e.m_elementBytes);
    e.m_placer = GroupPlacer(ClusterGeometry::fromScenario(scenario, *gpu));
    e.m_memoryInputs.globalBatch = scenario.training.globalBatch;
    e.m_memoryInputs.flashAttention = efficiency.flashAttention;
    e.m_memoryInputs.errorFeedback = scenario.communication.compression.method != CompressionMethod::None
        && scenario.communication.compression.errorFeedback;
    e.m_memoryInputs.capacityBytes = gpu->hbmBytes;
    e.m_algorithm = algorithmFromName(scenario.communication.algorithm);
    e.m_cacheTag = g_nextCacheTag.fetch_add(1);
    e.m_gpuHourUsd = scenario.training.gpuHourUsd > 0
        ? scenario.training.gpuHourUsd
        : gpu->priceUsd / (4.0 * kHoursPerYear) + gpu->tdpWatts / 1000.0 * 1.3 * 0.10;
    return e;
}

double TrainingEvaluator::collectiveSeconds(CollectiveOp op, double bytes, const GroupPlacement& group) const
{
    if (group.ranks <= 1 || bytes <= 0)
        return 0.0;
    CollectiveMemoEntry* entry = nullptr;
    if (m_memoize) {
        entry = &t_memo[memoSlot(m_cacheTag, static_cast<int>(op), bytes, group)];
        if (entry->tag == m_cacheTag && entry->bytes == bytes && entry->op == static_cast<int>(op)
            && entry->ranks == group.ranks && entry->ranksPerNode == group.ranksPerNode
            && entry->nicsPerNode == group.nicsPerNode && entry->spanTier == group.spanTier
            && entry->nodesPerLeaf == group.nodesPerLeaf)
            return entry->seconds;
    }
    const double seconds = estimateCollective(op, bytes, group);
    if (entry)
        *entry = { m_cacheTag, bytes, static_cast<int>(op), group.ranks, group.ranksPerNode, group.nicsPerNode,
            group.spanTier, group.nodesPerLeaf, seconds };
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
    if (group.spanTier >= kLinkClassCore)
        return estimate.seconds * m_coreSlowdown;
    if (group.spanTier >= kLinkClassSpine)
        return estimate.seconds * m_spineSlowdown;
    return estimate.seconds;
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
    if (m.layers % (p.pp * p.vpp) != 0)
        return "/parallelism/pp: layers must be divisible by pp x vpp";
    if (batch % (p.dp * s.microBatch) != 0)
        return "/parallelism/dp: global_batch must be divisible by dp x micro_batch";
    if (m.seqLen % p.cp != 0)
        return "/parallelism/cp: seq_len must be divisible by cp";
    if (p.cp > 1 && p.cpKind == ContextParallelKind::Ulysses && m.heads % (p.tp * p.cp) != 0)
        return "/parallelism/cp: Ulysses needs heads divisible by tp x cp";
    if (p.ep > 1) {
        if (!m.moe)
            return "/parallelism/ep: ep > 1 needs a mixture-of-experts model";
        if (m.moe->experts % p.ep != 0)
            return "/parallelism/ep: experts must be divisible by ep";
        if ((p.dp * p.cp) % p.ep != 0)
            return "/parallelism/ep: ep must divide dp x cp";
    }
    if (p.vpp > 1) {
        if (p.pp == 1)
            return "/parallelism/vpp: virtual stages need pp > 1";
        // Megatron-LM's interleaved schedule needs the micro-batches to be a multiple of pp.
        if ((batch / (p.dp * s.microBatch)) % p.pp != 0)
            return "/parallelism/vpp: the interleaved schedule needs micro-batches divisible by pp";
    }
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
    return estimateMemory(m_shape, s, m_memoryInputs);
}

LayerTimes TrainingEvaluator::layerTimes(const TrainingStrategy& s) const
{
    const ParallelismSpec& p = s.parallelism;
    const ComputeEfficiency& e = m_efficiency;
    const ComputeEfficiencyParams& k = e.params();
    const TransformerShape& m = m_shape;
    const double t = p.tp, h = m.hidden, a = m.heads, g = m.kvHeads, seq = m.seqLen;
    const double seqLocal = seq / p.cp;
    const double tokens = s.microBatch * seqLocal;
    const bool sp = p.sequenceParallel && p.tp > 1;

    LayerTimes lt;
    // Tensor-parallel GEMMs (Megatron: column-parallel QKV / FC1, row-parallel projection / FC2).
    double gemm = e.gemmSeconds(tokens, (h + 2.0 * h * g / a) / t, h) + e.gemmSeconds(tokens, h, h / t);
    const double fc1Matrices = m.gatedMlp ? 2.0 : 1.0;
    double ffnPerToken = m.ffnHidden; // FFN width a token goes through (for element-wise traffic)
    if (m.moe) {
        const double localExperts = m.experts / p.ep;
        const double tokensPerExpert = tokens * m.topK * p.ep / m.experts; // balanced routing
        gemm += e.gemmSeconds(tokens, m.experts, h); // router
        gemm += e.gemmSeconds(tokensPerExpert, fc1Matrices * m.expertFfnHidden / t, h, localExperts);
        gemm += e.gemmSeconds(tokensPerExpert, h, m.expertFfnHidden / t, localExperts);
        ffnPerToken = m.topK * m.expertFfnHidden;
    } else {
        gemm += e.gemmSeconds(tokens, fc1Matrices * m.ffnHidden / t, h) + e.gemmSeconds(tokens, h, m.ffnHidden / t);
    }
    // Attention core: fused kernels skip the causal half of the scores; unfused attention runs two
    // batched GEMMs per head plus the score traffic (scale-mask-softmax, dropout).
    const double headsLocal = a / t, headDim = h / a;
    double attention;
    if (k.flashAttention) {
        attention = e.flashAttentionSeconds(0.5 * 4.0 * tokens * seq * h / t);
    } else {
        const double batched = s.microBatch * headsLocal;
        attention = e.gemmSeconds(seqLocal, seq, headDim, batched) + e.gemmSeconds(seqLocal, headDim, seq, batched)
            + e.memoryBoundSeconds(k.scoreBytesPerElement * batched * seqLocal * seq);
    }
    // Element-wise traffic: of the default 32 h bytes per token, 18 (LayerNorms, dropout, residual)
    // are replicated across TP unless sequence parallelism splits them; 14 (bias + activation) scale
    // with the FFN width and are split by TP.
    const double replicatedShare = 18.0 / 32.0;
    const double ffnScale = ffnPerToken / (4.0 * h) * (m.gatedMlp ? 1.5 : 1.0);
    const double replicated = k.elementwiseBytesPerTokenPerHidden * replicatedShare * h;
    const double split = k.elementwiseBytesPerTokenPerHidden * (1.0 - replicatedShare) * h * ffnScale;
    const double elementwise = e.memoryBoundSeconds(tokens * ((sp ? replicated / t : replicated) + split / t));
    const double launch = k.kernelLaunchSeconds * k.kernelsPerLayer;

    lt.attentionCore = attention;
    lt.forward = gemm + attention + elementwise + launch;
    lt.backward = 2.0 * gemm + 2.0 * attention + k.backwardElementwiseFactor * elementwise + 2.0 * launch;
    lt.selectiveRecompute = k.flashAttention ? 0.0 : attention;
    // Output layer (vocabulary split over TP) and fp32 softmax cross-entropy (write, read, write grad).
    const double vocabLocal = m.vocab / t;
    lt.logitsForward = e.gemmSeconds(tokens, vocabLocal, h) + e.memoryBoundSeconds(8.0 * tokens * vocabLocal);
    lt.logitsBackward = 2.0 * e.gemmSeconds(tokens, vocabLocal, h) + e.memoryBoundSeconds(6.0 * tokens * vocabLocal);
    return lt;
}

} // namespace clusterscope::engine
