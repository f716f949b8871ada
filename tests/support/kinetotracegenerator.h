#pragma once

// Generated multi-rank PyTorch profiler (Kineto) traces with known contents, for tests and
// benchmarks: N rank files shaped like PyTorch 2.x output (ProfilerStep annotations, CPU ops,
// cudaLaunchKernel with correlation ids and flows, GEMM kernels, NCCL kernels with collective args),
// per-rank clock skew, planted stragglers and known collectives. The ground truth (which rank
// arrived last at each collective, how many collectives, the traffic of the ring) comes with it.
// Qt-free; the command-line front end is clusterscope-tracegen (tracegenmain.cpp).

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::testing {

/// A rank that arrives late at collectives of the world group: at those whose index c (in global
/// order) satisfies c % stragglerCount == its position in TraceGeneratorSpec::stragglers.
struct PlantedStraggler {
    int rank = 0;
    double lateUs = 0; ///< how much later than the others it starts the collective (us)
};

struct TraceGeneratorSpec {
    int ranks = 8;
    int steps = 3;
    int allReducesPerStep = 2; ///< world-group AllReduce calls per step (pg "0")
    std::int64_t allReduceBytes = 64LL << 20; ///< S of each AllReduce (bf16 elements x 2 B)
    int tensorParallel = 1; ///< > 1: one AllGather per step in each group of this many consecutive ranks
    std::int64_t allGatherBytes = 8LL << 20; ///< S of each AllGather (output bytes)
    int computeKernelsPerCollective = 4; ///< GEMM kernels before each collective
    double computeKernelUs = 30; ///< duration of each GEMM kernel (10 us apart)
    std::size_t paddingBytesPerRank = 0; ///< extra CPU-op events until a file is about this large
    std::vector<PlantedStraggler> stragglers;
    double maxClockSkewUs = 800; ///< rank clocks are offset by up to this (deterministic)
    double arrivalJitterUs = 20; ///< non-stragglers arrive within this spread
    std::uint32_t seed = 1;

    std::int64_t kernelNs() const { return std::int64_t(computeKernelUs * 1e3); }
    std::int64_t kernelPitchNs() const { return kernelNs() + 10000; } ///< one GEMM every kernel + 10 us
};

/// What the analyses must find.
struct GeneratedTruth {
    int collectivesPerRank = 0; ///< NCCL kernels in each rank's trace
    int matchedCollectives = 0; ///< distinct (group, seq) collectives of the run
    std::vector<int> worldLastArrival; ///< per world AllReduce in time order: the last rank to arrive
    std::vector<std::int64_t> clockSkewNs; ///< per rank: its clock minus the reference clock
    double allReduceRingBytesPerRank = 0; ///< bytes each rank sends to the next over the run (AllReduce ring)
};

GeneratedTruth generatedTruth(const TraceGeneratorSpec& spec);

/// The trace JSON of one rank.
std::string generateRankTrace(const TraceGeneratorSpec& spec, int rank);

/// Writes rank<r>.pt.trace.json for every rank into `directory` (which must exist). Returns the
/// paths, or an empty list with `error` set when a file cannot be written.
std::vector<std::string> writeRunTraces(
    const TraceGeneratorSpec& spec, const std::string& directory, std::string& error);

} // namespace clusterscope::testing
