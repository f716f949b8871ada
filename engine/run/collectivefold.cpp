#include "engine/run/collectivefold.h"

#include "engine/run/collectiveop.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace clusterscope::engine {

double measuredAlgbwGbps(std::int64_t bytes, double durationUs)
{
    return bytes > 0 && durationUs > 0 ? double(bytes) / (durationUs * 1e-6) / 1e9 : 0.0;
}

double measuredBusbwGbps(CollectiveOp op, std::int64_t bytes, std::int32_t groupSize, double durationUs)
{
    return measuredAlgbwGbps(bytes, durationUs) * busBandwidthFactor(op, groupSize);
}

std::vector<CollectiveFold> foldCollectives(const std::vector<CollectiveSummary>& collectives)
{
    std::vector<CollectiveFold> folds;
    std::vector<std::vector<double>> durations;
    std::map<std::tuple<int, std::string, std::int64_t, std::int32_t>, std::size_t> foldOf;
    for (const CollectiveSummary& c : collectives) {
        const auto [it, added]
            = foldOf.emplace(std::make_tuple(int(c.op), c.processGroup, c.bytes, c.groupSize), folds.size());
        if (added) {
            CollectiveFold f;
            f.op = c.op;
            f.processGroup = c.processGroup;
            f.bytes = c.bytes;
            f.groupSize = c.groupSize;
            folds.push_back(std::move(f));
            durations.emplace_back();
        }
        CollectiveFold& f = folds[it->second];
        ++f.calls;
        f.totalWaitUs += c.totalWaitUs;
        durations[it->second].push_back(c.durationUs);
    }
    for (std::size_t i = 0; i < folds.size(); ++i) {
        CollectiveFold& f = folds[i];
        f.durationUs = latencyStats(std::move(durations[i]));
        f.algbwGbps = measuredAlgbwGbps(f.bytes, f.durationUs.mean);
        f.busbwGbps = measuredBusbwGbps(f.op, f.bytes, f.groupSize, f.durationUs.mean);
    }
    return folds;
}

LatencyStats stepDurationStats(const RunAnalysis& analysis)
{
    std::vector<double> seconds;
    for (const StepBreakdown& step : analysis.steps) {
        double slowest = 0;
        for (const RankStepBreakdown& r : step.ranks)
            slowest = std::max(slowest, r.durationSeconds);
        if (!step.ranks.empty())
            seconds.push_back(slowest);
    }
    return latencyStats(std::move(seconds));
}

} // namespace clusterscope::engine
