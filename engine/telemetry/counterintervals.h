#pragma once

// From raw samples to per-interval increases, with Prometheus' counter semantics
// (https://prometheus.io/docs/prometheus/latest/querying/functions/#resets): a decrease is a reset to
// zero, so the increase over that interval is the new value. Unlike PromQL's increase()/rate(), no
// extrapolation to the window edges: the counts are exact (+3 errors stays 3, not 3.33).

#include "engine/telemetry/telemetrydata.h"

#include <vector>

namespace clusterscope::engine {

struct CounterInterval {
    double startS = 0.0;
    double endS = 0.0;
    double increase = 0.0; ///< counter: value increase (bytes, events); gauge: value x duration
    double rate = 0.0; ///< per second over the interval (counter) or the gauge value
};

struct CounterIntervals {
    std::vector<CounterInterval> intervals; ///< consecutive sample pairs closer than the gap limit
    int resets = 0; ///< decreases (counter restarted: driver reload, port reset, wrap)
    int gaps = 0; ///< sample spacings above the gap limit (missed scrapes): no rate there
    double coveredS = 0.0; ///< seconds covered by intervals
    double total = 0.0; ///< sum of increases
    bool saturated = false; ///< the last value is pegged at 2^n - 1 (legacy IB counters clamp there)
};

/// Intervals of one series. Spacings longer than `gapS` are gaps (no data), not long intervals.
CounterIntervals counterIntervals(const RawSeries& series, double gapS);

} // namespace clusterscope::engine
