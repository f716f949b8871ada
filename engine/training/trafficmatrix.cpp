#include "engine/training/trafficmatrix.h"
#include "engine/core/linkclass.h"

#include "engine/training/ncclringsends.h"
#include "engine/training/trainingestimate.h"

namespace clusterscope::engine {

static_assert(kLinkClasses == kLinkClassCount, "one numbering of link classes (engine/core/linkclass.h)");

const char* toString(TrafficDimension d)
{
    switch (d) {
    case TrafficDimension::TP:
        return "tp";
    case TrafficDimension::CP:
        return "cp";
    case TrafficDimension::DP:
        return "dp";
    case TrafficDimension::EP:
        return "ep";
    case TrafficDimension::PP:
        return "pp";
    }
    return "?";
}

TrafficMatrix TrafficMatrix::fromEstimate(const TrainingEstimate& e, const GroupPlacer& placer)
{
    TrafficMatrix t;
    t.m_placer = placer;
    t.m_gpus = placer.geometry().gpus;
    if (!e.valid)
        return t;
    const ParallelismSpec& p = e.strategy.parallelism;
    const StrategyGroups g = placer.groups(p);
    const auto add = [&t](TrafficDimension d, TrafficPattern::Shape shape, int size, long long stride, double perRank) {
        if (size <= 1 || perRank <= 0)
            return;
        TrafficPattern pattern;
        pattern.dimension = d;
        pattern.shape = shape;
        pattern.groupSize = size;
        pattern.strideGpus = stride;
        // A ring member sends everything to one neighbour; all-to-all spreads it over n - 1 peers;
        // a pipeline stage sends half forward and half backward.
        pattern.bytesPerPair = shape == TrafficPattern::Shape::Ring ? perRank
            : shape == TrafficPattern::Shape::AllToAll              ? perRank / (size - 1)
                                                                    : perRank / 2.0; // Chain, BiRing
        t.m_patterns.push_back(pattern);
    };
    using Shape = TrafficPattern::Shape;
    add(TrafficDimension::TP, Shape::Ring, p.tp, g.tpStride, e.bytesSent.tp);
    add(TrafficDimension::CP, Shape::Ring, p.cp, g.cpStride, e.bytesSent.cp - e.bytesSent.cpAllToAll);
    add(TrafficDimension::CP, Shape::AllToAll, p.cp, g.cpStride, e.bytesSent.cpAllToAll);
    const long long innerStride = std::min(g.cpStride, g.dpStride);
    add(TrafficDimension::DP, Shape::Ring, p.dp * p.cp, innerStride, e.bytesSent.dp);
    add(TrafficDimension::DP, Shape::Ring, g.expertDpGrad.ranks, g.expertDpStride, e.bytesSent.expertDp);
    add(TrafficDimension::EP, Shape::AllToAll, p.ep, g.epStride, e.bytesSent.ep);
    // Interleaved stages wrap from the last GPU stage back to the first: a ring of stages.
    add(TrafficDimension::PP, p.vpp > 1 ? Shape::BiRing : Shape::Chain, p.pp, g.ppStride, e.bytesSent.pp);
    return t;
}

template <typename Visit> void TrafficMatrix::forEachSend(Visit&& visit) const
{
    for (const TrafficPattern& pt : m_patterns) {
        const int d = static_cast<int>(pt.dimension);
        const long long n = pt.groupSize, s = pt.strideGpus;
        const long long r = ncclring::membersPerDomain(pt, m_placer);
        for (long long src = 0; src < m_gpus; ++src) {
            const long long k = (src / s) % n;
            const long long base = src - k * s;
            switch (pt.shape) {
            case TrafficPattern::Shape::Ring:
                ncclring::visitPartners(
                    k, n, r, pt.bytesPerPair, [&](long long j, double bytes) { visit(src, base + j * s, d, bytes); });
                break;
            case TrafficPattern::Shape::Chain:
                if (k + 1 < n)
                    visit(src, base + (k + 1) * s, d, pt.bytesPerPair);
                if (k > 0)
                    visit(src, base + (k - 1) * s, d, pt.bytesPerPair);
                break;
            case TrafficPattern::Shape::BiRing:
                visit(src, base + ((k + 1) % n) * s, d, pt.bytesPerPair);
                visit(src, base + ((k + n - 1) % n) * s, d, pt.bytesPerPair);
                break;
            case TrafficPattern::Shape::AllToAll:
                for (long long j = 0; j < n; ++j)
                    if (j != k)
                        visit(src, base + j * s, d, pt.bytesPerPair);
                break;
            }
        }
    }
}

void TrafficMatrix::visitSends(const std::function<void(long long, long long, int, double)>& visit) const
{
    forEachSend(visit);
}

std::array<double, kTrafficDimensions> TrafficMatrix::pairBytes(long long src, long long dst) const
{
    std::array<double, kTrafficDimensions> out {};
    if (src == dst || src < 0 || dst < 0 || src >= m_gpus || dst >= m_gpus)
        return out;
    for (const TrafficPattern& pt : m_patterns) {
        const long long n = pt.groupSize, s = pt.strideGpus;
        const long long k = (src / s) % n, j = (dst / s) % n;
        if (src - k * s != dst - j * s)
            continue; // not in the same group
        bool partner = false;
        switch (pt.shape) {
        case TrafficPattern::Shape::Ring:
            out[static_cast<int>(pt.dimension)]
                += ncclring::bytesTo(k, j, n, ncclring::membersPerDomain(pt, m_placer), pt.bytesPerPair);
            break;
        case TrafficPattern::Shape::Chain:
            partner = j == k + 1 || j + 1 == k;
            break;
        case TrafficPattern::Shape::BiRing: // n == 2: both directions reach the same partner
            partner = (j == (k + 1) % n) + (j == (k + n - 1) % n);
            break;
        case TrafficPattern::Shape::AllToAll:
            partner = true;
            break;
        }
        if (partner)
            out[static_cast<int>(pt.dimension)]
                += pt.bytesPerPair * (pt.shape == TrafficPattern::Shape::BiRing && n == 2 ? 2.0 : 1.0);
    }
    return out;
}

double TrafficMatrix::pairTotalBytes(long long src, long long dst) const
{
    double total = 0;
    for (double b : pairBytes(src, dst))
        total += b;
    return total;
}

std::array<std::array<double, kLinkClasses>, kTrafficDimensions> TrafficMatrix::totalsByClass() const
{
    std::array<std::array<double, kLinkClasses>, kTrafficDimensions> totals {};
    forEachSend(
        [&](long long src, long long dst, int d, double bytes) { totals[d][m_placer.pairTier(src, dst)] += bytes; });
    return totals;
}

BlockTraffic TrafficMatrix::aggregate(long long gpusPerBlock) const
{
    BlockTraffic b;
    b.gpusPerBlock = gpusPerBlock < 1 ? 1 : gpusPerBlock;
    b.blocks = (m_gpus + b.gpusPerBlock - 1) / b.gpusPerBlock;
    b.bytes.assign(static_cast<std::size_t>(b.blocks * b.blocks), 0.0);
    forEachSend([&](long long src, long long dst, int, double bytes) {
        b.bytes[static_cast<std::size_t>((src / b.gpusPerBlock) * b.blocks + dst / b.gpusPerBlock)] += bytes;
    });
    return b;
}

} // namespace clusterscope::engine
