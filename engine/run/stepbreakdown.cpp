// Per-step, per-rank GPU time breakdown (compute, exposed/overlapped communication, copies, idle).

#include "engine/run/intervals.h"
#include "engine/run/ranksummary.h"

#include <algorithm>
#include <map>

namespace clusterscope::engine {

namespace {
    constexpr double kNsToSeconds = 1e-9;

    // The step a GPU activity belongs to: the ProfilerStep whose host range contains the launching
    // API call (GPU work often runs after its step's CPU part ended), else the activity's own start.
    // Returns an index into steps, or -1.
    int stepOf(const std::vector<ProfilerStepRange>& steps, const GpuActivity& a)
    {
        const std::int64_t t = a.launchNs >= 0 ? a.launchNs : a.startNs;
        auto it = std::upper_bound(
            steps.begin(), steps.end(), t, [](std::int64_t v, const ProfilerStepRange& s) { return v < s.startNs; });
        if (it == steps.begin())
            return -1;
        --it;
        if (t >= it->endNs)
            return -1;
        return int(it - steps.begin());
    }
}

std::vector<RankStepSummary> rankStepBreakdowns(const RankTrace& rank, Diagnostics& diagnostics)
{
    std::vector<RankStepSummary> out;
    {
        std::vector<ProfilerStepRange> steps = rank.steps;
        if (steps.empty() && !rank.activities.empty()) {
            // No ProfilerStep annotations: the whole trace is one step, numbered 0.
            std::int64_t lo = rank.activities.front().startNs, hi = lo;
            for (const auto& a : rank.activities) {
                lo = std::min(lo, std::min(a.startNs, a.launchNs >= 0 ? a.launchNs : a.startNs));
                hi = std::max(hi, a.endNs);
            }
            steps.push_back({ 0, lo, hi });
            diagnostics.add(diagnostic::kRunNoProfilerSteps,
                rank.sourceFile + ": no ProfilerStep annotations; the whole trace is reported as step 0.");
        }
        struct Acc {
            std::vector<Intervals::Span> compute, comm, copy, pending; // pending: launched, not started
            std::int64_t lo = INT64_MAX, hi = INT64_MIN;
            std::int64_t launches = 0; ///< activities with a known launch time
        };
        std::vector<Acc> acc(steps.size());
        std::int64_t outside = 0;
        for (const auto& a : rank.activities) {
            const int s = stepOf(steps, a);
            if (s < 0) {
                ++outside;
                continue;
            }
            Acc& x = acc[std::size_t(s)];
            x.lo = std::min(x.lo, a.startNs);
            x.hi = std::max(x.hi, a.endNs);
            const Intervals::Span span { a.startNs, a.endNs };
            if (a.launchNs >= 0 && a.launchNs < a.startNs)
                x.pending.push_back({ a.launchNs, a.startNs });
            x.launches += a.launchNs >= 0 ? 1 : 0;
            switch (a.kind) {
            case GpuActivityKind::Compute:
                x.compute.push_back(span);
                break;
            case GpuActivityKind::Communication:
                x.comm.push_back(span);
                break;
            default:
                x.copy.push_back(span);
                break;
            }
        }
        if (outside > 0)
            diagnostics.add(diagnostic::kRunActivityOutsideSteps,
                rank.sourceFile
                    + ": GPU activities launched outside every ProfilerStep are left out of the step breakdown.",
                outside);
        // Latest end of the GPU work that started before each point: activities are sorted by start.
        std::vector<std::int64_t> endSoFar(rank.activities.size());
        for (std::size_t i = 0; i < rank.activities.size(); ++i)
            endSoFar[i] = std::max(i ? endSoFar[i - 1] : INT64_MIN, rank.activities[i].endNs);
        const auto latestEndBefore = [&](std::int64_t t) {
            const auto it = std::lower_bound(rank.activities.begin(), rank.activities.end(), t,
                [](const GpuActivity& a, std::int64_t v) { return a.startNs < v; });
            return it == rank.activities.begin() ? INT64_MIN : endSoFar[std::size_t(it - rank.activities.begin()) - 1];
        };
        std::int64_t previousEnd = INT64_MIN;
        for (std::size_t s = 0; s < steps.size(); ++s) {
            Acc& x = acc[s];
            // The step's GPU window. A step's GPU work is what was launched inside its ProfilerStep
            // range (the CUDA launch matched to its kernel by correlation id, stepOf); the GPU runs
            // behind the CPU, so at the range's start it may still be busy with work launched
            // before (an unprofiled step): that time is not this step's. The window starts at the
            // later of the range's start and the end of that earlier GPU work (never after the
            // step's own first GPU work; the idle time before it is host-wait), and ends at the
            // later of the range's end and the end of the step's last GPU work. Without GPU work
            // the window is the host range. Windows never overlap.
            std::int64_t lo = steps[s].startNs;
            std::int64_t hi = steps[s].endNs;
            if (x.hi != INT64_MIN) {
                lo = std::min(std::max(lo, latestEndBefore(x.lo)), x.lo);
                hi = std::max(hi, x.hi);
            }
            lo = std::max(lo, previousEnd);
            if (hi < lo)
                hi = lo;
            previousEnd = hi;
            const Intervals compute = Intervals::unionOf(std::move(x.compute)).clip(lo, hi);
            const Intervals comm = Intervals::unionOf(std::move(x.comm)).clip(lo, hi);
            const Intervals copy = Intervals::unionOf(std::move(x.copy)).clip(lo, hi);
            const Intervals busy = compute.unite(comm);
            RankStepBreakdown b;
            b.rank = rank.rank;
            const std::int64_t durationNs = hi - lo;
            const std::int64_t commOverlapNs = comm.overlapNs(compute);
            const std::int64_t copyExposedNs = copy.totalNs() - copy.overlapNs(busy);
            b.durationSeconds = double(durationNs) * kNsToSeconds;
            b.computeSeconds = double(compute.totalNs()) * kNsToSeconds;
            b.commOverlappedSeconds = double(commOverlapNs) * kNsToSeconds;
            b.commExposedSeconds = double(comm.totalNs() - commOverlapNs) * kNsToSeconds;
            b.memcpySeconds = double(copyExposedNs) * kNsToSeconds;
            const std::int64_t idleNs = durationNs - busy.totalNs() - copyExposedNs;
            b.idleSeconds = double(idleNs) * kNsToSeconds;
            if (x.launches > 0) {
                // Idle while launched work waited to start = kernel-wait; the rest of the idle time
                // nothing was queued yet = host-wait.
                const Intervals pending = Intervals::unionOf(std::move(x.pending)).clip(lo, hi);
                const std::int64_t kernelWaitNs
                    = std::clamp(pending.totalNs() - pending.overlapNs(busy.unite(copy)), std::int64_t(0), idleNs);
                b.idleKernelWaitSeconds = double(kernelWaitNs) * kNsToSeconds;
                b.idleHostWaitSeconds = double(idleNs - kernelWaitNs) * kNsToSeconds;
            }
            out.push_back({ steps[s].step, b });
        }
    }
    return out;
}

std::vector<StepBreakdown> mergeStepBreakdowns(const std::vector<RankSummary>& ranks, Diagnostics& diagnostics)
{
    std::map<std::int64_t, StepBreakdown> byStep;
    for (const RankSummary& rank : ranks) {
        diagnostics.merge(rank.diagnostics);
        for (const RankStepSummary& s : rank.steps) {
            auto& step = byStep[s.step];
            step.step = s.step;
            step.ranks.push_back(s.breakdown);
        }
    }
    std::vector<StepBreakdown> out;
    for (auto& [n, step] : byStep) {
        std::sort(step.ranks.begin(), step.ranks.end(),
            [](const RankStepBreakdown& a, const RankStepBreakdown& b) { return a.rank < b.rank; });
        out.push_back(std::move(step));
    }
    return out;
}

std::vector<StepBreakdown> computeStepBreakdowns(const Run& run, Diagnostics& diagnostics)
{
    std::vector<RankSummary> ranks(run.ranks.size());
    for (std::size_t i = 0; i < run.ranks.size(); ++i)
        ranks[i].steps = rankStepBreakdowns(run.ranks[i], ranks[i].diagnostics);
    return mergeStepBreakdowns(ranks, diagnostics);
}

} // namespace clusterscope::engine
