// Kineto import speed and memory on a generated multi-rank trace (~200 MB of JSON, 8 ranks):
// MB/s per core, the ratio against nlohmann::json parsing the same bytes in the same run, and the
// peak RSS growth of an import (measured in a forked child) against the input size.
// Prints figures; never asserts a wall-clock limit.

#include "engine/run/runanalysis.h"
#include "importers/kineto/runloader.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace clusterscope;

namespace {
constexpr int kRanks = 8;
constexpr std::size_t kBytesPerRank = 25u << 20; // 8 x 25 MiB ~ 210 MB

// One rank's trace shaped like PyTorch 2.x output: CPU ops with args, launches, flows, kernels with
// launch args, NCCL kernels with collective args every few kernels, ProfilerStep annotations.
std::string generateRank(int rank)
{
    std::string s;
    s.reserve(kBytesPerRank + (1 << 20));
    s += R"J({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
 "distributedInfo": {"backend": "nccl", "rank": )J" + std::to_string(rank) + R"J(, "world_size": 8, "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]}], "nccl_version": "2.21.5"},
 "traceEvents": [
)J";
    char buf[2048];
    long long us = 4458676416788LL;
    int frac = 66, step = 0, corr = 1000, ext = 1;
    bool first = true;
    auto add = [&](int n) {
        if (!first)
            s += ",\n";
        first = false;
        s.append(buf, std::size_t(n));
    };
    while (s.size() < kBytesPerRank) {
        const long long stepStart = us;
        add(std::snprintf(buf, sizeof buf,
            R"J(  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 2910249, "tid": 2910249, "ts": %lld.%03d, "dur": 20000.5, "args": {"External id": %d, "Record function id": 0, "Ev Idx": %d}})J",
            step, us, frac, ext++, ext));
        for (int k = 0; k < 400 && s.size() < kBytesPerRank; ++k) {
            us += 7;
            frac = (frac * 7 + 13) % 1000;
            add(std::snprintf(buf, sizeof buf,
                R"J(  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 2910249, "tid": 2910249, "ts": %lld.%03d, "dur": 31.250, "args": {"External id": %d, "Record function id": 0, "Ev Idx": %d, "Input Dims": [[8, 4096, 4096], [4096, 4096], [4096]], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[16777216, 4096, 1], [4096, 1], [1]], "Concrete Inputs": ["", "", ""], "Fwd thread id": 0, "Sequence number": %d}})J",
                us, frac, ext, ext, k));
            add(std::snprintf(buf, sizeof buf,
                R"J(  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 2910249, "tid": 2910249, "ts": %lld.%03d, "dur": 4.125, "args": {"External id": %d, "cbid": 211, "correlation": %d}})J",
                us + 1, frac, ext++, corr));
            add(std::snprintf(buf, sizeof buf,
                R"J(  {"ph": "s", "id": %d, "pid": 2910249, "tid": 2910249, "ts": %lld.%03d, "cat": "ac2g", "name": "ac2g"})J", corr,
                us + 1, frac));
            const bool nccl = k % 10 == 9;
            if (nccl)
                add(std::snprintf(buf, sizeof buf,
                    R"J(  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 7, "ts": %lld.%03d, "dur": 350.750, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 96, "shared memory": 87568, "blocks per SM": 0.074074, "warps per SM": 1.259259, "grid": [8, 1, 1], "block": [544, 1, 1], "est. achieved occupancy %%": 0, "Collective name": "allreduce", "In msg nelems": 6637568, "Out msg nelems": 6637568, "Group size": 8, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]", "Seq": %d}})J",
                    us + 20, frac, ext, corr, step * 40 + k / 10));
            else
                add(std::snprintf(buf, sizeof buf,
                    R"J(  {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": %lld.%03d, "dur": 25.375, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 168, "shared memory": 213248, "blocks per SM": 1.0, "warps per SM": 12.0, "grid": [132, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %%": 19}})J",
                    us + 20, frac, ext, corr));
            add(std::snprintf(buf, sizeof buf,
                R"J(  {"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %lld.%03d, "cat": "ac2g", "name": "ac2g", "bp": "e"})J", corr, us + 20,
                frac));
            ++corr;
            us += nccl ? 360 : 30;
        }
        us = std::max(us, stepStart + 20001);
        ++step;
    }
    s += "\n ],\n \"baseTimeNanoseconds\": 1711964646000000000, \"traceName\": \"generated\"}\n";
    return s;
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
        const auto analysis = engine::analyzeRun(*run);
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
            { std::ofstream("/proc/self/clear_refs") << "5"; }
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

        std::printf("\nKineto import benchmark: %d ranks, %.1f MB of JSON, %zu GPU activities, %zu NCCL calls\n", kRanks, mb,
            events, collectives);
        std::printf("  clusterscope, 1 thread   : %7.3f s  %8.1f MB/s per core\n", oneThread, mb / oneThread);
        std::printf("  clusterscope, %u threads  : %7.3f s  %8.1f MB/s\n", cores, allThreads, mb / allThreads);
        std::printf("  nlohmann::json, 1 thread : %7.3f s  %8.1f MB/s  (DOM parse only, no analysis)\n", baseline, mb / baseline);
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
