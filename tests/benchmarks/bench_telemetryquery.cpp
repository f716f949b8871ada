// Query -> analysed view on a backfilled 1,024-GPU TSDB served by Debian's prometheus: the time to
// read a 90-s window of every NIC and switch port (raw samples), map it onto the fabric and run
// every analysis, against a baseline measured in the same run: one HTTP GET of the largest raw
// answer (switch-port byte counters) without decoding. Prints both and the ratio; asserts no
// wall-clock limit. Also times the live-view refresh: one instant irate() of every switch port.

#include "engine/telemetry/telemetryanalysis.h"
#include "importers/telemetry/telemetryfetcher.h"
#include "tests/importers/telemetrytestsupport.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <ctime>

using namespace clusterscope::engine;
using namespace clusterscope::importers;

class BenchTelemetryQuery : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void queryToView()
    {
        const QString missing
            = telemetrytest::missingPrograms({ QStringLiteral("prometheus"), QStringLiteral("promtool") });
        if (!missing.isEmpty())
            QFAIL(qPrintable(missing));
        QTemporaryDir dir;
        FabricDesign design = telemetrytest::exampleFabric();
        const int seconds = 90;
        const long long start = (std::time(nullptr) - 7200) / 7200 * 7200 + 600;
        const std::string om = dir.filePath(QStringLiteral("c.om")).toStdString();
        telemetrytest::writeClusterOpenMetrics(design.graph, om, start, seconds);
        QProcess promtool;
        promtool.start(QStringLiteral("promtool"),
            { QStringLiteral("tsdb"), QStringLiteral("create-blocks-from"), QStringLiteral("openmetrics"),
                QString::fromStdString(om), dir.filePath(QStringLiteral("data")) });
        QVERIFY(promtool.waitForFinished(300000) && promtool.exitCode() == 0);
        QFile cfg(dir.filePath(QStringLiteral("p.yml")));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write("global:\n  scrape_interval: 15s\n");
        cfg.close();
        telemetrytest::Child prometheus;
        const int port = telemetrytest::freeLoopbackPort();
        QVERIFY(prometheus.start(QStringLiteral("prometheus"),
            { QStringLiteral("--config.file=") + cfg.fileName(),
                QStringLiteral("--storage.tsdb.path=") + dir.filePath(QStringLiteral("data")),
                QStringLiteral("--storage.tsdb.retention.time=100y"),
                QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port) },
            dir.filePath(QStringLiteral("p.log"))));
        const auto client = telemetrytest::client(port);
        QVERIFY(telemetrytest::waitFor([&] { return bool(client.buildInfo()); }, 30));
        auto profiles = builtinSourceProfiles();
        QVERIFY(profiles);
        using Clock = std::chrono::steady_clock;
        std::size_t ports
            = 0; // switch ports with series: NIC-facing leaf ports and both ends of uplinks but the gap link
        for (LinkId id = 0; id < design.graph.linkCount(); ++id) {
            const auto lv = design.graph.level(id);
            ports += lv == LinkLevel::NodeLeaf && design.graph.node(design.graph.link(id).a).kind == NodeKind::Nic ? 1
                : lv == LinkLevel::LeafSpine                                                                       ? 2
                                                                                                                   : 0;
        }
        ports -= 2;
        const double end = double(start + seconds - 1);
        double bestView = 1e9, bestBaseline = 1e9, bestLive = 1e9;
        std::size_t bytes = 0;
        for (int rep = 0; rep < 3; ++rep) {
            const auto t0 = Clock::now();
            auto raw = client.get(
                "/api/v1/query", { { "query", "PortXmitDataExtended[89s]" }, { "time", std::to_string(end) } });
            const auto t1 = Clock::now();
            QVERIFY(raw && raw->status == 200);
            bytes = raw->body.size();
            FabricGraph graph = design.graph;
            FabricMapping mapping(graph, HostNaming {});
            auto fetched = fetchTelemetry(client, mapping, *profiles, double(start), end);
            QVERIFY2(fetched, fetched.message().c_str());
            const TelemetryReport r = analyseTelemetry(graph, fetched->data, AlertRules::defaults());
            const auto t2 = Clock::now();
            QCOMPARE(r.alerts.size(), std::size_t(10));
            auto live = client.query("irate(PortXmitDataExtended[3s])", end);
            const auto t3 = Clock::now();
            QVERIFY(live && live->series.size() == ports);
            bestBaseline = std::min(bestBaseline, std::chrono::duration<double>(t1 - t0).count());
            bestView = std::min(bestView, std::chrono::duration<double>(t2 - t1).count());
            bestLive = std::min(bestLive, std::chrono::duration<double>(t3 - t2).count());
        }
        std::printf(
            "telemetry query -> analysed view (1,024 GPUs, %zu links, 90 s at 1 s): %.2f s; baseline one raw GET of "
            "the "
            "switch-port bytes (%.1f MB): %.2f s; ratio %.1f; live refresh (instant irate of %zu ports): %.3f s\n",
            design.graph.linkCount(), bestView, double(bytes) / 1e6, bestBaseline, bestView / bestBaseline, ports,
            bestLive);
        prometheus.stop();
    }
};

QTEST_GUILESS_MAIN(BenchTelemetryQuery)
#include "bench_telemetryquery.moc"
