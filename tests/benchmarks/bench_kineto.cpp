// Kineto import speed and memory on a generated multi-rank trace (~200 MB of JSON, 8 ranks):
// MB/s per core, the ratio against nlohmann::json parsing the same bytes in the same run, and the
// peak RSS growth of an import (measured in a forked child) against the input size.
// Prints figures; never asserts a wall-clock limit.

#include "engine/run/runanalysis.h"
#include "importers/kineto/runloader.h"
#include "tests/support/kinetotracegenerator.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace clusterscope;

namespace {
constexpr int kRanks = 8;
constexpr std::size_t kBytesPerRank = 25u << 20; // 8 x ~25 MiB ~ 210 MB

// One rank's trace shaped like PyTorch 2.x output (tests/support/kinetotracegenerator.h): CPU ops
// with args, launches, flows, GEMM kernels, an NCCL kernel with collective args every ten kernels,
// ProfilerStep annotations; about half of the bytes are CPU ops.
std::string generateRank(int rank)
{
    testing::TraceGeneratorSpec spec;
    spec.ranks = kRanks;
    spec.steps = 35;
    spec.allReducesPerStep = 40;
    spec.computeKernelsPerCollective = 9;
    spec.paddingBytesPerRank = kBytesPerRank / 2;
    spec.stragglers = { { 5, 300 } };
    return testing::generateRankTrace(spec, rank);
}

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long statusKb(const char* key)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::stol(line.substr(std::strlen(key)));
    return -1;
}
}

class BenchKineto : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void importSpeedAndMemory()
    {
        QTemporaryDir dir;
        std::vector<std::string> files;
        double totalBytes = 0;
        for (int r = 0; r < kRanks; ++r) {
            const std::string text = generateRank(r);
            totalBytes += double(text.size());
            const std::string path = dir.filePath(QStringLiteral("rank%1.pt.trace.json").arg(r)).toStdString();
            std::ofstream(path, std::ios::binary).write(text.data(), std::streamsize(text.size()));
            files.push_back(path);
        }
        const double mb = totalBytes / 1e6;

        // Warm the page cache so every contender reads from memory.
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            std::string tmp((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        }

        auto t0 = std::chrono::steady_clock::now();
        auto run = importers::loadRun({ dir.path().toStdString() }, { 1, {}, nullptr });
        const double oneThread = seconds(t0);
        QVERIFY2(run, run.message().c_str());
        QCOMPARE(int(run->ranks.size()), kRanks);
        std::size_t events = 0, collectives = 0;
        for (const auto& r : run->ranks) {
            events += r.activities.size();
            collectives += r.collectives.size();
        }
        QVERIFY(collectives > 0);
        t0 = std::chrono::steady_clock::now();
        const auto analysis = engine::analyseRun(*run);
        const double analyse = seconds(t0);
        QVERIFY(!analysis.collectives.empty());
        run = engine::Status::error("released");

        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        t0 = std::chrono::steady_clock::now();
        auto parallel = importers::loadRun({ dir.path().toStdString() }, { cores, {}, nullptr });
        const double allThreads = seconds(t0);
        QVERIFY(parallel);
        parallel = engine::Status::error("released");

        // Baseline: nlohmann::json DOM parse of the same files (read + parse), one thread.
        t0 = std::chrono::steady_clock::now();
        std::size_t nlohmannEvents = 0;
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            const auto doc = nlohmann::json::parse(text);
            nlohmannEvents += doc["traceEvents"].size();
        }
        const double baseline = seconds(t0);
        QVERIFY(nlohmannEvents > events);

        // Peak memory of an import, in a child process: VmHWM reset (clear_refs 5), import, VmHWM.
        int pipeFd[2];
        QVERIFY(pipe(pipeFd) == 0);
        const pid_t child = fork();
        if (child == 0) {
            close(pipeFd[0]);
            {
                std::ofstream("/proc/self/clear_refs") << "5";
            }
            const long before = statusKb("VmRSS:");
            auto r = importers::loadRun({ dir.path().toStdString() }, { cores, {}, nullptr });
            const long peak = statusKb("VmHWM:");
            const long growth[2] = { r ? peak - before : -1, before };
            (void)!write(pipeFd[1], growth, sizeof growth);
            _exit(0);
        }
        close(pipeFd[1]);
        long growth[2] = { -1, -1 };
        (void)!read(pipeFd[0], growth, sizeof growth);
        close(pipeFd[0]);
        waitpid(child, nullptr, 0);

        std::printf("\nKineto import benchmark: %d ranks, %.1f MB of JSON, %zu GPU activities, %zu NCCL calls\n",
            kRanks, mb, events, collectives);
        std::printf("  clusterscope, 1 thread   : %7.3f s  %8.1f MB/s per core\n", oneThread, mb / oneThread);
        std::printf("  clusterscope, %u threads  : %7.3f s  %8.1f MB/s\n", cores, allThreads, mb / allThreads);
        std::printf("  nlohmann::json, 1 thread : %7.3f s  %8.1f MB/s  (DOM parse only, no analysis)\n", baseline,
            mb / baseline);
        std::printf("  ratio clusterscope / nlohmann (1 thread): %.1fx\n", baseline / oneThread);
        std::printf("  analysis of the run      : %7.3f s\n", analyse);
        if (growth[0] >= 0)
            std::printf("  peak RSS growth during a %u-thread import: %.1f MB = %.2f x the input (%.1f MB)\n", cores,
                growth[0] / 1024.0, growth[0] * 1024.0 / totalBytes, mb);
        std::fflush(stdout);
        QVERIFY(growth[0] >= 0);
    }
};

QTEST_GUILESS_MAIN(BenchKineto)
#include "bench_kineto.moc"
