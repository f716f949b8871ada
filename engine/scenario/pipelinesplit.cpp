#include "engine/scenario/pipelinesplit.h"

#include "engine/scenario/scenario.h"

#include <algorithm>

namespace clusterscope::engine {

const char* splitPipeline(int layers, int pp, int vpp, int firstStated, int lastStated, PipelineSplit& out)
{
    out = PipelineSplit {};
    if (pp <= 1) {
        if (firstStated > 0 || lastStated > 0)
            return "/parallelism/first_stage_layers: uneven stages need pp > 1";
        out.first = out.middle = out.last = layers;
        return nullptr;
    }
    if (firstStated > 0 || lastStated > 0) {
        // Megatron-Core (transformer_block.py get_num_layers_to_build with
        // --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers): the stated
        // stages take their counts and the other stages split the remaining layers evenly.
        int rest = layers, stages = pp;
        if (firstStated > 0) {
            rest -= firstStated;
            --stages;
        }
        if (lastStated > 0) {
            rest -= lastStated;
            --stages;
        }
        if (rest < 0)
            return "/parallelism/first_stage_layers: first and last stage layers exceed the model's layers";
        if (stages == 0 && rest != 0)
            return "/parallelism/first_stage_layers: with pp = 2 first and last stage layers must add up to the layers";
        if (stages > 0 && rest % stages != 0)
            return "/parallelism/first_stage_layers: the layers left for the other stages do not divide evenly among "
                   "them";
        const int each = stages > 0 ? rest / stages : 0;
        out.first = firstStated > 0 ? firstStated : each;
        out.last = lastStated > 0 ? lastStated : each;
        out.middle = pp > 2 ? each : 0;
        out.rule = "stated";
        return nullptr;
    }
    const int chunks = pp * vpp;
    if (layers % chunks == 0) {
        out.first = out.middle = out.last = layers / pp;
        return nullptr;
    }
    if ((layers + 2) % chunks == 0) {
        // Megatron-LM --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split
        // (e.g. Llama 3.1 405B's 126 layers on pp 8 x vpp 8 in NeMo's recipe): the embedding takes one
        // layer slot of the first stage and the loss one of the last.
        const int slots = (layers + 2) / pp;
        out.first = out.last = slots - 1;
        out.middle = slots;
        out.rule = "embedding-and-loss";
        return nullptr;
    }
    // Otherwise the middle stages take ceil(layers / pp) rounded up to whole virtual chunks and the
    // first and last stages share what is left (the last, which also runs the output layer and
    // loss, takes the smaller part), as a user sets --decoder-first/last-pipeline-num-layers.
    int middle = (layers + pp - 1) / pp;
    middle = (middle + vpp - 1) / vpp * vpp;
    while (middle > 0 && (pp - 2) * middle > layers)
        middle -= vpp > 1 ? vpp : 1;
    if (middle < 0)
        middle = 0;
    const int rest = layers - (pp - 2) * middle;
    out.middle = pp > 2 ? middle : 0;
    out.last = rest / 2;
    out.first = rest - out.last;
    if (pp == 2) {
        out.first = (layers + 1) / 2;
        out.last = layers - out.first;
    }
    out.rule = "balanced";
    return nullptr;
}

const char* interleavingProblem(int pp, int vpp, int statedGroup, long long microBatches)
{
    if (vpp <= 1)
        return statedGroup > 0 ? "/parallelism/vpp_microbatch_group: a micro-batch group applies to the interleaved "
                                 "schedule (vpp > 1) only"
                               : nullptr;
    if (microBatches < pp)
        return "/parallelism/vpp: the interleaved schedule needs at least pp micro-batches per iteration";
    const int group = interleavingGroup(pp, statedGroup);
    if (statedGroup > 0 && (group < pp || group > microBatches))
        return "/parallelism/vpp_microbatch_group: the micro-batch group must lie between pp and the micro-batches "
               "per iteration";
    const long long last = microBatches % group;
    if (last != 0 && last < pp)
        return statedGroup > 0
            ? "/parallelism/vpp_microbatch_group: the last group (micro-batches mod group) must be 0 or at least pp"
            : "/parallelism/vpp: the interleaved schedule needs micro-batches divisible by pp, or a "
              "vpp_microbatch_group G with pp <= G <= micro-batches and micro-batches mod G either 0 or at least pp "
              "(Megatron-Core --microbatch-group-size-per-virtual-pipeline-stage)";
    return nullptr;
}

int bf16LayersOnStage(int r, int pp, int vpp, const PipelineSplit& split, int layers, int start, int end)
{
    int count = 0;
    forEachPipelineChunk(pp, vpp, split, layers, [&](int stage, int from, int n) {
        if (stage != r)
            return;
        // The chunk [from, from + n) against [0, start) and [layers - end, layers).
        count += std::max(0, std::min(from + n, start) - from) + std::max(0, from + n - std::max(from, layers - end));
    });
    return count;
}

const char* splitPipelineOf(const ModelSpec& m, const ParallelismSpec& p, PipelineSplit& out)
{
    if (m.hybridPattern.find('|') == std::string::npos) // no allocation on the search's path
        return splitPipeline(m.layers, p.pp, p.vpp, p.firstStageLayers, p.lastStageLayers, out);
    const std::vector<std::string> segments = hybridSegments(m.hybridPattern);
    out = PipelineSplit {};
    if (p.firstStageLayers > 0 || p.lastStageLayers > 0)
        return "/parallelism/first_stage_layers: the '|' segments of model.hybrid_pattern state every stage's "
               "layers; leave first_stage_layers and last_stage_layers out";
    if (static_cast<long long>(segments.size()) != 1LL * p.pp * p.vpp)
        return "/parallelism/pp: pp x vpp must equal the '|' segments of model.hybrid_pattern (one per virtual "
               "stage)";
    std::vector<int> layers(static_cast<std::size_t>(p.pp), 0);
    for (std::size_t i = 0; i < segments.size(); ++i)
        layers[i % static_cast<std::size_t>(p.pp)] += static_cast<int>(segments[i].size());
    out.first = layers.front();
    out.last = layers.back();
    for (int r = 1; r + 1 < p.pp; ++r)
        out.middle = std::max(out.middle, layers[static_cast<std::size_t>(r)]);
    out.rule = "segments";
    return nullptr;
}

} // namespace clusterscope::engine
