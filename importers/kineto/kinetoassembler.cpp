// Links the raw Kineto records of one rank: GPU work to its launching host call (correlation id),
// NCCL kernels to their sizes and groups, times to absolute nanoseconds.

#include "importers/kineto/kinetorecords.h"
#include "importers/kineto/ncclkernelname.h"

#include <algorithm>
#include <map>

namespace clusterscope::importers::kineto {

using engine::CollectiveOp;

std::vector<std::int64_t> parseIntegerList(const std::string& text)
{
    std::vector<std::int64_t> out;
    std::int64_t v = 0;
    bool in = false, negative = false;
    for (char c : text) {
        if (c >= '0' && c <= '9') {
            if (v < (INT64_MAX - 9) / 10) // saturate instead of overflowing on absurd input
                v = v * 10 + (c - '0');
            in = true;
        } else {
            if (in)
                out.push_back(negative ? -v : v);
            negative = c == '-';
            v = 0;
            in = false;
        }
    }
    if (in)
        out.push_back(negative ? -v : v);
    return out;
}

namespace {
    // Ranks beyond this are treated as damage (the largest jobs have ~1e5 ranks).
    constexpr std::int64_t kMaxRank = 1 << 24;
    // Element counts beyond 2^50 (a petabyte of bf16) are damage; keeps bytes = count x size in range.
    constexpr std::int64_t kMaxElements = std::int64_t(1) << 50;

    // The host range describing the collective a launch at (tid, ts) belongs to: the innermost
    // enclosing nccl:* annotation, else the innermost record_param_comms with a collective name.
    const RawHostRange* enclosingRange(const std::vector<RawHostRange>& ranges, std::int64_t tid, std::int64_t ts)
    {
        auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(tid, ts),
            [](const std::pair<std::int64_t, std::int64_t>& v, const RawHostRange& r) {
                return v.first < r.tid || (v.first == r.tid && v.second < r.startNs);
            });
        const RawHostRange* fallback = nullptr;
        // Ranges nest (record_param_comms > nccl:all_reduce > cudaLaunchKernel); look back a few.
        for (int i = 0; i < 16 && it != ranges.begin(); ++i) {
            --it;
            if (it->tid != tid)
                break;
            if (ts < it->startNs || ts > it->endNs)
                continue;
            if (it->annotation)
                return &*it;
            if (!fallback && (it->args.present || !it->opName.empty()))
                fallback = &*it;
        }
        return fallback;
    }
}

engine::RankTrace assembleRankTrace(RawTrace raw, const std::string& name, engine::Diagnostics& diagnostics)
{
    engine::RankTrace t;
    t.rank = raw.rank;
    t.worldSize = raw.worldSize;
    t.sourceFile = name;
    t.ncclVersion = raw.ncclVersion;
    t.baseTimeNs = raw.baseTimeNs;
    // Relative traces count from baseTimeNanoseconds; absolute ones have none (0).
    const std::int64_t base = raw.baseTimeNs;

    std::sort(raw.launches.begin(), raw.launches.end());
    std::sort(raw.hostRanges.begin(), raw.hostRanges.end(), [](const RawHostRange& a, const RawHostRange& b) {
        return a.tid < b.tid || (a.tid == b.tid && a.startNs < b.startNs);
    });
    std::stable_sort(raw.gpu.begin(), raw.gpu.end(),
        [](const RawGpuEvent& a, const RawGpuEvent& b) { return a.startNs < b.startNs; });
    auto launchOf = [&](std::int64_t correlation) -> const RawLaunch* {
        if (correlation < 0)
            return nullptr;
        auto it = std::lower_bound(raw.launches.begin(), raw.launches.end(), RawLaunch { correlation, 0, 0 });
        return it != raw.launches.end() && it->correlation == correlation ? &*it : nullptr;
    };
    auto processGroup = [&](const std::string& pgName) -> const ProcessGroupConfig* {
        for (const auto& pg : raw.processGroups)
            if (pg.name == pgName)
                return &pg;
        return nullptr;
    };

    std::map<std::int32_t, std::int64_t> deviceCounts;
    std::int64_t unknownOp = 0, unknownSize = 0;
    std::string firstUnknownOp;
    t.activities.reserve(raw.gpu.size());
    for (const auto& g : raw.gpu) {
        engine::GpuActivity a;
        a.startNs = g.startNs + base;
        a.endNs = g.endNs + base;
        a.stream = g.stream;
        a.kind = g.kind;
        const RawLaunch* launch = launchOf(g.correlation);
        a.launchNs = launch ? launch->tsNs + base : -1;
        ++deviceCounts[g.device];
        if (g.ncclIndex >= 0) {
            const RawNcclKernel& k = raw.ncclKernels[std::size_t(g.ncclIndex)];
            const auto kernel = parseNcclKernelName(k.name);
            engine::CollectiveCall c;
            c.startNs = a.startNs;
            c.endNs = a.endNs;
            c.launchNs = a.launchNs;
            c.kernelName = k.name.substr(0, k.name.find('('));
            if (kernel) {
                c.op = kernel->op;
                c.algorithm = kernel->algorithm;
                c.dtype = kernel->dtype;
            }
            const CollectiveArgs* args = k.args.present ? &k.args : nullptr;
            const RawHostRange* range = launch ? enclosingRange(raw.hostRanges, launch->tid, launch->tsNs) : nullptr;
            if (!args && range && range->args.present)
                args = &range->args;
            // The host-side name wins: PyTorch runs all_to_all as SendRecv kernels.
            if (range && range->annotation && engine::parseRunCollectiveOp(range->opName) != CollectiveOp::Unknown)
                c.op = engine::parseRunCollectiveOp(range->opName);
            if (args && engine::parseRunCollectiveOp(args->name) != CollectiveOp::Unknown)
                c.op = engine::parseRunCollectiveOp(args->name);
            if (args) {
                if (!args->dtype.empty())
                    c.dtype = args->dtype;
                const int size = engine::dtypeSizeBytes(c.dtype);
                const std::int64_t elements = std::max(args->inNelems, args->outNelems);
                if (size > 0 && elements >= 0 && elements < kMaxElements)
                    c.bytes = elements * size; // S: AllGather out = n x sendcount, ReduceScatter in = n x recvcount
                c.groupSize = args->groupSize;
                c.processGroup = args->pgName;
                c.processGroupDescription = args->pgDescription;
                for (auto r : parseIntegerList(args->pgRanks))
                    if (r >= 0 && r < kMaxRank)
                        c.groupRanks.push_back(std::int32_t(r));
                c.sequence = args->seq;
                if (size > 0)
                    for (auto s : parseIntegerList(args->inSplit))
                        c.splitBytes.push_back(s >= 0 && s < kMaxElements ? s * size : -1); // -1: not a size
                if (args->srcRank >= 0 || args->dstRank >= 0) {
                    if (args->dstRank >= 0 && (args->srcRank < 0 || args->srcRank == raw.rank)) {
                        c.peerRank = args->dstRank;
                        c.p2pDirection = 1;
                    } else {
                        c.peerRank = args->srcRank;
                        c.p2pDirection = -1;
                    }
                }
            }
            if (c.bytes < 0 && range && range->inputElements >= 0 && range->inputElements < kMaxElements) {
                const int size = engine::dtypeSizeBytes(range->inputType);
                if (size > 0) {
                    c.dtype = range->inputType;
                    c.bytes = range->inputElements * size;
                    if (c.op == CollectiveOp::AllGather || c.op == CollectiveOp::Gather)
                        c.bytes = -2; // needs the group size: input is one rank's share
                }
            }
            if (const ProcessGroupConfig* pg = processGroup(c.processGroup)) {
                if (c.groupSize == 0)
                    c.groupSize = pg->size;
                if (c.groupRanks.empty())
                    c.groupRanks = pg->ranks;
                if (c.processGroupDescription.empty())
                    c.processGroupDescription = pg->description;
            }
            if (c.groupSize == 0 && c.processGroup.empty())
                c.groupSize = raw.worldSize;
            if (c.groupSize == 0 && !c.groupRanks.empty())
                c.groupSize = std::int32_t(c.groupRanks.size());
            if (c.bytes == -2) {
                const int size = engine::dtypeSizeBytes(range->inputType);
                // One rank's share x the group size: still under 2^50 elements, else not a size.
                c.bytes
                    = c.groupSize > 0 && c.groupSize < kMaxRank && range->inputElements <= kMaxElements / c.groupSize
                    ? range->inputElements * c.groupSize * size
                    : -1;
            }
            if (c.op == CollectiveOp::Unknown) {
                if (firstUnknownOp.empty())
                    firstUnknownOp = c.kernelName;
                ++unknownOp;
            }
            if (c.bytes < 0)
                ++unknownSize;
            a.collectiveIndex = std::int32_t(t.collectives.size());
            t.collectives.push_back(std::move(c));
        }
        t.activities.push_back(a);
    }
    if (unknownOp > 0)
        diagnostics.add(engine::diagnostic::kKinetoNcclOpUnknown,
            name + ": NCCL kernels whose operation neither the name nor collective args tell (first: " + firstUnknownOp
                + ") are counted as communication of unknown kind.",
            unknownOp);
    if (unknownSize > 0)
        diagnostics.add(engine::diagnostic::kKinetoNcclSizeUnknown,
            name
                + ": NCCL kernels without a message size (no collective args, no record_param_comms or nccl:* input "
                  "dims) have no bandwidth.",
            unknownSize);

    std::int32_t device = -1;
    std::int64_t best = -1;
    for (const auto& [d, n] : deviceCounts)
        if (n > best) {
            best = n;
            device = d;
        }
    if (deviceCounts.size() > 1)
        diagnostics.add(engine::diagnostic::kKinetoMultipleDevices,
            name + ": GPU work on more than one device in one rank file; all of it is attributed to the rank.");
    for (const auto& d : raw.devices)
        if (d.id == device || (device < 0 && t.gpuName.empty())) {
            t.gpuName = d.name;
            t.gpuMemoryBytes = d.totalGlobalMem;
        }

    // One host window per ProfilerStep#N. PyTorch's profiler records the step annotation with
    // RECORD_FUNCTION on the thread that calls profiler.step() (torch/profiler/profiler.py,
    // _KinetoProfile.step), and a trace may hold the same step on more than one thread (e.g. a
    // DDP run where a second thread also records it), with ranges that need not agree. The step's
    // window is the range on the thread that launched the most GPU work inside it (cuda_runtime /
    // cuda_driver launches whose correlation id matches a kernel, copy or set); ties go to the
    // earliest range; the other threads' ranges of that step are ignored.
    std::vector<std::int64_t> gpuCorrelations;
    gpuCorrelations.reserve(raw.gpu.size());
    for (const RawGpuEvent& g : raw.gpu)
        if (g.correlation >= 0)
            gpuCorrelations.push_back(g.correlation);
    std::sort(gpuCorrelations.begin(), gpuCorrelations.end());
    const auto gpuLaunchesIn = [&](const engine::ProfilerStepRange& s, std::int64_t tid) {
        std::int64_t n = 0;
        for (const RawLaunch& l : raw.launches)
            if (l.tid == tid && l.tsNs >= s.startNs && l.tsNs <= s.endNs
                && std::binary_search(gpuCorrelations.begin(), gpuCorrelations.end(), l.correlation))
                ++n;
        return n;
    };
    struct Candidate {
        engine::ProfilerStepRange range;
        std::int64_t launches = -1;
    };
    std::map<std::int64_t, Candidate> chosen;
    for (std::size_t i = 0; i < raw.steps.size(); ++i) {
        const engine::ProfilerStepRange& s = raw.steps[i];
        const std::int64_t tid = i < raw.stepTids.size() ? raw.stepTids[i] : 0;
        const std::int64_t launches = gpuLaunchesIn(s, tid);
        auto [it, fresh] = chosen.try_emplace(s.step, Candidate { s, launches });
        if (fresh)
            continue;
        Candidate& c = it->second;
        if (launches > c.launches || (launches == c.launches && s.startNs < c.range.startNs))
            c = { s, launches };
    }
    for (auto& [step, c] : chosen) {
        engine::ProfilerStepRange s = c.range;
        s.startNs += base;
        s.endNs += base;
        t.steps.push_back(s);
    }
    std::sort(t.steps.begin(), t.steps.end(),
        [](const engine::ProfilerStepRange& a, const engine::ProfilerStepRange& b) { return a.startNs < b.startNs; });
    return t;
}

} // namespace clusterscope::importers::kineto
