#include "engine/run/latencystats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace clusterscope::engine {

namespace {
    // The ceil(p x n)-th smallest of sorted values (1-based rank, at least the first).
    double nearestRank(const std::vector<double>& sorted, double p)
    {
        const auto n = double(sorted.size());
        const auto rank = std::size_t(std::max(1.0, std::ceil(p * n)));
        return sorted[std::min(rank, sorted.size()) - 1];
    }
}

LatencyStats latencyStats(std::vector<double> values)
{
    LatencyStats s;
    if (values.empty())
        return s;
    std::sort(values.begin(), values.end());
    s.count = int(values.size());
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    s.p50 = nearestRank(values, 0.50);
    s.p99 = nearestRank(values, 0.99);
    s.max = values.back();
    return s;
}

} // namespace clusterscope::engine
