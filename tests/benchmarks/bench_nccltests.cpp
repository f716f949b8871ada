// nccl-tests log parsing throughput (result rows per second) against a baseline measured in the
// same run: splitting the same text into lines and whitespace-separated words only. Prints both
// and the ratio; asserts no wall-clock limit.

#include "importers/nccltests/nccltestsimporter.h"
#include "importers/nccltests/ncclteststokenizer.h"

#include <QtTest>

#include <chrono>
#include <cstdio>

using namespace clusterscope::importers;

namespace {

/// A log of `runs` all_reduce_perf runs of 31 sizes each (8 B .. 8 GiB), 8 ranks.
std::string bigLog(int runs)
{
    std::string text;
    char line[256];
    for (int r = 0; r < runs; ++r) {
        text += "# nccl-tests version 2.13.11 nccl-headers=21903 nccl-library=21903\n# Collective test starting: "
                "all_reduce_perf\n"
                "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg "
                "iters: 1 validation: 1 graph: 0\n";
        for (int d = 0; d < 8; ++d) {
            std::snprintf(line, sizeof line,
                "#  Rank %2d Group  0 Pid %6d on   node-001 device %2d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", d,
                100 + d, d, 0x18 + d);
            text += line;
        }
        text += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
                "  busbw #wrong\n";
        for (double s = 8; s <= 8589934592.0; s *= 2) {
            const double t = 12 + s * 1.75 / 450e3, alg = s / (t * 1e3);
            std::snprintf(line, sizeof line,
                "%12.0f  %12.0f  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6d  %7.2f  %6.2f  %6.2f  %6d\n", s, s / 4,
                "float", "sum", -1, t, alg, alg * 1.75, 0, t, alg, alg * 1.75, 0);
            text += line;
        }
        text += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 123.4 \n#\n# Collective test concluded: "
                "all_reduce_perf\n";
    }
    return text;
}

} // namespace

class BenchNcclTests : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void throughput()
    {
        using Clock = std::chrono::steady_clock;
        const std::string text = bigLog(4000); // 124,000 rows, ~18 MB
        const auto t0 = Clock::now();
        std::size_t words = 0;
        NcclTestsTokenizer tokenizer(text);
        NcclTestsLine line;
        while (tokenizer.next(line))
            words += line.tokens.size();
        const auto t1 = Clock::now();
        auto log = parseNcclTestsText(text, "big.log");
        const auto t2 = Clock::now();
        QVERIFY2(log.isOk(), log.message().c_str());
        std::size_t rows = 0;
        for (const auto& run : log->runs)
            rows += run.rows.size();
        QCOMPARE(rows, std::size_t(4000 * 31));
        QVERIFY(words > rows);
        const double baseline = std::chrono::duration<double>(t1 - t0).count();
        const double parse = std::chrono::duration<double>(t2 - t1).count();
        std::printf("nccl-tests parse: %.0f rows/s (%.1f MB/s); baseline tokenize only: %.0f rows/s; parse/tokenize "
                    "time ratio %.2f\n",
            double(rows) / parse, double(text.size()) / parse / 1e6, double(rows) / baseline, parse / baseline);
    }
};

QTEST_GUILESS_MAIN(BenchNcclTests)
#include "bench_nccltests.moc"
