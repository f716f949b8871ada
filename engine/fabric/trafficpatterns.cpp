#include "engine/fabric/trafficpatterns.h"

#include <algorithm>
#include <numeric>

namespace clusterscope::engine {

std::vector<Flow> ringAllReduceFlows(const FabricDesign& d, double bytes, int channels)
{
    const std::uint32_t n = static_cast<std::uint32_t>(d.gpus.size());
    const int g = std::max(1, d.gpusPerNode);
    const int hosts = d.hosts;
    const int c = channels > 0 ? channels : std::max(1, d.nicsPerNode);
    std::vector<Flow> flows;
    if (n < 2)
        return flows;
    const double perHop = 2.0 * (n - 1) / n * bytes / c; // NCCL ring: 2 (N-1)/N per rank
    // Inside a server each channel walks the GPUs with a stride coprime with G (1, 3, 5, 7 for 8
    // GPUs), so on a point-to-point mesh (MI300X) the channels use different GPU pairs, as RCCL's
    // ring permutations do; through an NVSwitch the order does not matter.
    std::vector<int> strides;
    for (int s = 1; s < std::max(2, g); ++s)
        if (std::gcd(s, g) == 1)
            strides.push_back(s);
    flows.reserve(static_cast<std::size_t>(c) * hosts * (g + 1));
    for (int ch = 0; ch < c; ++ch) {
        const int entry = ch % g;
        const int stride = strides[ch % strides.size()];
        for (int h = 0; h < hosts; ++h) {
            const std::uint32_t base = static_cast<std::uint32_t>(h) * g;
            const auto local = [&](int k) { return base + static_cast<std::uint32_t>((entry + k * stride) % g); };
            for (int k = 0; k + 1 < g; ++k) // entry, entry + s, ... over the scale-up fabric
                flows.push_back({ local(k), local(k + 1), perHop });
            if (g > 1) // back to the rail GPU: PXN-style hop before leaving (or ring closure inside one server)
                flows.push_back({ local(g - 1), base + entry, perHop });
            if (hosts > 1)
                flows.push_back({ base + entry, static_cast<std::uint32_t>((h + 1) % hosts) * g + entry, perHop });
        }
    }
    return flows;
}

std::vector<Flow> ringFlows(const std::vector<std::uint32_t>& ranks, double bytes)
{
    std::vector<Flow> flows;
    const std::size_t n = ranks.size();
    if (n < 2)
        return flows;
    const double perHop = 2.0 * (n - 1) / n * bytes;
    for (std::size_t i = 0; i < n; ++i)
        flows.push_back({ ranks[i], ranks[(i + 1) % n], perHop });
    return flows;
}

std::vector<Flow> hierarchicalAllReduceFlows(const FabricDesign& d, double bytes)
{
    std::vector<Flow> flows;
    const int g = std::max(1, d.gpusPerNode);
    const int m = d.hosts;
    for (int h = 0; h < m && g > 1; ++h)
        for (int i = 0; i < g; ++i)
            flows.push_back({ static_cast<std::uint32_t>(h * g + i), static_cast<std::uint32_t>(h * g + (i + 1) % g),
                2.0 * (g - 1) / g * bytes });
    for (int i = 0; i < g && m > 1; ++i)
        for (int h = 0; h < m; ++h)
            flows.push_back({ static_cast<std::uint32_t>(h * g + i), static_cast<std::uint32_t>(((h + 1) % m) * g + i),
                2.0 * (m - 1) / m * bytes / g });
    return flows;
}

std::vector<Flow> allToAllFlows(const FabricDesign& d, double bytesPerPair, std::vector<std::uint32_t> ranks)
{
    if (ranks.empty())
        for (std::uint32_t r = 0; r < d.gpus.size(); ++r)
            ranks.push_back(r);
    std::vector<Flow> flows;
    flows.reserve(ranks.size() * (ranks.size() - 1));
    for (std::uint32_t s : ranks)
        for (std::uint32_t t : ranks)
            if (s != t)
                flows.push_back({ s, t, bytesPerPair });
    return flows;
}

std::vector<Flow> parameterServerFlows(const FabricDesign& d, double bytes, int hubs)
{
    std::vector<Flow> flows;
    const std::uint32_t n = static_cast<std::uint32_t>(d.gpus.size());
    if (hubs < 1 || n == 0)
        return flows;
    std::vector<std::uint32_t> hubRanks;
    for (int k = 0; k < hubs; ++k)
        hubRanks.push_back(static_cast<std::uint32_t>(static_cast<unsigned long long>(k) * n / hubs));
    for (std::uint32_t w = 0; w < n; ++w) {
        if (std::find(hubRanks.begin(), hubRanks.end(), w) != hubRanks.end())
            continue;
        for (std::uint32_t hub : hubRanks) {
            flows.push_back({ w, hub, bytes / hubs });
            flows.push_back({ hub, w, bytes / hubs });
        }
    }
    return flows;
}

std::vector<Flow> shiftFlows(const FabricDesign& d, std::uint32_t shift, double bytes)
{
    std::vector<Flow> flows;
    const std::uint32_t n = static_cast<std::uint32_t>(d.gpus.size());
    if (n < 2 || shift % n == 0)
        return flows;
    flows.reserve(n);
    for (std::uint32_t r = 0; r < n; ++r)
        flows.push_back({ r, static_cast<std::uint32_t>((static_cast<std::uint64_t>(r) + shift) % n), bytes });
    return flows;
}

} // namespace clusterscope::engine
