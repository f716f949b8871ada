#pragma once

// Balls-into-bins figures of static ECMP (balls into bins: Raab and Steger, "Balls into Bins — A Simple and Tight
// Analysis", RANDOM 1998): n long flows hashed onto n equal uplinks use 1 - (1 - 1/n)^n of them, and a synchronous
// collective runs at the pace of the most loaded uplink.

#include <cstdint>

namespace clusterscope::engine {

/// Expected fraction of n uplinks that carry at least one of n hashed flows: 1 - (1 - 1/n)^n.
double ecmpExpectedUsedFraction(int n);

/// Exact expected maximum load when `balls` are thrown uniformly into `bins` (dynamic programming
/// over bins with binomial splits; Raab & Steger 1998 give the asymptotics).
double expectedMaxLoad(int balls, int bins);

/// Monte Carlo estimate of the same with `trials` samples of a seeded generator.
double sampledMaxLoad(int balls, int bins, int trials, std::uint64_t seed);

/// Efficiency of a collective whose n flows are each split over q queue pairs hashed onto n uplinks:
/// q / E[max load of n q balls in n bins] (n = 32: q = 1, 2, 4, 8 -> ~28%, 37%, 46%, 56%).
double ecmpCollectiveEfficiency(int n, int queuePairs);

} // namespace clusterscope::engine
