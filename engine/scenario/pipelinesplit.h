#pragma once

// How Megatron-LM distributes the transformer layers over pipeline stages, including uneven
// splits: any layer count with any pp and virtual-stage count is accepted. Plain data, no allocation.

namespace clusterscope::engine {

/// Transformer layers held by the first, each middle and the last pipeline stage (all virtual
/// chunks of a physical stage together). The first stage also runs the embedding, the last the
/// output layer and loss. With pp = 1 the single stage is `first` (= all layers) and holds both.
struct PipelineSplit {
    int first = 0;
    int middle = 0; ///< per middle stage (pp - 2 of them); with rule "segments" the most any of them holds
    int last = 0;
    /// The rule used: "even" (layers divisible by pp x vpp, Megatron's default), "stated" (the
    /// scenario's first_stage_layers / last_stage_layers), "embedding-and-loss" (Megatron's
    /// --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split: each of the
    /// embedding and the loss takes one layer's slot) or "balanced" (the remainder taken off the
    /// first and last stages, as with --decoder-first/last-pipeline-num-layers) or "segments" (a hybrid
    /// pattern's '|' separators, splitPipelineOf).
    const char* rule = "even";
    /// The most layers any stage holds.
    int maxLayers() const { return first > middle ? (first > last ? first : last) : (middle > last ? middle : last); }
};

/// Splits `layers` over `pp` stages of `vpp` virtual chunks. `firstStated` / `lastStated` are the
/// scenario's first_stage_layers / last_stage_layers (0 = not stated). Returns nullptr and fills
/// `out`, or a one-sentence reason naming the parallelism key (static string) when the stated
/// counts cannot be honoured (Megatron asserts the same: the middle stages split the rest evenly).
const char* splitPipeline(int layers, int pp, int vpp, int firstStated, int lastStated, PipelineSplit& out);

/// Visits the chunks of `layers` split over `pp` stages (without '|' segments) in order, as
/// visit(stage, first layer, layers): with virtual stages over equal chunks (layers divisible by pp x vpp)
/// chunk c of pp x vpp on stage c mod pp (Megatron-Core's interleaved layout); else one contiguous chunk
/// per stage, `split.first` / `split.middle` / `split.last` layers.
template <typename Visit>
void forEachPipelineChunk(int pp, int vpp, const PipelineSplit& split, int layers, Visit&& visit)
{
    if (const int chunks = pp * vpp; vpp > 1 && layers % chunks == 0) {
        for (int c = 0; c < chunks; ++c)
            visit(c % pp, c * (layers / chunks), layers / chunks);
        return;
    }
    int from = 0;
    for (int r = 0; r < pp; ++r) {
        const int n = r == 0 ? split.first : r == pp - 1 ? split.last : split.middle;
        visit(r, from, n);
        from += n;
    }
}

/// How many of a uniform stack's first `start` and last `end` layers (training.bf16_layers_at_start /
/// _at_end, numbered over the whole stack as Megatron-Core's is_first_last_bf16_layer does) pipeline stage
/// r of `pp` holds: with virtual stages over equal chunks (layers divisible by pp x vpp), chunks r,
/// r + pp, ... (forEachPipelineChunk: the last layers can reach into a chunk of another stage); else its
/// contiguous `split.first` / `split.middle` / `split.last` layers.
int bf16LayersOnStage(int r, int pp, int vpp, const PipelineSplit& split, int layers, int start, int end);

/// Layers of a pipeline stage holding `layers` layers in `chunks` virtual chunks (1 without virtual
/// stages) that Megatron-Core's block recomputation (--recompute-method block --recompute-num-layers n)
/// runs again in the backward: the first n of each chunk, all of a chunk with at most n
/// (megatron/core/recompute.py checkpointed_forward runs per model chunk, over that chunk's layers).
/// Chunks of equal size; fractional when they are not whole.
inline double blockRecomputedLayers(double layers, int chunks, int n)
{
    const double perChunk = layers / (chunks > 0 ? chunks : 1);
    return (chunks > 0 ? chunks : 1) * (n < perChunk ? n : perChunk);
}

struct ModelSpec;
struct ParallelismSpec;
/// splitPipeline for a model and a strategy. A hybrid pattern's '|' separators (Megatron-Core
/// hybrid_layer_allocation.py select_pipeline_segment) state the layout instead: pp x vpp segments,
/// physical stage r holding segments r, r + pp, ...; `first` / `last` are stage 0's and stage pp - 1's
/// layers, `middle` the most any middle stage holds, rule "segments".
const char* splitPipelineOf(const ModelSpec& m, const ParallelismSpec& p, PipelineSplit& out);

/// The micro-batches Megatron-Core's interleaved schedule runs on one virtual stage before moving to
/// the next (--microbatch-group-size-per-virtual-pipeline-stage; model_parallel_config.py): the
/// stated group, else pp.
inline int interleavingGroup(int pp, int statedGroup) { return statedGroup > 0 ? statedGroup : pp; }

/// Whether Megatron-Core runs `microBatches` micro-batches per iteration on pp stages of vpp virtual
/// chunks with a micro-batch group of `statedGroup` (0 = not stated: pp). Megatron-Core's interleaved
/// schedule (pipeline_parallel/schedules.py, forward_backward_pipelining_with_interleaving) needs
/// pp <= group <= micro-batches and a last group (micro-batches mod group) of 0 or at least pp; the
/// group applies to interleaving only. Returns nullptr, or one sentence naming the parallelism key
/// (static string).
const char* interleavingProblem(int pp, int vpp, int statedGroup, long long microBatches);

} // namespace clusterscope::engine
