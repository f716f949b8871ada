#pragma once

// The shared fixture of the telemetry tests and benchmark that need a 1,024-GPU cluster in a real
// Prometheus: the H100 example's fabric, its counters with planted faults written as OpenMetrics
// (telemetrytestsupport.h), backfilled with Debian's `promtool tsdb create-blocks-from openmetrics`
// into a QTemporaryDir and served by `prometheus` on a free loopback port (stopped by its PID when
// the fixture dies). The window lies in the past, inside one 2-hour block (promtool cuts blocks on
// 2 h boundaries).

#include "tests/importers/telemetrytestsupport.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <ctime>

namespace telemetrytest {

class BackfilledPrometheus {
public:
    /// Generates `seconds` of counters of `graph` (1 s samples), backfills and starts the server.
    /// Returns an empty string, or why it failed (missing programs, promtool's output, start-up).
    QString start(const clusterscope::engine::FabricGraph& graph, int seconds)
    {
        if (const QString missing = missingPrograms({ QStringLiteral("prometheus"), QStringLiteral("promtool") });
            !missing.isEmpty())
            return missing;
        if (!m_dir.isValid())
            return QStringLiteral("no temporary directory");
        m_seconds = seconds;
        m_start = (std::time(nullptr) - 7200) / 7200 * 7200 + 600;
        const std::string om = m_dir.filePath(QStringLiteral("cluster.om")).toStdString();
        m_faults = writeClusterOpenMetrics(graph, om, m_start, seconds);
        QProcess promtool;
        promtool.setProcessChannelMode(QProcess::MergedChannels);
        promtool.start(QStringLiteral("promtool"),
            { QStringLiteral("tsdb"), QStringLiteral("create-blocks-from"), QStringLiteral("openmetrics"),
                QString::fromStdString(om), m_dir.filePath(QStringLiteral("data")) });
        if (!promtool.waitForFinished(300000) || promtool.exitCode() != 0)
            return QStringLiteral("promtool failed: ") + QString::fromLocal8Bit(promtool.readAll());
        QFile::remove(QString::fromStdString(om));
        QFile cfg(m_dir.filePath(QStringLiteral("prometheus.yml")));
        if (!cfg.open(QIODevice::WriteOnly))
            return QStringLiteral("cannot write ") + cfg.fileName();
        cfg.write("global:\n  scrape_interval: 15s\n");
        cfg.close();
        // A free port can be taken by another process before prometheus binds it: one retry.
        for (int attempt = 0; attempt < 2 && !m_prometheus.running(); ++attempt) {
            m_port = freeLoopbackPort();
            if (!m_prometheus.start(QStringLiteral("prometheus"),
                    { QStringLiteral("--config.file=") + cfg.fileName(),
                        QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("data")),
                        QStringLiteral("--storage.tsdb.retention.time=100y"),
                        QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_port) },
                    m_dir.filePath(QStringLiteral("prometheus.log"))))
                return QStringLiteral("prometheus did not start");
            const auto c = client(m_port, 2000);
            if (!waitFor([&] { return bool(c.buildInfo()); }, 30))
                m_prometheus.stop();
        }
        if (!m_prometheus.running())
            return QStringLiteral("prometheus did not come up (see %1)")
                .arg(m_dir.filePath(QStringLiteral("prometheus.log")));
        return {};
    }

    void stop() { m_prometheus.stop(); }
    int port() const { return m_port; }
    /// First sample time (seconds since the epoch); samples at startS() + 0 .. seconds - 1.
    long long startS() const { return m_start; }
    /// The last sample time.
    long long endS() const { return m_start + m_seconds - 1; }
    int seconds() const { return m_seconds; }
    const PlantedFaults& faults() const { return m_faults; }
    /// For the test's own files (a project, a screenshot): removed with the fixture.
    QString filePath(const QString& name) const { return m_dir.filePath(name); }

private:
    QTemporaryDir m_dir;
    Child m_prometheus;
    int m_port = 0;
    long long m_start = 0;
    int m_seconds = 0;
    PlantedFaults m_faults;
};

} // namespace telemetrytest
