#pragma once

// Shared by the telemetry integration tests and benchmark: free loopback ports, starting Debian's
// prometheus / prometheus-node-exporter / promtool under a QTemporaryDir and stopping them by PID,
// and a 1,024-GPU OpenMetrics cluster with planted faults written from a built fabric.

#include "engine/catalog/catalog.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/scenario/scenariojson.h"
#include "importers/common/inputfile.h"
#include "importers/telemetry/promclient.h"

#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

namespace telemetrytest {

/// A port the kernel just handed out on 127.0.0.1 (closed again; a race with other processes is
/// possible but rare; callers retry start-up once).
inline int freeLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        if (fd >= 0)
            ::close(fd);
        return 0;
    }
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    const int port = ntohs(a.sin_port);
    ::close(fd);
    return port;
}

/// Empty when every program is on PATH, else the message a test fails with.
inline QString missingPrograms(const QStringList& programs)
{
    QStringList missing;
    for (const auto& p : programs)
        if (QStandardPaths::findExecutable(p).isEmpty())
            missing << p;
    if (missing.isEmpty())
        return {};
    return QStringLiteral("missing programs: ") + missing.join(QStringLiteral(", "))
        + QStringLiteral(
            " (Debian packages prometheus and prometheus-node-exporter; packaging/bootstrap.sh installs them)");
}

/// A child process killed (by its own PID, through QProcess) when this object dies.
class Child {
public:
    Child() = default;
    Child(const Child&) = delete;
    ~Child() { stop(); }
    bool start(const QString& program, const QStringList& args, const QString& logPath)
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        m_process->setStandardOutputFile(logPath);
        m_process->start(program, args);
        return m_process->waitForStarted(10000);
    }
    bool running() const { return m_process && m_process->state() == QProcess::Running; }
    void stop()
    {
        if (!m_process || m_process->state() == QProcess::NotRunning)
            return;
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }

private:
    std::unique_ptr<QProcess> m_process;
};

/// Polls `probe` every 100 ms for at most `seconds`.
template <typename F> bool waitFor(F&& probe, double seconds)
{
    for (int i = 0; i < int(seconds * 10); ++i) {
        if (probe())
            return true;
        QThread::msleep(100);
    }
    return probe();
}

inline clusterscope::importers::PromClient client(int port, int timeoutMs = 20000)
{
    clusterscope::importers::PromClientOptions o;
    o.url = "http://127.0.0.1:" + std::to_string(port);
    o.timeout = std::chrono::milliseconds(timeoutMs);
    o.maxAttempts = 1;
    return clusterscope::importers::PromClient::create(o).value();
}

/// The 1,024-GPU H100 example: 128 nodes x 8 rails, rail-optimised, radix 64, two tiers.
inline clusterscope::engine::FabricDesign exampleFabric()
{
    auto catalog = clusterscope::engine::Catalog::builtin();
    auto scenario = clusterscope::engine::loadScenarioFile(
        CLUSTERSCOPE_SOURCE_DIR "/resources/examples/llama3-70b-1024-h100.json");
    return std::move(clusterscope::engine::buildFabric(*scenario, *catalog).value());
}

/// Links the planted faults sit on (LinkIds of the example fabric).
struct PlantedFaults {
    clusterscope::engine::LinkId hotUplink
        = clusterscope::engine::kNoId; ///< leaf -> spine at 97 % in comm phases + xmit discards
    clusterscope::engine::LinkId symbolLink = clusterscope::engine::kNoId; ///< NIC - leaf: symbol errors at both ends
    clusterscope::engine::LinkId oneEnded
        = clusterscope::engine::kNoId; ///< leaf - spine: symbol errors at the spine end only
    clusterscope::engine::LinkId resetLink
        = clusterscope::engine::kNoId; ///< NIC - leaf: NIC tx counter reset + link downed
    clusterscope::engine::LinkId burstLink = clusterscope::engine::kNoId; ///< spine -> leaf: one 1-s burst at 100 %
    clusterscope::engine::LinkId gapLink = clusterscope::engine::kNoId; ///< leaf - spine: no series at either end
    double periodS = 6.0;
};

/// Writes the OpenMetrics file: NIC counters with node_exporter names (instance "nodeNNN:9100",
/// device "mlx5_R", port "1"), switch-port counters with UFM names (node_name = the built label,
/// port_num), every byte counter at 1 s, error counters every 10 s (and at the end).
/// Iteration period 6 s: 2 s of communication at 80 % of the NIC rate, 4 s at 4 %.
inline PlantedFaults writeClusterOpenMetrics(
    const clusterscope::engine::FabricGraph& g, const std::string& path, long long start, int seconds)
{
    using namespace clusterscope::engine;
    PlantedFaults f;
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> jitter(0.0, 0.02);
    auto comm = [&](int t) { return t % 6 >= 4; };
    std::vector<LinkId> nicLinks, upLinks;
    for (LinkId id = 0; id < g.linkCount(); ++id) {
        // NIC links only: a UFM appliance on a leaf port has no exporter (its links are gaps).
        if (g.level(id) == LinkLevel::NodeLeaf && g.node(g.link(id).a).kind == NodeKind::Nic)
            nicLinks.push_back(id);
        else if (g.level(id) == LinkLevel::LeafSpine)
            upLinks.push_back(id);
    }
    // Fault placement (fixed, away from index 0 so that "first link" bugs do not hide them).
    f.symbolLink = nicLinks[17 * 8 + 4];
    f.resetLink = nicLinks[42 * 8 + 2];
    f.hotUplink = upLinks[5 * 32 + 7];
    f.oneEnded = upLinks[20 * 32 + 3];
    f.burstLink = upLinks[3 * 32 + 12];
    f.gapLink = upLinks[9 * 32 + 30];
    const int burstAt = seconds * 7 / 10;
    const int resetAt = seconds / 2;
    const double nicCap = double(g.link(nicLinks[0]).gbps) * 1e9 / 8.0;

    // Per-NIC and per-leaf traffic in B/s for every second.
    std::vector<std::vector<double>> nicRate(nicLinks.size(), std::vector<double>(seconds));
    std::map<NodeId, std::vector<double>> leafUp;
    std::map<NodeId, int> leafUplinks;
    for (std::size_t i = 0; i < nicLinks.size(); ++i) {
        const NodeId leaf = g.link(nicLinks[i]).b;
        auto& agg = leafUp[leaf];
        agg.resize(seconds, 0.0);
        for (int t = 0; t < seconds; ++t) {
            nicRate[i][t] = (comm(t) ? 0.80 : 0.04) * nicCap * (1.0 + jitter(rng));
            agg[t] += nicRate[i][t];
        }
    }
    for (LinkId id : upLinks)
        ++leafUplinks[g.link(id).a];

    std::FILE* out = std::fopen(path.c_str(), "w");
    std::vector<char> buffer(1 << 22);
    std::setvbuf(out, buffer.data(), _IOFBF, buffer.size());
    auto nicLabels = [&](LinkId id) {
        const FabricNode& n = g.node(g.link(id).a);
        char b[96];
        std::snprintf(b, sizeof b, "{instance=\"node%03d:9100\",device=\"mlx5_%d\",port=\"%d\"}", n.host + 1,
            int(n.rail), int(g.link(id).portA));
        return std::string(b);
    };
    auto portLabels = [&](NodeId sw, int port) {
        return "{node_name=\"" + g.label(sw) + "\",port_num=\"" + std::to_string(port) + "\"}";
    };
    auto counter = [&](const std::string& series, const std::vector<double>& rates, int resetAtSecond) {
        double acc = 1e9; // counters start where a long-running host left them
        for (int t = 0; t < seconds; ++t) {
            if (t == resetAtSecond)
                acc = 0.0;
            acc += rates[t];
            std::fprintf(out, "%s %.0f %lld\n", series.c_str(), acc, start + t);
        }
    };
    auto events = [&](const std::string& series, const std::function<double(int)>& valueAt) {
        for (int t = 0; t < seconds; ++t)
            if (t % 10 == 0 || t == seconds - 1)
                std::fprintf(out, "%s %.0f %lld\n", series.c_str(), valueAt(t), start + t);
    };

    std::fprintf(out,
        "# TYPE node_infiniband_port_data_transmitted_bytes counter\n# UNIT "
        "node_infiniband_port_data_transmitted_bytes bytes\n"
        "# HELP node_infiniband_port_data_transmitted_bytes Number of data octets transmitted on all links\n");
    for (std::size_t i = 0; i < nicLinks.size(); ++i)
        counter("node_infiniband_port_data_transmitted_bytes_total" + nicLabels(nicLinks[i]), nicRate[i],
            nicLinks[i] == f.resetLink ? resetAt : -1);
    std::fprintf(out, "# TYPE node_infiniband_symbol_error counter\n");
    for (LinkId id : nicLinks)
        events("node_infiniband_symbol_error_total" + nicLabels(id),
            [&](int t) { return id == f.symbolLink ? double(t / 7 * 5) : 0.0; });
    std::fprintf(out, "# TYPE node_infiniband_link_downed counter\n");
    for (LinkId id : nicLinks)
        events("node_infiniband_link_downed_total" + nicLabels(id),
            [&](int t) { return id == f.resetLink && t >= resetAt ? 1.0 : 0.0; });

    // Switch ports: leaf -> NIC (98 % of the NIC's pattern), leaf -> spine, spine -> leaf.
    std::fprintf(out, "# TYPE PortXmitDataExtended unknown\n");
    for (std::size_t i = 0; i < nicLinks.size(); ++i) {
        std::vector<double> r = nicRate[i];
        for (double& x : r)
            x *= 0.98;
        counter("PortXmitDataExtended" + portLabels(g.link(nicLinks[i]).b, g.link(nicLinks[i]).portB), r, -1);
    }
    for (LinkId id : upLinks) {
        if (id == f.gapLink)
            continue;
        const auto& l = g.link(id);
        // Leaves without servers (the appliance's scalable unit) carry nothing.
        const std::vector<double> none(seconds, 0.0);
        const auto it = leafUp.find(l.a);
        const auto& agg = it != leafUp.end() ? it->second : none;
        const double cap = double(l.gbps) * 1e9 / 8.0;
        std::vector<double> up(seconds), down(seconds);
        for (int t = 0; t < seconds; ++t) {
            up[t] = down[t] = agg[t] * 0.5 / leafUplinks.at(l.a);
            if (id == f.hotUplink && comm(t))
                up[t] = 0.97 * cap;
            if (id == f.burstLink && t == burstAt)
                down[t] = cap;
        }
        counter("PortXmitDataExtended" + portLabels(l.a, l.portA), up, -1);
        counter("PortXmitDataExtended" + portLabels(l.b, l.portB), down, -1);
    }
    // One family after the other (OpenMetrics wants a family's samples together).
    for (const bool discardFamily : { false, true }) {
        std::fprintf(out,
            discardFamily ? "# TYPE PortXmitDiscardsExtended unknown\n"
                          : "# TYPE SymbolErrorCounterExtended unknown\n");
        for (LinkId id = 0; id < g.linkCount(); ++id) {
            const LinkLevel lv = g.level(id);
            const auto& l = g.link(id);
            if ((lv != LinkLevel::NodeLeaf && lv != LinkLevel::LeafSpine) || id == f.gapLink
                || (lv == LinkLevel::NodeLeaf && g.node(l.a).kind != NodeKind::Nic))
                continue;
            for (int end = (lv == LinkLevel::NodeLeaf ? 1 : 0); end < 2; ++end) {
                const NodeId sw = end == 0 ? l.a : l.b;
                const int port = end == 0 ? l.portA : l.portB;
                if (!discardFamily) {
                    const bool symbol = (id == f.symbolLink) || (id == f.oneEnded && end == 1);
                    events("SymbolErrorCounterExtended" + portLabels(sw, port),
                        [&](int t) { return symbol ? double(t / 7 * 5) : 0.0; });
                    continue;
                }
                const bool discards = id == f.hotUplink && end == 0;
                events("PortXmitDiscardsExtended" + portLabels(sw, port), [&](int t) {
                    if (!discards)
                        return 0.0;
                    int n = 0;
                    for (int s = 0; s <= t; ++s)
                        n += comm(s) ? 120 : 0;
                    return double(n);
                });
            }
        }
    }
    std::fprintf(out, "# EOF\n");
    std::fclose(out);
    return f;
}

} // namespace telemetrytest
