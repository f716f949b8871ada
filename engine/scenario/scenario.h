#pragma once

// The scenario an architect edits: a cluster, a model and how it is trained. Field names follow
// the JSON contract of README.md "Scenario files" (the JSON keys are given beside each field).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::engine {

enum class Transport { InfiniBand, RoCE };
enum class FabricType { FatTree, LeafSpine, RailOptimized, Dragonfly, Torus };
/// Training dtypes: 16-bit (bf16, fp16), per-tensor-scaled fp8 (Transformer Engine delayed or
/// current scaling), MXFP8 (fp8 E4M3 with one E8M0 scale per 32 consecutive elements, OCP
/// Microscaling Formats (MX) v1.0 specification; Transformer Engine MXFP8BlockScaling, Blackwell only)
/// and NVFP4 (4-bit E2M1 with one E4M3 scale per 16 elements and an fp32 scale per tensor;
/// Transformer Engine NVFP4BlockScaling, Blackwell only).
enum class DType { BF16, FP16, FP8, MXFP8, NVFP4 };
enum class Recompute { None, Selective, Full };
/// How recompute "full" checkpoints (Megatron-Core --recompute-method; megatron/core/recompute.py
/// checkpointed_forward): Uniform checkpoints the input of every unit of recompute_num_layers layers of
/// a pipeline chunk and recomputes them all; Block recomputes only the first recompute_num_layers layers
/// of each chunk and keeps the others' activations.
enum class RecomputeMethod { Uniform, Block };
enum class PipelineSchedule { OneFOneB, GPipe, Interleaved };
enum class ContextParallelKind { Ring, Ulysses };
enum class CompressionMethod { None, TopK, Int8, Fp8, OneBit };
enum class Routing { Ecmp, Adaptive, Spray };

/// Bits of TrainingSpec::cudaGraphScope: which parts of a layer run as captured CUDA graphs
/// (Megatron-Core --cuda-graph-scope: attn, mamba, moe_router, moe_preprocess; full_layer = the whole
/// layer, only with static shapes, i.e. MoE with a capacity factor).
enum CudaGraphScopeBits : unsigned {
    CudaGraphNone = 0,
    CudaGraphAttention = 1u << 0, ///< "attn"
    CudaGraphMoeRouter = 1u << 1, ///< "moe_router"
    CudaGraphMoePreprocess = 1u << 2, ///< "moe_preprocess"
    CudaGraphFullLayer = 1u << 3, ///< "full_layer"
    CudaGraphMamba = 1u << 4, ///< "mamba": a hybrid stack's Mamba layers
};

/// Bits of TrainingSpec::recomputeModules: the modules Megatron-Core recomputes under selective
/// recomputation (--recompute-granularity selective --recompute-modules ...;
/// megatron/core/transformer/transformer_config.py recompute_modules).
enum RecomputeModuleBits : unsigned {
    RecomputeModulesDefault = 0, ///< not stated: Megatron-Core's default, ["core_attn"]
    RecomputeCoreAttention = 1u << 0, ///< "core_attn"
    RecomputeLayerNorm = 1u << 1, ///< "layernorm": input_layernorm and pre_mlp_layernorm
    RecomputeMoeAct = 1u << 2, ///< "moe_act": the routed experts' activation
    RecomputeMlaUpProj = 1u << 3, ///< "mla_up_proj": the up-projections of multi-head latent attention
    RecomputeMlp = 1u << 4, ///< "mlp": the whole MLP of the dense (non-MoE) layers
    RecomputeMoe = 1u << 5, ///< "moe": the whole MoE MLP (router, dispatch, experts, combine)
};

struct NicSpec {
    double gbps = 400.0; ///< "gbps": line rate per NIC in Gb/s (1e9 bit/s)
    int perNode = 8; ///< "per_node": NICs per node
    /// "net": how NCCL moves bytes between nodes, a catalog net transport id ("ib", "roce", "gib",
    /// "tcpxo", "tcpx", "socket"); "" = RDMA verbs on the cluster's transport ("ib" or "roce").
    std::string net;
    /// "gpudirect_rdma": the NIC reads and writes GPU memory directly (GPUDirect RDMA, NCCL's
    /// NET/GDR path). false = NCCL stages every network transfer through a host-memory bounce buffer
    /// (NCCL_NET_GDR_LEVEL; the proxy copies over PCIe), as on VMs without GDR support.
    bool gpuDirectRdma = true;
    bool operator==(const NicSpec&) const = default;
};

struct FabricSpec {
    FabricType type = FabricType::RailOptimized; ///< "type"
    int switchRadix = 64; ///< "switch_radix": ports per switch
    int tiers = 2; ///< "tiers": switching tiers above the nodes
    double oversubscription = 1.0; ///< "oversubscription": down:up ratio at the leaf (3.0 = 3:1)
    int planes = 1; ///< "planes": independent parallel fabrics (multi-plane)
    bool dualTor = false; ///< "dual_tor": each NIC dual-homed to two leaves
    // Dragonfly (Kim et al. 2008): p hosts per router, a routers per group, h global links per router.
    int dragonflyP = 0; ///< "p"
    int dragonflyA = 0; ///< "a"
    int dragonflyH = 0; ///< "h"
    std::vector<int> torusDims; ///< "dims": torus extent per dimension (2 or 3 entries)
    bool operator==(const FabricSpec&) const = default;
};

struct ClusterSpec {
    std::string gpu = "H100-SXM-80GB"; ///< "gpu": catalog id
    int gpus = 8; ///< "gpus": total GPUs
    int gpusPerNode = 8; ///< "gpus_per_node"
    NicSpec nic; ///< "nic"
    Transport transport = Transport::InfiniBand; ///< "transport": "infiniband" | "roce"
    FabricSpec fabric; ///< "fabric"
    bool operator==(const ClusterSpec&) const = default;
};

struct MoeSpec {
    int experts = 8; ///< "experts"
    int topK = 2; ///< "top_k"
    int expertFfnHidden = 0; ///< "expert_ffn_hidden"
    int sharedExperts = 0; ///< "shared_experts": experts every token goes through (DeepSeek, Qwen2-MoE)
    int sharedExpertFfnHidden = 0; ///< "shared_expert_ffn_hidden": 0 = expert_ffn_hidden
    int denseLayers = 0; ///< "dense_layers": leading layers with a dense MLP (DeepSeek-V3: 3)
    /// "latent_size": latent MoE (Megatron-Core moe_latent_size; Nemotron 3 Super: 1024): each token is
    /// projected to this width before the dispatch and back after the combine; the routed experts run
    /// on it. 0 = the experts run on the hidden size.
    int latentSize = 0;
    double capacityFactor = 0.0; ///< "capacity_factor": tokens per expert cap / mean; 0 = dropless
    double loadImbalance = 1.1; ///< "load_imbalance": busiest expert's tokens / mean (with aux-loss balancing)
    /// "dispatcher": Megatron-Core's token dispatcher: "alltoall" (--moe-token-dispatcher-type alltoall),
    /// "flex" (flex with the DeepEP backend) or "hybridep" (flex with --moe-flex-dispatcher-backend hybridep).
    std::string dispatcher = "alltoall";
    bool operator==(const MoeSpec&) const = default;
};

/// "mamba": the Mamba-2 mixer of a hybrid model's Mamba layers (Dao & Gu 2024, "Transformers are SSMs",
/// arXiv 2405.21060, Sec. 7-8; Megatron-Core ssm/mamba_mixer.py MambaMixer, whose defaults these are).
struct MambaSpec {
    int heads = 0; ///< "heads": SSM heads (mamba_num_heads); 0 = 2 x hidden / head_dim (expand 2)
    int headDim = 64; ///< "head_dim": channels per head (mamba_head_dim); heads x head_dim = d_inner
    int stateDim = 128; ///< "state_dim": SSM state size N (mamba_state_dim)
    int groups = 8; ///< "groups": B / C groups shared by the heads (mamba_num_groups)
    int convKernel = 4; ///< "conv_kernel": causal depthwise convolution width (d_conv)
    int chunkSize = 128; ///< "chunk_size": SSD chunk length Q of mamba_chunk_scan_combined
    bool operator==(const MambaSpec&) const = default;
};

struct ModelSpec {
    int layers = 32; ///< "layers"
    /// "hybrid_pattern": a hybrid stack's layers, one symbol each, as Megatron-Core's
    /// hybrid_layer_pattern writes them (models/hybrid/hybrid_layer_allocation.py): 'M' Mamba-2 mixer,
    /// '*' self-attention, '-' MLP, 'E' mixture-of-experts MLP; each symbol is a layer of its own with
    /// its pre-norm and residual (Nemotron-H, Nemotron 3). Empty: a plain transformer, every layer
    /// attention + MLP.
    std::string hybridPattern;
    std::optional<MambaSpec> mamba; ///< "mamba": required when hybrid_pattern has 'M' layers
    int hidden = 4096; ///< "hidden"
    int heads = 32; ///< "heads"
    int kvHeads = 32; ///< "kv_heads" (GQA when < heads)
    int ffnHidden = 16384; ///< "ffn_hidden"
    int headDim = 0; ///< "head_dim": per-head dimension; 0 = hidden / heads (Qwen3 and GPT-OSS differ)
    int slidingWindow = 0; ///< "sliding_window": keys a token attends in windowed layers (0 = none)
    double slidingWindowFraction = 0.0; ///< "sliding_window_fraction": share of layers windowed (GPT-OSS: 0.5)
    /// Multi-head latent attention (DeepSeek-V2/V3): "q_lora_rank", "kv_lora_rank" (0 = plain attention),
    /// "qk_rope_head_dim" (decoupled rotary part of q/k heads), "v_head_dim" (0 = head_dim).
    int qLoraRank = 0;
    int kvLoraRank = 0;
    int qkRopeHeadDim = 0;
    int vHeadDim = 0;
    bool tiedEmbeddings = false; ///< "tied_embeddings": output layer shares the input embedding
    /// "mtp_layers": multi-token prediction modules (DeepSeek-V3 Sec. 2.2): each one more
    /// transformer layer (MoE in an MoE model) plus its own logits through the shared output head,
    /// run on the last pipeline stage (Megatron-Core multi_token_prediction.py). 0 = none.
    int mtpLayers = 0;
    /// "mtp_pattern": a hybrid stack's MTP layer as hybrid blocks, the symbols of hybrid_pattern
    /// (Megatron-Core mtp_hybrid_override_pattern; Nemotron 3 Super "*E": an attention block and an
    /// MoE block per depth). Empty: each depth is one average layer of the stack.
    std::string mtpPattern;
    /// "mtp_shared_weights": the depths run one MTP layer's weights again (Megatron-Core
    /// mtp_use_repeated_layer): its parameters, gradients and optimizer state are held once.
    bool mtpSharedWeights = false;
    int vocab = 32000; ///< "vocab"
    int seqLen = 4096; ///< "seq_len": tokens per sequence
    std::optional<MoeSpec> moe; ///< "moe": null for a dense model
    bool gatedMlp = true; ///< "gated_mlp": SwiGLU-style 3-matrix MLP; JSON default: ffn_hidden != 4 x hidden
    /// "dropout": hidden and attention dropout are on (p > 0), so their 1-byte masks are saved for the
    /// backward (Korthikanti et al. 2022 Sec. 4). Llama-style recipes train with p = 0, where PyTorch's
    /// dropout returns its input and saves nothing (ATen Dropout.cpp).
    bool dropout = true;
    /// "linear_bias": the linear layers carry additive biases (Megatron-Core add_bias_linear; GPT-OSS).
    bool linearBias = false;
    /// "qk_layernorm": queries and keys are normalised before attention (Megatron-Core qk_layernorm:
    /// per head over head_dim, as Qwen3 and OLMo 2; with multi-head latent attention, the q and kv
    /// latents, as DeepSeek-V3).
    bool qkLayerNorm = false;
    /// "rope_fusion": rotary position embeddings are applied by one fused kernel per tensor
    /// (Megatron-Core apply_rope_fusion, Transformer Engine fused_rope); false = Megatron-Core's
    /// unfused PyTorch path (rope_utils.py _apply_rotary_pos_emb_bshd), as Megatron-Bridge runs
    /// YaRN position embeddings (GPT-OSS: utils/fusions.py validate_rope_fusion_compatibility).
    bool ropeFusion = true;
    /// "activation_clamp_value": the gated activation clamps its inputs to this limit (Megatron-Core
    /// activation_func_clamp_value; GPT-OSS: 7.0); 0 = no clamp.
    double activationClampValue = 0.0;
    /// "activation": the MLP's activation, "swiglu" (gated MLP), "gelu" or "squared_relu" (two-matrix
    /// MLP; Nemotron-4). Empty: swiglu when gated_mlp, else gelu.
    std::string activation;
    /// "activation_fusion": the activation runs as one fused kernel each way (Megatron-Core's fused
    /// bias-SwiGLU / bias-GeLU, its jit-fused squared_relu); false = eager PyTorch ops, as NeMo 2.x runs
    /// Nemotron-4's squared ReLU (nemo/collections/llm/fn/activation.py: torch.pow(F.relu(x), 2)
    /// without a fuser). Eager GeLU is one ATen kernel each way (F.gelu) and costs the same; eager
    /// SwiGLU is not modelled.
    bool activationFusion = true;
    bool operator==(const ModelSpec&) const = default;
};

struct TrainingSpec {
    int globalBatch = 1024; ///< "global_batch": sequences per optimizer step
    int microBatch = 1; ///< "micro_batch": sequences per micro-batch
    DType dtype = DType::BF16; ///< "dtype"
    Recompute recompute = Recompute::Selective; ///< "recompute"
    /// "recompute_method" ("uniform" default, "block") and "recompute_num_layers" (>= 1, default 1),
    /// stated under recompute "full" only (Megatron-Core --recompute-method, --recompute-num-layers;
    /// transformer_config.py): uniform 1 is every layer's input checkpointed, what "full" alone means.
    RecomputeMethod recomputeMethod = RecomputeMethod::Uniform;
    int recomputeNumLayers = 1;
    double tokens = 0.0; ///< "tokens": training token budget (0 = not stated)
    double gpuHourUsd = 0.0; ///< "gpu_hour_usd": price of one GPU-hour in USD (0 = derive from the catalog price)
    /// "activation_offload_layers": transformer layers per pipeline stage whose saved activations are
    /// offloaded to host memory between their forward and backward (Megatron-Core
    /// --cpu-offloading-num-layers with activations only); 0 = none. Fewer than the model's layers.
    int activationOffloadLayers = 0;
    /// "fp8_param_gather": fp8 primary weights (Megatron-Core --fp8-param-gather): the model weights
    /// and their gather buffers hold 1 byte per parameter; master weights and moments are unchanged.
    bool fp8ParamGather = false;
    /// "fp4_param_gather": NVFP4 primary weights (Megatron-Core --fp4-param-gather, dtype nvfp4): the
    /// weights hold their row-wise and column-wise NVFP4 copies and are all-gathered in NVFP4.
    bool fp4ParamGather = false;
    /// "cuda_graph_scope": list of "attn", "moe_router", "moe_preprocess", "full_layer"
    /// (CudaGraphScopeBits); empty = eager.
    unsigned cudaGraphScope = CudaGraphNone;
    /// "recompute_modules": list of "core_attn", "layernorm", "moe_act", "mla_up_proj", "mlp"
    /// (RecomputeModuleBits) recomputed under recompute "selective"; absent = ["core_attn"].
    unsigned recomputeModules = RecomputeModulesDefault;
    /// "optimizer": "adam" (default; mixed-precision Adam, Kingma & Ba 2015) or "muon" (Muon, Jordan et
    /// al. 2024, as Megatron-Core optimizer/muon.py runs it: momentum with Newton-Schulz
    /// orthogonalization of every 2-D weight but the embedding and output layer, which keep Adam).
    bool muon = false;
    /// "bf16_layers_at_start" / "bf16_layers_at_end": with a quantized dtype (fp8, mxfp8, nvfp4), that
    /// many of the first / last transformer layers run their GEMMs in BF16 (Megatron-Core
    /// --first-last-layers-bf16 with --num-layers-at-start-in-bf16 / --num-layers-at-end-in-bf16).
    int bf16LayersAtStart = 0;
    int bf16LayersAtEnd = 0;
    /// "module_dtypes": with a quantized dtype, modules whose GEMMs run in another precision, as a
    /// Transformer Engine quantization recipe assigns them by module name (Megatron-Core
    /// model.quant_recipe; Megatron-Bridge scripts/performance/configs/nemotronh/te_quant.cfg): the
    /// attention block's linear layers (QKV and output projection; latent attention's projections),
    /// a latent MoE's two projections, a Mamba-2 mixer's in_proj / out_proj. Unset: the training dtype.
    struct ModuleDtypes {
        std::optional<DType> attentionLinears; ///< "attention_linears"
        std::optional<DType> moeLatentProj; ///< "moe_latent_proj"
        std::optional<DType> mambaInProj; ///< "mamba_in_proj"
        std::optional<DType> mambaOutProj; ///< "mamba_out_proj"
        bool operator==(const ModuleDtypes&) const = default;
        /// The modules as the scenario names them, in this order everywhere (reader, writer, evaluator).
        struct Key {
            const char* name;
            std::optional<DType> ModuleDtypes::*dtype;
        };
        static constexpr Key kKeys[] = { { "attention_linears", &ModuleDtypes::attentionLinears },
            { "moe_latent_proj", &ModuleDtypes::moeLatentProj }, { "mamba_in_proj", &ModuleDtypes::mambaInProj },
            { "mamba_out_proj", &ModuleDtypes::mambaOutProj } };
    };
    ModuleDtypes moduleDtypes;
    /// "bf16_mtp": with a quantized dtype, the multi-token prediction modules run their GEMMs in BF16
    /// (Megatron-Bridge Nemotron 3 Super NVFP4: scripts/performance/configs/nemotronh/te_quant.cfg
    /// matcher "mtp.*" -> bf16).
    bool bf16Mtp = false;
    bool operator==(const TrainingSpec&) const = default;
};

struct ParallelismSpec {
    int tp = 1; ///< "tp"
    int pp = 1; ///< "pp"
    int dp = 1; ///< "dp"
    int cp = 1; ///< "cp"
    int ep = 1; ///< "ep"
    int vpp = 1; ///< "vpp": virtual pipeline stages per GPU (interleaving)
    int zero = 0; ///< "zero": ZeRO stage 0-3 (3 = FSDP full sharding)
    bool sequenceParallel = false; ///< "sequence_parallel"
    PipelineSchedule schedule = PipelineSchedule::OneFOneB; ///< "pipeline_schedule": "1f1b" | "gpipe" | "interleaved"
    ContextParallelKind cpKind = ContextParallelKind::Ring; ///< "cp_kind": "ring" | "ulysses"
    /// "placement_order": rank order from innermost to outermost, a permutation of tp, cp, dp, pp
    /// joined by '-' (EP groups are formed inside dp, right after cp).
    std::string placementOrder = "tp-cp-dp-pp";
    /// "first_stage_layers" / "last_stage_layers": transformer layers of the first / last pipeline
    /// stage (Megatron-LM --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers);
    /// 0 = not stated (even split when layers divide pp x vpp, else Megatron's uneven splits).
    int firstStageLayers = 0;
    int lastStageLayers = 0;
    /// "etp": expert tensor parallelism (Megatron-Core --expert-tensor-parallel-size); 0 = not stated,
    /// i.e. tp (Megatron's default). With etp != tp the expert layers are folded over the
    /// tp x cp x dp ranks as etp x ep x expert-dp ("MoE parallel folding", Liu et al. 2025,
    /// arXiv:2504.14960; megatron/core/parallel_state.py), so ep may exceed dp x cp.
    int etp = 0;
    /// "vpp_microbatch_group": micro-batches the interleaved schedule runs on one virtual stage before
    /// the next (Megatron-Core --microbatch-group-size-per-virtual-pipeline-stage); 0 = not stated,
    /// i.e. pp (Megatron's default). A larger group lets micro-batches that are not a multiple of pp
    /// interleave, at the cost of more activations in flight (memorymodel.cpp).
    int vppMicrobatchGroup = 0;
    /// Expert tensor parallelism in effect: etp when stated, else tp.
    int expertTp() const { return etp > 0 ? etp : tp; }
    bool operator==(const ParallelismSpec&) const = default;
};

struct CompressionSpec {
    CompressionMethod method = CompressionMethod::None; ///< "method": none|topk|int8|fp8|onebit
    double topkFraction = 0.01; ///< "topk_fraction": share of gradient elements sent by top-k
    bool errorFeedback = true; ///< "error_feedback"
    double warmupFraction = 0.0; ///< "warmup_fraction": share of training run uncompressed (1-bit Adam)
    bool operator==(const CompressionSpec&) const = default;
};

struct CommunicationSpec {
    CompressionSpec compression; ///< "compression"
    bool dpOverlap = true; ///< "dp_overlap": overlap DP gradient sync with backward
    double dpBucketBytes = 25e6; ///< "dp_bucket_bytes": gradient bucket size in bytes
    double tpOverlapFraction = 0.0; ///< "tp_overlap_fraction": share of TP communication hidden
    std::string algorithm = "auto"; ///< "algorithm": collective algorithm override (auto|ring|tree|...)
    Routing routing = Routing::Ecmp; ///< "routing": ecmp | adaptive | spray
    double lossRate = 0.0; ///< "loss_rate": packet loss probability on the fabric
    /// "moe_a2a_overlap": Megatron-Core's combined-1F1B schedule that overlaps the expert-parallel
    /// all-to-all of one micro-batch with another's compute (--overlap-moe-expert-parallel-comm)
    bool moeA2aOverlap = false;
    bool operator==(const CommunicationSpec&) const = default;
};

struct LayoutSpec {
    int nodesPerRack = 4; ///< "nodes_per_rack"
    int racksPerRow = 16; ///< "racks_per_row"
    double rackPitchMetres = 0.6; ///< "rack_pitch_m": distance between neighbouring racks
    double rowPitchMetres = 3.0; ///< "row_pitch_m": distance between rows
    double slackMetres = 2.0; ///< "slack_m": cable slack added to every run
    bool operator==(const LayoutSpec&) const = default;
};

/// "calibration" / "compute": overrides of the training compute-efficiency model's documented
/// defaults (engine/training/computeefficiency.h); absent keys keep the defaults.
struct ComputeCalibrationSpec {
    std::optional<double> gemmPeakFraction; ///< "gemm_peak_fraction" (0, 1]
    std::optional<double> gemmHalfDimension; ///< "gemm_half_dimension" >= 0
    std::optional<double> memoryBandwidthFraction; ///< "memory_bandwidth_fraction" (0, 1]
    std::optional<bool> flashAttention; ///< "flash_attention"
    std::optional<double> flashPeakFraction; ///< "flash_peak_fraction" (0, 1]
    std::optional<double> overlapInterferenceFraction; ///< "overlap_interference_fraction" [0, 1]
    std::optional<double> gemmFixedSeconds; ///< "gemm_fixed_seconds" >= 0
    std::optional<double> attentionBackwardEfficiency; ///< "attention_backward_efficiency" (0, 2]
    std::optional<double> fp8CastBytesPerElement; ///< "fp8_cast_bytes_per_element" >= 0
    std::optional<double> mxfp8CastBytesPerElement; ///< "mxfp8_cast_bytes_per_element" >= 0
    std::optional<double> nvfp4CastBytesPerElement; ///< "nvfp4_cast_bytes_per_element" >= 0
    std::optional<double> optimizerBytesPerParam; ///< "optimizer_bytes_per_param" >= 0
    std::optional<double> kernelLaunchSeconds; ///< "kernel_launch_seconds" >= 0
    std::optional<double> hostSecondsPerKernel; ///< "host_seconds_per_kernel" >= 0
    std::optional<double> groupedGemmStreams; ///< "grouped_gemm_streams" >= 1
    std::optional<double> libraryHostSecondsPerLaunch; ///< "library_host_seconds_per_launch" >= 0
    std::optional<double> moeSyncSeconds; ///< "moe_sync_seconds" >= 0
    std::optional<double> moeExpertHostSecondsForward; ///< "moe_expert_host_seconds_forward" >= 0
    std::optional<double> moeExpertHostSecondsBackward; ///< "moe_expert_host_seconds_backward" >= 0
    std::optional<double> groupedLinearCallHostSeconds; ///< "grouped_linear_call_host_seconds" >= 0
    std::optional<double> moeA2aOverlapHostSeconds; ///< "moe_a2a_overlap_host_seconds" >= 0
    std::optional<double> graphLaunchHostSeconds; ///< "graph_launch_host_seconds" >= 0
    std::optional<double> hostJitterFraction; ///< "host_jitter_fraction" [0, 1]
    std::optional<double> sustainedClockFraction; ///< "sustained_clock_fraction" (0, 1]
    std::optional<double> cudaContextBytes; ///< "cuda_context_bytes" >= 0
    std::optional<double> ncclBufferBytes; ///< "nccl_buffer_bytes": per communicator, >= 0
    std::optional<double> allocatorReserveFraction; ///< "allocator_reserve_fraction" [0, 1]
    /// "calibrated_from": where a fitted calibration came from (set by calibrate-compute); empty
    /// when the keys were typed by hand.
    std::string calibratedFrom;
    bool operator==(const ComputeCalibrationSpec&) const = default;
};

struct Scenario {
    std::string name; ///< "name"
    ClusterSpec cluster; ///< "cluster"
    ModelSpec model; ///< "model"
    TrainingSpec training; ///< "training"
    std::optional<ParallelismSpec> parallelism; ///< "parallelism": absent = use the best strategy found
    CommunicationSpec communication; ///< "communication" (optional in JSON)
    std::optional<LayoutSpec> layout; ///< "layout" (optional; absent = per-design defaults)
    ComputeCalibrationSpec computeCalibration; ///< "calibration": {"compute": {...}} (optional)
    bool operator==(const Scenario&) const = default;
};

const char* toString(Transport v);
const char* toString(FabricType v);
const char* toString(DType v);
const char* toString(Recompute v);
const char* toString(RecomputeMethod v); ///< "uniform", "block"
const char* toString(PipelineSchedule v);
const char* toString(ContextParallelKind v);
const char* toString(CompressionMethod v);
const char* toString(Routing v);

/// Bytes per GEMM-operand element of a training dtype (bf16/fp16: 2, fp8 and mxfp8: 1, MXFP8's block
/// scales of 1/32 B counted where they are moved; nvfp4: 0.5 plus its E4M3 scale per 16 elements).
double bytesPerElement(DType v);
/// The dtype whose JSON name (toString) is `name`, or none: the one reading of "bf16", "fp16", "fp8",
/// "mxfp8" and "nvfp4" for scenario files, command lines and calibration documents.
std::optional<DType> dtypeFromString(std::string_view name);
/// True for the 8-bit GEMM dtypes (fp8 and mxfp8), which run on the fp8 tensor cores.
inline bool isFp8(DType v) { return v == DType::FP8 || v == DType::MXFP8; }
/// True for every dtype whose GEMM inputs are quantized (fp8, mxfp8, nvfp4); attention, the
/// embedding and the output layer stay 16-bit.
inline bool isQuantized(DType v) { return isFp8(v) || v == DType::NVFP4; }
/// nullptr when Megatron-Core's Mamba context parallelism (ssm/mamba_context_parallel.py
/// MambaContextParallel) can split a mixer whose heads and groups tp divides over `cp` ranks, else a
/// reason at /parallelism/cp (static string): every cp rank needs whole heads of its tp rank's, and
/// cp and the tp rank's B / C groups must divide one another (fewer groups than cp are repeated).
const char* mambaContextParallelProblem(const MambaSpec& mamba, int tp, int cp);
/// nullptr unless `p` runs Ulysses context parallelism that cannot split `m`'s attention heads, else a
/// reason at /parallelism/cp (static string): Transformer Engine's all-to-all attention
/// (context_parallel.py AttnFuncWithCPAndQKVOA2A) needs each tp rank's query heads and its key / value
/// heads divisible by cp (a rank holds one kv head when tp exceeds kv_heads; latent attention's keys
/// and values have every head).
const char* ulyssesProblem(const ModelSpec& m, const ParallelismSpec& p);
/// model.hybrid_pattern cut at its '|' pipeline separators (Megatron-Core hybrid_layer_allocation.py):
/// one segment per virtual pipeline stage; the whole pattern when it has none.
std::vector<std::string> hybridSegments(const std::string& pattern);
/// model.hybrid_pattern's blocks in order without its '|' separators: block i is Megatron-Core's layer i.
std::string hybridBlocks(const std::string& pattern);

} // namespace clusterscope::engine
