#pragma once

// The mean and the tail of a set of durations. Synchronised operations (a collective, a training
// step) wait for their slowest participant, so the tail matters more than the average (Dean and
// Barroso, "The Tail at Scale", Communications of the ACM 56(2), 2013).

#include <vector>

namespace clusterscope::engine {

/// Statistics of durations, in the unit of the input (the field names say which).
struct LatencyStats {
    int count = 0;
    double mean = 0;
    double p50 = 0; ///< median
    double p99 = 0;
    double max = 0;
};

/// Nearest-rank percentiles: the p-th percentile is the ceil(p/100 x n)-th smallest value (the
/// inverse of the empirical distribution function, Hyndman and Fan, "Sample Quantiles in
/// Statistical Packages", The American Statistician 50(4), 1996, definition 1), so every figure is
/// a duration that was measured. All zero for no values.
LatencyStats latencyStats(std::vector<double> values);

} // namespace clusterscope::engine
