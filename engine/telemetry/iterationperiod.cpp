#include "engine/telemetry/iterationperiod.h"

#include <cmath>
#include <cstdio>

namespace clusterscope::engine {

IterationPeriod findIterationPeriod(const std::vector<double>& series, double stepS, double minCorrelation)
{
    IterationPeriod out;
    const std::size_t n = series.size();
    if (n < 12 || !(stepS > 0)) {
        out.message = "too few samples (" + std::to_string(n) + ") to look for a period";
        return out;
    }
    double mean = 0.0;
    std::size_t valid = 0;
    for (double v : series)
        if (std::isfinite(v)) {
            mean += v;
            ++valid;
        }
    if (valid < n / 2) {
        out.message = "more than half of the samples are gaps";
        return out;
    }
    mean /= double(valid);
    std::vector<double> x(n);
    double energy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = std::isfinite(series[i]) ? series[i] - mean : 0.0;
        energy += x[i] * x[i];
    }
    if (!(energy > 0)) {
        out.message = "the traffic is constant: no period";
        return out;
    }
    const std::size_t maxLag = n / 2;
    out.acf.resize(maxLag);
    for (std::size_t k = 1; k <= maxLag; ++k) {
        double s = 0.0;
        for (std::size_t i = 0; i + k < n; ++i)
            s += x[i] * x[i + k];
        // Normalised by the overlap so that long lags are not biased towards zero.
        out.acf[k - 1] = s / energy * double(n) / double(n - k);
    }
    auto acf = [&](std::size_t k) { return k == 0 ? 1.0 : out.acf[k - 1]; };
    for (std::size_t k = 1; k < maxLag; ++k) {
        if (acf(k) < minCorrelation || acf(k) < acf(k - 1) || acf(k) < acf(k + 1))
            continue;
        char buf[160];
        if (k < 4) {
            std::snprintf(buf, sizeof buf,
                "a repeat every %zu samples (%.3g s) is under 4 samples and may be an alias of a faster pattern; "
                "scrape faster to measure the iteration period",
                k, double(k) * stepS);
            out.message = buf;
            return out;
        }
        if (n < 3 * k) {
            std::snprintf(buf, sizeof buf, "the window holds fewer than 3 repeats of %.3g s; use a longer window",
                double(k) * stepS);
            out.message = buf;
            return out;
        }
        out.found = true;
        out.periodS = double(k) * stepS;
        out.autocorrelation = acf(k);
        std::snprintf(buf, sizeof buf, "iteration period %.3g s (autocorrelation %.2f at lag %zu)", out.periodS,
            out.autocorrelation, k);
        out.message = buf;
        return out;
    }
    out.message
        = "no autocorrelation peak above " + std::to_string(minCorrelation).substr(0, 4) + ": no periodic traffic";
    return out;
}

} // namespace clusterscope::engine
