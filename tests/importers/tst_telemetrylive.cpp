// Live on real components: Debian's prometheus-node-exporter serves the infiniband collector from
// a fixture sysfs tree whose counters this test advances once a second (data counters in 4-octet
// words, as the kernel exposes them); Debian's prometheus scrapes it every second. Both run on free
// loopback ports and are stopped by PID. The test reads /metrics directly with the exposition
// parser, then the window through the HTTP API, and checks utilisation, errors and scrape health.

#include "engine/telemetry/telemetryanalysis.h"
#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"
#include "importers/telemetry/expositionparser.h"
#include "importers/telemetry/telemetryfetcher.h"
#include "tests/importers/telemetrytestsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <ctime>
#include <thread>

using namespace clusterscope;
using namespace clusterscope::engine;
using namespace clusterscope::importers;

namespace {

const char* kCounters[] = { "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
    "local_link_integrity_errors", "multicast_rcv_packets", "multicast_xmit_packets", "port_rcv_constraint_errors",
    "port_rcv_data", "port_rcv_discards", "port_rcv_errors", "port_rcv_packets", "port_rcv_remote_physical_errors",
    "port_rcv_switch_relay_errors", "port_xmit_constraint_errors", "port_xmit_data", "port_xmit_discards",
    "port_xmit_packets", "port_xmit_wait", "symbol_error", "unicast_rcv_packets", "unicast_xmit_packets",
    "VL15_dropped" };

// Atomic write (temp + rename): the exporter never reads half a file.
void writeFile(const QString& path, const QByteArray& text)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path + QStringLiteral(".tmp"));
    if (f.open(QIODevice::WriteOnly))
        f.write(text);
    f.close();
    std::rename((path + QStringLiteral(".tmp")).toLocal8Bit().constData(), path.toLocal8Bit().constData());
}

// procfs' sysfs.InfiniBandClass() layout (github.com/prometheus/procfs, sysfs/class_infiniband.go).
QString portDir(const QString& root, const char* dev)
{
    return root + QStringLiteral("/class/infiniband/") + QLatin1String(dev) + QStringLiteral("/ports/1");
}

void initFixture(const QString& root)
{
    for (const char* dev : { "mlx5_0", "mlx5_1" }) {
        const QString d = root + QStringLiteral("/class/infiniband/") + QLatin1String(dev);
        writeFile(d + QStringLiteral("/fw_ver"), "28.39.1002\n");
        writeFile(d + QStringLiteral("/board_id"), "MT_0000000838\n");
        writeFile(d + QStringLiteral("/hca_type"), "MT4129\n");
        const QString p = portDir(root, dev);
        writeFile(p + QStringLiteral("/state"), "4: ACTIVE\n");
        writeFile(p + QStringLiteral("/phys_state"), "5: LinkUp\n");
        writeFile(p + QStringLiteral("/rate"), "400 Gb/sec (4X NDR)\n");
        for (const char* c : kCounters)
            writeFile(p + QStringLiteral("/counters/") + QLatin1String(c), "0\n");
    }
}

// Host node001 with two HCAs on leaf-0 ports 1 and 2, 400 Gb/s.
FabricGraph fixtureFabric()
{
    FabricGraph g;
    FabricNode leaf;
    leaf.kind = NodeKind::Switch;
    leaf.tier = kTierLeaf;
    const NodeId l = g.addNode(leaf);
    g.setLabel(l, "leaf-0");
    for (int r = 0; r < 2; ++r) {
        FabricNode nic;
        nic.kind = NodeKind::Nic;
        nic.host = 0;
        nic.rail = std::uint8_t(r);
        const NodeId n = g.addNode(nic);
        g.addLink({ n, l, 1, std::uint16_t(r + 1), 400.0f });
    }
    return g;
}

} // namespace

class TestTelemetryLive : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    telemetrytest::Child m_exporter;
    telemetrytest::Child m_prometheus;
    int m_exporterPort = 0;
    int m_prometheusPort = 0;

private slots:
    void initTestCase()
    {
        const QString missing = telemetrytest::missingPrograms(
            { QStringLiteral("prometheus"), QStringLiteral("prometheus-node-exporter") });
        if (!missing.isEmpty())
            QFAIL(qPrintable(missing));
        QVERIFY(m_dir.isValid());
        const QString sysfs = m_dir.filePath(QStringLiteral("sysfs"));
        initFixture(sysfs);
        for (int attempt = 0; attempt < 2 && !m_exporter.running(); ++attempt) {
            m_exporterPort = telemetrytest::freeLoopbackPort();
            QVERIFY(m_exporter.start(QStringLiteral("prometheus-node-exporter"),
                { QStringLiteral("--path.sysfs=") + sysfs,
                    QStringLiteral("--path.procfs=") + m_dir.filePath(QStringLiteral("noproc")),
                    QStringLiteral("--collector.disable-defaults"), QStringLiteral("--collector.infiniband"),
                    QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_exporterPort) },
                m_dir.filePath(QStringLiteral("node_exporter.log"))));
            const auto probe = telemetrytest::client(m_exporterPort, 2000);
            if (!telemetrytest::waitFor(
                    [&] {
                        auto r = probe.get("/metrics", {});
                        return r && r->status == 200;
                    },
                    20))
                m_exporter.stop();
        }
        QVERIFY2(m_exporter.running(), "prometheus-node-exporter did not come up (see node_exporter.log)");

        QFile cfg(m_dir.filePath(QStringLiteral("prometheus.yml")));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write(QStringLiteral("global: {scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s}\n"
                                 "scrape_configs:\n"
                                 "  - job_name: node\n"
                                 "    static_configs: [{targets: ['127.0.0.1:%1'], labels: {host: 'node001'}}]\n")
                      .arg(m_exporterPort)
                      .toUtf8());
        cfg.close();
        for (int attempt = 0; attempt < 2 && !m_prometheus.running(); ++attempt) {
            m_prometheusPort = telemetrytest::freeLoopbackPort();
            QVERIFY(m_prometheus.start(QStringLiteral("prometheus"),
                { QStringLiteral("--config.file=") + cfg.fileName(),
                    QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("tsdb")),
                    QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_prometheusPort) },
                m_dir.filePath(QStringLiteral("prometheus.log"))));
            const auto c = telemetrytest::client(m_prometheusPort, 2000);
            if (!telemetrytest::waitFor([&] { return bool(c.buildInfo()); }, 20))
                m_prometheus.stop();
        }
        QVERIFY2(m_prometheus.running(), "prometheus did not come up (see prometheus.log)");
        // /-/ready is not "data present": the first scrape lands seconds later. Wait for up == 1.
        const auto c = telemetrytest::client(m_prometheusPort, 2000);
        QVERIFY2(telemetrytest::waitFor(
                     [&] {
                         auto r = c.query("up{job=\"node\"} == 1");
                         return r && !r->series.empty();
                     },
                     30),
            "no successful scrape within 30 s");
    }

    void cleanupTestCase()
    {
        m_prometheus.stop();
        m_exporter.stop();
    }

    void exporterWordsBecomeBytes()
    {
        const QString p = portDir(m_dir.filePath(QStringLiteral("sysfs")), "mlx5_0");
        writeFile(p + QStringLiteral("/counters/port_xmit_data"), "1000\n");
        auto page = telemetrytest::client(m_exporterPort).get("/metrics", {});
        QVERIFY2(page, page.message().c_str());
        double bytes = -1;
        auto n = parseExposition(page->body, expositionFormatFromContentType(page->contentType),
            "node_exporter /metrics", [&](const SampleView& s) {
                if (s.name == "node_infiniband_port_data_transmitted_bytes_total")
                    for (const auto& l : s.labels)
                        if (l.name == "device" && l.value == "mlx5_0")
                            bytes = s.value;
            });
        QVERIFY2(n, n.message().c_str());
        QVERIFY(*n > 40);
        QCOMPARE(bytes, 4000.0); // the collector multiplies the 4-octet words by 4
    }

    void liveWindow()
    {
        const QString root = m_dir.filePath(QStringLiteral("sysfs"));
        // mlx5_0: 4-s square wave, 50 GB/s for 2 s then 5 GB/s; mlx5_1: 10 GB/s with 3 symbol errors
        // and one transmit discard every 5 s. Data counters in 4-octet words.
        const int seconds = 16;
        double words0 = 1000, words1 = 0;
        int symbols = 0;
        const auto t0 = std::chrono::steady_clock::now();
        double lastWrite = 0;
        for (int i = 0; i < seconds; ++i) {
            lastWrite = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
            words0 += ((i % 4) < 2 ? 50e9 : 5e9) / 4;
            words1 += 10e9 / 4;
            writeFile(portDir(root, "mlx5_0") + QStringLiteral("/counters/port_xmit_data"),
                QByteArray::number(qint64(words0)) + '\n');
            writeFile(portDir(root, "mlx5_1") + QStringLiteral("/counters/port_xmit_data"),
                QByteArray::number(qint64(words1)) + '\n');
            if (i % 5 == 4) {
                symbols += 3;
                writeFile(portDir(root, "mlx5_1") + QStringLiteral("/counters/symbol_error"),
                    QByteArray::number(symbols) + '\n');
                writeFile(portDir(root, "mlx5_1") + QStringLiteral("/counters/port_xmit_discards"),
                    QByteArray::number(symbols / 3) + '\n');
            }
            std::this_thread::sleep_until(t0 + std::chrono::seconds(i + 1));
        }
        // The window ends at the last write; 11 or 12 scrape intervals of a 4-s wave see 11 or 12
        // writes, so the wave's average is 0.55 within 7.5 % and the steady link's exactly 0.2.
        std::this_thread::sleep_for(std::chrono::seconds(2));
        const double end = lastWrite;
        FabricGraph graph = fixtureFabric();
        FabricMapping mapping(graph, HostNaming {});
        auto profiles = builtinSourceProfiles();
        QVERIFY(profiles);
        auto fetched = fetchTelemetry(telemetrytest::client(m_prometheusPort), mapping, *profiles, end - 12, end);
        QVERIFY2(fetched, fetched.message().c_str());
        const TelemetryReport r = analyseTelemetry(graph, fetched->data, AlertRules::defaults());
        for (const auto& a : r.alerts)
            qInfo("%s: %s", a.rule.c_str(), a.message.c_str());
        QVERIFY(std::abs(r.sampleIntervalS - 1.0) < 0.05);
        QCOMPARE(r.linksMeasured, std::size_t(2));
        // Scrapes and writes both run at 1 s with independent phases: compare averages within 3 %.
        const auto& steady = r.utilisation[1][0];
        QVERIFY(steady.hasData);
        QVERIFY2(std::abs(steady.average - 0.2) < 0.2 * 0.03, qPrintable(QString::number(steady.average)));
        const auto& wave = r.utilisation[0][0];
        QVERIFY2(std::abs(wave.average - 0.55) < 0.55 * 0.10, qPrintable(QString::number(wave.average)));
        QVERIFY2(wave.peak >= 0.95, qPrintable(QString::number(wave.peak)));
        QCOMPARE(r.health.size(), std::size_t(0));
        bool errors = false, discards = false;
        for (const auto& a : r.alerts) {
            errors = errors
                || (a.rule == "LinkErrors" && a.link == 1
                    && a.message.find("the other end is not measured") != std::string::npos);
            discards = discards || (a.rule == "LinkDiscards" && a.link == 1);
            QVERIFY2(a.link != 1 || a.rule != "LinkPeakUtilisation", a.message.c_str());
        }
        QVERIFY(errors);
        QVERIFY(discards);
    }

    // `telemetry --live 4 --every 1 --count 10 --json` follows the live server: one JSON line per round,
    // the symbol errors written after the first rounds raise LinkErrors once, and it clears when
    // the increase has left the 4-s window. Then SIGTERM ends an unbounded follow cleanly.
    void cliFollowsLive()
    {
        const QString root = m_dir.filePath(QStringLiteral("sysfs"));
        FabricGraph graph = fixtureFabric();
        // The writer names host 0 "node00001"; the fixture's exporter is labelled host="node001".
        const QString dump = m_dir.filePath(QStringLiteral("fixture.ibnetdiscover"));
        writeFile(dump, QByteArray::fromStdString(writeIbnetdiscover(graph, {})).replace("node00001 ", "node001 "));
        // A writer advancing both data counters at 10 GB/s, adding 3 symbol errors on mlx5_1 at 3 s.
        std::atomic<bool> stop { false };
        std::thread writer([&] {
            QFile f0(portDir(root, "mlx5_0") + QStringLiteral("/counters/port_xmit_data"));
            qint64 w0 = 0, w1 = 0;
            if (f0.open(QIODevice::ReadOnly))
                w0 = f0.readAll().trimmed().toLongLong();
            QFile f1(portDir(root, "mlx5_1") + QStringLiteral("/counters/port_xmit_data"));
            if (f1.open(QIODevice::ReadOnly))
                w1 = f1.readAll().trimmed().toLongLong();
            QFile fs(portDir(root, "mlx5_1") + QStringLiteral("/counters/symbol_error"));
            qint64 symbols = 0;
            if (fs.open(QIODevice::ReadOnly))
                symbols = fs.readAll().trimmed().toLongLong();
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; !stop.load(); ++i) {
                w0 += qint64(10e9 / 4);
                w1 += qint64(10e9 / 4);
                writeFile(portDir(root, "mlx5_0") + QStringLiteral("/counters/port_xmit_data"),
                    QByteArray::number(w0) + '\n');
                writeFile(portDir(root, "mlx5_1") + QStringLiteral("/counters/port_xmit_data"),
                    QByteArray::number(w1) + '\n');
                if (i == 3)
                    writeFile(portDir(root, "mlx5_1") + QStringLiteral("/counters/symbol_error"),
                        QByteArray::number(symbols + 3) + '\n');
                std::this_thread::sleep_until(t0 + std::chrono::seconds(i + 1));
            }
        });
        struct Join {
            std::atomic<bool>& stop;
            std::thread& t;
            ~Join()
            {
                stop.store(true);
                t.join();
            }
        } join { stop, writer };
        // Let the counters settle: no increase from earlier slots may be in the first window.
        std::this_thread::sleep_for(std::chrono::seconds(1));
        const QStringList common { QStringLiteral("telemetry"), QStringLiteral("--url"),
            QStringLiteral("http://127.0.0.1:%1").arg(m_prometheusPort), QStringLiteral("--fabric"), dump,
            QStringLiteral("--live"), QStringLiteral("4"), QStringLiteral("--every"), QStringLiteral("1") };
        QProcess cli;
        cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            common + QStringList { QStringLiteral("--count"), QStringLiteral("10"), QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(60000));
        const QByteArray err = cli.readAllStandardError();
        QVERIFY2(cli.exitCode() == 0, err.constData());
        const QList<QByteArray> lines = cli.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 10);
        int raisedAt = 0, clearedAt = 0;
        for (int i = 0; i < lines.size(); ++i) {
            const QJsonObject o = QJsonDocument::fromJson(lines[i]).object();
            QCOMPARE(o.value(QStringLiteral("round")).toInt(), i + 1);
            QVERIFY2(o.value(QStringLiteral("links_measured")).toInt() == 2, lines[i].constData());
            for (const auto& a : o.value(QStringLiteral("raised")).toArray())
                if (a.toObject().value(QStringLiteral("rule")).toString() == QStringLiteral("LinkErrors")) {
                    QVERIFY2(raisedAt == 0, lines[i].constData()); // raised once
                    raisedAt = i + 1;
                    QVERIFY(a.toObject().value(QStringLiteral("link")).toString().contains(QStringLiteral("mlx5_1")));
                }
            for (const auto& a : o.value(QStringLiteral("cleared")).toArray())
                if (a.toObject().value(QStringLiteral("rule")).toString() == QStringLiteral("LinkErrors"))
                    clearedAt = i + 1;
        }
        QVERIFY2(raisedAt >= 2, qPrintable(QString::number(raisedAt)));
        QVERIFY2(clearedAt > raisedAt, qPrintable(QStringLiteral("%1 %2").arg(raisedAt).arg(clearedAt)));

        // Unbounded: runs until SIGTERM, then exits 0 after the rounds it printed.
        QProcess unbounded;
        unbounded.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH), common);
        QVERIFY(unbounded.waitForStarted());
        QVERIFY(unbounded.waitForReadyRead(20000)); // the first round printed
        QThread::msleep(1500);
        unbounded.terminate();
        QVERIFY(unbounded.waitForFinished(10000));
        QCOMPARE(unbounded.exitStatus(), QProcess::NormalExit);
        QCOMPARE(unbounded.exitCode(), 0);
        const QByteArray text = unbounded.readAllStandardOutput();
        QVERIFY2(text.contains("round 1:") && text.contains("interrupted after"), text.constData());
    }

    // https through Prometheus' own TLS (--web.config.file) with a self-signed certificate for
    // 127.0.0.1: refused by default (not in the CA store), accepted with SSL_CERT_FILE naming it,
    // refused under another host name, accepted with --insecure; the CLI reads the live window over it.
    void tlsPrometheus()
    {
        const QString missing = telemetrytest::missingPrograms({ QStringLiteral("openssl") });
        if (!missing.isEmpty())
            QFAIL(qPrintable(missing));
        const QString cert = m_dir.filePath(QStringLiteral("cert.pem"));
        const QString key = m_dir.filePath(QStringLiteral("key.pem"));
        QProcess openssl;
        openssl.setProcessChannelMode(QProcess::MergedChannels);
        openssl.start(QStringLiteral("openssl"),
            { QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
                QStringLiteral("-nodes"), QStringLiteral("-keyout"), key, QStringLiteral("-out"), cert,
                QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1"),
                QStringLiteral("-addext"), QStringLiteral("subjectAltName=IP:127.0.0.1") });
        QVERIFY(openssl.waitForFinished(60000));
        QVERIFY2(openssl.exitCode() == 0, openssl.readAll().constData());
        writeFile(m_dir.filePath(QStringLiteral("web.yml")),
            QStringLiteral("tls_server_config:\n  cert_file: %1\n  key_file: %2\n").arg(cert, key).toUtf8());
        telemetrytest::Child tlsPrometheus;
        int port = 0;
        auto tlsClient = [&](const std::string& host, bool insecure) {
            PromClientOptions o;
            o.url = "https://" + host + ":" + std::to_string(port);
            o.insecureTls = insecure;
            o.timeout = std::chrono::milliseconds(5000);
            o.maxAttempts = 1;
            return PromClient::create(o).value();
        };
        for (int attempt = 0; attempt < 2 && !tlsPrometheus.running(); ++attempt) {
            port = telemetrytest::freeLoopbackPort();
            QVERIFY(tlsPrometheus.start(QStringLiteral("prometheus"),
                { QStringLiteral("--config.file=") + m_dir.filePath(QStringLiteral("prometheus.yml")),
                    QStringLiteral("--web.config.file=") + m_dir.filePath(QStringLiteral("web.yml")),
                    QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("tsdb-tls")),
                    QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port) },
                m_dir.filePath(QStringLiteral("prometheus-tls.log"))));
            const auto c = tlsClient("127.0.0.1", true);
            if (!telemetrytest::waitFor([&] { return bool(c.buildInfo()); }, 20))
                tlsPrometheus.stop();
        }
        QVERIFY2(tlsPrometheus.running(), "prometheus with TLS did not come up (see prometheus-tls.log)");

        qunsetenv("SSL_CERT_FILE");
        auto refused = tlsClient("127.0.0.1", false).buildInfo();
        QVERIFY(!refused);
        QVERIFY2(refused.message().find("TLS handshake failed") != std::string::npos
                && refused.message().find("certificate verify failed") != std::string::npos,
            refused.message().c_str());
        QVERIFY2(refused.message().find("--insecure") != std::string::npos, refused.message().c_str());
        auto insecure = tlsClient("127.0.0.1", true).buildInfo();
        QVERIFY2(insecure, insecure.message().c_str());
        QCOMPARE(insecure->major, 2);
        qputenv("SSL_CERT_FILE", cert.toLocal8Bit());
        auto verified = tlsClient("127.0.0.1", false).buildInfo();
        auto wrongName = tlsClient("localhost", false).buildInfo();
        qunsetenv("SSL_CERT_FILE");
        QVERIFY2(verified, verified.message().c_str());
        QVERIFY(!wrongName);
        QVERIFY2(wrongName.message().find("TLS handshake failed") != std::string::npos, wrongName.message().c_str());

        // The CLI over https once this server has scraped the exporter.
        const auto c = tlsClient("127.0.0.1", true);
        QVERIFY(telemetrytest::waitFor(
            [&] {
                auto r = c.query("up{job=\"node\"} == 1");
                return r && !r->series.empty();
            },
            30));
        std::this_thread::sleep_for(std::chrono::seconds(3));
        const QString dump = m_dir.filePath(QStringLiteral("fixture.ibnetdiscover"));
        QVERIFY(QFile::exists(dump));
        QProcess cli;
        cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("telemetry"), QStringLiteral("--url"), QStringLiteral("https://127.0.0.1:%1").arg(port),
                QStringLiteral("--insecure"), QStringLiteral("--fabric"), dump, QStringLiteral("--live"),
                QStringLiteral("3"), QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        const QJsonObject o = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(o.value(QStringLiteral("links_measured")).toInt(), 2);
        tlsPrometheus.stop();
    }

    void brokenCounterFileIsAGapNotAZero()
    {
        // One unparsable counter fails node_exporter's whole infiniband collector.
        writeFile(
            portDir(m_dir.filePath(QStringLiteral("sysfs")), "mlx5_1") + QStringLiteral("/counters/port_rcv_errors"),
            "garbage\n");
        const auto c = telemetrytest::client(m_prometheusPort);
        QVERIFY(telemetrytest::waitFor(
            [&] {
                auto r = c.query("node_scrape_collector_success{collector=\"infiniband\"} == 0");
                return r && !r->series.empty();
            },
            15));
        // The window must end after the failed scrape: wait a scrape and end at the current second.
        std::this_thread::sleep_for(std::chrono::seconds(2));
        const double end = double(std::time(nullptr));
        FabricGraph graph = fixtureFabric();
        FabricMapping mapping(graph, HostNaming {});
        auto profiles = builtinSourceProfiles();
        auto fetched = fetchTelemetry(c, mapping, *profiles, end - 5, end);
        QVERIFY2(fetched, fetched.message().c_str());
        QCOMPARE(fetched->data.health.size(), std::size_t(1));
        QVERIFY2(fetched->data.health[0].message.find("collector failed") != std::string::npos,
            fetched->data.health[0].message.c_str());
        QVERIFY2(fetched->data.health[0].target.find("infiniband") != std::string::npos,
            fetched->data.health[0].target.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTelemetryLive)
#include "tst_telemetrylive.moc"
