#include "engine/telemetry/telemetryrecord.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <ctime>

namespace clusterscope::engine {

namespace {

    using nlohmann::json;

    json values(const std::vector<double>& v)
    {
        json out = json::array();
        for (double x : v)
            out.push_back(std::isnan(x) ? json(nullptr) : json(x)); // a gap stays a gap
        return out;
    }

} // namespace

std::string telemetryWindowName(double startS, double endS)
{
    const std::time_t t = static_cast<std::time_t>(std::floor(startS));
    std::tm tm {};
    gmtime_r(&t, &tm);
    char b[64];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(b) + "+" + std::to_string(static_cast<long long>(std::llround(endS - startS))) + "s";
}

std::string telemetryWindowJson(const FabricGraph& g, const TelemetryData& data, const TelemetryReport& r,
    const std::vector<TierSeries>& tiers, int maxPoints)
{
    json out;
    out["version"] = 1;
    out["start_s"] = data.startS;
    out["end_s"] = data.endS;
    out["sample_interval_s"] = r.sampleIntervalS;
    out["links_measured"] = r.linksMeasured;
    out["links_without_data"] = r.linksWithoutData;
    json tierJson = json::array();
    for (const auto& t : tiers) {
        const int bins = int(t.average.values.size());
        const int factor = std::max(1, (bins + std::max(1, maxPoints) - 1) / std::max(1, maxPoints));
        const UtilisationSeries avg = downsample(t.average, factor, false);
        const UtilisationSeries peak = downsample(t.peak, factor, true);
        json summary = nullptr;
        for (const auto& s : r.tiers)
            if (s.level == t.level && s.direction == t.direction)
                summary = { { "links", s.links }, { "average", s.average }, { "p99_of_averages", s.p99OfAverages },
                    { "peak", s.peak }, { "above_80", s.above80 }, { "peaks_at_or_above_95", s.peaksAbove95 } };
        tierJson.push_back(
            { { "level", toString(t.level) }, { "direction", t.direction == 0 ? "up" : "down" }, { "summary", summary },
                { "step_s", avg.stepS }, { "average", values(avg.values) }, { "peak", values(peak.values) } });
    }
    out["tiers"] = tierJson;
    json links = json::array();
    for (LinkId id = 0; id < r.utilisation.size(); ++id)
        for (int dir = 0; dir < 2; ++dir) {
            const auto& u = r.utilisation[id][std::size_t(dir)];
            if (u.hasData)
                links.push_back({ { "link", linkName(g, id) }, { "level", toString(g.level(id)) },
                    { "direction", dir == 0 ? "up" : "down" }, { "average", u.average }, { "p99", u.p99 },
                    { "peak", u.peak }, { "coverage", u.coverage } });
        }
    out["links"] = links;
    json errors = json::array();
    for (const auto& e : r.errors)
        errors.push_back({ { "link", linkName(g, e.link) }, { "metric", toString(e.metric) },
            { "increase_a", e.increase[0] }, { "increase_b", e.increase[1] } });
    out["errors"] = errors;
    json alerts = json::array();
    for (const auto& a : r.alerts)
        alerts.push_back({ { "rule", a.rule }, { "severity", toString(a.severity) },
            { "link", a.link == kNoId ? json(nullptr) : json(linkName(g, a.link)) }, { "message", a.message } });
    out["alerts"] = alerts;
    return out.dump();
}

} // namespace clusterscope::engine
