#include "importers/telemetry/telemetryfetcher.h"

#include "importers/common/inputfile.h"
#include "importers/telemetry/expositionparser.h"

#include <cmath>
#include <set>
#include <unordered_map>

namespace clusterscope::importers {

using engine::Result;
using engine::Status;

namespace {

    std::string seriesName(const std::string& metric, const PromLabels& labels)
    {
        std::string s = metric + "{";
        bool first = true;
        for (const auto& [k, v] : labels) {
            if (k == "__name__")
                continue;
            s += (first ? "" : ",") + k + "=\"" + v + "\"";
            first = false;
        }
        return s + "}";
    }

    // PromQL regex escaping (RE2 syntax) of a label value.
    std::string regexEscape(const std::string& v)
    {
        std::string out;
        for (char c : v) {
            if (std::string_view(".+*?()|[]{}^$\\").find(c) != std::string_view::npos)
                out += '\\';
            out += c;
        }
        // Inside a PromQL double-quoted string backslashes and quotes need escaping again.
        std::string q;
        for (char c : out) {
            if (c == '\\' || c == '"')
                q += '\\';
            q += c;
        }
        return q;
    }

    std::string windowSelector(double seconds)
    {
        return "[" + std::to_string(std::max<long long>(1, std::llround(std::ceil(seconds)))) + "s]";
    }

    void addMapped(TelemetryFetch& out, const FabricMapping& mapping, const SourceProfile& p, const ProfileSeries& ps,
        const PromSeries& s, bool count = true)
    {
        std::string why;
        const auto end = mapping.map(p, s.labels, why);
        if (!end) {
            if (!count)
                return;
            ++out.seriesUnmatched;
            if (out.unmatchedExamples.size() < 20)
                out.unmatchedExamples.push_back(seriesName(ps.metric, s.labels) + ": " + why);
            return;
        }
        engine::RawSeries r;
        r.gauge = ps.gauge;
        r.timesS = s.timesS;
        r.values = s.values;
        if (ps.scale != 1.0)
            for (double& v : r.values)
                v *= ps.scale;
        r.source = seriesName(ps.metric, s.labels);
        out.data.add(end->link, end->end, ps.measures, std::move(r));
        if (count) {
            ++out.seriesMapped;
            ++out.seriesPerProfile[p.name];
        }
    }

} // namespace

Result<TelemetryFetch> fetchTelemetry(const PromClient& client, const FabricMapping& mapping,
    const std::vector<SourceProfile>& profiles, double startS, double endS,
    const std::function<void(int, int)>& progress)
{
    if (!(endS > startS))
        return Status::error("telemetry window: the end must be after the start");
    TelemetryFetch out;
    out.data.startS = startS;
    out.data.endS = endS;
    auto build = client.buildInfo();
    if (!build)
        return build.status();
    out.build = *build;
    ++out.requests;
    // Which profile metrics the server has at all (one request instead of one per metric).
    auto names = client.labelValues("__name__");
    if (!names)
        return names.status();
    ++out.requests;
    const std::set<std::string> present(names->begin(), names->end());
    int total = 0;
    for (const auto& p : profiles)
        for (const auto& s : p.series)
            total += present.count(s.metric) ? 1 : 0;
    int done = 0;
    const std::string w = windowSelector(endS - startS);
    for (const auto& p : profiles) {
        for (const auto& ps : p.series) {
            if (!present.count(ps.metric))
                continue;
            std::string expr = ps.metric + w;
            if (engine::isErrorMetric(ps.measures)) {
                // Every series' current value marks its link end as measured (zero errors is a
                // measurement, a missing counter is not)...
                auto all = client.query(ps.metric, endS);
                ++out.requests;
                if (!all)
                    return all.status();
                for (const auto& s : all->series)
                    addMapped(out, mapping, p, ps, s);
                // ...and only the series that changed are read raw: their label values narrow the query.
                auto changed = client.query("changes(" + ps.metric + w + ") > 0", endS);
                ++out.requests;
                if (!changed)
                    return changed.status();
                if (changed->series.empty()) {
                    if (progress)
                        progress(++done, total);
                    continue;
                }
                std::map<std::string, std::set<std::string>> values;
                for (const auto& s : changed->series)
                    for (const auto& [k, v] : s.labels)
                        values[k].insert(v);
                std::string sel;
                for (const auto& [k, vs] : values) {
                    std::string re;
                    for (const auto& v : vs)
                        re += (re.empty() ? "" : "|") + regexEscape(v);
                    sel += (sel.empty() ? "" : ",") + k + "=~\"" + re + "\"";
                }
                expr = ps.metric + "{" + sel + "}" + w;
            }
            auto res = client.query(expr, endS);
            ++out.requests;
            if (!res)
                return res.status();
            out.warnings.insert(out.warnings.end(), res->warnings.begin(), res->warnings.end());
            for (const auto& s : res->series)
                addMapped(out, mapping, p, ps, s, !engine::isErrorMetric(ps.measures));
            if (progress)
                progress(++done, total);
        }
    }
    // Scrape health at the window's end.
    auto up = client.query("up == 0", endS);
    ++out.requests;
    if (!up)
        return up.status();
    for (const auto& s : up->series)
        out.data.health.push_back({ labelValue(s.labels, "instance") + " (job " + labelValue(s.labels, "job") + ")",
            "scrape target down (up == 0): its series are gaps, not zeros" });
    for (const auto& p : profiles)
        for (const auto& h : p.health) {
            if (!present.count(h.metric))
                continue;
            auto bad = client.query(h.metric + " < " + std::to_string(h.unhealthyBelow), endS);
            ++out.requests;
            if (!bad)
                return bad.status();
            for (const auto& s : bad->series)
                out.data.health.push_back({ labelValue(s.labels, "instance") + " " + labelValue(s.labels, h.nameLabel),
                    h.metric + " is " + std::to_string(int(s.values.empty() ? 0 : s.values[0]))
                        + ": the collector failed, every series it serves is missing" });
        }
    return out;
}

Result<TelemetryFetch> attachSnapshot(
    const std::string& path, const FabricMapping& mapping, const std::vector<SourceProfile>& profiles)
{
    auto text = readInputFile(path);
    if (!text)
        return text.status();
    std::unordered_map<std::string, std::pair<const SourceProfile*, const ProfileSeries*>> byMetric;
    for (const auto& p : profiles)
        for (const auto& s : p.series)
            byMetric.emplace(s.metric, std::make_pair(&p, &s));
    TelemetryFetch out;
    double latest = 0;
    Status failed = Status::success();
    auto n = parseExposition(*text, detectExpositionFormat(*text), path, [&](const SampleView& v) {
        auto it = byMetric.find(std::string(v.name));
        if (it == byMetric.end())
            return;
        PromSeries s;
        for (const auto& l : v.labels)
            s.labels.emplace_back(std::string(l.name), std::string(l.value));
        std::sort(s.labels.begin(), s.labels.end());
        const double t = v.hasTimestamp ? double(v.timestampMs) / 1000.0 : 0.0;
        latest = std::max(latest, t);
        s.timesS.push_back(t);
        s.values.push_back(v.value);
        addMapped(out, mapping, *it->second.first, *it->second.second, s);
    });
    if (!n)
        return n.status();
    out.data.startS = latest;
    out.data.endS = latest;
    return out;
}

} // namespace clusterscope::importers
