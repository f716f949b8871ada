// Block aggregation of GPU-pair traffic (engine/training/trafficblocks.h): the model source agrees
// with TrafficMatrix (block sums, class totals, pair bytes) at every block size, filter and window;
// the measured source aggregates its pairs the same way and rejects bad pairs; queries are capped so
// 16,384 GPUs at GPU level are refused and a full node-level view stays within bounded memory.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/trafficblocks.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace clusterscope::engine;

Q_DECLARE_METATYPE(clusterscope::engine::GpuWindow)
Q_DECLARE_METATYPE(clusterscope::engine::MeasuredTrafficPair)

namespace {

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-6; }

/// The model's traffic of an example scenario, optionally with another parallelism or GPU count.
struct ModelTraffic {
    TrafficMatrix matrix;
    std::shared_ptr<ModelTrafficSource> source;
};

ModelTraffic modelTraffic(const QString& variant)
{
    const bool moe = variant == QLatin1String("mixtral");
    auto scenario
        = parseScenarioJson(clusterscope::resources::embeddedFile(moe ? "examples/mixtral-8x7b-256-h200-roce.json"
                                                                      : "examples/llama3-70b-1024-h100.json"),
            "example");
    if (!scenario)
        qFatal("%s", scenario.message().c_str());
    Scenario s = *scenario;
    ParallelismSpec& p = *s.parallelism;
    if (variant == QLatin1String("llama-cp-vpp")) { // ring CP, interleaved pipeline (bi-ring)
        p.tp = 4;
        p.cp = 2;
        p.vpp = 2;
        p.schedule = PipelineSchedule::Interleaved;
    } else if (variant == QLatin1String("llama-ulysses")) { // all-to-all CP across nodes
        p.tp = 2;
        p.cp = 4; // Ulysses splits each tp rank's 4 kv heads over cp
        p.dp = 32;
        p.cpKind = ContextParallelKind::Ulysses;
        p.placementOrder = "tp-dp-cp-pp";
    } else if (variant == QLatin1String("llama-16k")) {
        s.cluster.gpus = 16384;
        p.dp = 512;
        s.training.globalBatch = 4096;
    }
    static const Catalog catalog = *Catalog::builtin();
    auto evaluator = TrainingEvaluator::create(s, catalog);
    if (!evaluator)
        qFatal("%s", evaluator.message().c_str());
    const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
    if (const char* why = evaluator->invalidReason(strategy))
        qFatal("%s: %s", qPrintable(variant), why);
    const TrafficMatrix matrix = TrafficMatrix::fromEstimate(evaluator->evaluate(strategy), evaluator->placer());
    return { matrix, std::make_shared<ModelTrafficSource>(matrix, evaluator->placer()) };
}

TrafficBlocks query(const TrafficSource& source, GpuWindow w, long long block, TrafficFilter f = {})
{
    auto r = source.blocks({ w, block, f });
    if (!r)
        qFatal("%s", r.message().c_str());
    return *r;
}

} // namespace

class TestTrafficBlocks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void blockSumsMatchTrafficMatrix_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<long long>("block");
        for (const char* v : { "llama", "llama-cp-vpp", "llama-ulysses", "mixtral" })
            for (long long b : { 1LL, 8LL, 32LL, 256LL, 1000LL })
                QTest::addRow("%s, %lld GPUs per block", v, b) << QString::fromLatin1(v) << b;
    }
    void blockSumsMatchTrafficMatrix()
    {
        QFETCH(QString, variant);
        QFETCH(long long, block);
        const ModelTraffic t = modelTraffic(variant);
        const long long n = t.matrix.gpus();
        const TrafficBlocks mine = query(*t.source, { 0, n, 0, n }, block);
        const BlockTraffic reference = t.matrix.aggregate(block);
        QCOMPARE(mine.rows, reference.blocks);
        QCOMPARE(mine.cols, reference.blocks);
        for (long long r = 0; r < mine.rows; ++r)
            for (long long c = 0; c < mine.cols; ++c)
                QVERIFY2(
                    near(mine.at(r, c), reference.at(r, c)), qPrintable(QStringLiteral("cell %1,%2").arg(r).arg(c)));
        // The sum is preserved: every block size gives the whole iteration's bytes.
        double total = 0;
        for (const auto& perClass : t.matrix.totalsByClass())
            for (double b : perClass)
                total += b;
        QVERIFY(total > 0);
        QVERIFY(near(mine.total(), total));
    }

    void filtersMatchClassTotals_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : { "llama", "llama-cp-vpp", "llama-ulysses", "mixtral" })
            QTest::addRow("%s", v) << QString::fromLatin1(v);
    }
    void filtersMatchClassTotals()
    {
        QFETCH(QString, variant);
        const ModelTraffic t = modelTraffic(variant);
        const long long n = t.matrix.gpus();
        const auto reference = t.matrix.totalsByClass();
        const TrafficSplit split = t.source->totals();
        int nonZero = 0;
        for (int d = 0; d < kTrafficDimensions; ++d)
            for (int c = 0; c < kLinkClasses; ++c) {
                const TrafficBlocks b = query(*t.source, { 0, n, 0, n }, 64, { 1u << d, 1u << c });
                QVERIFY2(near(b.total(), reference[d][c]), qPrintable(QStringLiteral("%1 %2").arg(d).arg(c)));
                QVERIFY(near(split[d][c], reference[d][c]));
                nonZero += reference[d][c] > 0;
            }
        QCOMPARE(split[kTrafficUnknownDimension], (std::array<double, kLinkClasses> {}));
        QVERIFY(nonZero >= 3); // tp on scale-up, dp under leaves, pp through spines at least
        // Masks combine: tp + dp on every class equals their two sums.
        const TrafficBlocks both
            = query(*t.source, { 0, n, 0, n }, 128, { (1u << 0) | (1u << 2), kAllLinkClassesMask });
        double expected = 0;
        for (int c = 0; c < kLinkClasses; ++c)
            expected += reference[0][c] + reference[2][c];
        QVERIFY(near(both.total(), expected));
    }

    void windowsEqualTheFullMatrix_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<long long>("block");
        QTest::addColumn<GpuWindow>("window");
        QTest::addRow("llama gpu-level corner") << QStringLiteral("llama") << 1LL << GpuWindow { 0, 64, 0, 64 };
        QTest::addRow("llama gpu-level pp band") << QStringLiteral("llama") << 1LL << GpuWindow { 240, 272, 0, 512 };
        QTest::addRow("llama node-level off-diagonal")
            << QStringLiteral("llama") << 8LL << GpuWindow { 256, 512, 0, 768 };
        QTest::addRow("llama unaligned window") << QStringLiteral("llama") << 8LL << GpuWindow { 3, 203, 101, 333 };
        QTest::addRow("ulysses all-to-all, narrow columns")
            << QStringLiteral("llama-ulysses") << 4LL << GpuWindow { 0, 300, 130, 140 };
        QTest::addRow("mixtral ep window") << QStringLiteral("mixtral") << 2LL << GpuWindow { 16, 96, 8, 120 };
        QTest::addRow("bi-ring last rows")
            << QStringLiteral("llama-cp-vpp") << 16LL << GpuWindow { 900, 1024, 0, 1024 };
    }
    void windowsEqualTheFullMatrix()
    {
        QFETCH(QString, variant);
        QFETCH(long long, block);
        QFETCH(GpuWindow, window);
        const ModelTraffic t = modelTraffic(variant);
        const TrafficBlocks part = query(*t.source, window, block);
        QCOMPARE(part.firstRowBlock, window.rowBegin / block);
        QCOMPARE(part.firstColBlock, window.colBegin / block);
        // Brute force from pairBytes over the window's GPUs.
        std::vector<double> expected(static_cast<std::size_t>(part.rows * part.cols), 0.0);
        for (long long s = window.rowBegin; s < window.rowEnd; ++s)
            for (long long d = window.colBegin; d < window.colEnd; ++d)
                expected[static_cast<std::size_t>(
                    (s / block - part.firstRowBlock) * part.cols + d / block - part.firstColBlock)]
                    += t.matrix.pairTotalBytes(s, d);
        double total = 0;
        for (long long i = 0; i < part.rows * part.cols; ++i) {
            QVERIFY2(near(part.bytes[std::size_t(i)], expected[std::size_t(i)]), qPrintable(QString::number(i)));
            total += expected[std::size_t(i)];
        }
        QVERIFY(total > 0);
        // Aligned windows equal the corresponding cells of the full grid.
        if (window.rowBegin % block == 0 && window.colBegin % block == 0 && window.rowEnd % block == 0
            && window.colEnd % block == 0) {
            const long long n = t.matrix.gpus();
            const TrafficBlocks full = query(*t.source, { 0, n, 0, n }, block);
            for (long long r = 0; r < part.rows; ++r)
                for (long long c = 0; c < part.cols; ++c)
                    QCOMPARE(part.at(r, c), full.at(part.firstRowBlock + r, part.firstColBlock + c));
        }
    }

    void splitMatchesPairBytes()
    {
        const ModelTraffic t = modelTraffic(QStringLiteral("llama"));
        // GPU 0 -> 1 is TP (ring neighbour, NVLink); 0 -> 8 is DP across nodes under one leaf.
        const auto tp = *t.source->split({ 0, 1, 1, 2 });
        QVERIFY(tp[0][0] > 0);
        QVERIFY(near(tp[0][0], t.matrix.pairBytes(0, 1)[0]));
        const auto dp = *t.source->split({ 0, 1, 8, 9 });
        QVERIFY(near(dp[2][1], t.matrix.pairBytes(0, 8)[2]));
        QVERIFY(dp[2][1] > 0 && tp[0][0] > dp[2][1]);
    }

    void measuredSourceAggregates()
    {
        ClusterGeometry g;
        g.gpus = 32;
        g.gpusPerNode = 4;
        g.scaleUpDomainGpus = 4;
        g.nodesPerLeaf = 2;
        g.nodesPerPod = 8;
        const GroupPlacer placer(g);
        std::vector<MeasuredTrafficPair> pairs { { 0, 1, 100.0, 0 }, { 0, 1, 50.0, 0 },
            { 1, 0, 7.0, kTrafficUnknownDimension }, { 0, 4, 1000.0, 2 }, { 31, 0, 1e6, 4 }, { 5, 17, 3.0, 3 } };
        auto r = MeasuredTrafficSource::create(32, pairs, placer);
        QVERIFY2(r.isOk(), r.message().c_str());
        const MeasuredTrafficSource& m = *r;
        QCOMPARE(m.pairs().size(), std::size_t(5)); // the two 0 -> 1 TP entries merged
        const TrafficBlocks gpu = query(m, { 0, 32, 0, 32 }, 1);
        QCOMPARE(gpu.at(0, 1), 150.0);
        QCOMPARE(gpu.at(1, 0), 7.0);
        QCOMPARE(gpu.at(31, 0), 1e6);
        const TrafficBlocks node = query(m, { 0, 32, 0, 32 }, 4);
        QCOMPARE(node.at(0, 0), 157.0);
        QCOMPARE(node.at(0, 1), 1000.0);
        QCOMPARE(node.at(7, 0), 1e6);
        QCOMPARE(node.at(1, 4), 3.0);
        QCOMPARE(node.total(), gpu.total());
        // Filters: unknown only; leaf class only (0 -> 4 is node 0 -> node 1 under one leaf).
        QCOMPARE(query(m, { 0, 32, 0, 32 }, 8, { 1u << kTrafficUnknownDimension, kAllLinkClassesMask }).total(), 7.0);
        QCOMPARE(query(m, { 0, 32, 0, 32 }, 8, { kAllTrafficDimensionsMask, 1u << 1 }).total(), 1000.0);
        QCOMPARE(query(m, { 0, 32, 0, 32 }, 8, { kAllTrafficDimensionsMask, 1u << 2 }).total(), 1e6 + 3.0);
        // Windows: rows 1..31 exclude GPU 0's sends.
        QCOMPARE(query(m, { 1, 32, 0, 32 }, 1).total(), 7.0 + 1e6 + 3.0);
        const auto split = *m.split({ 0, 32, 0, 32 });
        QCOMPARE(split[0][0], 150.0);
        QCOMPARE(split[kTrafficUnknownDimension][0], 7.0);
        QCOMPARE(split[4][2], 1e6);
    }

    void measuredSourceRejectsBadPairs_data()
    {
        QTest::addColumn<MeasuredTrafficPair>("pair");
        QTest::addColumn<QString>("message");
        QTest::addRow("source out of range")
            << MeasuredTrafficPair { 32, 0, 1.0, 0 } << QStringLiteral("GPU 32 is outside");
        QTest::addRow("negative destination")
            << MeasuredTrafficPair { 0, -1, 1.0, 0 } << QStringLiteral("GPU -1 is outside");
        QTest::addRow("self pair") << MeasuredTrafficPair { 3, 3, 1.0, 0 } << QStringLiteral("both GPU 3");
        QTest::addRow("bad dimension") << MeasuredTrafficPair { 0, 1, 1.0, 9 } << QStringLiteral("dimension 9");
        QTest::addRow("negative bytes") << MeasuredTrafficPair { 0, 1, -5.0, 0 } << QStringLiteral("must be finite");
        QTest::addRow("nan bytes") << MeasuredTrafficPair { 0, 1, std::nan(""), 0 } << QStringLiteral("must be finite");
    }
    void measuredSourceRejectsBadPairs()
    {
        QFETCH(MeasuredTrafficPair, pair);
        QFETCH(QString, message);
        auto r = MeasuredTrafficSource::create(32, { { 0, 1, 1.0, 0 }, pair }, GroupPlacer());
        QVERIFY(!r.isOk());
        const QString text = QString::fromStdString(r.message());
        QVERIFY2(text.contains(QStringLiteral("pair 1")) && text.contains(message), qPrintable(text));
    }

    void queryErrors_data()
    {
        QTest::addColumn<GpuWindow>("window");
        QTest::addColumn<long long>("block");
        QTest::addColumn<QString>("message");
        QTest::addRow("empty rows") << GpuWindow { 5, 5, 0, 10 } << 1LL << QStringLiteral("source rows [5, 5)");
        QTest::addRow("columns past the end")
            << GpuWindow { 0, 10, 0, 1025 } << 1LL << QStringLiteral("destination columns [0, 1025)");
        QTest::addRow("negative rows") << GpuWindow { -1, 10, 0, 10 } << 1LL << QStringLiteral("source rows [-1, 10)");
        QTest::addRow("zero block") << GpuWindow { 0, 10, 0, 10 } << 0LL << QStringLiteral("gpus_per_block is 0");
    }
    void queryErrors()
    {
        QFETCH(GpuWindow, window);
        QFETCH(long long, block);
        QFETCH(QString, message);
        const ModelTraffic t = modelTraffic(QStringLiteral("llama"));
        auto r = t.source->blocks({ window, block, {} });
        QVERIFY(!r.isOk());
        QVERIFY2(QString::fromStdString(r.message()).contains(message), r.message().c_str());
    }

    void sixteenThousandGpusStayBounded()
    {
        // In a forked child so that the peak RSS (getrusage ru_maxrss, KiB on Linux) starts fresh
        // from this point: the whole node-level grid (2048 x 2048 cells, 32 MiB) and a GPU-level
        // window must grow the peak by far less than the dense 16,384^2 matrix (2 GiB of doubles).
        const ModelTraffic t = modelTraffic(QStringLiteral("llama-16k"));
        const long long n = t.matrix.gpus();
        QCOMPARE(n, 16384LL);
        auto refused = t.source->blocks({ { 0, n, 0, n }, 1, {} });
        QVERIFY(!refused.isOk());
        QVERIFY2(QString::fromStdString(refused.message()).contains(QStringLiteral("16384 x 16384 blocks")),
            refused.message().c_str());

        int fds[2];
        QVERIFY(pipe(fds) == 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            rusage before {};
            getrusage(RUSAGE_SELF, &before);
            double checksum = 0;
            for (long long block : { 8LL, 64LL, 512LL, 4096LL })
                checksum += t.source->blocks({ { 0, n, 0, n }, block, {} })->total();
            checksum += t.source->blocks({ { 8000, 9024, 8000, 9024 }, 1, {} })->total();
            rusage after {};
            getrusage(RUSAGE_SELF, &after);
            const long long result[2] = { after.ru_maxrss - before.ru_maxrss, checksum > 0 ? 1 : 0 };
            [[maybe_unused]] const auto written = write(fds[1], result, sizeof result);
            _exit(0);
        }
        close(fds[1]);
        long long result[2] = { -1, 0 };
        const auto got = read(fds[0], result, sizeof result);
        close(fds[0]);
        int status = 0;
        waitpid(child, &status, 0);
        QCOMPARE(got, ssize_t(sizeof result));
        QCOMPARE(result[1], 1LL);
        qInfo("16,384 GPUs: peak RSS grew by %lld KiB for the node/rack/pod grids and a 1024^2 GPU window", result[0]);
        QVERIFY2(result[0] < 64 * 1024, qPrintable(QString::number(result[0])));
    }
};

QTEST_GUILESS_MAIN(TestTrafficBlocks)
#include "tst_trafficblocks.moc"
