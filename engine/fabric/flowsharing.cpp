// Link loads, max-min fair sharing and collective timing on a FlowPlacement.

#include "engine/fabric/flowmodel.h"

#include <algorithm>
#include <limits>

namespace clusterscope::engine {

std::vector<double> FlowModel::linkBytes(const FlowPlacement& p) const
{
    std::vector<double> bytes(m_design.graph.linkCount() * 2, 0.0);
    for (std::size_t sf = 0; sf < p.bytes.size(); ++sf) {
        const double b = p.bytes[sf];
        for (std::uint32_t e = p.start[sf], end = p.start[sf] + p.length[sf]; e < end; ++e)
            bytes[p.dlinks[e]] += p.weights[e] * b;
    }
    return bytes;
}

// Weighted progressive filling (Bertsekas & Gallager, Data Networks, 6.5.2): all unfrozen sub-flows
// grow at the same rate; a link saturates when its frozen use plus the unfrozen weight times the
// common rate reaches its capacity; sub-flows crossing a saturated link freeze at that rate.
std::vector<double> FlowModel::maxMinRatesGbps(const FlowPlacement& p) const
{
    const std::size_t subs = p.bytes.size();
    const std::size_t nd = m_design.graph.linkCount() * 2;
    std::vector<double> rate(subs, 0.0);
    std::vector<double> frozenUse(nd, 0.0), activeWeight(nd, 0.0);
    // Reverse index: directed link -> entries crossing it.
    std::vector<std::uint32_t> revStart(nd + 1, 0);
    for (std::size_t sf = 0; sf < subs; ++sf)
        for (std::uint32_t e = p.start[sf]; e < p.start[sf] + p.length[sf]; ++e) {
            ++revStart[p.dlinks[e] + 1];
            activeWeight[p.dlinks[e]] += p.weights[e];
        }
    for (std::size_t i = 1; i <= nd; ++i)
        revStart[i] += revStart[i - 1];
    std::vector<std::uint32_t> revFlow(revStart.back());
    {
        std::vector<std::uint32_t> fill(revStart.begin(), revStart.end() - 1);
        for (std::size_t sf = 0; sf < subs; ++sf)
            for (std::uint32_t e = p.start[sf]; e < p.start[sf] + p.length[sf]; ++e)
                revFlow[fill[p.dlinks[e]]++] = static_cast<std::uint32_t>(sf);
    }
    std::vector<char> frozen(subs, 0);
    std::size_t active = 0;
    for (std::size_t sf = 0; sf < subs; ++sf) {
        if (p.length[sf] == 0)
            frozen[sf] = 1;
        else
            ++active;
    }
    std::vector<std::uint32_t> live; // directed links still carrying unfrozen weight
    for (std::uint32_t d = 0; d < nd; ++d)
        if (activeWeight[d] > 0)
            live.push_back(d);
    while (active > 0 && !live.empty()) {
        double level = std::numeric_limits<double>::infinity();
        for (std::uint32_t d : live)
            level = std::min(level, (capacityGbps(d) * p.linkEfficiency - frozenUse[d]) / activeWeight[d]);
        level = std::max(level, 0.0);
        const double tolerance = level * 1e-9 + 1e-12;
        for (std::uint32_t d : live) {
            if (activeWeight[d] <= 1e-12
                || (capacityGbps(d) * p.linkEfficiency - frozenUse[d]) / activeWeight[d] > level + tolerance)
                continue;
            for (std::uint32_t i = revStart[d]; i < revStart[d + 1]; ++i) {
                const std::uint32_t sf = revFlow[i];
                if (frozen[sf])
                    continue;
                frozen[sf] = 1;
                --active;
                rate[sf] = level;
                for (std::uint32_t e = p.start[sf]; e < p.start[sf] + p.length[sf]; ++e) {
                    frozenUse[p.dlinks[e]] += p.weights[e] * level;
                    activeWeight[p.dlinks[e]] -= p.weights[e];
                }
            }
        }
        live.erase(std::remove_if(live.begin(), live.end(), [&](std::uint32_t d) { return activeWeight[d] <= 1e-9; }),
            live.end());
    }
    return rate;
}

Result<CollectiveTiming> FlowModel::time(std::span<const Flow> flows, const FlowOptions& options) const
{
    auto placement = route(flows, options);
    if (!placement)
        return placement.status();
    return timing(*placement);
}

CollectiveTiming FlowModel::timing(const FlowPlacement& p) const
{
    CollectiveTiming t;
    t.unroutableFlows = p.unroutable.size();
    const auto rates = maxMinRatesGbps(p);
    const auto bytes = linkBytes(p);
    std::vector<double> use(bytes.size(), 0.0);
    // Ideal: each flow alone, its sub-flows (queue pairs) together: bottleneck = min over links of
    // capacity / (share of the flow's bytes on that link).
    std::vector<std::pair<std::uint32_t, double>> share;
    for (std::size_t first = 0; first < p.bytes.size();) {
        std::size_t last = first;
        double flowBytes = 0;
        while (last < p.bytes.size() && p.flowOf[last] == p.flowOf[first])
            flowBytes += p.bytes[last++];
        share.clear();
        for (std::size_t sf = first; sf < last; ++sf) {
            if (p.length[sf] == 0 || p.bytes[sf] <= 0)
                continue;
            for (std::uint32_t e = p.start[sf]; e < p.start[sf] + p.length[sf]; ++e) {
                share.push_back({ p.dlinks[e], p.weights[e] * p.bytes[sf] / flowBytes });
                use[p.dlinks[e]] += p.weights[e] * rates[sf];
            }
            if (rates[sf] > 0)
                t.seconds = std::max(t.seconds, p.bytes[sf] * 8.0 / (rates[sf] * 1e9));
        }
        std::sort(share.begin(), share.end());
        double bottleneck = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < share.size();) {
            double w = 0;
            const std::uint32_t d = share[i].first;
            for (; i < share.size() && share[i].first == d; ++i)
                w += share[i].second;
            bottleneck = std::min(bottleneck, capacityGbps(d) / w);
        }
        if (!share.empty())
            t.idealSeconds = std::max(t.idealSeconds, flowBytes * 8.0 / (bottleneck * 1e9));
        first = last;
    }
    double sum = 0;
    std::size_t used = 0;
    for (std::size_t d = 0; d < bytes.size(); ++d) {
        if (bytes[d] <= 0)
            continue;
        const double cap = capacityGbps(static_cast<std::uint32_t>(d));
        t.linkBoundSeconds = std::max(t.linkBoundSeconds, bytes[d] * 8.0 / (cap * p.linkEfficiency * 1e9));
        const double u = use[d] / cap;
        t.maxUtilisation = std::max(t.maxUtilisation, u);
        sum += u;
        ++used;
    }
    t.meanUtilisation = used ? sum / used : 0;
    t.slowdown = t.idealSeconds > 0 ? t.seconds / t.idealSeconds : 1;
    return t;
}

Result<FlowModel::SampledSlowdown> FlowModel::sampleEcmpSlowdown(
    std::span<const Flow> flows, FlowOptions o, int samples) const
{
    if (samples < 1)
        return Status::error("ECMP sampling needs at least one sample, got " + std::to_string(samples));
    o.routing = RoutingMode::Ecmp;
    SampledSlowdown s { 0, std::numeric_limits<double>::infinity(), 0 };
    const std::uint64_t seed = o.hashSeed;
    for (int i = 0; i < samples; ++i) {
        o.hashSeed = seed + static_cast<std::uint64_t>(i);
        auto t = time(flows, o);
        if (!t)
            return t.status();
        s.mean += t->slowdown / samples;
        s.min = std::min(s.min, t->slowdown);
        s.max = std::max(s.max, t->slowdown);
    }
    return s;
}

} // namespace clusterscope::engine
