#include "importers/telemetry/telemetryfetcher.h"

#include "importers/common/inputfile.h"
#include "importers/telemetry/expositionparser.h"

#include <algorithm>
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

namespace {

    // Matchers narrowing `metric` to the given series: per label, a regex over the values seen. It may
    // select a few series more than asked (the cross product), never fewer.
    std::string narrowedSelector(const std::string& metric, const std::vector<const PromLabels*>& series)
    {
        std::map<std::string, std::set<std::string>> values;
        for (const PromLabels* l : series)
            for (const auto& [k, v] : *l)
                if (k != "__name__")
                    values[k].insert(v);
        std::string sel;
        for (const auto& [k, vs] : values) {
            std::string re;
            for (const auto& v : vs)
                re += (re.empty() ? "" : "|") + regexEscape(v);
            sel += (sel.empty() ? "" : ",") + k + "=~\"" + re + "\"";
        }
        return metric + "{" + sel + "}";
    }

    enum class JobKind { Raw, ErrorAll, ErrorChanged, ErrorRaw, RxLabels, Up, Health };

    struct Job {
        JobKind kind = JobKind::Raw;
        std::size_t profile = 0;
        std::size_t series = 0; ///< ProfileSeries index, or ProfileHealth index for Health
        std::string expr;
        std::string selector; ///< Raw: the selector without the range (kept for follow-mode refreshes)
    };

    // The stored samples of the window [endS - w, endS] that a full fetch's range selector returns.
    engine::RawSeries trimmed(const engine::RawSeries& s, double fromS)
    {
        engine::RawSeries r;
        r.gauge = s.gauge;
        r.source = s.source;
        const auto first = std::lower_bound(s.timesS.begin(), s.timesS.end(), fromS) - s.timesS.begin();
        r.timesS.assign(s.timesS.begin() + first, s.timesS.end());
        r.values.assign(s.values.begin() + first, s.values.end());
        return r;
    }

} // namespace

Result<TelemetryFetch> fetchTelemetry(const PromClient& client, const FabricMapping& mapping,
    const std::vector<SourceProfile>& profiles, double startS, double endS,
    const std::function<void(int, int)>& progress, const FetchOptions& options, TelemetryCache* cache)
{
    if (!(endS > startS))
        return Status::error("telemetry window: the end must be after the start");
    const int parallel = std::max(1, options.maxParallel);
    const std::string w = windowSelector(endS - startS);
    const double windowS = double(std::max<long long>(1, std::llround(std::ceil(endS - startS))));
    // A follow-mode refresh: same server, same window length, later end, overlapping the last window.
    const bool incremental = cache && cache->last && cache->url == client.options().url
        && std::abs((cache->last->data.endS - cache->last->data.startS) - (endS - startS)) < 1e-6
        && endS >= cache->last->data.endS && startS < cache->last->data.endS;
    TelemetryFetch out;
    out.data.startS = startS;
    out.data.endS = endS;
    std::set<std::string> present;
    std::vector<CachedSelector> selectors;
    if (incremental) {
        const TelemetryFetch& last = *cache->last;
        out.build = last.build;
        out.seriesMapped = last.seriesMapped;
        out.seriesUnmatched = last.seriesUnmatched;
        out.unmatchedExamples = last.unmatchedExamples;
        out.seriesPerProfile = last.seriesPerProfile;
        present = cache->present;
        selectors = cache->selectors;
        // The samples still inside the window; the new ones are merged in below.
        const double from = endS - windowS;
        last.data.forEach([&](engine::LinkId link, int end, engine::TelemetryMetric m, const engine::RawSeries& s) {
            if (engine::isErrorMetric(m))
                return;
            engine::RawSeries r = trimmed(s, from);
            if (!r.timesS.empty())
                out.data.add(link, end, m, std::move(r));
        });
    } else {
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
        present.insert(names->begin(), names->end());
    }

    // Stage 1: byte samples, error counters' current values and changes, health, all at once.
    std::vector<Job> jobs;
    if (incremental) {
        const double since = endS - cache->last->data.endS + std::max(5.0, 3.0 * cache->last->data.sampleIntervalS());
        const std::string d = windowSelector(std::min(since, endS - startS));
        for (const auto& c : selectors)
            jobs.push_back({ JobKind::Raw, c.profile, c.series, c.selector + d, c.selector });
    }
    for (std::size_t pi = 0; pi < profiles.size(); ++pi)
        for (std::size_t si = 0; si < profiles[pi].series.size(); ++si) {
            const ProfileSeries& ps = profiles[pi].series[si];
            if (!present.count(ps.metric))
                continue;
            if (engine::isErrorMetric(ps.measures)) {
                // Every series' current value marks its link end as measured (zero errors is a
                // measurement, a missing counter is not)...
                jobs.push_back({ JobKind::ErrorAll, pi, si, ps.metric, {} });
                // ...and only the series that changed are read raw (stage 2).
                jobs.push_back({ JobKind::ErrorChanged, pi, si, "changes(" + ps.metric + w + ") > 0", {} });
            } else if (incremental)
                continue;
            else if (options.senderSideOnly && ps.measures == engine::TelemetryMetric::RxBytes)
                // Labels only (one point per series): stage 2 reads the rx series no tx series covers.
                jobs.push_back({ JobKind::RxLabels, pi, si, "count_over_time(" + ps.metric + w + ")", {} });
            else
                jobs.push_back({ JobKind::Raw, pi, si, ps.metric + w, ps.metric });
        }
    jobs.push_back({ JobKind::Up, 0, 0, "up == 0", {} });
    for (std::size_t pi = 0; pi < profiles.size(); ++pi)
        for (std::size_t hi = 0; hi < profiles[pi].health.size(); ++hi) {
            const ProfileHealth& h = profiles[pi].health[hi];
            if (present.count(h.metric))
                jobs.push_back({ JobKind::Health, pi, hi, h.metric + " < " + std::to_string(h.unhealthyBelow), {} });
        }

    int done = 0;
    int total = int(jobs.size());
    auto runStage = [&](const std::vector<Job>& stage) {
        std::vector<std::string> exprs;
        for (const auto& j : stage)
            exprs.push_back(j.expr);
        out.requests += int(stage.size());
        return client.queryMany(exprs, endS, parallel, [&](std::size_t) {
            if (progress)
                progress(++done, total);
        });
    };
    auto results = runStage(jobs);
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (!results[i])
            return results[i].status();

    std::vector<Job> stage2;
    std::vector<const PromLabels*> rxNeeded;
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            const Job& j = jobs[i];
            const PromQueryResult& res = *results[i];
            // Rx labels last: whether a receiver's rx is needed depends on every sender's tx.
            if ((j.kind == JobKind::RxLabels) != (pass == 1))
                continue;
            out.warnings.insert(out.warnings.end(), res.warnings.begin(), res.warnings.end());
            const SourceProfile& p = profiles[j.profile];
            switch (j.kind) {
            case JobKind::Raw: {
                const ProfileSeries& ps = p.series[j.series];
                for (const auto& s : res.series)
                    addMapped(out, mapping, p, ps, s, !incremental);
                if (!incremental)
                    selectors.push_back({ j.profile, j.series, j.selector });
                break;
            }
            case JobKind::ErrorAll:
                for (const auto& s : res.series)
                    addMapped(out, mapping, p, p.series[j.series], s, !incremental);
                break;
            case JobKind::ErrorChanged:
                if (!res.series.empty()) {
                    std::vector<const PromLabels*> changed;
                    for (const auto& s : res.series)
                        changed.push_back(&s.labels);
                    const std::string metric = p.series[j.series].metric;
                    stage2.push_back(
                        { JobKind::ErrorRaw, j.profile, j.series, narrowedSelector(metric, changed) + w, {} });
                }
                break;
            case JobKind::RxLabels: {
                const ProfileSeries& ps = p.series[j.series];
                rxNeeded.clear();
                for (const auto& s : res.series) {
                    std::string why;
                    const auto end = mapping.map(p, s.labels, why);
                    if (!end) {
                        ++out.seriesUnmatched;
                        if (out.unmatchedExamples.size() < 20)
                            out.unmatchedExamples.push_back(seriesName(ps.metric, s.labels) + ": " + why);
                        continue;
                    }
                    ++out.seriesMapped;
                    ++out.seriesPerProfile[p.name];
                    if (!out.data.find(end->link, 1 - end->end, engine::TelemetryMetric::TxBytes))
                        rxNeeded.push_back(&s.labels);
                }
                if (!rxNeeded.empty()) {
                    const std::string sel = narrowedSelector(ps.metric, rxNeeded);
                    stage2.push_back({ JobKind::Raw, j.profile, j.series, sel + w, sel });
                }
                break;
            }
            case JobKind::ErrorRaw:
                break;
            case JobKind::Up:
                for (const auto& s : res.series)
                    out.data.health.push_back(
                        { labelValue(s.labels, "instance") + " (job " + labelValue(s.labels, "job") + ")",
                            "scrape target down (up == 0): its series are gaps, not zeros" });
                break;
            case JobKind::Health: {
                const ProfileHealth& h = p.health[j.series];
                for (const auto& s : res.series)
                    out.data.health.push_back(
                        { labelValue(s.labels, "instance") + " " + labelValue(s.labels, h.nameLabel),
                            h.metric + " is " + std::to_string(int(s.values.empty() ? 0 : s.values[0]))
                                + ": the collector failed, every series it serves is missing" });
                break;
            }
            }
        }

    // Stage 2: raw samples of the error counters that changed and of the rx counters needed.
    if (!stage2.empty()) {
        total += int(stage2.size());
        auto results2 = runStage(stage2);
        for (std::size_t i = 0; i < stage2.size(); ++i) {
            if (!results2[i])
                return results2[i].status();
            const Job& j = stage2[i];
            const SourceProfile& p = profiles[j.profile];
            out.warnings.insert(out.warnings.end(), results2[i]->warnings.begin(), results2[i]->warnings.end());
            for (const auto& s : results2[i]->series)
                addMapped(out, mapping, p, p.series[j.series], s, false);
            if (j.kind == JobKind::Raw)
                selectors.push_back({ j.profile, j.series, j.selector });
        }
    }

    if (cache) {
        cache->url = client.options().url;
        cache->present = std::move(present);
        cache->selectors = std::move(selectors);
        cache->incremental = incremental ? cache->incremental + 1 : 0;
        cache->last = out;
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
