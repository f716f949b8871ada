#include "tests/support/kinetotracegenerator.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace clusterscope::testing {

namespace {

    // splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", OOPSLA 2014).
    std::uint64_t mix(std::uint64_t x)
    {
        x += 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    }

    // Uniform in [0, 1) from (seed, a, b, c).
    double unit(std::uint32_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c)
    {
        const std::uint64_t h = mix(mix(mix(mix(seed) ^ a) ^ b) ^ c);
        return double(h >> 11) * (1.0 / 9007199254740992.0);
    }

    constexpr std::int64_t kUs = 1000;
    constexpr std::int64_t kOrigin = 4458676416788LL * kUs; // a PyTorch 2.x relative timestamp (ns)

    // The whole run's schedule on the reference clock: the same for every rank's file.
    struct Layout {
        const TraceGeneratorSpec& spec;
        int segmentsPerStep = 0;
        std::int64_t segmentNs = 0;
        std::int64_t stepNs = 0;
        std::int64_t allReduceNs = 0;
        std::int64_t allGatherNs = 0;
        std::int64_t maxLateNs = 0;

        explicit Layout(const TraceGeneratorSpec& s)
            : spec(s)
        {
            segmentsPerStep = s.allReducesPerStep + (s.tensorParallel > 1 ? 1 : 0);
            for (const auto& p : s.stragglers)
                maxLateNs = std::max(maxLateNs, std::int64_t(p.lateUs * 1e3));
            // Kernel durations at ~200 GB/s of bus bandwidth plus 100 us of latency.
            allReduceNs = 100 * kUs + std::int64_t(double(s.allReduceBytes) / 200.0);
            allGatherNs = 100 * kUs + std::int64_t(double(s.allGatherBytes) / 200.0);
            segmentNs = s.computeKernelsPerCollective * s.kernelPitchNs() + std::int64_t(s.arrivalJitterUs * 1e3)
                + maxLateNs + std::max(allReduceNs, allGatherNs) + 200 * kUs;
            stepNs = segmentsPerStep * segmentNs + 100 * kUs;
        }
        std::int64_t stepStart(int step) const { return kOrigin + step * stepNs; }
        std::int64_t segmentStart(int step, int segment) const
        {
            return stepStart(step) + 50 * kUs + segment * segmentNs;
        }
        std::int64_t idealArrival(int step, int segment) const
        {
            return segmentStart(step, segment) + spec.computeKernelsPerCollective * spec.kernelPitchNs() + 10 * kUs;
        }
        std::int64_t skew(int rank) const
        {
            return std::int64_t((2 * unit(spec.seed, 1, std::uint64_t(rank), 0) - 1) * spec.maxClockSkewUs * 1e3);
        }
        // Arrival (kernel start) of `rank` at world AllReduce number `c` or TP AllGather (c < 0: -1 - step).
        std::int64_t arrival(int rank, int step, int segment, std::int64_t c) const
        {
            std::int64_t t = idealArrival(step, segment)
                + std::int64_t(unit(spec.seed, 2, std::uint64_t(rank), std::uint64_t(c + (1LL << 40)))
                    * spec.arrivalJitterUs * 1e3);
            if (c >= 0 && !spec.stragglers.empty()) {
                const auto& p = spec.stragglers[std::size_t(c % std::int64_t(spec.stragglers.size()))];
                if (p.rank == rank)
                    t += std::int64_t(p.lateUs * 1e3);
            }
            return t;
        }
        std::int64_t endJitter(int rank, std::int64_t c) const
        {
            return std::int64_t(unit(spec.seed, 3, std::uint64_t(rank), std::uint64_t(c + (1LL << 40))) * 3000);
        }
        // The group's common end: the last arrival plus the kernel's duration.
        std::int64_t end(
            int step, int segment, std::int64_t c, int firstRank, int groupSize, std::int64_t duration) const
        {
            std::int64_t last = 0;
            for (int r = firstRank; r < firstRank + groupSize; ++r)
                last = std::max(last, arrival(r, step, segment, c));
            return last + duration;
        }
    };

    class Emitter {
    public:
        explicit Emitter(std::string& out)
            : m_out(out)
        {
        }
        void event(const char* format, ...) __attribute__((format(printf, 2, 3)))
        {
            char buf[4096];
            va_list args;
            va_start(args, format);
            const int n = std::vsnprintf(buf, sizeof buf, format, args);
            va_end(args);
            if (!m_first)
                m_out += ",\n";
            m_first = false;
            m_out.append(buf, std::size_t(std::clamp(n, 0, int(sizeof buf) - 1)));
        }

    private:
        std::string& m_out;
        bool m_first = true;
    };

    // Microseconds with three decimals, as Kineto writes them.
    struct Us {
        long long whole;
        int frac;
    };
    Us us(std::int64_t ns) { return { (long long)(ns / 1000), int(ns % 1000) }; }

} // namespace

GeneratedTruth generatedTruth(const TraceGeneratorSpec& spec)
{
    const Layout l(spec);
    GeneratedTruth t;
    const int tpGroups = spec.tensorParallel > 1 ? spec.ranks / spec.tensorParallel : 0;
    t.collectivesPerRank = spec.steps * (spec.allReducesPerStep + (tpGroups > 0 ? 1 : 0));
    t.matchedCollectives = spec.steps * (spec.allReducesPerStep + tpGroups);
    for (std::int64_t c = 0; c < std::int64_t(spec.steps) * spec.allReducesPerStep; ++c) {
        int last = -1;
        if (!spec.stragglers.empty())
            last = spec.stragglers[std::size_t(c % std::int64_t(spec.stragglers.size()))].rank;
        t.worldLastArrival.push_back(last);
    }
    for (int r = 0; r < spec.ranks; ++r)
        t.clockSkewNs.push_back(l.skew(r));
    const double n = spec.ranks;
    t.allReduceRingBytesPerRank = spec.ranks > 1
        ? double(spec.steps) * spec.allReducesPerStep * 2.0 * (n - 1) / n * double(spec.allReduceBytes)
        : 0;
    return t;
}

std::string generateRankTrace(const TraceGeneratorSpec& spec, int rank)
{
    const Layout l(spec);
    const std::int64_t skew = l.skew(rank);
    const int tp = spec.tensorParallel > 1 ? spec.tensorParallel : 0;
    const int tpGroup = tp ? rank / tp : 0;
    const bool inTpGroup = tp && (tpGroup + 1) * tp <= spec.ranks;
    std::string s;
    const int segments = spec.steps * l.segmentsPerStep;
    const std::size_t paddingPerSegment = segments > 0 ? spec.paddingBytesPerRank / std::size_t(segments) : 0;
    s.reserve(spec.paddingBytesPerRank + std::size_t(segments) * 4096 + 4096);
    char head[1024];
    std::snprintf(head, sizeof head,
        R"J({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
 "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d, "pg_count": %d, "nccl_version": "2.21.5"},
 "traceEvents": [
)J",
        rank, spec.ranks, 1 + (tp ? spec.ranks / tp : 0));
    s += head;
    Emitter e(s);
    const int pid = 100000 + rank;
    int corr = 1000, ext = 1;
    std::int64_t worldSeq = 0, tpSeq = 0;
    // A kernel with its launch (cudaLaunchKernel + ac2g flow) 5 us before its start.
    auto launch = [&](std::int64_t startNs) {
        const Us t = us(startNs - 5 * kUs + skew);
        e.event(
            R"J(  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, "ts": %lld.%03d, "dur": 4.125, "args": {"External id": %d, "cbid": 211, "correlation": %d}})J",
            pid, pid, t.whole, t.frac, ext++, corr);
        e.event(R"J(  {"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %lld.%03d, "cat": "ac2g", "name": "ac2g"})J",
            corr, pid, pid, t.whole, t.frac);
    };
    auto flowEnd = [&](std::int64_t startNs) {
        const Us t = us(startNs + skew);
        e.event(
            R"J(  {"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %lld.%03d, "cat": "ac2g", "name": "ac2g", "bp": "e"})J",
            corr, t.whole, t.frac);
        ++corr;
    };
    std::int64_t worldIndex = 0;
    for (int step = 0; step < spec.steps; ++step) {
        const Us st = us(l.stepStart(step) + skew);
        const Us sd = us(l.stepNs);
        e.event(
            R"J(  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d, "ts": %lld.%03d, "dur": %lld.%03d, "args": {"External id": %d, "Record function id": 0}})J",
            step, pid, pid, st.whole, st.frac, sd.whole, sd.frac, ext++);
        for (int seg = 0; seg < l.segmentsPerStep; ++seg) {
            const std::int64_t segStart = l.segmentStart(step, seg);
            const std::size_t target = s.size() + paddingPerSegment;
            for (int k = 0; k < spec.computeKernelsPerCollective; ++k) {
                const std::int64_t k0 = segStart + k * spec.kernelPitchNs();
                launch(k0);
                const Us t = us(k0 + skew);
                const Us d = us(spec.kernelNs());
                e.event(
                    R"J(  {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": %lld.%03d, "dur": %lld.%03d, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 168, "shared memory": 213248, "grid": [132, 1, 1], "block": [384, 1, 1]}})J",
                    t.whole, t.frac, d.whole, d.frac, ext, corr);
                flowEnd(k0);
            }
            // Host-side CPU ops (what makes real traces large); the parser reads and drops them.
            int pad = 0;
            while (s.size() < target) {
                const Us t = us(segStart + (pad++ % 64) * 500 + skew);
                e.event(
                    R"J(  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": %d, "tid": %d, "ts": %lld.%03d, "dur": 31.250, "args": {"External id": %d, "Record function id": 0, "Ev Idx": %d, "Input Dims": [[8, 4096, 4096], [4096, 4096], [4096]], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[16777216, 4096, 1], [4096, 1], [1]], "Concrete Inputs": ["", "", ""], "Fwd thread id": 0, "Sequence number": %d}})J",
                    pid, pid, t.whole, t.frac, ext, ext, pad);
                ++ext;
            }
            const bool world = seg < spec.allReducesPerStep;
            if (!world && !inTpGroup)
                continue;
            const std::int64_t c = world ? worldIndex++ : -1 - step;
            const std::int64_t start = l.arrival(rank, step, seg, c);
            const std::int64_t end = world
                ? l.end(step, seg, c, 0, spec.ranks, l.allReduceNs) + l.endJitter(rank, c)
                : l.end(step, seg, c, tpGroup * tp, tp, l.allGatherNs) + l.endJitter(rank, c);
            launch(start);
            const Us t = us(start + skew);
            const Us d = us(end - start);
            if (world) {
                e.event(
                    R"J(  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20, "ts": %lld.%03d, "dur": %lld.%03d, "args": {"External id": %d, "device": 0, "stream": 20, "correlation": %d, "grid": [8, 1, 1], "block": [544, 1, 1], "Collective name": "allreduce", "In msg nelems": %lld, "Out msg nelems": %lld, "Group size": %d, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]", "Process Group Name": "0", "Process Group Description": "default_pg", "Seq": %lld}})J",
                    t.whole, t.frac, d.whole, d.frac, ext, corr, (long long)(spec.allReduceBytes / 2),
                    (long long)(spec.allReduceBytes / 2), spec.ranks, (long long)worldSeq++);
            } else {
                std::string ranks;
                for (int r = tpGroup * tp; r < (tpGroup + 1) * tp; ++r)
                    ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
                e.event(
                    R"J(  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20, "ts": %lld.%03d, "dur": %lld.%03d, "args": {"External id": %d, "device": 0, "stream": 20, "correlation": %d, "Collective name": "_allgather_base", "In msg nelems": %lld, "Out msg nelems": %lld, "Group size": %d, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]", "Process Group Name": "tp%d", "Process Group Description": "tensor_parallel", "Process Group Ranks": "[%s]", "Seq": %lld}})J",
                    t.whole, t.frac, d.whole, d.frac, ext, corr, (long long)(spec.allGatherBytes / 2 / tp),
                    (long long)(spec.allGatherBytes / 2), tp, tpGroup, ranks.c_str(), (long long)tpSeq++);
            }
            flowEnd(start);
        }
    }
    s += "\n ],\n \"baseTimeNanoseconds\": 1711964646000000000, \"traceName\": \"clusterscope-tracegen\"}\n";
    return s;
}

std::vector<std::string> writeRunTraces(
    const TraceGeneratorSpec& spec, const std::string& directory, std::string& error)
{
    std::vector<std::string> paths;
    for (int r = 0; r < spec.ranks; ++r) {
        const std::string path = directory + "/rank" + std::to_string(r) + ".pt.trace.json";
        const std::string text = generateRankTrace(spec, r);
        std::FILE* f = std::fopen(path.c_str(), "wb");
        const bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
        if (f && std::fclose(f) != 0 && ok) {
            error = path + ": cannot write the trace";
            return {};
        }
        if (!ok) {
            error = path + ": cannot write the trace";
            return {};
        }
        paths.push_back(path);
    }
    return paths;
}

} // namespace clusterscope::testing
