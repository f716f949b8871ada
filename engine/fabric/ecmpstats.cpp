#include "engine/fabric/ecmpstats.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace clusterscope::engine {

double ecmpExpectedUsedFraction(int n) { return n < 1 ? 0.0 : 1.0 - std::pow(1.0 - 1.0 / n, n); }

namespace {

    // P(max load <= t): bins are filled one at a time; bin i takes k ~ Binomial(r, 1 / bins left) of the
    // r balls still unplaced.
    double probMaxAtMost(int balls, int bins, int t)
    {
        std::vector<double> prob(balls + 1, 0.0), next(balls + 1);
        prob[balls] = 1.0;
        for (int i = 0; i < bins; ++i) {
            const int left = bins - i;
            const double pk = 1.0 / left;
            std::fill(next.begin(), next.end(), 0.0);
            for (int r = 0; r <= balls; ++r) {
                if (prob[r] == 0.0)
                    continue;
                if (left == 1) {
                    if (r <= t)
                        next[0] += prob[r];
                    continue;
                }
                const double lr = std::lgamma(r + 1.0);
                for (int k = 0; k <= std::min(r, t); ++k) {
                    const double logBinom = lr - std::lgamma(k + 1.0) - std::lgamma(r - k + 1.0) + k * std::log(pk)
                        + (r - k) * std::log1p(-pk);
                    next[r - k] += prob[r] * std::exp(logBinom);
                }
            }
            prob.swap(next);
        }
        return prob[0];
    }

} // namespace

double expectedMaxLoad(int balls, int bins)
{
    if (balls <= 0 || bins <= 0)
        return 0.0;
    // E[max] = sum_{t >= 0} P(max > t).
    double e = 0.0;
    for (int t = 0; t < balls; ++t) {
        const double tail = 1.0 - probMaxAtMost(balls, bins, t);
        e += tail;
        if (tail < 1e-12)
            break;
    }
    return e;
}

double sampledMaxLoad(int balls, int bins, int trials, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> pick(0, bins - 1);
    std::vector<int> load(bins);
    double sum = 0;
    for (int t = 0; t < trials; ++t) {
        std::fill(load.begin(), load.end(), 0);
        int mx = 0;
        for (int b = 0; b < balls; ++b)
            mx = std::max(mx, ++load[pick(rng)]);
        sum += mx;
    }
    return trials > 0 ? sum / trials : 0.0;
}

double ecmpCollectiveEfficiency(int n, int queuePairs)
{
    const int q = std::max(1, queuePairs);
    return q / expectedMaxLoad(n * q, n);
}

} // namespace clusterscope::engine
