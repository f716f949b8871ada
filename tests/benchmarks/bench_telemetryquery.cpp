// Query -> analysed view on a backfilled 1,024-GPU TSDB served by Debian's prometheus (90 s at 1 s):
// the time to read the window of every NIC and switch port, map it onto the fabric and run every
// analysis, three ways in the same run:
//   baseline  the full fetch: every byte counter (tx and rx) raw, one request after the other;
//   fast      the sender's tx series only (rx where no tx covers a direction), requests in parallel
//             on one io_context;
//   follow    a follow-mode refresh one second later with the cache of the previous window: only
//             the appended samples are fetched.
// Also the raw server time (one GET of every tx byte counter's samples, not decoded), gzip on and
// off, and the server-side alternative: the per-port average, p99 and 1-s peak as PromQL subqueries
// (max_over_time(irate(x[3s])[W:1s]) ...). Prints best-of-3 times and ratios; asserts no wall-clock
// limit, only that every way finds the same ten alerts.

#include "engine/telemetry/telemetryanalysis.h"
#include "engine/telemetry/utilisationseries.h"
#include "importers/telemetry/telemetryfetcher.h"
#include "tests/importers/backfilledprometheus.h"

#include <QtTest>

#include <chrono>

using namespace clusterscope::engine;
using namespace clusterscope::importers;

class BenchTelemetryQuery : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void queryToView()
    {
        telemetrytest::BackfilledPrometheus server;
        FabricDesign design = telemetrytest::exampleFabric();
        const QString failed = server.start(design.graph, 90);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        auto profiles = builtinSourceProfiles();
        QVERIFY(profiles);
        using Clock = std::chrono::steady_clock;
        auto secondsSince
            = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
        const double end = double(server.endS());
        const double start = double(server.startS());
        auto makeClient = [&](bool gzip) {
            PromClientOptions o;
            o.url = "http://127.0.0.1:" + std::to_string(server.port());
            o.timeout = std::chrono::milliseconds(60000);
            o.maxAttempts = 1;
            o.gzip = gzip;
            return PromClient::create(o).value();
        };
        const PromClient plain = makeClient(false);
        const PromClient gzip = makeClient(true);
        FabricGraph graph = design.graph;
        FabricMapping mapping(graph, HostNaming {});

        // One refresh: fetch + every analysis the Live tab runs (report and tier series).
        auto refresh = [&](const PromClient& c, double s, double e, const FetchOptions& o, TelemetryCache* cache,
                           std::size_t* alerts) {
            const auto t0 = Clock::now();
            auto fetched = fetchTelemetry(c, mapping, *profiles, s, e, {}, o, cache);
            if (!fetched)
                qFatal("%s", fetched.message().c_str());
            const TelemetryReport r = analyseTelemetry(graph, fetched->data, AlertRules::defaults());
            const auto tiers = tierUtilisationSeries(graph, fetched->data);
            *alerts = r.alerts.size();
            return std::make_pair(secondsSince(t0), fetched->requests);
        };
        double best[7];
        std::fill(std::begin(best), std::end(best), 1e9);
        int requests[3] = { 0, 0, 0 };
        std::size_t rawBytes = 0;
        for (int rep = 0; rep < 3; ++rep) {
            std::size_t alerts = 0;
            // Baseline: the full sequential fetch of every series (the refresh before this change).
            auto [baseS, baseN] = refresh(plain, start, end, FetchOptions { 1, false }, nullptr, &alerts);
            QCOMPARE(alerts, std::size_t(10));
            // Fast full refresh, gzip off (loopback) and on.
            auto [fastS, fastN] = refresh(plain, start, end, {}, nullptr, &alerts);
            QCOMPARE(alerts, std::size_t(10));
            auto [fastGzS, fastGzN] = refresh(gzip, start, end, {}, nullptr, &alerts);
            QCOMPARE(alerts, std::size_t(10));
            (void)fastGzN;
            // Follow mode: the previous window (one second earlier) is cached, the refresh adds a second.
            TelemetryCache cache;
            std::size_t ignored = 0;
            refresh(plain, start - 1, end - 1, {}, &cache, &ignored);
            auto [followS, followN] = refresh(plain, start, end, {}, &cache, &alerts);
            QCOMPARE(cache.incremental, 1);
            QCOMPARE(alerts, std::size_t(10));
            // Raw server time: every tx byte counter's samples in one GET, not decoded.
            const std::string raw
                = "{__name__=~\"PortXmitDataExtended|node_infiniband_port_data_transmitted_bytes_total\"}["
                + std::to_string(server.seconds()) + "s]";
            auto t0 = Clock::now();
            auto answer = plain.get("/api/v1/query", { { "query", raw }, { "time", std::to_string(server.endS()) } });
            const double rawS = secondsSince(t0);
            QVERIFY(answer && answer->status == 200);
            rawBytes = answer->body.size();
            t0 = Clock::now();
            auto answerGz = gzip.get("/api/v1/query", { { "query", raw }, { "time", std::to_string(server.endS()) } });
            const double rawGzS = secondsSince(t0);
            QVERIFY(answerGz && answerGz->status == 200);
            // The server-side alternative: three subqueries per tx byte metric, in parallel.
            std::vector<std::string> agg;
            const std::string sub = "[" + std::to_string(server.seconds() - 1) + "s:1s]";
            for (const char* m : { "PortXmitDataExtended", "node_infiniband_port_data_transmitted_bytes_total" }) {
                const std::string rate = std::string("irate(") + m + "[3s])";
                agg.push_back("max_over_time(" + rate + sub + ")");
                agg.push_back("avg_over_time(" + rate + sub + ")");
                agg.push_back("quantile_over_time(0.99, " + rate + sub + ")");
            }
            t0 = Clock::now();
            auto aggregated = plain.queryMany(agg, end);
            const double aggS = secondsSince(t0);
            double busiestPeak = 0;
            for (const auto& r : aggregated) {
                QVERIFY2(r, r.message().c_str());
            }
            for (const auto& s : aggregated[0]->series)
                busiestPeak = std::max(busiestPeak, s.values.empty() ? 0.0 : s.values[0]);
            // The planted one-second 100 % burst on a 400 Gb/s spine port: irate sees all of it.
            QVERIFY2(std::abs(busiestPeak / 50e9 - 1.0) < 0.01, qPrintable(QString::number(busiestPeak)));
            const double times[7] = { baseS, fastS, fastGzS, followS, rawS, rawGzS, aggS };
            for (int i = 0; i < 7; ++i)
                best[i] = std::min(best[i], times[i]);
            requests[0] = baseN;
            requests[1] = fastN;
            requests[2] = followN;
        }
        std::printf(
            "live refresh of the 1,024-GPU fabric (%zu links, 90 s window at 1 s, fetch + analyses), best of 3:\n"
            "  baseline full fetch (every byte series raw, one request after the other): %.3f s, %d requests\n"
            "  fast full fetch (sender tx raw, requests in parallel): %.3f s, %d requests; ratio to baseline %.2f\n"
            "  fast full fetch with gzip:                   %.3f s\n"
            "  follow-mode refresh (+1 s, cached window):   %.3f s, %d requests; ratio to baseline %.3f\n"
            "  raw server time, one GET of every tx byte counter: %.3f s (%.1f MB), with gzip %.3f s\n"
            "  server-side alternative, avg/p99/peak subqueries of both tx metrics in parallel: %.3f s\n",
            graph.linkCount(), best[0], requests[0], best[1], requests[1], best[1] / best[0], best[2], best[3],
            requests[2], best[3] / best[0], best[4], double(rawBytes) / 1e6, best[5], best[6]);
        server.stop();
    }
};

QTEST_GUILESS_MAIN(BenchTelemetryQuery)
#include "bench_telemetryquery.moc"
