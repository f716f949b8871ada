#include "engine/telemetry/utilisationseries.h"

#include "engine/telemetry/counterintervals.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clusterscope::engine {

namespace {

    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

    double gridStep(const TelemetryData& data)
    {
        const double s = data.sampleIntervalS();
        return s > 0 ? s : 1.0;
    }

    std::size_t binCount(const TelemetryData& data, double step)
    {
        const double window = std::max(0.0, data.endS - data.startS);
        return static_cast<std::size_t>(std::ceil(window / step)) + 1;
    }

    // Calls f(bin, utilisation) for every interval of the direction's series.
    template <typename F>
    void forEachInterval(
        const FabricGraph& g, const TelemetryData& data, LinkId link, int dir, double step, std::size_t bins, F&& f)
    {
        const RawSeries* s = directionSeries(g, data, link, dir);
        const double capacity = double(g.link(link).gbps) * 1e9 / 8.0; // B/s per direction
        if (!s || !(capacity > 0))
            return;
        const CounterIntervals ci = counterIntervals(*s, 2.5 * step);
        for (const auto& iv : ci.intervals) {
            const double k = std::round((iv.endS - data.startS) / step);
            if (k < 0 || k >= double(bins))
                continue;
            f(static_cast<std::size_t>(k), iv.rate / capacity);
        }
    }

} // namespace

const RawSeries* directionSeries(const FabricGraph& g, const TelemetryData& data, LinkId link, int dir)
{
    if (link >= g.linkCount())
        return nullptr;
    if (const RawSeries* s = data.find(link, dir, TelemetryMetric::TxBytes))
        return s;
    return data.find(link, 1 - dir, TelemetryMetric::RxBytes);
}

UtilisationSeries linkUtilisationSeries(const FabricGraph& g, const TelemetryData& data, LinkId link, int dir)
{
    UtilisationSeries out;
    out.startS = data.startS;
    out.stepS = gridStep(data);
    const std::size_t bins = binCount(data, out.stepS);
    out.values.assign(bins, kNaN);
    forEachInterval(g, data, link, dir, out.stepS, bins, [&](std::size_t k, double u) { out.values[k] = u; });
    return out;
}

std::vector<TierSeries> tierUtilisationSeries(const FabricGraph& g, const TelemetryData& data)
{
    const double step = gridStep(data);
    const std::size_t bins = binCount(data, step);
    const LinkLevel levels[] = { LinkLevel::NodeLeaf, LinkLevel::LeafSpine, LinkLevel::SpineCore };
    std::vector<TierSeries> out;
    for (const LinkLevel level : levels)
        for (int dir = 0; dir < 2; ++dir) {
            std::vector<double> sum(bins, 0.0), peak(bins, kNaN);
            std::vector<int> count(bins, 0);
            for (LinkId id = 0; id < g.linkCount(); ++id) {
                if (g.level(id) != level || (g.link(id).flags & kLinkMissing))
                    continue;
                forEachInterval(g, data, id, dir, step, bins, [&](std::size_t k, double u) {
                    sum[k] += u;
                    ++count[k];
                    peak[k] = std::isnan(peak[k]) ? u : std::max(peak[k], u);
                });
            }
            if (std::all_of(count.begin(), count.end(), [](int c) { return c == 0; }))
                continue;
            TierSeries t;
            t.level = level;
            t.direction = dir;
            t.average.startS = t.peak.startS = data.startS;
            t.average.stepS = t.peak.stepS = step;
            t.average.values.resize(bins);
            for (std::size_t k = 0; k < bins; ++k)
                t.average.values[k] = count[k] > 0 ? sum[k] / count[k] : kNaN;
            t.peak.values = std::move(peak);
            out.push_back(std::move(t));
        }
    return out;
}

UtilisationSeries downsample(const UtilisationSeries& s, int factor, bool keepPeak)
{
    if (factor <= 1)
        return s;
    UtilisationSeries out;
    out.startS = s.startS;
    out.stepS = s.stepS * factor;
    for (std::size_t i = 0; i < s.values.size(); i += std::size_t(factor)) {
        double acc = keepPeak ? -std::numeric_limits<double>::infinity() : 0.0;
        int n = 0;
        for (std::size_t j = i; j < std::min(s.values.size(), i + std::size_t(factor)); ++j) {
            if (std::isnan(s.values[j]))
                continue;
            acc = keepPeak ? std::max(acc, s.values[j]) : acc + s.values[j];
            ++n;
        }
        out.values.push_back(n == 0 ? kNaN : (keepPeak ? acc : acc / n));
    }
    return out;
}

} // namespace clusterscope::engine
