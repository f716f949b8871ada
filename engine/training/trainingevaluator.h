#pragma once

// Evaluates training strategies of one scenario: iteration time (compute from FLOPs and GEMM
// shapes, communication from the collectives model on the placed groups), memory and cost.
// Built once per scenario; evaluate() is the hot path of the strategy search (no allocation).

#include "engine/collectives/collectivemodel.h"
#include "engine/scenario/scenario.h"
#include "engine/training/computeefficiency.h"
#include "engine/training/groupplacer.h"
#include "engine/training/memorymodel.h"
#include "engine/training/trainingestimate.h"
#include "engine/training/transformershape.h"

#include <memory>

namespace clusterscope::engine {

class Catalog;

/// Kernel time of one layer's pass by kind (seconds; one micro-batch on one GPU).
struct KernelTimes {
    double gemm = 0; ///< tensor-core GEMMs (linear layers, MoE experts, router)
    double attention = 0; ///< attention core (flash attention, or unfused batched GEMMs + softmax)
    double elementwise = 0; ///< memory-bound kernels: norms, residual adds, rotary, activation, MoE permutes
    double fp8Casts = 0; ///< fp8 casts and amax of GEMM inputs (fp8 training only)
    double overhead = 0; ///< launch gaps between kernels and host-bound time (host slower than the GPU)
    double kernels = 0; ///< kernels launched
    /// of `kernels`, those a library issues from a C++ loop (Transformer Engine's grouped GEMM and
    /// split quantization: one per local expert) rather than one Python-level op each
    double libraryLaunches = 0;
    double total() const { return gemm + attention + elementwise + fp8Casts + overhead; }
};

/// Every field of KernelTimes, for the code that treats them alike (mixing two layers' times, weighting
/// a hybrid stack's blocks): one list to extend with the struct.
inline constexpr double KernelTimes::*kKernelTimesFields[]
    = { &KernelTimes::gemm, &KernelTimes::attention, &KernelTimes::elementwise, &KernelTimes::fp8Casts,
          &KernelTimes::overhead, &KernelTimes::kernels, &KernelTimes::libraryLaunches };

/// Per-layer kernel times of one micro-batch on one GPU (seconds).
struct LayerTimes {
    KernelTimes forwardKernels; ///< `forward` by kernel kind
    KernelTimes backwardKernels; ///< `backward` by kernel kind
    double forward = 0; ///< one transformer layer, forward
    double backward = 0; ///< one transformer layer, backward
    /// Forward recomputed in the backward under selective recomputation: the modules of
    /// training.recompute_modules (default: the attention core), by kind.
    double selectiveRecompute = 0;
    double selectiveRecomputeAttention = 0; ///< of which attention core
    double selectiveRecomputeGemm = 0; ///< of which GEMMs (the rest: element-wise kernels)
    double attentionCore = 0; ///< forward attention core (hides context-parallel traffic)
    double logitsForward = 0; ///< output layer + loss, forward (last stage)
    double logitsBackward = 0;
    /// One multi-token prediction module's own work besides its transformer layer and its logits
    /// (embedding of the shifted tokens, enorm / hnorm, concatenation, eh_proj, final norm), per
    /// micro-batch on the last stage.
    double mtpForward = 0;
    double mtpBackward = 0;
};

class TrainingEvaluator {
public:
    /// Uses the scenario's cluster, model, training and communication sections and the catalog's
    /// GPU figures; the scenario's calibration.compute keys override `efficiency`. Fails (naming
    /// the scenario place) when the GPU is unknown or FP8 unsupported.
    static Result<TrainingEvaluator> create(
        const Scenario& scenario, const Catalog& catalog, const ComputeEfficiencyParams& efficiency = {});

    /// nullptr when `s` can run on this cluster and model, else a one-sentence reason naming the
    /// parallelism key (static string: no allocation).
    const char* invalidReason(const TrainingStrategy& s) const;
    /// Full estimate; `valid` is false (and nothing else is filled) when invalidReason() is set.
    TrainingEstimate evaluate(const TrainingStrategy& s) const;
    MemoryBreakdown memory(const TrainingStrategy& s) const;
    LayerTimes layerTimes(const TrainingStrategy& s) const;
    StrategyGroups groups(const ParallelismSpec& p) const { return m_placer.groups(p); }

    const Scenario& scenario() const { return m_scenario; }
    const TransformerShape& shape() const { return m_shape; }
    const GroupPlacer& placer() const { return m_placer; }
    const CollectiveModel& collectives() const { return m_collectives; }
    const ComputeEfficiency& efficiency() const { return m_efficiency; }
    double peakFlopsPerSecond() const { return m_efficiency.peakFlopsPerSecond(); }
    /// USD per GPU-hour: training.gpu_hour_usd, or the catalog GPU price amortised over 4 years
    /// (35,064 h) plus its TDP at PUE 1.3 and 0.10 USD/kWh (GPU only: no hosts, network or staff).
    double gpuHourUsd() const { return m_gpuHourUsd; }
    /// Seconds of one collective on a placed group (0 for a group of one rank).
    double collectiveSeconds(CollectiveOp op, double bytes, const GroupPlacement& group) const;
    /// Seconds of an exchange of bytes / n to every peer by one fused kernel (the flex MoE dispatcher:
    /// DeepEP, HybridEP), not by NCCL's send/receive per peer: the links' time and one step's latency,
    /// without the per-peer cost and NVLink fraction of NCCL's all-to-all (extracost.cpp). Memoised as
    /// collectiveSeconds is.
    double fusedExchangeSeconds(double bytes, const GroupPlacement& group) const;
    /// Slowdown of collectives crossing the spines (spanTier >= kLinkClassSpine, engine/core/linkclass.h)
    /// and the core (>= kLinkClassCore) from contention on the fabric (the flow model's ECMP imbalance; 1 = none).
    /// Multiplies those collectives' times, so fabric contention feeds back into iteration time.
    void setFabricContention(double spineSlowdown, double coreSlowdown);
    double spineSlowdown() const { return m_spineSlowdown; }
    double coreSlowdown() const { return m_coreSlowdown; }
    /// Applies a calibration of the collective model (fitted from nccl-tests logs).
    void setCollectiveCalibration(const CollectiveCalibration& calibration);

    /// Memoise collective estimates in a small per-thread cache (on by default; a search repeats the
    /// same collectives across micro-batch, ZeRO and recomputation choices). Results are identical.
    void setMemoization(bool on) { m_memoize = on; }

private:
    TrainingEvaluator(const Scenario& scenario, const CollectiveModel& collectives);
    double estimateCollective(CollectiveOp op, double bytes, const GroupPlacement& group) const;
    double contended(double seconds, const GroupPlacement& group) const;
    /// collectiveSeconds and fusedExchangeSeconds through the per-thread memo (key: a CollectiveOp, or
    /// the fused exchange's own key).
    double memoisedSeconds(int key, double bytes, const GroupPlacement& group) const;
    /// layerTimes() of a layer of `shape` (the model's average layer, or a pipeline stage's).
    LayerTimes layerTimesOf(const TrainingStrategy& s, const TransformerShape& shape) const;
    /// A hybrid stack's pipeline stages for `p` split as `split` (hybridStageShapes, from a small
    /// per-thread cache); null for other models and pp = 1.
    std::shared_ptr<const StageShapes> stageShapes(const ParallelismSpec& p, const PipelineSplit& split) const;

    Scenario m_scenario;
    TransformerShape m_shape;
    ComputeEfficiency m_efficiency;
    CollectiveModel m_collectives;
    GroupPlacer m_placer;
    MemoryInputs m_memoryInputs;
    CollectiveAlgorithm m_algorithm = CollectiveAlgorithm::Auto;
    double m_elementBytes = 2.0;
    double m_gpuHourUsd = 0;
    double m_hostLinkBytesPerSecond = 64e9; ///< GPU <-> host memory per direction (activation offloading)
    bool m_memoize = true;
    double m_spineSlowdown = 1.0;
    double m_coreSlowdown = 1.0;
    unsigned long long m_cacheTag = 0; ///< distinguishes evaluators in the per-thread cache
    /// The same scenario in BF16, for the layers training.bf16_layers_at_start / _at_end keep in BF16
    /// (null without them).
    std::shared_ptr<const TrainingEvaluator> m_bf16Twin;
    /// training.module_dtypes (attention linears, latent MoE projections, Mamba in_proj, out_proj): a
    /// module's GEMMs in BF16 (m_efficiency's 16-bit path) or on another quantized dtype's efficiency.
    struct ModulePrecision {
        bool bf16 = false;
        std::shared_ptr<const ComputeEfficiency> other;
        bool differs() const { return bf16 || other; }
    };
    enum Module { AttentionLinears, MoeLatentProj, MambaInProj, MambaOutProj, ModuleCount }; // kKeys' order
    ModulePrecision m_modules[ModuleCount];
    /// The MTP layer as a model of its own: model.mtp_pattern's blocks, in BF16 with training.bf16_mtp
    /// (null when each MTP depth is an average layer in the training dtype).
    std::shared_ptr<const TrainingEvaluator> m_mtpTwin;
};

} // namespace clusterscope::engine
