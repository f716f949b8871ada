#pragma once

// What nccl-tests' per-iteration timing (-I 1, nccl-tests 2.19 on) says about one run: per size the
// spread of the iteration times and whether the size was noisy, and with -J output which MPI process
// was the slowest. The same measurement the sweep uses (out-of-place, in-place when a row has only that).

#include "importers/nccltests/nccltestslog.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::importers {

/// NVIDIA/nccl-tests tools/analyze_perf_json.py (print_stats_table) flags a size when its iteration
/// times' coefficient of variation is above 5% or its slowest iteration above 1.5x the mean.
inline constexpr double kNoisyCvPercent = 5.0;
inline constexpr double kSpikeRatio = 1.5;

struct NcclTestsIterationSize {
    std::uint64_t bytes = 0;
    bool outOfPlace = true; ///< which half the figures are of
    double meanUs = 0; ///< -J avg_us, else the row's printed time (the mean over iterations)
    NcclTestsIterationStats stats;
    double spike = 0; ///< slowest iteration / mean
    bool noisy = false; ///< cv above kNoisyCvPercent or spike above kSpikeRatio
    // With -J per-process rows: the processes with the highest and lowest mean iteration time.
    int slowestProcess = -1, fastestProcess = -1;
    double slowestMeanUs = 0, fastestMeanUs = 0;
};

struct NcclTestsIterationReport {
    std::vector<NcclTestsIterationSize> sizes; ///< the sizes with per-iteration figures, by size
    int noisySizes = 0;
    int processes = 0; ///< per-process rows (-J with several processes), 0 otherwise
    /// The process slowest at the most sizes (-1 without per-process rows), at how many sizes, its mean
    /// excess over the fastest process at those sizes (fraction), and its host and first rank when the
    /// device lines tell (process p holds ranks p x nThread x nGpus onwards, src/common.cu).
    int straggler = -1;
    int stragglerSizes = 0;
    int sizesWithProcesses = 0;
    double stragglerExcess = 0;
    std::string stragglerHost;
    int stragglerFirstRank = -1;
};

/// The mean iteration time of a half with per-iteration figures (-J avg_us, else the printed time, which
/// is that mean) and whether its own iterations make it noisy (kNoisyCvPercent, kSpikeRatio): the one
/// rule the report and the calibration use. Not noisy without per-iteration figures.
bool ncclTestsNoisy(const NcclTestsMeasurement& m, double* meanUs = nullptr, double* spike = nullptr);

/// Empty `sizes` when the run has no per-iteration figures (a log without -I 1).
NcclTestsIterationReport ncclTestsIterationReport(const NcclTestsRun& run);

} // namespace clusterscope::importers
