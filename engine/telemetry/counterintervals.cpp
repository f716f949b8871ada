#include "engine/telemetry/counterintervals.h"

#include <cmath>

namespace clusterscope::engine {

CounterIntervals counterIntervals(const RawSeries& s, double gapS)
{
    CounterIntervals out;
    const std::size_t n = std::min(s.timesS.size(), s.values.size());
    out.intervals.reserve(n ? n - 1 : 0);
    for (std::size_t i = 1; i < n; ++i) {
        const double t0 = s.timesS[i - 1];
        const double t1 = s.timesS[i];
        const double v0 = s.values[i - 1];
        const double v1 = s.values[i];
        const double dt = t1 - t0;
        if (!(dt > 0) || !std::isfinite(v0) || !std::isfinite(v1))
            continue;
        if (dt > gapS) {
            ++out.gaps;
            continue;
        }
        CounterInterval iv { t0, t1, 0.0, 0.0 };
        if (s.gauge) {
            // A gauge of a rate (B/s): the value holds from this sample to the next.
            iv.rate = v0;
            iv.increase = v0 * dt;
        } else {
            double d = v1 - v0;
            if (d < 0) {
                ++out.resets;
                d = v1;
            }
            iv.increase = d;
            iv.rate = d / dt;
        }
        out.coveredS += dt;
        out.total += iv.increase;
        out.intervals.push_back(iv);
    }
    if (!s.gauge && n > 1) {
        // InfiniBand PortCounters (IBA vol. 1, 16.1.3.5) stop at all ones instead of wrapping:
        // SymbolErrorCounter 16 bit, LinkDownedCounter 8 bit, the legacy data counters 32 bit.
        const double last = s.values[n - 1];
        out.saturated = last == s.values[n - 2] && (last == 255.0 || last == 65535.0 || last == 4294967295.0);
    }
    return out;
}

} // namespace clusterscope::engine
