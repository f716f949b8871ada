// GPU-pair traffic measured from the collectives each rank issued.
//
// Exact where the trace says who sends what: point-to-point calls with a peer, all-to-all with
// split sizes (or an even split of the input). Other collectives are modelled with NCCL's ring
// algorithm over the group's ranks in order (ring AllReduce: each rank sends (N-1)/N of the data
// per phase, 2(N-1)/N in total; Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for
// clusters of workstations", JPDC 69(2), 2009; NVIDIA/nccl-tests doc/PERFORMANCE.md).

#include "engine/run/ranksummary.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <string>

namespace clusterscope::engine {

namespace {
    // The group's global ranks in ring order; empty when unknown.
    std::vector<std::int32_t> groupOf(const CollectiveCall& c, const RankTrace& rank)
    {
        if (!c.groupRanks.empty())
            return c.groupRanks;
        std::int32_t n = c.groupSize > 0 ? c.groupSize : 0;
        if (n == 0 && c.processGroup.empty())
            n = rank.worldSize;
        std::vector<std::int32_t> g(std::size_t(std::max(n, 0)));
        std::iota(g.begin(), g.end(), 0);
        return g;
    }

    // Sorts by (src, dst) keeping call order among equal pairs and sums them in that order.
    std::vector<RankTrafficPair> summed(std::vector<RankTrafficPair> pairs)
    {
        return makeMeasuredTraffic(INT32_MAX, std::move(pairs)).pairs;
    }
}

void rankTraffic(const RankTrace& r, RankSummary& into)
{
    std::int32_t bound = std::max(r.worldSize, r.rank + 1);
    std::vector<RankTrafficPair> sends, receives;
    auto add = [&](std::int32_t src, std::int32_t dst, double bytes) {
        if (src < 0 || dst < 0 || src == dst)
            return;
        sends.push_back({ src, dst, bytes });
    };

    std::int64_t unknownBytes = 0, unknownGroup = 0;
    for (const auto& c : r.collectives) {
        for (std::int32_t g : c.groupRanks)
            bound = std::max(bound, g + 1);
        if (c.bytes < 0) {
            ++unknownBytes;
            continue;
        }
        const double S = double(c.bytes);
        if (c.op == CollectiveOp::SendRecv) {
            // Count each transfer once, from the sender's trace; a receive counts only when the
            // sender's trace is not part of the run (decided when the ranks are merged).
            bound = std::max(bound, c.peerRank + 1);
            if (c.p2pDirection > 0)
                add(r.rank, c.peerRank, S);
            else if (c.p2pDirection < 0 && c.peerRank >= 0 && r.rank >= 0 && c.peerRank != r.rank)
                receives.push_back({ c.peerRank, r.rank, S });
            else if (c.peerRank < 0)
                ++unknownGroup;
            continue;
        }
        const std::vector<std::int32_t> g = groupOf(c, r);
        const auto n = std::int32_t(g.size());
        bound = std::max(bound, n);
        const auto self = std::find(g.begin(), g.end(), r.rank);
        if (n < 2 || self == g.end()) {
            ++unknownGroup;
            continue;
        }
        const auto pos = std::int32_t(self - g.begin());
        const std::int32_t next = g[std::size_t((pos + 1) % n)];
        switch (c.op) {
        case CollectiveOp::AllToAll:
            // Each rank's own sends: exact with split sizes, else S/n to every member.
            for (std::int32_t j = 0; j < n; ++j) {
                const double b = c.splitBytes.size() == std::size_t(n)
                    ? double(std::max<std::int64_t>(c.splitBytes[std::size_t(j)], 0))
                    : S / n;
                add(r.rank, g[std::size_t(j)], b);
            }
            break;
        case CollectiveOp::AllReduce:
            add(r.rank, next, 2.0 * (n - 1) / n * S); // reduce-scatter + all-gather phases
            break;
        case CollectiveOp::AllGather:
        case CollectiveOp::ReduceScatter:
            add(r.rank, next, double(n - 1) / n * S);
            break;
        case CollectiveOp::Broadcast:
        case CollectiveOp::Reduce:
            // Pipelined chain from the group's first rank: every rank but the chain's end forwards S.
            if (pos != n - 1)
                add(r.rank, next, S);
            break;
        case CollectiveOp::Gather:
            add(r.rank, g.front(), S / n);
            break;
        case CollectiveOp::Scatter:
            if (pos == 0)
                for (std::int32_t j = 1; j < n; ++j)
                    add(r.rank, g[std::size_t(j)], S / n);
            break;
        default:
            break;
        }
    }
    into.sends = summed(std::move(sends));
    into.receives = summed(std::move(receives));
    into.trafficRanks = bound;
    into.trafficUnknownBytes = unknownBytes;
    into.trafficUnknownPeers = unknownGroup;
}

MeasuredTraffic mergeTraffic(const std::vector<RankSummary>& ranks, Diagnostics& diagnostics)
{
    std::int32_t bound = 0;
    std::int64_t unknownBytes = 0, unknownGroup = 0;
    std::vector<std::int32_t> traced;
    std::size_t pairs = 0;
    for (const RankSummary& r : ranks) {
        bound = std::max(bound, r.trafficRanks);
        unknownBytes += r.trafficUnknownBytes;
        unknownGroup += r.trafficUnknownPeers;
        if (r.info.rank >= 0)
            traced.push_back(r.info.rank);
        pairs += r.sends.size() + r.receives.size();
    }
    std::sort(traced.begin(), traced.end());
    std::vector<RankTrafficPair> all;
    all.reserve(pairs);
    for (const RankSummary& r : ranks) {
        all.insert(all.end(), r.sends.begin(), r.sends.end());
        for (const RankTrafficPair& p : r.receives)
            if (!std::binary_search(traced.begin(), traced.end(), p.src))
                all.push_back(p);
    }
    if (unknownBytes > 0)
        diagnostics.add(diagnostic::kRunTrafficUnknownBytes,
            "Collectives without a message size are left out of the traffic matrix.", unknownBytes);
    if (unknownGroup > 0)
        diagnostics.add(diagnostic::kRunTrafficUnknownPeers,
            "Collectives whose group members or peer are unknown are left out of the traffic matrix.", unknownGroup);
    return makeMeasuredTraffic(bound, std::move(all));
}

MeasuredTraffic computeMeasuredTraffic(const Run& run, Diagnostics& diagnostics)
{
    std::vector<RankSummary> ranks(run.ranks.size());
    for (std::size_t i = 0; i < run.ranks.size(); ++i) {
        ranks[i].info.rank = run.ranks[i].rank;
        rankTraffic(run.ranks[i], ranks[i]);
    }
    return mergeTraffic(ranks, diagnostics);
}

} // namespace clusterscope::engine
