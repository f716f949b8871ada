// End to end on real components: a 1,024-GPU cluster's counters (built from the H100 example's
// fabric, planted faults) are written as OpenMetrics, backfilled with Debian's
// `promtool tsdb create-blocks-from openmetrics`, served by a real `prometheus` on a free loopback
// port, read back through PromClient and analysed. Every planted fault must be found on the right
// link, and nothing else may raise an alert. The CLI's telemetry command runs on the same server,
// and the generated rules file must pass `promtool check rules`.

#include "engine/telemetry/telemetryanalysis.h"
#include "engine/telemetry/utilisationseries.h"
#include "importers/telemetry/nicthroughput.h"
#include "importers/telemetry/promrules.h"
#include "importers/telemetry/telemetryfetcher.h"
#include "tests/importers/backfilledprometheus.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <ctime>
#include <set>

using namespace clusterscope;
using namespace clusterscope::engine;
using namespace clusterscope::importers;

class TestTelemetryBackfill : public QObject {
    Q_OBJECT
    telemetrytest::BackfilledPrometheus m_server;
    const int m_seconds = 90;
    FabricDesign m_design;

private slots:
    void initTestCase()
    {
        m_design = telemetrytest::exampleFabric();
        const QString failed = m_server.start(m_design.graph, m_seconds);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }

    void cleanupTestCase() { m_server.stop(); }

    void plantedFaultsFoundNoFalseAlarms()
    {
        FabricGraph graph = m_design.graph;
        FabricMapping mapping(graph, HostNaming {});
        auto profiles = builtinSourceProfiles();
        QVERIFY2(profiles, profiles.message().c_str());
        const auto client = telemetrytest::client(m_server.port());
        QElapsedTimer t;
        t.start();
        auto fetched = fetchTelemetry(
            client, mapping, *profiles, double(m_server.startS()), double(m_server.startS() + m_seconds - 1));
        QVERIFY2(fetched, fetched.message().c_str());
        const double fetchS = t.elapsed() / 1000.0;
        const TelemetryReport r = analyseTelemetry(graph, fetched->data, AlertRules::defaults());
        qInfo("query + analysis: %.2f s fetch (%d requests), %.2f s total; %zu series mapped", fetchS,
            fetched->requests, t.elapsed() / 1000.0, fetched->seriesMapped);
        QCOMPARE(fetched->seriesUnmatched, std::size_t(0));
        QVERIFY(fetched->build.major >= 2);

        // Gaps are gaps: the link without series and the UFM appliance's 4 leaf links (the example
        // reserves a node slot for it; it runs no exporter), nothing else.
        std::size_t ufmLinks = 0, uplinks = 0;
        for (LinkId id = 0; id < graph.linkCount(); ++id) {
            ufmLinks += graph.level(id) == LinkLevel::NodeLeaf && graph.node(graph.link(id).a).kind == NodeKind::Host;
            uplinks += graph.level(id) == LinkLevel::LeafSpine;
        }
        QCOMPARE(ufmLinks, std::size_t(4));
        QCOMPARE(r.linksWithoutData, ufmLinks + 1);
        QVERIFY(std::find(r.gaps.begin(), r.gaps.end(), m_server.faults().gapLink) != r.gaps.end());
        QCOMPARE(r.linksMeasured, std::size_t(1024) + uplinks - 1);
        QVERIFY2(r.period.found, r.period.message.c_str());
        QCOMPARE(r.period.periodS, m_server.faults().periodS);

        // Expected alerts: rule -> links.
        std::multiset<std::pair<std::string, LinkId>> got;
        for (const auto& a : r.alerts) {
            got.emplace(a.rule, a.link);
            qInfo("%s [%s] %s", a.rule.c_str(), toString(a.severity), a.message.c_str());
        }
        const std::multiset<std::pair<std::string, LinkId>> expected {
            { "LinkPeakUtilisation", m_server.faults().hotUplink },
            { "LinkBurst", m_server.faults().hotUplink },
            { "LinkBurst", m_server.faults().burstLink },
            { "LinkErrors", m_server.faults().symbolLink },
            { "LinkErrors", m_server.faults().oneEnded },
            { "LinkDiscards", m_server.faults().hotUplink },
            { "LinkDown", m_server.faults().resetLink },
            { "UplinkImbalance", m_server.faults().hotUplink },
            { "PeerOutlier", m_server.faults().hotUplink },
            { "CounterReset", m_server.faults().resetLink },
        };
        QCOMPARE(got, expected);
        // Directions and ends: the hot uplink is hot upwards (leaf -> spine), the burst downwards.
        for (const auto& a : r.alerts) {
            if (a.rule == "LinkPeakUtilisation")
                QCOMPARE(a.direction, 0);
            if (a.rule == "LinkBurst" && a.link == m_server.faults().burstLink)
                QCOMPARE(a.direction, 1);
            if (a.rule == "LinkErrors" && a.link == m_server.faults().oneEnded)
                QVERIFY2(a.message.find("only") != std::string::npos, a.message.c_str());
            if (a.rule == "LinkErrors" && a.link == m_server.faults().symbolLink)
                QVERIFY2(a.message.find("both ends") != std::string::npos, a.message.c_str());
        }
        // Exact counts (no extrapolation): symbol errors +5 every 7 s -> 12 steps = 60 at each end.
        for (const auto& e : r.errors)
            if (e.link == m_server.faults().symbolLink) {
                QCOMPARE(e.increase[0], 60.0);
                QCOMPARE(e.increase[1], 60.0);
            }
        const auto& hot = r.utilisation[m_server.faults().hotUplink][0];
        QVERIFY(std::abs(hot.peak - 0.97) < 1e-6);
        QCOMPARE(hot.longestAboveS, 2.0);
        QVERIFY(std::abs(r.utilisation[m_server.faults().burstLink][1].peak - 1.0) < 1e-6);
    }

    // The fast refresh (sender-side byte series only, requests in parallel, and a follow-mode refresh
    // that fetches only the appended samples into the cache) sees the same samples as the sequential
    // full fetch of every series, so every number agrees (to 1e-12: only summation order may differ).
    void fastRefreshMatchesFullFetch()
    {
        FabricGraph graph = m_design.graph;
        FabricMapping mapping(graph, HostNaming {});
        auto profiles = builtinSourceProfiles();
        QVERIFY(profiles);
        const auto client = telemetrytest::client(m_server.port());
        const double start = double(m_server.startS()) + 10, end = double(m_server.startS() + m_seconds - 1);
        auto full = fetchTelemetry(client, mapping, *profiles, start, end, {}, FetchOptions { 1, false });
        QVERIFY2(full, full.message().c_str());
        auto fast = fetchTelemetry(client, mapping, *profiles, start, end);
        QVERIFY2(fast, fast.message().c_str());
        // Follow mode: the window 7 s earlier fills the cache, the refresh adds the last 7 s.
        TelemetryCache cache;
        auto earlier = fetchTelemetry(client, mapping, *profiles, start - 7, end - 7, {}, {}, &cache);
        QVERIFY2(earlier, earlier.message().c_str());
        QCOMPARE(cache.incremental, 0);
        auto followed = fetchTelemetry(client, mapping, *profiles, start, end, {}, {}, &cache);
        QVERIFY2(followed, followed.message().c_str());
        QCOMPARE(cache.incremental, 1);
        // A window that does not overlap the cached one is fetched whole.
        auto elsewhere = fetchTelemetry(client, mapping, *profiles, start - 200, end - 200, {}, {}, &cache);
        QVERIFY(elsewhere);
        QCOMPARE(cache.incremental, 0);

        // No more series read (this cluster exports tx counters only; tst_telemetrylive's NICs have rx
        // counters whose senders, the switch ports, export nothing: those are read).
        QVERIFY2(fast->data.seriesCount() <= full->data.seriesCount(),
            qPrintable(QStringLiteral("%1 vs %2").arg(fast->data.seriesCount()).arg(full->data.seriesCount())));
        QCOMPARE(fast->seriesMapped, full->seriesMapped);
        QCOMPARE(followed->seriesMapped, full->seriesMapped);
        QCOMPARE(followed->data.seriesCount(), fast->data.seriesCount());

        const TelemetryReport a = analyseTelemetry(graph, full->data, AlertRules::defaults());
        const auto tiersA = tierUtilisationSeries(graph, full->data);
        for (const TelemetryFetch* f : { &fast.value(), &followed.value() }) {
            const TelemetryReport b = analyseTelemetry(graph, f->data, AlertRules::defaults());
            QCOMPARE(b.alerts.size(), a.alerts.size());
            for (std::size_t i = 0; i < a.alerts.size(); ++i) {
                QCOMPARE(b.alerts[i].rule, a.alerts[i].rule);
                QCOMPARE(b.alerts[i].link, a.alerts[i].link);
                QCOMPARE(b.alerts[i].message, a.alerts[i].message);
            }
            QCOMPARE(b.linksMeasured, a.linksMeasured);
            QCOMPARE(b.linksWithoutData, a.linksWithoutData);
            QCOMPARE(b.errors.size(), a.errors.size());
            for (std::size_t i = 0; i < a.errors.size(); ++i)
                QVERIFY(b.errors[i].link == a.errors[i].link && b.errors[i].increase == a.errors[i].increase);
            QCOMPARE(b.period.found, a.period.found);
            QCOMPARE(b.period.periodS, a.period.periodS);
            QCOMPARE(b.sampleIntervalS, a.sampleIntervalS);
            QCOMPARE(b.utilisation.size(), a.utilisation.size());
            for (std::size_t id = 0; id < a.utilisation.size(); ++id)
                for (int dir = 0; dir < 2; ++dir) {
                    const auto& x = a.utilisation[id][std::size_t(dir)];
                    const auto& y = b.utilisation[id][std::size_t(dir)];
                    QCOMPARE(y.hasData, x.hasData);
                    QVERIFY(std::abs(y.average - x.average) <= 1e-12 && std::abs(y.p99 - x.p99) <= 1e-12
                        && std::abs(y.peak - x.peak) <= 1e-12 && y.coverage == x.coverage && y.resets == x.resets
                        && y.longestAboveS == x.longestAboveS);
                }
            const auto tiersB = tierUtilisationSeries(graph, f->data);
            QCOMPARE(tiersB.size(), tiersA.size());
            for (std::size_t t = 0; t < tiersA.size(); ++t) {
                QCOMPARE(tiersB[t].peak.values.size(), tiersA[t].peak.values.size());
                for (std::size_t k = 0; k < tiersA[t].peak.values.size(); ++k) {
                    const double pa = tiersA[t].peak.values[k], pb = tiersB[t].peak.values[k];
                    const double ma = tiersA[t].average.values[k], mb = tiersB[t].average.values[k];
                    QVERIFY((std::isnan(pa) && std::isnan(pb)) || std::abs(pa - pb) <= 1e-12);
                    QVERIFY((std::isnan(ma) && std::isnan(mb)) || std::abs(ma - mb) <= 1e-12);
                }
            }
        }
        qInfo("requests: full %d, fast %d, follow-mode refresh %d; byte series read: full %zu, fast %zu",
            full->requests, fast->requests, followed->requests, full->data.seriesCount(), fast->data.seriesCount());
    }

    // An imported run recorded with wall-clock times: its window, and the NIC throughput of every host
    // over it from the server (rate and per-host sum in PromQL), gaps where the server has no samples.
    void nicThroughputOverARunsWindow()
    {
        auto profiles = builtinSourceProfiles();
        QVERIFY(profiles);
        Run run;
        RankTrace rank;
        rank.rank = 0;
        const std::int64_t t0 = (m_server.startS() + 30) * 1000000000LL;
        const long long lastSample = m_server.startS() + m_seconds - 1;
        GpuActivity kernel;
        kernel.startNs = t0;
        kernel.endNs = t0 + 5000000000LL;
        rank.activities.push_back(kernel);
        rank.steps.push_back({ 1, t0, (lastSample + 20) * 1000000000LL }); // ends 20 s after the data
        run.ranks.push_back(rank);
        auto window = runWallClockWindowS(run);
        QVERIFY2(window, window.message().c_str());
        QCOMPARE(window->first, double(m_server.startS() + 30));
        QCOMPARE(window->second, double(lastSample + 20));
        const auto client = telemetrytest::client(m_server.port());
        auto nic = fetchNicThroughput(client, *profiles, window->first, window->second, 1.0);
        QVERIFY2(nic, nic.message().c_str());
        QCOMPARE(nic->hosts.size(), std::size_t(128));
        QCOMPARE(nic->metric, std::string("node_infiniband_port_data_transmitted_bytes_total"));
        // 8 NICs per host; communication phases at 80 % (+0-2 %) of the NIC rate, 4 % between them.
        double nicBytesPerS = 0;
        for (LinkId id = 0; id < m_design.graph.linkCount() && nicBytesPerS == 0; ++id)
            if (m_design.graph.level(id) == LinkLevel::NodeLeaf
                && m_design.graph.node(m_design.graph.link(id).a).kind == NodeKind::Nic)
                nicBytesPerS = m_design.graph.link(id).gbps * 1e9 / 8;
        for (const auto& h : nic->hosts) {
            QVERIFY2(h.host.rfind("node", 0) == 0 && h.host.find(':') == std::string::npos, h.host.c_str());
            double peak = 0, low = 1e30;
            for (std::size_t k = 0; k < h.txBytesPerS.size(); ++k) {
                const double t = nic->startS + double(k) * nic->stepS;
                const double v = h.txBytesPerS[k];
                if (t <= double(lastSample)) {
                    QVERIFY2(std::isfinite(v),
                        qPrintable(QStringLiteral("%1 at +%2 s").arg(QString::fromStdString(h.host)).arg(k)));
                    peak = std::max(peak, v);
                    low = std::min(low, v);
                } else if (t > double(lastSample) + 3)
                    QVERIFY2(std::isnan(v), "after the data ends the points are gaps, not zeros");
            }
            QVERIFY2(peak > 8 * 0.79 * nicBytesPerS && peak < 8 * 0.83 * nicBytesPerS,
                qPrintable(QStringLiteral("%1 peak %2").arg(QString::fromStdString(h.host)).arg(peak)));
            QVERIFY(low < 8 * 0.07 * nicBytesPerS);
        }
        // A trace with times relative to its start cannot be laid beside telemetry: said so.
        Run relative = run;
        relative.ranks[0].activities[0].startNs = 1000;
        relative.ranks[0].activities[0].endNs = 2000;
        relative.ranks[0].steps.clear();
        auto none = runWallClockWindowS(relative);
        QVERIFY(!none);
        QVERIFY2(none.message().find("relative") != std::string::npos, none.message().c_str());
    }

    void cliAgrees()
    {
        QProcess cli;
        cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("telemetry"), QStringLiteral("--url"),
                QStringLiteral("http://127.0.0.1:%1").arg(m_server.port()), QStringLiteral("--scenario"),
                QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/llama3-70b-1024-h100.json"),
                QStringLiteral("--start"), QString::number(m_server.startS()), QStringLiteral("--end"),
                QString::number(m_server.startS() + m_seconds - 1), QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        const QJsonObject o = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(o.value(QStringLiteral("links_without_data")).toInt(), 5);
        QCOMPARE(
            o.value(QStringLiteral("iteration_period")).toObject().value(QStringLiteral("period_s")).toDouble(), 6.0);
        QCOMPARE(o.value(QStringLiteral("alerts")).toArray().size(), 10);
        // Measured against the model: the planted NIC traffic (80 % for 2 s of every 6 s, 4 % else:
        // a 29.7 % average, 2 % jitter) is what the NIC tier measures; the example's model gives its own.
        const QJsonArray mm
            = o.value(QStringLiteral("measured_vs_modelled")).toObject().value(QStringLiteral("tiers")).toArray();
        QVERIFY(mm.size() >= 2);
        const QJsonObject nicTier = mm.at(0).toObject();
        QCOMPARE(nicTier.value(QStringLiteral("level")).toString(), QStringLiteral("node_leaf"));
        QCOMPARE(nicTier.value(QStringLiteral("links")).toInt(), 1024);
        const double measured = nicTier.value(QStringLiteral("measured_average")).toDouble();
        QVERIFY2(std::abs(measured - (2 * 0.80 + 4 * 0.04) / 6 * 1.01) < 0.01, qPrintable(QString::number(measured)));
        QVERIFY(nicTier.value(QStringLiteral("modelled_average")).toDouble() > 0);
        qInfo("NIC tier: measured %.3f, modelled %.3f", measured,
            nicTier.value(QStringLiteral("modelled_average")).toDouble());
        const QString hot = QString::fromStdString(linkName(m_design.graph, m_server.faults().hotUplink));
        bool found = false;
        for (const auto& a : o.value(QStringLiteral("alerts")).toArray())
            found = found
                || (a.toObject().value(QStringLiteral("rule")).toString() == QStringLiteral("LinkPeakUtilisation")
                    && a.toObject().value(QStringLiteral("link")).toString() == hot);
        QVERIFY2(found, qPrintable(hot));
    }

    void rulesPassPromtool()
    {
        FabricGraph graph = m_design.graph;
        FabricMapping mapping(graph, HostNaming {});
        auto profiles = builtinSourceProfiles();
        QVERIFY(profiles);
        const std::string text = generatePrometheusRules(graph, *profiles, AlertRules::defaults());
        const QString path = m_server.filePath(QStringLiteral("rules.yml"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(text));
        f.close();
        QProcess promtool;
        promtool.setProcessChannelMode(QProcess::MergedChannels);
        promtool.start(QStringLiteral("promtool"), { QStringLiteral("check"), QStringLiteral("rules"), path });
        QVERIFY(promtool.waitForFinished(60000));
        const QByteArray log = promtool.readAll();
        QVERIFY2(promtool.exitCode() == 0, log.constData());
        QVERIFY2(log.contains("SUCCESS"), log.constData());
        // Per pod: the example's 5 scalable units.
        QVERIFY(text.find("name: clusterscope_pod3") != std::string::npos);
        QVERIFY(text.find("alert: ClusterScopeLinkPeakUtilisation") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTelemetryBackfill)
#include "tst_telemetrybackfill.moc"
