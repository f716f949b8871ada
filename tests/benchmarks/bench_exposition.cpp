// Exposition parser throughput (MB/s per core) on a node_exporter-like page of 1,024 GPUs' HCAs and
// UFM-like switch ports, against a baseline measured in the same run: finding the line ends and the
// value field of each line with memchr only (the floor any parser pays). Prints both and the ratio;
// asserts no wall-clock limit. Target: >= 200 MB/s.

#include "importers/telemetry/expositionparser.h"

#include <QtTest>

#include <chrono>
#include <cstdio>
#include <cstring>

using namespace clusterscope::importers;

namespace {

std::string bigExposition(int copies)
{
    std::string text;
    char line[256];
    for (int c = 0; c < copies; ++c) {
        text += "# HELP node_infiniband_port_data_transmitted_bytes_total Number of data octets transmitted on all "
                "links\n"
                "# TYPE node_infiniband_port_data_transmitted_bytes_total counter\n";
        for (int n = 0; n < 128; ++n)
            for (int g = 0; g < 8; ++g) {
                std::snprintf(line, sizeof line,
                    "node_infiniband_port_data_transmitted_bytes_total{device=\"mlx5_%d\",instance=\"node%03d:9100\","
                    "job=\"node\",port=\"1\"} %.6e\n",
                    g, n + 1, 1.234567e15 + n * 1e9 + g);
                text += line;
            }
        text += "# TYPE PortXmitDataExtended counter\n";
        for (int s = 0; s < 48; ++s)
            for (int p = 1; p <= 64; ++p) {
                std::snprintf(line, sizeof line,
                    "PortXmitDataExtended{node_guid=\"0xb83fd20300%06x\",port_num=\"%d\",source=\"ufm\"} %lld %lld\n",
                    s, p, 85554128244LL + s * 1000 + p, 1628683905941LL + c);
                text += line;
            }
    }
    return text;
}

} // namespace

class BenchExposition : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void throughput()
    {
        using Clock = std::chrono::steady_clock;
        const std::string text = bigExposition(200); // ~0.8 M samples, ~100 MB
        double best = 1e9, bestBaseline = 1e9;
        std::size_t samples = 0;
        double checksum = 0;
        for (int rep = 0; rep < 3; ++rep) {
            const auto t0 = Clock::now();
            std::size_t fields = 0;
            const char* p = text.data();
            const char* end = p + text.size();
            while (p < end) {
                const char* nl = static_cast<const char*>(std::memchr(p, '\n', std::size_t(end - p)));
                const char* sp = static_cast<const char*>(std::memchr(p, ' ', std::size_t(nl - p)));
                fields += sp != nullptr;
                p = nl + 1;
            }
            const auto t1 = Clock::now();
            samples = 0;
            auto n = parseExposition(text, ExpositionFormat::Text004, "bench", [&](const SampleView& s) {
                ++samples;
                checksum += s.value;
            });
            const auto t2 = Clock::now();
            QVERIFY2(n, n.message().c_str());
            QVERIFY(fields > samples);
            bestBaseline = std::min(bestBaseline, std::chrono::duration<double>(t1 - t0).count());
            best = std::min(best, std::chrono::duration<double>(t2 - t1).count());
        }
        QCOMPARE(samples, std::size_t(200 * (1024 + 48 * 64)));
        QVERIFY(checksum > 0);
        const double mb = double(text.size()) / 1e6;
        std::printf("exposition parse: %.0f MB/s, %.1f M samples/s (%.0f MB, %zu samples); baseline memchr line scan: "
                    "%.0f MB/s; "
                    "parse/scan time ratio %.2f\n",
            mb / best, double(samples) / best / 1e6, mb, samples, mb / bestBaseline, best / bestBaseline);
    }
};

QTEST_GUILESS_MAIN(BenchExposition)
#include "bench_exposition.moc"
