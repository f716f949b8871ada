#pragma once

// A stored run shaped like a tensor- plus data-parallel training job, for GUI tests and benchmarks
// that need a large run without parsing traces: 3 ProfilerSteps, an AllGather per step in each
// group of 8 consecutive ranks, a world AllReduce per step, ring traffic in both, and two planted
// stragglers (ranks world/3 and 2*world/3 arrive late at the world AllReduce). Written into a
// project through the engine's RunStore, as an import would.

#include "engine/run/ranksummary.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"

#include <algorithm>
#include <string>
#include <vector>

namespace clusterscope::testsupport {

using namespace clusterscope::engine;

inline constexpr std::int32_t kTensorParallel = 8;
inline constexpr int kGeneratedSteps = 3;

// Rank `rank` of `world`: per step an AllGather of 16 MiB in its tensor-parallel group and an
// AllReduce of 256 MiB over the world; compute varies by a few percent across ranks; ranks world/3
// and 2*world/3 arrive late at the world AllReduce (700 us and 300 us), the first after 60 ms more
// compute.
inline RankSummary tpDpRank(std::int32_t rank, std::int32_t world)
{
    RankSummary s;
    s.info.rank = rank;
    s.info.worldSize = world;
    s.info.sourceFile = "/traces/rank" + std::to_string(rank) + ".pt.trace.json";
    s.info.gpuName = "NVIDIA H100 80GB HBM3";
    const std::int32_t group = rank / kTensorParallel;
    const std::int64_t gatherBytes = 16LL << 20, reduceBytes = 256LL << 20;
    const double lateUs = rank == world / 3 ? 700 : rank == 2 * world / 3 ? 300 : double((rank * 37) % 20);
    for (int step = 0; step < kGeneratedSteps; ++step) {
        RankStepBreakdown b;
        b.rank = rank;
        b.durationSeconds = 1.0;
        // The first straggler computed longer (that is why it arrives late).
        b.computeSeconds = rank == world / 3 ? 0.84 : 0.78 + 0.0001 * double((rank * 13 + step * 7) % 200);
        b.commExposedSeconds = 0.15;
        b.commOverlappedSeconds = 0.05;
        b.memcpySeconds = 0.01;
        b.idleSeconds = b.durationSeconds - b.computeSeconds - b.commExposedSeconds - b.memcpySeconds;
        s.steps.push_back({ step, b });
        const std::int64_t t0 = std::int64_t(step) * 1'000'000'000;
        s.collectives.push_back({ CollectiveOp::AllGather, "tp" + std::to_string(group), step, t0 + 100'000'000,
            t0 + 101'000'000, gatherBytes, kTensorParallel, step });
        s.collectives.push_back({ CollectiveOp::AllReduce, "0", step, t0 + 800'000'000 + std::int64_t(lateUs * 1e3),
            t0 + 805'000'000, reduceBytes, world, step });
    }
    // Ring traffic (trafficmatrix.cpp's model): 2 (n-1)/n S per AllReduce to the next rank of the
    // world ring, (n-1)/n S per AllGather to the next rank of the group.
    const std::int32_t nextInGroup = group * kTensorParallel + (rank + 1) % kTensorParallel;
    const std::int32_t nextInWorld = (rank + 1) % world;
    std::vector<RankTrafficPair> sends {
        { rank, nextInGroup, kGeneratedSteps * double(kTensorParallel - 1) / kTensorParallel * double(gatherBytes) },
        { rank, nextInWorld, kGeneratedSteps * 2.0 * double(world - 1) / world * double(reduceBytes) },
    };
    std::sort(sends.begin(), sends.end(), [](const auto& a, const auto& b) { return a.dst < b.dst; });
    if (sends[0].dst == sends[1].dst) {
        sends[0].bytes += sends[1].bytes;
        sends.pop_back();
    }
    s.sends = std::move(sends);
    s.trafficRanks = world;
    return s;
}

/// The analysis of the generated run of `world` ranks and its rank files.
inline RunAnalysis generatedRunAnalysis(std::int32_t world, Run& run)
{
    std::vector<RankSummary> ranks;
    ranks.reserve(std::size_t(world));
    for (std::int32_t r = 0; r < world; ++r)
        ranks.push_back(tpDpRank(r, world));
    run = {};
    for (const RankSummary& s : ranks)
        run.ranks.push_back(s.info);
    return analyseRankSummaries(ranks);
}

/// Creates the project `path` holding the generated run of `world` ranks (named "<world> ranks").
/// Returns "" or what failed.
inline std::string writeGeneratedRunProject(const std::string& path, std::int32_t world)
{
    Run run;
    const RunAnalysis analysis = generatedRunAnalysis(world, run);
    auto store = ProjectStore::create(path);
    if (!store)
        return store.message();
    auto added = RunStore(*store).add(std::to_string(world) + " ranks", { "/traces" }, run, analysis);
    return added ? std::string() : added.message();
}

} // namespace clusterscope::testsupport
