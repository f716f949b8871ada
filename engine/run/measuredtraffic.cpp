#include "engine/run/measuredtraffic.h"

#include <algorithm>

namespace clusterscope::engine {

namespace {
    bool before(const RankTrafficPair& a, const RankTrafficPair& b)
    {
        return a.src != b.src ? a.src < b.src : a.dst < b.dst;
    }
}

double MeasuredTraffic::at(std::int32_t src, std::int32_t dst) const
{
    const RankTrafficPair key { src, dst, 0 };
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), key, before);
    return it != pairs.end() && it->src == src && it->dst == dst ? it->bytes : 0.0;
}

std::span<const RankTrafficPair> MeasuredTraffic::sentBy(std::int32_t src) const
{
    const auto lo = std::lower_bound(
        pairs.begin(), pairs.end(), src, [](const RankTrafficPair& p, std::int32_t s) { return p.src < s; });
    const auto hi
        = std::upper_bound(lo, pairs.end(), src, [](std::int32_t s, const RankTrafficPair& p) { return s < p.src; });
    return { pairs.data() + (lo - pairs.begin()), std::size_t(hi - lo) };
}

double MeasuredTraffic::totalBytes() const
{
    double total = 0;
    for (const RankTrafficPair& p : pairs)
        total += p.bytes;
    return total;
}

MeasuredTraffic makeMeasuredTraffic(std::int32_t ranks, std::vector<RankTrafficPair> pairs)
{
    MeasuredTraffic out;
    out.ranks = std::max(ranks, 0);
    std::erase_if(pairs, [&](const RankTrafficPair& p) {
        return p.src == p.dst || p.src < 0 || p.dst < 0 || p.src >= out.ranks || p.dst >= out.ranks || !(p.bytes > 0);
    });
    std::stable_sort(pairs.begin(), pairs.end(), before);
    for (const RankTrafficPair& p : pairs) {
        if (!out.pairs.empty() && out.pairs.back().src == p.src && out.pairs.back().dst == p.dst)
            out.pairs.back().bytes += p.bytes;
        else
            out.pairs.push_back(p);
    }
    return out;
}

} // namespace clusterscope::engine
