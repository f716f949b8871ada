#include "engine/training/strategysearch.h"

#include "engine/training/trainingevaluator.h"

#include <algorithm>

namespace clusterscope::engine {

namespace {

    std::vector<int> divisorsOf(long long n)
    {
        std::vector<int> d;
        for (long long i = 1; i * i <= n; ++i) {
            if (n % i == 0) {
                d.push_back(static_cast<int>(i));
                if (i * i != n)
                    d.push_back(static_cast<int>(n / i));
            }
        }
        std::sort(d.begin(), d.end());
        return d;
    }

    bool dominates(const TrainingEstimate& a, const TrainingEstimate& b)
    {
        const double am = a.memory.totalBytes(), bm = b.memory.totalBytes();
        const bool noWorse
            = a.iterationSeconds <= b.iterationSeconds && am <= bm && a.costPerIterationUsd <= b.costPerIterationUsd;
        const bool better
            = a.iterationSeconds < b.iterationSeconds || am < bm || a.costPerIterationUsd < b.costPerIterationUsd;
        return noWorse && better;
    }

    struct Collector {
        int topK;
        std::vector<TrainingEstimate> ranked; // max-heap on iteration time, size <= topK
        std::vector<TrainingEstimate> pareto;

        static bool slower(const TrainingEstimate& a, const TrainingEstimate& b)
        {
            return a.iterationSeconds < b.iterationSeconds;
        }
        void add(const TrainingEstimate& e)
        {
            if (topK > 0) {
                if (static_cast<int>(ranked.size()) < topK) {
                    ranked.push_back(e);
                    std::push_heap(ranked.begin(), ranked.end(), slower);
                } else if (e.iterationSeconds < ranked.front().iterationSeconds) {
                    std::pop_heap(ranked.begin(), ranked.end(), slower);
                    ranked.back() = e;
                    std::push_heap(ranked.begin(), ranked.end(), slower);
                }
            }
            for (const TrainingEstimate& p : pareto)
                if (dominates(p, e)
                    || (p.iterationSeconds == e.iterationSeconds && p.memory.totalBytes() == e.memory.totalBytes()))
                    return;
            pareto.erase(std::remove_if(
                             pareto.begin(), pareto.end(), [&e](const TrainingEstimate& p) { return dominates(e, p); }),
                pareto.end());
            pareto.push_back(e);
        }
    };

} // namespace

SearchResult StrategySearch::run(const TrainingEvaluator& evaluator, const SearchOptions& options)
{
    const Scenario& scenario = evaluator.scenario();
    const ModelSpec& model = scenario.model;
    const int gpus = scenario.cluster.gpus;
    const int batch = scenario.training.globalBatch;
    SearchResult result;
    Collector collect { options.topK, {}, {} };
    collect.ranked.reserve(std::max(0, options.topK));

    // Outer (tp, cp) pairs drive the progress report.
    std::vector<std::pair<int, int>> outer;
    for (int tp : divisorsOf(gpus))
        if (model.heads % tp == 0)
            for (int cp : divisorsOf(gpus / tp))
                if (model.seqLen % cp == 0)
                    outer.emplace_back(tp, cp);
    const std::vector<int> expertCounts = model.moe ? divisorsOf(model.moe->experts) : std::vector<int> { 1 };
    const Recompute recomputes[] = { Recompute::None, Recompute::Selective, Recompute::Full };

    TrainingStrategy s;
    s.parallelism = scenario.parallelism.value_or(ParallelismSpec {});
    long long sinceCheck = 0;
    double lastReported = 0;
    for (std::size_t o = 0; o < outer.size(); ++o) {
        if (options.stop.stop_requested()) {
            result.cancelled = true;
            break;
        }
        // Throttled: at most one report per percent.
        const double fraction = static_cast<double>(o) / outer.size();
        if (options.progress && (o == 0 || fraction >= lastReported + 0.01)) {
            options.progress(fraction);
            lastReported = fraction;
        }
        const auto [tp, cp] = outer[o];
        for (int pp : divisorsOf(gpus / (tp * cp))) {
            if (pp > model.layers) // uneven splits are fine (PipelineSplit); empty stages are not
                continue;
            const int dp = gpus / (tp * cp * pp);
            if (batch % dp != 0)
                continue;
            const std::vector<int> microBatches = divisorsOf(batch / dp);
            const std::vector<int> virtualStages
                = pp > 1 ? divisorsOf((model.layers + pp - 1) / pp) : std::vector<int> { 1 };
            // MoE with tensor parallelism: besides experts split like the dense layers (etp = tp, ep
            // within dp x cp), MoE parallel folding with expert tensor parallelism 1 (ep over the
            // tp x cp x dp ranks), as Megatron-Bridge's Qwen3 / DeepSeek-V3 / GPT-OSS recipes run it.
            const int expertTpChoices = model.moe && tp > 1 ? 2 : 1;
            for (int vpp : virtualStages)
                for (int folding = 0; folding < expertTpChoices; ++folding)
                    for (int ep : expertCounts) {
                        if (folding == 0 ? (1LL * dp * cp) % ep != 0 : (1LL * tp * cp * dp) % ep != 0)
                            continue;
                        for (int kind = 0; kind < (cp > 1 ? 2 : 1); ++kind)
                            for (int mb : microBatches)
                                for (int zero = 0; zero <= (pp > 1 ? 1 : 3); ++zero) {
                                    ParallelismSpec& p = s.parallelism;
                                    p.tp = tp;
                                    p.cp = cp;
                                    p.pp = pp;
                                    p.dp = dp;
                                    p.ep = ep;
                                    p.etp = folding; // 0: expert tp = tp; 1: folded
                                    p.vpp = vpp;
                                    p.vppMicrobatchGroup = 0; // Megatron's default group (pp)
                                    p.zero = zero;
                                    p.sequenceParallel = tp > 1;
                                    p.schedule = vpp > 1 ? PipelineSchedule::Interleaved : PipelineSchedule::OneFOneB;
                                    p.cpKind = kind == 0 ? ContextParallelKind::Ring : ContextParallelKind::Ulysses;
                                    s.microBatch = mb;
                                    s.recomputeMethod = RecomputeMethod::Uniform;
                                    s.recomputeNumLayers = 1;
                                    bool selectiveFits = false, fullFits = false;
                                    for (Recompute rc : recomputes) {
                                        s.recompute = rc;
                                        ++result.candidates;
                                        if (evaluator.invalidReason(s))
                                            continue;
                                        ++result.valid;
                                        if (!evaluator.memory(s).fits())
                                            continue;
                                        ++result.fitting;
                                        selectiveFits = selectiveFits || rc == Recompute::Selective;
                                        fullFits = fullFits || rc == Recompute::Full;
                                        collect.add(evaluator.evaluate(s));
                                        if (++sinceCheck >= 4096) {
                                            sinceCheck = 0;
                                            if (options.stop.stop_requested()) {
                                                result.cancelled = true;
                                                goto done;
                                            }
                                        }
                                    }
                                    // Between selective (does not fit) and full recomputation (fits): block
                                    // recomputation of the fewest layers per chunk that fits (Megatron-Core
                                    // --recompute-method block --recompute-num-layers n; memory falls as n
                                    // grows, so a bisection finds it), as Megatron-Bridge's recipes use it.
                                    const int chunkLayers = (model.layers + pp * vpp - 1) / (pp * vpp);
                                    if (!selectiveFits && fullFits && chunkLayers > 1) {
                                        s.recompute = Recompute::Full;
                                        s.recomputeMethod = RecomputeMethod::Block;
                                        int lo = 1, hi = chunkLayers; // hi: all of a chunk, as full (fits)
                                        while (lo < hi) {
                                            s.recomputeNumLayers = (lo + hi) / 2;
                                            if (evaluator.memory(s).fits())
                                                hi = s.recomputeNumLayers;
                                            else
                                                lo = s.recomputeNumLayers + 1;
                                        }
                                        if (lo < chunkLayers) {
                                            s.recomputeNumLayers = lo;
                                            ++result.candidates;
                                            ++result.valid;
                                            ++result.fitting;
                                            collect.add(evaluator.evaluate(s));
                                        }
                                    }
                                }
                    }
        }
    }
done:
    std::sort(collect.ranked.begin(), collect.ranked.end(), Collector::slower);
    std::sort(collect.pareto.begin(), collect.pareto.end(), Collector::slower);
    result.ranked = std::move(collect.ranked);
    result.pareto = std::move(collect.pareto);
    if (options.progress && !result.cancelled)
        options.progress(1.0);
    return result;
}

} // namespace clusterscope::engine
