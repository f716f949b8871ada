// End to end on real components: a 1,024-GPU cluster's counters (built from the H100 example's
// fabric, planted faults) are written as OpenMetrics, backfilled with Debian's
// `promtool tsdb create-blocks-from openmetrics`, served by a real `prometheus` on a free loopback
// port, read back through PromClient and analysed. Every planted fault must be found on the right
// link, and nothing else may raise an alert. The CLI's telemetry command runs on the same server,
// and the generated rules file must pass `promtool check rules`.

#include "engine/telemetry/telemetryanalysis.h"
#include "importers/telemetry/promrules.h"
#include "importers/telemetry/telemetryfetcher.h"
#include "tests/importers/telemetrytestsupport.h"

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
    QTemporaryDir m_dir;
    telemetrytest::Child m_prometheus;
    int m_port = 0;
    long long m_start = 0;
    const int m_seconds = 90;
    FabricDesign m_design;
    telemetrytest::PlantedFaults m_faults;

private slots:
    void initTestCase()
    {
        const QString missing
            = telemetrytest::missingPrograms({ QStringLiteral("prometheus"), QStringLiteral("promtool") });
        if (!missing.isEmpty())
            QFAIL(qPrintable(missing));
        QVERIFY(m_dir.isValid());
        m_design = telemetrytest::exampleFabric();
        // Inside one 2-hour block in the past (promtool cuts blocks on 2 h boundaries).
        const long long now = std::time(nullptr);
        m_start = (now - 7200) / 7200 * 7200 + 600;
        const std::string om = m_dir.filePath(QStringLiteral("cluster.om")).toStdString();
        QElapsedTimer t;
        t.start();
        m_faults = telemetrytest::writeClusterOpenMetrics(m_design.graph, om, m_start, m_seconds);
        qInfo("generated %s in %.1f s", om.c_str(), t.elapsed() / 1000.0);
        t.restart();
        QProcess promtool;
        promtool.setProcessChannelMode(QProcess::MergedChannels);
        promtool.start(QStringLiteral("promtool"),
            { QStringLiteral("tsdb"), QStringLiteral("create-blocks-from"), QStringLiteral("openmetrics"),
                QString::fromStdString(om), m_dir.filePath(QStringLiteral("data")) });
        QVERIFY(promtool.waitForFinished(300000));
        QVERIFY2(promtool.exitCode() == 0, promtool.readAll().constData());
        QFile::remove(QString::fromStdString(om));
        qInfo("backfilled in %.1f s", t.elapsed() / 1000.0);
        QFile cfg(m_dir.filePath(QStringLiteral("prometheus.yml")));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write("global:\n  scrape_interval: 15s\n");
        cfg.close();
        for (int attempt = 0; attempt < 2 && !m_prometheus.running(); ++attempt) {
            m_port = telemetrytest::freeLoopbackPort();
            QVERIFY(m_prometheus.start(QStringLiteral("prometheus"),
                { QStringLiteral("--config.file=") + cfg.fileName(),
                    QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("data")),
                    QStringLiteral("--storage.tsdb.retention.time=100y"),
                    QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_port) },
                m_dir.filePath(QStringLiteral("prometheus.log"))));
            const auto c = telemetrytest::client(m_port, 2000);
            if (!telemetrytest::waitFor([&] { return bool(c.buildInfo()); }, 30))
                m_prometheus.stop();
        }
        QVERIFY2(m_prometheus.running(), "prometheus did not come up (see prometheus.log)");
    }

    void cleanupTestCase() { m_prometheus.stop(); }

    void plantedFaultsFoundNoFalseAlarms()
    {
        FabricGraph graph = m_design.graph;
        FabricMapping mapping(graph, HostNaming {});
        auto profiles = builtinSourceProfiles();
        QVERIFY2(profiles, profiles.message().c_str());
        const auto client = telemetrytest::client(m_port);
        QElapsedTimer t;
        t.start();
        auto fetched = fetchTelemetry(client, mapping, *profiles, double(m_start), double(m_start + m_seconds - 1));
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
        QVERIFY(std::find(r.gaps.begin(), r.gaps.end(), m_faults.gapLink) != r.gaps.end());
        QCOMPARE(r.linksMeasured, std::size_t(1024) + uplinks - 1);
        QVERIFY2(r.period.found, r.period.message.c_str());
        QCOMPARE(r.period.periodS, m_faults.periodS);

        // Expected alerts: rule -> links.
        std::multiset<std::pair<std::string, LinkId>> got;
        for (const auto& a : r.alerts) {
            got.emplace(a.rule, a.link);
            qInfo("%s [%s] %s", a.rule.c_str(), toString(a.severity), a.message.c_str());
        }
        const std::multiset<std::pair<std::string, LinkId>> expected {
            { "LinkPeakUtilisation", m_faults.hotUplink },
            { "LinkBurst", m_faults.hotUplink },
            { "LinkBurst", m_faults.burstLink },
            { "LinkErrors", m_faults.symbolLink },
            { "LinkErrors", m_faults.oneEnded },
            { "LinkDiscards", m_faults.hotUplink },
            { "LinkDown", m_faults.resetLink },
            { "UplinkImbalance", m_faults.hotUplink },
            { "PeerOutlier", m_faults.hotUplink },
            { "CounterReset", m_faults.resetLink },
        };
        QCOMPARE(got, expected);
        // Directions and ends: the hot uplink is hot upwards (leaf -> spine), the burst downwards.
        for (const auto& a : r.alerts) {
            if (a.rule == "LinkPeakUtilisation")
                QCOMPARE(a.direction, 0);
            if (a.rule == "LinkBurst" && a.link == m_faults.burstLink)
                QCOMPARE(a.direction, 1);
            if (a.rule == "LinkErrors" && a.link == m_faults.oneEnded)
                QVERIFY2(a.message.find("only") != std::string::npos, a.message.c_str());
            if (a.rule == "LinkErrors" && a.link == m_faults.symbolLink)
                QVERIFY2(a.message.find("both ends") != std::string::npos, a.message.c_str());
        }
        // Exact counts (no extrapolation): symbol errors +5 every 7 s -> 12 steps = 60 at each end.
        for (const auto& e : r.errors)
            if (e.link == m_faults.symbolLink) {
                QCOMPARE(e.increase[0], 60.0);
                QCOMPARE(e.increase[1], 60.0);
            }
        const auto& hot = r.utilisation[m_faults.hotUplink][0];
        QVERIFY(std::abs(hot.peak - 0.97) < 1e-6);
        QCOMPARE(hot.longestAboveS, 2.0);
        QVERIFY(std::abs(r.utilisation[m_faults.burstLink][1].peak - 1.0) < 1e-6);
    }

    void cliAgrees()
    {
        QProcess cli;
        cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("telemetry"), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:%1").arg(m_port),
                QStringLiteral("--scenario"),
                QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/llama3-70b-1024-h100.json"),
                QStringLiteral("--start"), QString::number(m_start), QStringLiteral("--end"),
                QString::number(m_start + m_seconds - 1), QStringLiteral("--json") });
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
        const QString hot = QString::fromStdString(linkName(m_design.graph, m_faults.hotUplink));
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
        const QString path = m_dir.filePath(QStringLiteral("rules.yml"));
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
