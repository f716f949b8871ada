// Per-step, per-rank GPU time breakdown (compute, exposed/overlapped communication, copies, idle).

#include "engine/run/intervals.h"
#include "engine/run/runanalysis.h"

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
    auto it = std::upper_bound(steps.begin(), steps.end(), t,
        [](std::int64_t v, const ProfilerStepRange& s) { return v < s.startNs; });
    if (it == steps.begin())
        return -1;
    --it;
    if (t >= it->endNs)
        return -1;
    return int(it - steps.begin());
}
}

std::vector<StepBreakdown> computeStepBreakdowns(const Run& run, Diagnostics& diagnostics)
{
    std::map<std::int64_t, StepBreakdown> byStep;
    for (const auto& rank : run.ranks) {
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
                rank.sourceFile + ": GPU activities launched outside every ProfilerStep are left out of the step breakdown.",
                outside);
        std::int64_t previousEnd = INT64_MIN;
        for (std::size_t s = 0; s < steps.size(); ++s) {
            Acc& x = acc[s];
            // The step's GPU window: from the step's host start (or its first GPU work, if earlier,
            // but never before the previous step's window ended) to the later of the host end and
            // the end of the step's last GPU work.
            std::int64_t lo = std::max(std::min(steps[s].startNs, x.lo), previousEnd);
            std::int64_t hi = std::max(steps[s].endNs, x.hi == INT64_MIN ? steps[s].endNs : x.hi);
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
            auto& step = byStep[steps[s].step];
            step.step = steps[s].step;
            step.ranks.push_back(b);
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

} // namespace clusterscope::engine
