// clusterscope-tracegen: writes N generated Kineto rank traces (kinetotracegenerator.h) into a
// directory, for tests, benchmarks and trying the distributed import by hand:
//   clusterscope-tracegen --out DIR --ranks 1024 [--steps 3] [--allreduces 2] [--tp 8]
//       [--bytes-per-rank 2000000] [--straggler RANK:US]... [--seed 1]
// Prints the ground truth (last arrivals of the world collectives) as one line per fact.

#include "tests/support/kinetotracegenerator.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

using clusterscope::testing::TraceGeneratorSpec;

int main(int argc, char** argv)
{
    TraceGeneratorSpec spec;
    std::string out;
    auto number = [&](int& i) -> long long {
        if (i + 1 >= argc) {
            std::fprintf(stderr, "clusterscope-tracegen: %s expects a value\n", argv[i]);
            std::exit(1);
        }
        char* end = nullptr;
        const long long v = std::strtoll(argv[++i], &end, 10);
        if (!end || *end != '\0' || v < 0) {
            std::fprintf(
                stderr, "clusterscope-tracegen: %s expects a non-negative integer, got \"%s\"\n", argv[i - 1], argv[i]);
            std::exit(1);
        }
        return v;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--ranks")
            spec.ranks = int(number(i));
        else if (a == "--steps")
            spec.steps = int(number(i));
        else if (a == "--allreduces")
            spec.allReducesPerStep = int(number(i));
        else if (a == "--tp")
            spec.tensorParallel = int(number(i));
        else if (a == "--bytes-per-rank")
            spec.paddingBytesPerRank = std::size_t(number(i));
        else if (a == "--seed")
            spec.seed = std::uint32_t(number(i));
        else if (a == "--straggler" && i + 1 < argc) {
            const std::string v = argv[++i];
            const auto colon = v.find(':');
            if (colon == std::string::npos) {
                std::fprintf(
                    stderr, "clusterscope-tracegen: --straggler expects RANK:MICROSECONDS, got \"%s\"\n", v.c_str());
                return 1;
            }
            spec.stragglers.push_back(
                { std::atoi(v.substr(0, colon).c_str()), std::atof(v.substr(colon + 1).c_str()) });
        } else {
            std::fprintf(stderr,
                "clusterscope-tracegen: unknown argument \"%s\" (see the comment at the top of tracegenmain.cpp)\n",
                a.c_str());
            return 1;
        }
    }
    if (out.empty() || spec.ranks < 1) {
        std::fprintf(stderr,
            "usage: clusterscope-tracegen --out DIR --ranks N [--steps S] [--allreduces A] [--tp T] "
            "[--bytes-per-rank B] [--straggler RANK:US]... [--seed N]\n");
        return 1;
    }
    for (const auto& s : spec.stragglers)
        if (s.rank < 0 || s.rank >= spec.ranks) {
            std::fprintf(
                stderr, "clusterscope-tracegen: straggler rank %d is outside the %d ranks\n", s.rank, spec.ranks);
            return 1;
        }
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    std::string error;
    const auto files = clusterscope::testing::writeRunTraces(spec, out, error);
    if (files.empty()) {
        std::fprintf(stderr, "clusterscope-tracegen: %s\n", error.c_str());
        return 1;
    }
    const auto truth = clusterscope::testing::generatedTruth(spec);
    std::printf("files %zu\ncollectives_per_rank %d\nmatched_collectives %d\n", files.size(), truth.collectivesPerRank,
        truth.matchedCollectives);
    for (std::size_t c = 0; c < truth.worldLastArrival.size(); ++c)
        if (truth.worldLastArrival[c] >= 0)
            std::printf("world_allreduce %zu last_arrival %d\n", c, truth.worldLastArrival[c]);
    return 0;
}
