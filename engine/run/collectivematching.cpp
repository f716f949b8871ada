// Matching collectives across ranks, clock alignment and straggler ranking.
//
// A collective of one process group is the same call on every member: the n-th call of group G on
// rank a is the n-th call of G on rank b (NCCL requires every member to issue a communicator's
// collectives in the same order), or the same "Seq" when the trace gives it. Its kernels end almost
// together on all ranks (nobody finishes before the last rank's data arrived), while their starts
// spread by the time the early ranks waited (NCCL user guide, "Collective Operations": a collective
// completes on a rank only once every rank has contributed).

#include "engine/run/runanalysis.h"
#include "engine/run/collectivefold.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace clusterscope::engine {

namespace {
struct Member {
    std::size_t rankIndex;
    const CollectiveCall* call;
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

void matchCollectives(const Run& run, RunAnalysis& analysis)
{
    // Group calls by (process group, sequence). Point-to-point calls are paired per group too; a
    // pairing whose operations disagree is reported and dropped from cross-rank statistics.
    std::map<std::pair<std::string, std::int64_t>, std::vector<Member>> groups;
    for (std::size_t r = 0; r < run.ranks.size(); ++r) {
        std::map<std::string, std::int64_t> counters;
        for (const auto& c : run.ranks[r].collectives) {
            const std::int64_t n = counters[c.processGroup]++;
            const std::int64_t seq = c.sequence >= 0 ? c.sequence : n;
            groups[{ c.processGroup, seq }].push_back({ r, &c });
        }
    }

    // Clock offsets from collective ends: per collective the median end over its ranks is the
    // consensus; a rank's offset is the median of its deviations (robust against a few outliers).
    std::vector<std::vector<std::int64_t>> deviations(run.ranks.size());
    for (const auto& [key, members] : groups) {
        if (members.size() < 2 || members.front().call->op == RunCollectiveOp::SendRecv)
            continue;
        std::vector<std::int64_t> ends;
        for (const auto& m : members)
            ends.push_back(m.call->endNs);
        const std::int64_t consensus = median(ends);
        for (const auto& m : members)
            deviations[m.rankIndex].push_back(m.call->endNs - consensus);
    }
    analysis.clockOffsetNs.assign(run.ranks.size(), 0);
    for (std::size_t r = 0; r < run.ranks.size(); ++r)
        analysis.clockOffsetNs[r] = median(deviations[r]);

    std::int64_t mismatched = 0;
    for (const auto& [key, members] : groups) {
        const CollectiveCall& first = *members.front().call;
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
        s.step = stepOfTime(run.ranks[members.front().rankIndex], first.launchNs >= 0 ? first.launchNs : first.startNs);
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
            const std::int32_t world = run.ranks[members.front().rankIndex].worldSize;
            s.groupSize = first.processGroup.empty() && world > 0 ? world : s.ranksSeen;
        }
        s.firstStartNs = firstStart;
        s.durationUs = double(last->call->endNs - last->call->startNs) / 1e3;
        if (members.size() >= 2) {
            s.lastArrivalRank = run.ranks[last->rankIndex].rank;
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
        analysis.diagnostics.add("run.collective_mismatch", DiagnosticSeverity::Warning,
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
        return std::tie(a.waitTailUs.p99, a.waitTailUs.max, a.waitCausedUs) > std::tie(b.waitTailUs.p99, b.waitTailUs.max, b.waitCausedUs);
    });
    return out;
}

RunAnalysis analyzeRun(const Run& run)
{
    RunAnalysis analysis;
    analysis.steps = computeStepBreakdowns(run, analysis.diagnostics);
    matchCollectives(run, analysis);
    analysis.traffic = computeTrafficMatrix(run, analysis.diagnostics);
    return analysis;
}

} // namespace clusterscope::engine
