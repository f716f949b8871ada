#include "app/cli/telemetryfollow.h"

#include "importers/telemetry/telemetryfetcher.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <map>
#include <ostream>
#include <thread>

namespace clusterscope::app {

namespace {

    using nlohmann::json;

    std::atomic<bool> g_interrupted { false };
    static_assert(std::atomic<bool>::is_always_lock_free); // set from a signal handler

    extern "C" void onSignal(int) { g_interrupted.store(true); }

    double nowS() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

    std::string utc(double s)
    {
        const std::time_t t = static_cast<std::time_t>(std::floor(s));
        std::tm tm {};
        gmtime_r(&t, &tm);
        char b[32];
        std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
        return b;
    }

    std::string alertKey(const engine::Alert& a)
    {
        return a.rule + "|" + std::to_string(a.link) + "|" + std::to_string(a.node) + "|" + std::to_string(a.direction);
    }

    // Restores the previous handlers when the rounds end.
    struct SignalGuard {
        using Handler = void (*)(int);
        Handler previousInt, previousTerm;
        SignalGuard()
        {
            g_interrupted.store(false);
            previousInt = std::signal(SIGINT, onSignal);
            previousTerm = std::signal(SIGTERM, onSignal);
        }
        ~SignalGuard()
        {
            std::signal(SIGINT, previousInt);
            std::signal(SIGTERM, previousTerm);
        }
    };

} // namespace

json telemetryAlertJson(const engine::FabricGraph& g, const engine::Alert& a)
{
    return { { "rule", a.rule }, { "kind", engine::toString(a.kind) }, { "severity", engine::toString(a.severity) },
        { "link", a.link == engine::kNoId ? json(nullptr) : json(engine::linkName(g, a.link)) },
        { "node", a.node == engine::kNoId ? json(nullptr) : json(g.label(a.node)) }, { "direction", a.direction },
        { "value", a.value }, { "message", a.message } };
}

int followTelemetry(importers::PromClient& client, const engine::FabricGraph& graph,
    const importers::FabricMapping& mapping, const std::vector<importers::SourceProfile>& profiles,
    const engine::AlertRules& rules, const TelemetryFollowOptions& o, CliIo io)
{
    SignalGuard guard;
    client.setStopFlag(&g_interrupted); // an interrupt also abandons the query in progress
    std::map<std::string, engine::Alert> active;
    int failed = 0;
    int round = 0;
    const auto first = std::chrono::steady_clock::now();
    // Each round after the first fetches only the samples appended since the previous window.
    importers::TelemetryCache cache;
    while (!g_interrupted.load() && (o.count <= 0 || round < o.count)) {
        // Rounds start on a fixed grid; a round longer than the interval starts the next at once.
        const auto due = first + std::chrono::milliseconds(std::llround(o.everyS * 1000.0 * round));
        while (!g_interrupted.load() && std::chrono::steady_clock::now() < due)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (g_interrupted.load())
            break;
        ++round;
        const auto t0 = std::chrono::steady_clock::now();
        const double end = std::floor(nowS());
        const double start = end - o.windowS;
        auto fetched = importers::fetchTelemetry(client, mapping, profiles, start, end, {}, {}, &cache);
        if (!fetched) {
            if (g_interrupted.load())
                break;
            ++failed;
            if (o.json)
                io.out << json { { "round", round }, { "time", utc(end) }, { "error", fetched.message() } }.dump()
                       << "\n";
            io.err << "round " << round << ": " << fetched.message() << "\n";
            io.out.flush();
            continue;
        }
        const engine::TelemetryReport r = engine::analyseTelemetry(graph, fetched->data, rules);
        const double refreshS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::map<std::string, engine::Alert> now;
        for (const auto& a : r.alerts)
            now.emplace(alertKey(a), a);
        std::vector<const engine::Alert*> raised, cleared;
        for (const auto& [key, a] : now)
            if (!active.count(key))
                raised.push_back(&a);
        for (const auto& [key, a] : active)
            if (!now.count(key))
                cleared.push_back(&a);
        if (o.json) {
            json line;
            line["round"] = round;
            line["time"] = utc(end);
            line["window_start_s"] = start;
            line["window_end_s"] = end;
            line["refresh_s"] = refreshS;
            line["links_measured"] = r.linksMeasured;
            line["links_without_data"] = r.linksWithoutData;
            line["active_alerts"] = now.size();
            json up = json::array(), down = json::array();
            for (const auto* a : raised)
                up.push_back(telemetryAlertJson(graph, *a));
            for (const auto* a : cleared)
                down.push_back(telemetryAlertJson(graph, *a));
            line["raised"] = up;
            line["cleared"] = down;
            io.out << line.dump() << "\n";
        } else {
            char b[160];
            std::snprintf(b, sizeof b, "%s round %d: %zu links measured, %zu alerts active (+%zu -%zu), %.2f s\n",
                utc(end).c_str(), round, r.linksMeasured, now.size(), raised.size(), cleared.size(), refreshS);
            io.out << b;
            for (const auto* a : raised)
                io.out << "  + [" << engine::toString(a->severity) << "] " << a->rule << ": " << a->message << "\n";
            for (const auto* a : cleared)
                io.out << "  - cleared " << a->rule << ": " << a->message << "\n";
        }
        io.out.flush();
        active = std::move(now);
    }
    client.setStopFlag(nullptr);
    if (g_interrupted.load() && !o.json)
        io.out << "interrupted after " << round << " rounds\n";
    io.out.flush();
    return failed > 0 ? 1 : 0;
}

} // namespace clusterscope::app
