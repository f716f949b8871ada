#pragma once

// Parameter counts and FLOPs of a (dense or mixture-of-experts) decoder-only transformer, derived
// once from the scenario's model section. All counts are plain numbers of parameters or FLOPs.

#include <string>
#include <vector>

namespace clusterscope::engine {

struct ModelSpec;
struct ParallelismSpec;

/// Derived sizes of one model. Conventions follow Megatron-LM (Narayanan et al., SC21, appendix):
/// one multiply-add = 2 FLOPs, backward = 2 x forward, attention scores counted without causal
/// halving, untied input embedding and output layer (each V x h).
struct TransformerShape {
    double layers = 0, hidden = 0, heads = 0, kvHeads = 0, ffnHidden = 0, vocab = 0, seqLen = 0;
    double headDim = 0; ///< per-head dimension (model.head_dim, else hidden / heads)
    bool gatedMlp = false; ///< SwiGLU-style MLP with three matrices (else two)
    bool moe = false;
    double experts = 1, topK = 1, expertFfnHidden = 0;
    double sharedExperts = 0, sharedExpertFfnHidden = 0; ///< MoE shared experts (every token)
    double denseLayers = 0; ///< leading dense layers of an MoE model
    double capacityFactor = 0; ///< 0 = dropless
    /// Width the routed experts run on: model.moe.latent_size when given (latent MoE), else hidden.
    double expertInput = 0;
    double latentProjParamsPerLayer = 0; ///< latent MoE: hidden -> latent and latent -> hidden (per layer)
    double loadImbalance = 1; ///< busiest expert's tokens / mean
    /// Megatron-Core's flex token dispatcher (model.moe.dispatcher "flex" / "hybridep"): fused
    /// dispatch / combine kernels that send a token once per destination rank and node.
    bool flexDispatcher = false;
    double slidingWindow = 0; ///< keys attended in windowed layers (0 = none)
    double slidingWindowFraction = 0; ///< share of layers windowed
    bool mla = false; ///< multi-head latent attention
    bool tiedEmbeddings = false; ///< output layer shares the embedding (counted once in totalParams)
    double mtpLayers = 0; ///< multi-token prediction modules on the last stage (layer + logits each)
    /// A depth's MTP layer in layers of this shape: model.mtp_pattern's blocks (a hybrid stack's layer
    /// is one block), else 1 (one average layer); of them, MoE blocks.
    double mtpBlocks = 1;
    double mtpMoeBlocks = 0;
    /// model.mtp_pattern or model.mtp_shared_weights: the MTP layer's parameters are the ones below,
    /// held mtpWeightSets times (1 when the depths share them, else mtp_layers); else each depth holds
    /// an average layer's.
    bool mtpOwnParams = false;
    double mtpWeightSets = 0;
    double mtpTpSplitParams = 0; ///< one MTP layer's attention, MLP, shared-expert and Mamba parameters
    double mtpReplicatedParams = 0; ///< its norms, router and latent projections (whole on every tp rank)
    double mtpExpertParams = 0; ///< its routed experts
    double qLoraRank = 0, kvLoraRank = 0, qkRopeHeadDim = 0, vHeadDim = 0;
    bool linearBias = false; ///< additive biases on the linear layers (model.linear_bias)
    bool qkLayerNorm = false; ///< queries and keys normalised before attention (model.qk_layernorm)
    bool ropeFusion = true; ///< rotary embedding applied by a fused kernel (model.rope_fusion)
    double activationClampValue = 0; ///< clamp of the gated activation's inputs (0 = none)
    /// The two-matrix MLP's squared ReLU runs as eager PyTorch ops (model.activation squared_relu with
    /// activation_fusion false).
    bool squaredReluEager = false;

    /// Layer kinds as shares of the layers (a plain transformer: every layer attention + MLP, so
    /// attention and FFN shares 1, Mamba 0). A hybrid stack (model.hybrid_pattern) has one block per
    /// layer: the share of '*', of '-' + 'E', of 'E' and of 'M' symbols. Every per-layer figure below
    /// and every per-layer time is an average over the layers weighted by these shares.
    bool hybrid = false;
    double attentionShare = 1; ///< layers with self-attention (per layer)
    double ffnShare = 1; ///< layers with an MLP or MoE MLP (per layer)
    double moeShare = 0; ///< layers with an MoE MLP (per layer; dense_layers excluded)
    double mambaShare = 0; ///< layers with a Mamba-2 mixer (per layer)
    double blocksPerLayer = 2; ///< pre-norm + residual blocks per layer (attention + MLP = 2)
    /// Mamba-2 mixer dimensions (model.mamba): heads, head_dim (P), state N, B / C groups G, conv width,
    /// SSD chunk Q; d_inner = heads x head_dim.
    double mambaHeads = 0, mambaHeadDim = 0, mambaStateDim = 0, mambaGroups = 0, mambaConvKernel = 0, mambaChunk = 0;
    double mambaInner() const { return mambaHeads * mambaHeadDim; }
    /// Width of the Mamba in_proj output: z and x (d_inner each), B and C (G N each), dt (heads).
    double mambaInProjWidth() const { return 2.0 * mambaInner() + 2.0 * mambaGroups * mambaStateDim + mambaHeads; }
    /// Channels through the causal convolution: x, B and C.
    double mambaConvChannels() const { return mambaInner() + 2.0 * mambaGroups * mambaStateDim; }
    /// A Mamba-2 mixer's scan on one rank of tp x cp (Megatron-Core ssm/mamba_context_parallel.py
    /// MambaContextParallel): context parallelism moves the conv1d and the SSD scan from sequence shards
    /// to head shards by all-to-alls, so each rank scans the whole sequence for heads / (tp cp) heads;
    /// when a tp rank holds fewer B / C groups than cp, each group's state is repeated on cp / groups_tp
    /// ranks (group_repeat_count). With cp 1 these are the tp rank's heads, groups and widths.
    struct MambaRankLayout {
        double heads = 0; ///< nheads_local_tpcp
        double groups = 0; ///< ngroups_local_tpcp
        double groupRepeat = 1; ///< group_repeat_count
        double inner = 0; ///< d_inner_local_tpcp
        double scanInputWidth = 0; ///< z, x, B, C, dt into the scan: 2 inner + 2 groups N + heads
        double convChannels = 0; ///< x, B, C through the conv1d: inner + 2 groups N
    };
    MambaRankLayout mambaRankLayout(double tp, double cp) const;
    double mambaGemmParamsPerLayer = 0; ///< in_proj + out_proj of the Mamba layers (per layer)
    double mambaParamsPerLayer = 0; ///< all Mamba-layer parameters (per layer)

    double attentionParamsPerLayer = 0; ///< Q, K, V, O projections (GQA-aware)
    double denseMlpParamsPerLayer = 0; ///< MLP of a dense layer (MoE models: of its dense_layers only)
    double expertParamsPerLayer = 0; ///< all routed experts of one MoE layer (0 for dense)
    double sharedExpertParamsPerLayer = 0; ///< shared experts of one MoE layer
    double routerParamsPerLayer = 0; ///< MoE gate h x E
    double normParamsPerLayer = 0; ///< two layer norms
    double embeddingParams = 0; ///< input embedding V x h
    double outputLayerParams = 0; ///< output projection V x h

    static TransformerShape fromModel(const ModelSpec& model);

    /// Total parameters N.
    double totalParams() const;
    /// Parameters touched per token (active parameters; MoE counts top-k experts).
    double activeParams() const;

    /// Forward FLOPs of one transformer layer for `tokens` tokens whose attention spans `attendedTokens`
    /// keys (= seq_len without context parallelism): dense GEMMs + 4 x tokens x attended x heads x head_dim.
    double layerForwardFlops(double tokens, double attendedTokens) const;
    /// Forward FLOPs of the logits for `tokens` tokens: 2 x tokens x h x V.
    double logitsForwardFlops(double tokens) const;
    /// Model FLOPs of one iteration of `sequences` sequences, without recomputation (3 x forward):
    /// for GPT with 4h MLP this is 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) (SC21 eq. 3 without recompute).
    double modelFlopsPerIteration(double sequences) const;
    /// FLOPs executed with full recomputation (4 x forward for layers, 3 x for logits):
    /// 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) for GPT, the count SC21 Table 1 uses.
    double fullRecomputeFlopsPerIteration(double sequences) const;
};

/// The blocks of a hybrid stack's `slice` (the whole stack when it runs on one pipeline stage; the
/// stages' own are in StageShapes::bf16) that run in BF16 under a quantized dtype: its first `bf16AtStart`
/// and last `bf16AtEnd` (training.bf16_layers_at_start / _at_end). Megatron-Core numbers every block of the pattern a
/// layer (models/hybrid/hybrid_block.py) and keeps the first and last ones by that number out of the quantized context
/// (fp8_utils.py is_first_last_bf16_layer, fp4_utils.py get_fp4_context), so they are the pattern's own first and last
/// blocks, not average layers. `shape`: fromModel of those blocks (unset when there are none).
struct Bf16Blocks {
    int layers = 0; ///< the slice's
    int bf16Layers = 0;
    TransformerShape shape;
};
Bf16Blocks hybridBf16Blocks(const ModelSpec& model, const std::string& slice, int bf16AtStart, int bf16AtEnd);

/// A hybrid stack's pipeline stages as Megatron-Core builds them (models/hybrid/hybrid_layer_allocation.py
/// select_pipeline_segment: without '|' separators each stage takes its contiguous slice of
/// hybrid_pattern): per physical stage its layers and the shape of its own blocks (fromModel of its
/// slice, so every per-layer figure is that stage's average). With virtual stages the pattern is cut
/// into pp x vpp equal chunks and stage r holds chunks r, r + pp, ... (the layout '|' separators state
/// for equal segments); when the layers do not divide into them, each stage's layers stay contiguous.
/// With '|' separators stage r holds segments r, r + pp, ... (splitPipelineOf checks there are pp x vpp).
/// Empty for a model without hybrid_pattern or with pp = 1. With BF16 layers (`bf16AtStart` /
/// `bf16AtEnd` > 0) `bf16` holds each stage's BF16 blocks: the stack's first and last blocks, on whichever
/// stage holds them (with virtual stages the last ones can reach into a chunk of another stage).
struct StageShapes {
    std::vector<int> layers;
    std::vector<TransformerShape> shapes;
    std::vector<Bf16Blocks> bf16; ///< per stage; empty without BF16 layers
    bool empty() const { return layers.empty(); }
};
/// `firstLayers` / `middleLayers` / `lastLayers`: the layers of the first, each middle and the last stage
/// (PipelineSplit).
StageShapes hybridStageShapes(const ModelSpec& model, const ParallelismSpec& p, int firstLayers, int middleLayers,
    int lastLayers, int bf16AtStart = 0, int bf16AtEnd = 0);

} // namespace clusterscope::engine
