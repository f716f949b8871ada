#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "app/cli/telemetryfollow.h"
#include "engine/analysis/linkleveltext.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/core/atomicfile.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/pricebook.h"
#include "engine/telemetry/measuredvsmodelled.h"
#include "engine/telemetry/telemetryanalysis.h"
#include "importers/common/inputfile.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/telemetry/promrules.h"
#include "importers/telemetry/telemetryfetcher.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace clusterscope::app {

namespace {

    using nlohmann::json;

    std::string pct(double v)
    {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f%%", v * 100.0);
        return b;
    }

    bool parseSeconds(const std::string& s, double& out)
    {
        char* end = nullptr;
        out = std::strtod(s.c_str(), &end);
        return end && *end == '\0' && !s.empty() && std::isfinite(out);
    }

    std::string trimmed(std::string s)
    {
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
            s.pop_back();
        return s;
    }

    json reportJson(const engine::FabricGraph& g, const engine::TelemetryReport& r, const importers::TelemetryFetch& f,
        const std::vector<float>* modelled, const std::string& modelledError)
    {
        json out;
        out["window_s"] = r.windowS;
        out["sample_interval_s"] = r.sampleIntervalS;
        out["server_version"] = f.build.version;
        out["requests"] = f.requests;
        out["series_mapped"] = f.seriesMapped;
        out["series_unmatched"] = f.seriesUnmatched;
        out["unmatched_examples"] = f.unmatchedExamples;
        out["links_measured"] = r.linksMeasured;
        out["links_without_data"] = r.linksWithoutData;
        json gaps = json::array();
        for (std::size_t i = 0; i < r.gaps.size() && i < 50; ++i)
            gaps.push_back(engine::linkName(g, r.gaps[i]));
        out["links_without_data_examples"] = gaps;
        json tiers = json::array();
        for (const auto& t : r.tiers)
            tiers.push_back({ { "level", engine::toString(t.level) }, { "direction", t.direction == 0 ? "up" : "down" },
                { "links", t.links }, { "average", t.average }, { "p99_of_averages", t.p99OfAverages },
                { "peak", t.peak }, { "above_80", t.above80 }, { "peaks_at_or_above_95", t.peaksAbove95 } });
        out["tiers"] = tiers;
        json errors = json::array();
        for (const auto& e : r.errors)
            errors.push_back({ { "link", engine::linkName(g, e.link) }, { "metric", engine::toString(e.metric) },
                { "increase_a", e.increase[0] }, { "increase_b", e.increase[1] }, { "measured_a", e.measured[0] },
                { "measured_b", e.measured[1] }, { "saturated", e.saturated } });
        out["errors"] = errors;
        json pfc = json::array();
        for (const auto& p : r.pfc) {
            const auto& l = g.link(p.link);
            pfc.push_back({ { "link", engine::linkName(g, p.link) },
                { "sender", g.label(p.direction == 0 ? l.a : l.b) }, { "direction", p.direction },
                { "received_fraction", p.receivedMeasured ? json(p.receivedFraction) : json(nullptr) },
                { "sent_fraction", p.sentMeasured ? json(p.sentFraction) : json(nullptr) },
                { "peak_fraction", p.peakFraction }, { "longest_at_or_above_threshold_s", p.longestAboveS } });
        }
        out["pfc"] = pfc;
        json period;
        period["found"] = r.period.found;
        period["period_s"] = r.period.periodS;
        period["autocorrelation"] = r.period.autocorrelation;
        period["message"] = r.period.message;
        out["iteration_period"] = period;
        json health = json::array();
        for (const auto& h : r.health)
            health.push_back({ { "target", h.target }, { "message", h.message } });
        out["health"] = health;
        out["stale_series"] = r.staleSeries;
        json alerts = json::array();
        for (const auto& a : r.alerts)
            alerts.push_back(telemetryAlertJson(g, a));
        out["alerts"] = alerts;
        out["warnings"] = f.warnings;
        // Measured against the scenario model's per-link utilisation (built fabrics only).
        if (modelled) {
            json mm;
            json tiers = json::array();
            for (const auto& t : engine::compareMeasuredWithModelled(g, r, *modelled))
                tiers.push_back({ { "level", engine::toString(t.level) }, { "links", t.links },
                    { "measured_average", t.measured }, { "modelled_average", t.modelled },
                    { "measured_over_modelled", t.modelled > 0 ? json(t.measured / t.modelled) : json(nullptr) },
                    { "mean_absolute_difference", t.meanAbsoluteDifference } });
            mm["tiers"] = tiers;
            mm["definition"] = "per link the busier direction's average over the window (measured) and over one "
                               "modelled iteration (modelled); per tier the mean over links with both";
            if (!modelledError.empty())
                mm["error"] = modelledError;
            out["measured_vs_modelled"] = mm;
        }
        return out;
    }

    void printReport(std::ostream& o, const engine::TelemetryReport& r, const importers::TelemetryFetch& f)
    {
        char b[256];
        std::snprintf(b, sizeof b, "window %.0f s, samples every %.3g s, Prometheus %s, %d requests\n", r.windowS,
            r.sampleIntervalS, f.build.version.c_str(), f.requests);
        o << b;
        o << "series: " << f.seriesMapped << " mapped to link ends, " << f.seriesUnmatched << " unmatched\n";
        for (const auto& u : f.unmatchedExamples)
            o << "  unmatched: " << u << "\n";
        o << "links: " << r.linksMeasured << " measured, " << r.linksWithoutData << " without data (gaps, not zeros)\n";
        o << "utilisation (average of links / p99 of averages / largest 1-interval peak; guideline: average 60-80%, "
             "peaks < 95%):\n";
        for (const auto& t : r.tiers)
            o << "  " << engine::linkLevelText(t.level) << (t.direction == 0 ? " up  " : " down") << "  " << t.links
              << " links  avg " << pct(t.average) << "  p99 " << pct(t.p99OfAverages) << "  peak " << pct(t.peak)
              << "  avg>80%: " << t.above80 << "  peak>=95%: " << t.peaksAbove95 << "\n";
        o << r.period.message << "\n";
        for (const auto& h : r.health)
            o << "health: " << h.target << ": " << h.message << "\n";
        o << "alerts: " << r.alerts.size() << "\n";
        for (const auto& a : r.alerts)
            o << "  [" << engine::toString(a.severity) << "] " << a.rule << ": " << a.message << "\n";
        for (const auto& w : f.warnings)
            o << "server warning: " << w << "\n";
    }

} // namespace

int runTelemetryCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(args, { "json", "insecure" },
        { "url", "scenario", "fabric", "start", "end", "live", "snapshot", "rules", "profile", "host-names",
            "device-prefix", "bearer-token-file", "user", "password-file", "timeout", "catalog", "every", "count" });
    if (!cl)
        return cliUsageError(io, "telemetry", cl.message());
    if (!cl->positionals().empty())
        return cliUsageError(io, "telemetry", "unexpected argument \"" + cl->positionals().front() + "\" (see --help)");
    if (!!cl->value("scenario") == !!cl->value("fabric"))
        return cliUsageError(
            io, "telemetry", "give the fabric the telemetry belongs to: --scenario FILE or --fabric IBNETDISCOVER");

    // The fabric: built from a scenario (with the model's per-link utilisation), or imported.
    engine::FabricGraph graph;
    std::optional<std::vector<float>> modelled;
    std::string modelledError;
    if (auto path = cl->value("scenario")) {
        auto catalog = loadCatalogForCli(*cl, io);
        if (!catalog)
            return 1;
        auto scenario = loadValidScenarioForCli(*path, *catalog, io);
        if (!scenario)
            return 1;
        // The analysis' fabric: its link ids are the ones the model's load is indexed by.
        engine::AnalysisOptions ao;
        ao.runSearch = false;
        ao.priceFabric = false;
        ao.timeContention = false;
        const engine::ScenarioAnalysis analysis
            = engine::analyseScenario(*scenario, *catalog, engine::PriceBook {}, ao);
        if (analysis.fabric) {
            graph = analysis.fabric->graph;
            modelled = analysis.load.linkUtilisation;
            if (!analysis.load.routed)
                modelledError = analysis.load.error.empty()
                    ? (analysis.trainingError.empty() ? "the model did not route the traffic" : analysis.trainingError)
                    : analysis.load.error;
        } else {
            auto design = engine::buildFabric(*scenario, *catalog);
            if (!design) {
                io.err << *path << ": " << design.message() << "\n";
                return 1;
            }
            graph = std::move(design->graph);
        }
    } else {
        auto fabric = importers::importIbnetdiscoverFile(*cl->value("fabric"));
        if (!fabric) {
            io.err << fabric.message() << "\n";
            return 1;
        }
        graph = std::move(fabric->graph);
    }
    auto naming = importers::HostNaming::parse(cl->value("host-names").value_or("node:3:1"));
    if (!naming)
        return cliUsageError(io, "telemetry", naming.message());
    if (auto p = cl->value("device-prefix"))
        naming->devicePrefix = *p;
    importers::FabricMapping mapping(graph, *naming);

    auto profiles = importers::builtinSourceProfiles();
    if (!profiles) {
        io.err << profiles.message() << "\n";
        return 1;
    }
    if (auto p = cl->value("profile")) {
        auto extra = importers::loadSourceProfileFile(*p);
        if (!extra) {
            io.err << extra.message() << "\n";
            return 1;
        }
        std::erase_if(*profiles, [&](const importers::SourceProfile& x) { return x.name == extra->name; });
        profiles->push_back(std::move(extra.value()));
    }
    const engine::AlertRules rules = engine::AlertRules::defaults();

    if (auto out = cl->value("rules")) {
        const std::string text = importers::generatePrometheusRules(graph, *profiles, rules);
        if (auto s = engine::writeFileAtomically(*out, text); !s) {
            io.err << s.message() << "\n";
            return 1;
        }
        io.out << "wrote " << *out << " (" << text.size() << " bytes); check it with: promtool check rules " << *out
               << "\n";
        if (!cl->value("url") && !cl->value("snapshot"))
            return 0;
    }

    importers::TelemetryFetch fetched;
    if (auto snap = cl->value("snapshot")) {
        auto f = importers::attachSnapshot(*snap, mapping, *profiles);
        if (!f) {
            io.err << f.message() << "\n";
            return 1;
        }
        fetched = std::move(f.value());
    } else {
        const auto url = cl->value("url");
        if (!url)
            return cliUsageError(
                io, "telemetry", "give --url URL (a Prometheus-compatible server), --snapshot FILE or --rules OUT");
        importers::PromClientOptions o;
        o.url = *url;
        o.insecureTls = cl->flag("insecure");
        if (auto f = cl->value("bearer-token-file")) {
            auto t = importers::readInputFile(*f);
            if (!t) {
                io.err << t.message() << "\n";
                return 1;
            }
            o.bearerToken = trimmed(*t);
        }
        if (auto u = cl->value("user")) {
            o.basicUser = *u;
            if (auto f = cl->value("password-file")) {
                auto t = importers::readInputFile(*f);
                if (!t) {
                    io.err << t.message() << "\n";
                    return 1;
                }
                o.basicPassword = trimmed(*t);
            }
        }
        if (auto t = cl->value("timeout")) {
            double s = 0;
            if (!parseSeconds(*t, s) || s <= 0)
                return cliUsageError(io, "telemetry", "--timeout wants seconds > 0, got \"" + *t + "\"");
            o.timeout = std::chrono::milliseconds(std::llround(s * 1000));
        }
        auto client = importers::PromClient::create(o);
        if (!client) {
            io.err << client.message() << "\n";
            return 1;
        }
        double start = 0, end = 0;
        if ((cl->value("every") || cl->value("count")) && !cl->value("live"))
            return cliUsageError(io, "telemetry", "--every and --count follow a --live window: give --live SECONDS");
        if (auto live = cl->value("live")) {
            double seconds = 0;
            if (!parseSeconds(*live, seconds) || seconds < 1)
                return cliUsageError(io, "telemetry", "--live wants a window in seconds >= 1, got \"" + *live + "\"");
            if (cl->value("every") || cl->value("count")) {
                TelemetryFollowOptions follow;
                follow.windowS = seconds;
                follow.json = cl->flag("json");
                if (auto e = cl->value("every"); e && (!parseSeconds(*e, follow.everyS) || follow.everyS < 1))
                    return cliUsageError(io, "telemetry", "--every wants seconds >= 1, got \"" + *e + "\"");
                if (auto k = cl->value("count")) {
                    double n = 0;
                    if (!parseSeconds(*k, n) || n < 1 || n != std::floor(n))
                        return cliUsageError(io, "telemetry", "--count wants a whole number >= 1, got \"" + *k + "\"");
                    follow.count = int(n);
                }
                return followTelemetry(*client, graph, mapping, *profiles, rules, follow, io);
            }
            end = std::floor(
                std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
            start = end - seconds;
        } else {
            if (!cl->value("start") || !cl->value("end"))
                return cliUsageError(
                    io, "telemetry", "give the window: --start T --end T (Unix seconds) or --live SECONDS");
            if (!parseSeconds(*cl->value("start"), start) || !parseSeconds(*cl->value("end"), end))
                return cliUsageError(io, "telemetry", "--start and --end want Unix seconds");
        }
        auto f = importers::fetchTelemetry(*client, mapping, *profiles, start, end);
        if (!f) {
            io.err << f.message() << "\n";
            return 1;
        }
        fetched = std::move(f.value());
    }
    if (cl->value("snapshot")) {
        // One sample per series: no rates, but the error counters since they were last cleared
        // (the ibqueryerrors view), per link end.
        json audit = json::array();
        fetched.data.forEach([&](engine::LinkId link, int end, engine::TelemetryMetric m, const engine::RawSeries& s) {
            if (engine::isErrorMetric(m) && !s.values.empty() && s.values.back() > 0)
                audit.push_back({ { "link", engine::linkName(graph, link) }, { "end", end == 0 ? "a" : "b" },
                    { "metric", engine::toString(m) }, { "value", s.values.back() }, { "series", s.source } });
        });
        std::sort(audit.begin(), audit.end(), [](const json& a, const json& b) { return a["series"] < b["series"]; });
        if (cl->flag("json")) {
            json out;
            out["series_mapped"] = fetched.seriesMapped;
            out["series_unmatched"] = fetched.seriesUnmatched;
            out["unmatched_examples"] = fetched.unmatchedExamples;
            out["error_counters"] = audit;
            io.out << out.dump(2) << "\n";
        } else {
            io.out << *cl->value("snapshot") << ": " << fetched.seriesMapped << " series mapped to link ends, "
                   << fetched.seriesUnmatched << " unmatched\n";
            for (const auto& u : fetched.unmatchedExamples)
                io.out << "  unmatched: " << u << "\n";
            io.out << "non-zero error counters (since last cleared): " << audit.size() << "\n";
            for (const auto& a : audit)
                io.out << "  " << a["link"].get<std::string>() << " (end " << a["end"].get<std::string>()
                       << "): " << a["metric"].get<std::string>() << " = " << a["value"].get<double>() << "\n";
        }
        return 0;
    }
    const engine::TelemetryReport report = engine::analyseTelemetry(graph, fetched.data, rules);
    if (cl->flag("json"))
        io.out << reportJson(graph, report, fetched, modelled ? &*modelled : nullptr, modelledError).dump(2) << "\n";
    else {
        printReport(io.out, report, fetched);
        if (modelled) {
            io.out << "measured vs modelled (per link the busier direction; measured over the window, modelled over "
                      "one iteration):\n";
            for (const auto& t : engine::compareMeasuredWithModelled(graph, report, *modelled))
                io.out << "  " << engine::linkLevelText(t.level) << "  " << t.links << " links  measured "
                       << pct(t.measured) << "  modelled " << pct(t.modelled) << "  mean |difference| "
                       << pct(t.meanAbsoluteDifference) << "\n";
            if (!modelledError.empty())
                io.out << "  model: " << modelledError << "\n";
        }
    }
    return 0;
}

} // namespace clusterscope::app
