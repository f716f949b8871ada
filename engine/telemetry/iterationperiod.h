#pragma once

// The training iteration period from NIC traffic: data-parallel gradient exchange repeats once per
// iteration, so the cluster's summed NIC throughput is periodic. The period is the first strong
// peak of the autocorrelation (Box & Jenkins, "Time Series Analysis", ch. 2). A period shorter
// than 4 samples cannot be told from an alias of a faster one (Nyquist-Shannon: a signal must be
// sampled at more than twice its frequency, and the duty cycle needs more), so it is refused.

#include <string>
#include <vector>

namespace clusterscope::engine {

struct IterationPeriod {
    bool found = false;
    double periodS = 0.0;
    double autocorrelation = 0.0; ///< at the period's lag
    std::vector<double> acf; ///< lags 1..N (for plots and tests)
    std::string message; ///< why none was found, or a one-line summary
};

/// `series` is sampled every `stepS` seconds (NaN = gap, treated as the mean).
IterationPeriod findIterationPeriod(const std::vector<double>& series, double stepS, double minCorrelation = 0.5);

} // namespace clusterscope::engine
