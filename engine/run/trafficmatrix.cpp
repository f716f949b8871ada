// GPU-pair traffic measured from the collectives each rank issued.
//
// Exact where the trace says who sends what: point-to-point calls with a peer, all-to-all with
// split sizes (or an even split of the input). Other collectives are modelled with NCCL's ring
// algorithm over the group's ranks in order (ring AllReduce: each rank sends (N-1)/N of the data
// per phase, 2(N-1)/N in total; Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for
// clusters of workstations", JPDC 69(2), 2009; NVIDIA/nccl-tests doc/PERFORMANCE.md).

#include "engine/run/runanalysis.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace clusterscope::engine {

namespace {
// The group's global ranks in ring order; empty when unknown or larger than the matrix.
std::vector<std::int32_t> groupOf(const CollectiveCall& c, const RankTrace& rank, std::int32_t matrixRanks)
{
    if (!c.groupRanks.empty())
        return c.groupRanks;
    std::int32_t n = c.groupSize > 0 ? c.groupSize : 0;
    if (n == 0 && c.processGroup.empty())
        n = rank.worldSize;
    if (n > matrixRanks)
        return {};
    std::vector<std::int32_t> g(std::size_t(std::max(n, 0)));
    std::iota(g.begin(), g.end(), 0);
    return g;
}
}

MeasuredTrafficMatrix computeTrafficMatrix(const Run& run, Diagnostics& diagnostics)
{
    MeasuredTrafficMatrix m;
    for (const auto& r : run.ranks) {
        m.ranks = std::max(m.ranks, std::max(r.worldSize, r.rank + 1));
        for (const auto& c : r.collectives)
            for (std::int32_t g : c.groupRanks)
                m.ranks = std::max(m.ranks, g + 1);
    }
    // Dense storage: 4096 ranks are 128 MB of doubles. Larger runs would need a sparse matrix.
    constexpr std::int32_t kMaxRanks = 4096;
    if (m.ranks > kMaxRanks) {
        diagnostics.add("run.traffic_too_large", DiagnosticSeverity::Warning,
            "The traffic matrix is not computed for more than 4096 ranks (" + std::to_string(m.ranks) + " here).");
        m.ranks = 0;
        return m;
    }
    m.bytes.assign(std::size_t(m.ranks) * std::size_t(m.ranks), 0.0);
    std::vector<bool> traced(std::size_t(m.ranks), false);
    for (const auto& r : run.ranks)
        if (r.rank >= 0)
            traced[std::size_t(r.rank)] = true;
    auto add = [&](std::int32_t src, std::int32_t dst, double bytes) {
        if (src < 0 || dst < 0 || src >= m.ranks || dst >= m.ranks || src == dst)
            return;
        m.bytes[std::size_t(src) * std::size_t(m.ranks) + std::size_t(dst)] += bytes;
    };

    std::int64_t unknownBytes = 0, unknownGroup = 0;
    for (const auto& r : run.ranks) {
        for (const auto& c : r.collectives) {
            if (c.bytes < 0) {
                ++unknownBytes;
                continue;
            }
            const double S = double(c.bytes);
            if (c.op == RunCollectiveOp::SendRecv) {
                // Count each transfer once, from the sender's trace; a receive counts only when the
                // sender's trace is not part of the run.
                if (c.p2pDirection > 0)
                    add(r.rank, c.peerRank, S);
                else if (c.p2pDirection < 0 && c.peerRank >= 0 && c.peerRank < m.ranks && !traced[std::size_t(c.peerRank)])
                    add(c.peerRank, r.rank, S);
                else if (c.peerRank < 0)
                    ++unknownGroup;
                continue;
            }
            const std::vector<std::int32_t> g = groupOf(c, r, m.ranks);
            const auto n = std::int32_t(g.size());
            const auto self = std::find(g.begin(), g.end(), r.rank);
            if (n < 2 || self == g.end()) {
                ++unknownGroup;
                continue;
            }
            const auto pos = std::int32_t(self - g.begin());
            const std::int32_t next = g[std::size_t((pos + 1) % n)];
            switch (c.op) {
            case RunCollectiveOp::AllToAll:
                // Each rank's own sends: exact with split sizes, else S/n to every member.
                for (std::int32_t j = 0; j < n; ++j) {
                    const double b = c.splitBytes.size() == std::size_t(n) ? double(std::max<std::int64_t>(c.splitBytes[std::size_t(j)], 0)) : S / n;
                    add(r.rank, g[std::size_t(j)], b);
                }
                break;
            case RunCollectiveOp::AllReduce:
                add(r.rank, next, 2.0 * (n - 1) / n * S); // reduce-scatter + all-gather phases
                break;
            case RunCollectiveOp::AllGather:
            case RunCollectiveOp::ReduceScatter:
                add(r.rank, next, double(n - 1) / n * S);
                break;
            case RunCollectiveOp::Broadcast:
            case RunCollectiveOp::Reduce:
                // Pipelined chain from the group's first rank: every rank but the chain's end forwards S.
                if (pos != n - 1)
                    add(r.rank, next, S);
                break;
            case RunCollectiveOp::Gather:
                add(r.rank, g.front(), S / n);
                break;
            case RunCollectiveOp::Scatter:
                if (pos == 0)
                    for (std::int32_t j = 1; j < n; ++j)
                        add(r.rank, g[std::size_t(j)], S / n);
                break;
            default:
                break;
            }
        }
    }
    if (unknownBytes > 0)
        diagnostics.add("run.traffic_unknown_bytes", DiagnosticSeverity::Info,
            "Collectives without a message size are left out of the traffic matrix.", unknownBytes);
    if (unknownGroup > 0)
        diagnostics.add("run.traffic_unknown_peers", DiagnosticSeverity::Info,
            "Collectives whose group members or peer are unknown are left out of the traffic matrix.", unknownGroup);
    return m;
}

} // namespace clusterscope::engine
