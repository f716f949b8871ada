// Matching collectives across ranks, clock alignment and straggler ranking.
//
// A collective of one process group is the same call on every member: the n-th call of group G on
// rank a is the n-th call of G on rank b (NCCL requires every member to issue a communicator's
// collectives in the same order), or the same "Seq" when the trace gives it. Its kernels end almost
// together on all ranks (nobody finishes before the last rank's data arrived), while their starts
// spread by the time the early ranks waited (NCCL user guide, "Collective Operations": a collective
// completes on a rank only once every rank has contributed).

#include "engine/run/collectivefold.h"
#include "engine/run/ranksummary.h"
#include "engine/run/runanalysis.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace clusterscope::engine {

namespace {
    struct Member {
        std::size_t rankIndex;
        const RankCollectiveArrival* call;
    };

    std::int64_t median(std::vector<std::int64_t> v)
    {
        if (v.empty())
            return 0;
        std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
        return v[v.size() / 2];
    }

    int stepOfTime(const RankTrace& rank, std::int64_t t)
    {
        for (const auto& s : rank.steps)
            if (t >= s.startNs && t < s.endNs)
                return int(s.step);
        return -1;
    }
}

std::vector<RankCollectiveArrival> rankCollectiveArrivals(const RankTrace& rank)
{
    std::vector<RankCollectiveArrival> out;
    out.reserve(rank.collectives.size());
    std::map<std::string, std::int64_t> counters;
    for (const auto& c : rank.collectives) {
        const std::int64_t n = counters[c.processGroup]++;
        out.push_back({ c.op, c.processGroup, c.sequence >= 0 ? c.sequence : n, c.startNs, c.endNs, c.bytes,
            c.groupSize, stepOfTime(rank, c.launchNs >= 0 ? c.launchNs : c.startNs) });
    }
    return out;
}

void matchCollectives(const Run& run, RunAnalysis& analysis)
{
    std::vector<RankSummary> ranks(run.ranks.size());
    for (std::size_t i = 0; i < run.ranks.size(); ++i) {
        ranks[i].info.rank = run.ranks[i].rank;
        ranks[i].info.worldSize = run.ranks[i].worldSize;
        ranks[i].collectives = rankCollectiveArrivals(run.ranks[i]);
    }
    matchCollectives(ranks, analysis);
}

void matchCollectives(const std::vector<RankSummary>& ranks, RunAnalysis& analysis)
{
    // Group calls by (process group, sequence). Point-to-point calls are paired per group too; a
    // pairing whose operations disagree is reported and dropped from cross-rank statistics.
    std::map<std::pair<std::string, std::int64_t>, std::vector<Member>> groups;
    for (std::size_t r = 0; r < ranks.size(); ++r)
        for (const auto& c : ranks[r].collectives)
            groups[{ c.processGroup, c.sequence }].push_back({ r, &c });

    // Clock offsets from collective ends: per collective the median end over its ranks is the
    // consensus; a rank's offset is the median of its deviations (robust against a few outliers).
    std::vector<std::vector<std::int64_t>> deviations(ranks.size());
    for (const auto& [key, members] : groups) {
        if (members.size() < 2 || members.front().call->op == CollectiveOp::SendRecv)
            continue;
        std::vector<std::int64_t> ends;
        for (const auto& m : members)
            ends.push_back(m.call->endNs);
        const std::int64_t consensus = median(ends);
        for (const auto& m : members)
            deviations[m.rankIndex].push_back(m.call->endNs - consensus);
    }
    analysis.clockOffsetNs.assign(ranks.size(), 0);
    for (std::size_t r = 0; r < ranks.size(); ++r)
        analysis.clockOffsetNs[r] = median(deviations[r]);

    std::int64_t mismatched = 0;
    for (const auto& [key, members] : groups) {
        const RankCollectiveArrival& first = *members.front().call;
        bool sameOp = true;
        for (const auto& m : members)
            sameOp = sameOp && m.call->op == first.op;
        if (!sameOp) {
            ++mismatched;
            continue;
        }
        CollectiveSummary s;
        s.op = first.op;
        s.processGroup = first.processGroup;
        s.sequence = key.second;
        s.ranksSeen = std::int32_t(members.size());
        s.step = first.step;
        std::int64_t lastStart = INT64_MIN, firstStart = INT64_MAX;
        const Member* last = nullptr;
        for (const auto& m : members) {
            s.bytes = std::max(s.bytes, m.call->bytes);
            s.groupSize = std::max(s.groupSize, m.call->groupSize);
            const std::int64_t start = m.call->startNs - analysis.clockOffsetNs[m.rankIndex];
            firstStart = std::min(firstStart, start);
            if (start > lastStart) {
                lastStart = start;
                last = &m;
            }
        }
        if (s.groupSize == 0) {
            const std::int32_t world = ranks[members.front().rankIndex].info.worldSize;
            s.groupSize = first.processGroup.empty() && world > 0 ? world : s.ranksSeen;
        }
        s.firstStartNs = firstStart;
        s.durationUs = double(last->call->endNs - last->call->startNs) / 1e3;
        if (members.size() >= 2) {
            s.lastArrivalRank = ranks[last->rankIndex].info.rank;
            s.waitUs = double(lastStart - firstStart) / 1e3;
            for (const auto& m : members)
                s.totalWaitUs += double(lastStart - (m.call->startNs - analysis.clockOffsetNs[m.rankIndex])) / 1e3;
        }
        // algbw = S / t and busbw = algbw x factor of this call (collectivefold.h states the definition).
        s.algbwGbps = measuredAlgbwGbps(s.bytes, s.durationUs);
        s.busbwGbps = measuredBusbwGbps(s.op, s.bytes, s.groupSize, s.durationUs);
        analysis.collectives.push_back(std::move(s));
    }
    if (mismatched > 0)
        analysis.diagnostics.add(diagnostic::kRunCollectiveMismatch,
            "Ranks disagree on the operation of a process group's n-th collective; those calls are left out of "
            "the cross-rank statistics.",
            mismatched);
    std::stable_sort(analysis.collectives.begin(), analysis.collectives.end(),
        [](const CollectiveSummary& a, const CollectiveSummary& b) { return a.firstStartNs < b.firstStartNs; });
    analysis.stragglers = rankStragglers(analysis.collectives);
}

std::vector<Straggler> rankStragglers(const std::vector<CollectiveSummary>& collectives)
{
    std::map<std::int32_t, Straggler> stragglers;
    std::map<std::int32_t, std::vector<double>> waitsCaused; // waitUs of each call a rank arrived last at
    for (const CollectiveSummary& c : collectives) {
        if (c.lastArrivalRank < 0)
            continue;
        Straggler& st = stragglers[c.lastArrivalRank];
        st.rank = c.lastArrivalRank;
        st.lastArrivals += 1;
        st.waitCausedUs += c.totalWaitUs;
        waitsCaused[c.lastArrivalRank].push_back(c.waitUs);
    }
    std::vector<Straggler> out;
    for (auto& [rank, st] : stragglers) {
        st.waitTailUs = latencyStats(std::move(waitsCaused[rank]));
        out.push_back(st);
    }
    // Ranked by the tail they cause: the p99 of the waits (the collective's own tail), then the
    // longest one, then the sum.
    std::stable_sort(out.begin(), out.end(), [](const Straggler& a, const Straggler& b) {
        return std::tie(a.waitTailUs.p99, a.waitTailUs.max, a.waitCausedUs)
            > std::tie(b.waitTailUs.p99, b.waitTailUs.max, b.waitCausedUs);
    });
    return out;
}

RankSummary summarizeRank(const RankTrace& rank)
{
    RankSummary s;
    s.info.rank = rank.rank;
    s.info.worldSize = rank.worldSize;
    s.info.sourceFile = rank.sourceFile;
    s.info.gpuName = rank.gpuName;
    s.info.gpuMemoryBytes = rank.gpuMemoryBytes;
    s.info.ncclVersion = rank.ncclVersion;
    s.info.baseTimeNs = rank.baseTimeNs;
    s.steps = rankStepBreakdowns(rank, s.diagnostics);
    s.collectives = rankCollectiveArrivals(rank);
    rankTraffic(rank, s);
    return s;
}

RunAnalysis analyseRankSummaries(const std::vector<RankSummary>& ranks)
{
    RunAnalysis analysis;
    analysis.steps = mergeStepBreakdowns(ranks, analysis.diagnostics);
    matchCollectives(ranks, analysis);
    analysis.traffic = mergeTraffic(ranks, analysis.diagnostics);
    return analysis;
}

RunAnalysis analyseRun(const Run& run)
{
    std::vector<RankSummary> ranks;
    ranks.reserve(run.ranks.size());
    for (const RankTrace& r : run.ranks)
        ranks.push_back(summarizeRank(r));
    return analyseRankSummaries(ranks);
}

} // namespace clusterscope::engine
