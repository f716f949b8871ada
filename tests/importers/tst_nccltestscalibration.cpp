// From nccl-tests text to a calibrated collective model: a synthetic log printed exactly as
// nccl-tests prints it (util.cu getFloatStr) from known latency/bandwidth laws must be fitted back,
// with residuals lowered by the calibration; the bridge to MeasuredSweep and the GPU-name mapping.

#include "engine/calibration/collectivecalibrator.h"
#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/scenario/scenario.h"
#include "importers/nccltests/nccltestsimporter.h"
#include "importers/nccltests/nccltestssweep.h"

#include <QtTest>

#include <cmath>
#include <cstdio>

using namespace clusterscope;
using namespace clusterscope::importers;

namespace {

/// nccl-tests src/util.cu getFloatStr: %.2f, then %.1f, %.0f, %.1e as the value grows.
std::string floatStr(double value, int width)
{
    int power = 0;
    for (double v = 1; value >= v; v *= 10)
        ++power;
    char buffer[64];
    if (power < width - 2)
        std::snprintf(buffer, sizeof buffer, "%*.2f", width, value);
    else if (power < width - 1)
        std::snprintf(buffer, sizeof buffer, "%*.1f", width, value);
    else if (power < width + 1)
        std::snprintf(buffer, sizeof buffer, "%*.0f", width, value);
    else
        std::snprintf(buffer, sizeof buffer, "%*.1e", width, value);
    return buffer;
}

/// An all_reduce_perf log of `ranks` ranks on `nodes` hosts whose time follows
/// t = latency + S x factor / busbw (one regime) or the faster of two such laws.
std::string syntheticAllReduceLog(
    int ranks, int nodes, double latencyUs, double busGBps, double latency2Us = 0, double bus2GBps = 0)
{
    std::string text = "# nccl-tests version 2.13.11 nccl-headers=21903 nccl-library=21903\n"
                       "# Collective test starting: all_reduce_perf\n"
                       "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
                       "agg iters: 1 validation: 1 graph: 0\n"
                       "#\n# Using devices\n";
    char line[512];
    for (int r = 0; r < ranks; ++r) {
        std::snprintf(line, sizeof line,
            "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", r, 1000 + r,
            ("node-" + std::to_string(r / (ranks / nodes))).c_str(), r % (ranks / nodes), 0x18 + r % 8);
        text += line;
    }
    text += "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw  "
            " busbw #wrong\n"
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
            "(GB/s)\n";
    const double factor = 2.0 * (ranks - 1) / ranks;
    for (double s = 8; s <= 8589934592.0; s *= 2) {
        double t = latencyUs + s * factor / (busGBps * 1e3);
        if (bus2GBps > 0)
            t = std::min(t, latency2Us + s * factor / (bus2GBps * 1e3));
        const double alg = s / (t * 1e3);
        std::snprintf(line, sizeof line, "%12.0f  %12.0f  %8s  %6s  %6d", s, s / 4, "float", "sum", -1);
        text += line;
        for (int half = 0; half < 2; ++half)
            text
                += "  " + floatStr(t, 7) + "  " + floatStr(alg, 6) + "  " + floatStr(alg * factor, 6) + "  " + "     0";
        text += "\n";
    }
    return text
        + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100 \n#\n# Collective test concluded: "
          "all_reduce_perf\n";
}

engine::CollectiveModel h100Model(int gpus, int gpusPerNode)
{
    static const engine::Catalog catalog = engine::Catalog::builtin().value();
    engine::Scenario s;
    s.name = "t";
    s.cluster.gpu = "H100-SXM-80GB";
    s.cluster.gpus = gpus;
    s.cluster.gpusPerNode = gpusPerNode;
    return engine::CollectiveModel::fromScenario(s, catalog).value();
}

/// The model's own AllReduce times on 8 ranks of one node, 8 B .. 8 GiB, the sizes of `slow` x `factor`.
engine::MeasuredSweep modelSweep(const engine::CollectiveModel& model, const QList<int>& slow, double factor)
{
    engine::MeasuredSweep sweep;
    sweep.ranks = 8;
    sweep.nodes = 1;
    for (int i = 0; i < 31; ++i) {
        const double bytes = 8.0 * std::pow(2.0, i);
        const double t = model.evaluateNcclTests(engine::CollectiveOp::AllReduce, bytes, 8, 1).seconds;
        sweep.points.push_back({ bytes, slow.contains(i) ? t * factor : t });
    }
    return sweep;
}

} // namespace

class TestNcclTestsCalibration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void syntheticLogIsFittedBack_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<double>("latencyUs");
        QTest::addColumn<double>("busGBps");
        QTest::addColumn<double>("latency2Us");
        QTest::addColumn<double>("bus2GBps");
        QTest::addColumn<double>("maxRmsAfter");
        // One law has no chunk pipeline: the model's NVLS three-stage fill at 2-16 MiB is what the
        // calibration's size correction has to undo there.
        QTest::addRow("8x H100, one law 30 us + 350 GB/s") << 8 << 1 << 30.0 << 350.0 << 0.0 << 0.0 << 0.06;
        QTest::addRow("8x H100, LL-like 9 us/40 GB/s then 60 us/470 GB/s")
            << 8 << 1 << 9.0 << 40.0 << 60.0 << 470.0 << 0.10;
        QTest::addRow("16x H100 on 2 nodes, 45 us + 160 GB/s") << 16 << 2 << 45.0 << 160.0 << 0.0 << 0.0 << 0.06;
    }
    void syntheticLogIsFittedBack()
    {
        QFETCH(int, ranks);
        QFETCH(int, nodes);
        QFETCH(double, latencyUs);
        QFETCH(double, busGBps);
        QFETCH(double, latency2Us);
        QFETCH(double, bus2GBps);
        QFETCH(double, maxRmsAfter);
        const std::string text = syntheticAllReduceLog(ranks, nodes, latencyUs, busGBps, latency2Us, bus2GBps);
        auto log = parseNcclTestsText(text, "synthetic.log");
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.front().ranks(), ranks);
        QCOMPARE(log->runs.front().nodes(), nodes);
        auto sweep = measuredSweepFromRun(*log, log->runs.front());
        QVERIFY2(sweep.isOk(), sweep.message().c_str());
        QCOMPARE(sweep->points.size(), std::size_t(31));
        const engine::CollectiveModel model = h100Model(ranks, ranks / nodes);
        auto cal = engine::calibrateSweep(model, *sweep);
        QVERIFY2(cal.isOk(), cal.message().c_str());
        QVERIFY2(cal->rmsAfter < cal->rmsBefore,
            qPrintable(QStringLiteral("%1 -> %2").arg(cal->rmsBefore).arg(cal->rmsAfter)));
        QVERIFY2(cal->rmsAfter <= maxRmsAfter,
            qPrintable(QStringLiteral("%1 -> %2").arg(cal->rmsBefore).arg(cal->rmsAfter)));
        // The largest sizes are bandwidth-bound: the calibrated busbw there must be near the law's.
        const engine::ResidualRow& last = cal->rows.back();
        const double factor = 2.0 * (ranks - 1) / ranks;
        const double busbwAfter = last.bytes / last.afterSeconds * factor / 1e9;
        const double expected = bus2GBps > 0 ? bus2GBps : busGBps;
        QVERIFY2(std::abs(busbwAfter / expected - 1) < 0.03, qPrintable(QString::number(busbwAfter)));
        // Fewer sizes than before are off by more than 10%.
        int badBefore = 0, badAfter = 0;
        for (const auto& r : cal->rows) {
            badBefore += std::abs(r.residualBefore()) > 0.10;
            badAfter += std::abs(r.residualAfter()) > 0.10;
        }
        QVERIFY2(badAfter <= badBefore, qPrintable(QStringLiteral("%1 -> %2").arg(badBefore).arg(badAfter)));
    }

    void sweepFromRun_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("error");
        QTest::addColumn<int>("points");
        QTest::addColumn<double>("firstSeconds");
        QTest::addRow("public H100 row is the last point") << "allreduce_h100_8gpu.log"
                                                           << ""
                                                           << "" << 31 << 11.54e-6;
        QTest::addRow("hypercube has no model counterpart") << "hypercube_8gpu.log"
                                                            << ""
                                                            << "no counterpart for hypercube" << 0 << 0.0;
        QTest::addRow("json, out-of-place times") << "allreduce_bf16.json"
                                                  << ""
                                                  << "" << 21 << 0.0;
    }
    void sweepFromRun()
    {
        QFETCH(QString, file);
        QFETCH(QString, error);
        const std::string path = std::string(CLUSTERSCOPE_TEST_DATA_DIR) + "/nccltests/" + file.toStdString();
        auto log = importNcclTestsFile(path);
        QVERIFY2(log.isOk(), log.message().c_str());
        auto sweep = measuredSweepFromRun(*log, log->runs.front());
        if (!error.isEmpty()) {
            QVERIFY(!sweep.isOk());
            QVERIFY2(QString::fromStdString(sweep.message()).contains(error), sweep.message().c_str());
            return;
        }
        QVERIFY2(sweep.isOk(), sweep.message().c_str());
        QTEST(int(sweep->points.size()), "points");
        QFETCH(double, firstSeconds);
        if (firstSeconds > 0) {
            QVERIFY(std::abs(sweep->points.back().seconds - 31356e-6) < 1e-12);
            QCOMPARE(sweep->points.back().bytes, 8589934592.0);
        }
        for (std::size_t i = 1; i < sweep->points.size(); ++i)
            QVERIFY(sweep->points[i - 1].bytes <= sweep->points[i].bytes);
    }

    void outliersLeftOutOfKeptRms_data()
    {
        // A sweep of the model's own times (8x H100, 8 B .. 8 GiB) with sizes made slower: each listed
        // size is flagged as an outlier with its reason, and the RMS over the sizes kept is the fit's.
        QTest::addColumn<QList<int>>("slowSizes"); ///< indexes of the sizes made slower (log2 bytes - 3)
        QTest::addColumn<double>("slowFactor");
        QTest::addColumn<int>("outliers");
        QTest::addRow("clean sweep: no outlier") << QList<int> {} << 1.0 << 0;
        QTest::addRow("one wild size, 4x") << QList<int> { 10 } << 4.0 << 1;
        QTest::addRow("two isolated sizes, 1.6x") << QList<int> { 6, 20 } << 1.6 << 2;
    }
    void outliersLeftOutOfKeptRms()
    {
        QFETCH(QList<int>, slowSizes);
        QFETCH(double, slowFactor);
        const engine::CollectiveModel model = h100Model(8, 8);
        const engine::MeasuredSweep sweep = modelSweep(model, slowSizes, slowFactor);
        auto cal = engine::calibrateSweep(model, sweep);
        QVERIFY2(cal.isOk(), cal.message().c_str());
        QTEST(cal->outliers, "outliers");
        for (int i = 0; i < 31; ++i) {
            QCOMPARE(cal->rows[std::size_t(i)].outlier, slowSizes.contains(i));
            QCOMPARE(cal->rows[std::size_t(i)].outlierReason.empty(), !slowSizes.contains(i));
        }
        // The sizes kept are the model's own: nothing to correct there.
        QVERIFY2(cal->rmsAfterKept < 0.01, qPrintable(QString::number(cal->rmsAfterKept)));
        if (slowSizes.isEmpty())
            QCOMPARE(cal->rmsAfterKept, cal->rmsAfter);
        else
            QVERIFY(cal->rmsAfterKept < cal->rmsAfter);
    }

    // A size the log itself calls noisy (nccl-tests -I) is left out of the fit with that reason, even
    // when its residual alone (15% slow, below the 20% floor) would not make it an outlier.
    void noisySizesLeftOut()
    {
        const engine::CollectiveModel model = h100Model(8, 8);
        engine::MeasuredSweep sweep = modelSweep(model, { 12 }, 1.15);
        auto plain = engine::calibrateSweep(model, sweep);
        QVERIFY2(plain.isOk(), plain.message().c_str());
        QVERIFY(!plain->rows[12].outlier);
        sweep.noisySizes.emplace_back(sweep.points[12].bytes, "its own iterations vary");
        auto flagged = engine::calibrateSweep(model, sweep);
        QVERIFY2(flagged.isOk(), flagged.message().c_str());
        QVERIFY(flagged->rows[12].outlier);
        QCOMPARE(flagged->rows[12].outlierReason, std::string("its own iterations vary"));
        QCOMPARE(flagged->outliers, 1);
        QVERIFY2(flagged->rmsAfterKept < 0.01, qPrintable(QString::number(flagged->rmsAfterKept)));

        // From a -J log with -I 1: its 64 MiB size (cv 40%, one iteration 3x) is the noisy one.
        auto log = importNcclTestsFile(std::string(CLUSTERSCOPE_TEST_DATA_DIR) + "/nccltests/allreduce_per_iter.json");
        QVERIFY2(log.isOk(), log.message().c_str());
        auto fromLog = measuredSweepFromRun(*log, log->runs.front());
        QVERIFY2(fromLog.isOk(), fromLog.message().c_str());
        QCOMPARE(fromLog->noisySizes.size(), std::size_t(1));
        QCOMPARE(fromLog->noisySizes.front().first, 67108864.0);
        QVERIFY2(fromLog->noisySizes.front().second.find("nccl-tests -I: cv 40.") != std::string::npos,
            fromLog->noisySizes.front().second.c_str());
    }

    void gpusPerThreadFromHeader()
    {
        // nccl-tests -g 8 ("nGpus 8"): one thread launches the 8 GPUs' kernels per call; the sweep
        // carries it and the model's one-node latency grows by 7 launches over -g 1.
        const std::string text = syntheticAllReduceLog(8, 1, 30.0, 350.0);
        std::string eight = text;
        const std::string one = "nThread 1 nGpus 1 ";
        eight.replace(eight.find(one), one.size(), "nThread 1 nGpus 8 ");
        auto log1 = parseNcclTestsText(text, "g1.log");
        auto log8 = parseNcclTestsText(eight, "g8.log");
        QVERIFY(log1.isOk() && log8.isOk());
        auto sweep1 = measuredSweepFromRun(*log1, log1->runs.front());
        auto sweep8 = measuredSweepFromRun(*log8, log8->runs.front());
        QVERIFY(sweep1.isOk() && sweep8.isOk());
        QCOMPARE(sweep1->gpusPerThread, 1);
        QCOMPARE(sweep8->gpusPerThread, 8);
        const engine::CollectiveModel model = h100Model(8, 8);
        const double t1 = model.evaluateNcclTests(engine::CollectiveOp::AllReduce, 8, 8, 1).seconds;
        const double t8
            = model.evaluateNcclTests(engine::CollectiveOp::AllReduce, 8, 8, 1, engine::CollectiveAlgorithm::Auto, 8)
                  .seconds;
        QVERIFY2(std::abs((t8 - t1) * 1e6 - 7 * 3.0) < 1e-6, qPrintable(QString::number((t8 - t1) * 1e6)));
        // Across nodes the per-call overhead does not depend on it.
        const engine::CollectiveModel twoNodes = h100Model(16, 8);
        QCOMPARE(twoNodes.evaluateNcclTests(engine::CollectiveOp::AllReduce, 8, 16, 2).seconds,
            twoNodes.evaluateNcclTests(engine::CollectiveOp::AllReduce, 8, 16, 2, engine::CollectiveAlgorithm::Auto, 8)
                .seconds);
    }

    void gpuNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("id");
        QTest::addRow("H100 SXM") << "NVIDIA H100 80GB HBM3"
                                  << "H100-SXM-80GB";
        QTest::addRow("H100 PCIe") << "NVIDIA H100 PCIe"
                                   << "";
        QTest::addRow("H100 NVL") << "NVIDIA H100 NVL"
                                  << "";
        QTest::addRow("H200") << "NVIDIA H200"
                              << "H200-SXM-141GB";
        // The China-market parts nvidia-smi and nccl-tests name as such: NVLink cut to 8 links (H800,
        // A800), compute cut (H20, not to be taken for an H200).
        QTest::addRow("H800") << "NVIDIA H800"
                              << "H800-SXM-80GB";
        QTest::addRow("H800 PCIe") << "NVIDIA H800 PCIe"
                                   << "";
        QTest::addRow("H20") << "NVIDIA H20"
                             << "H20";
        QTest::addRow("A800") << "NVIDIA A800-SXM4-80GB"
                              << "A800-SXM-80GB";
        QTest::addRow("A800 PCIe") << "NVIDIA A800 80GB PCIe"
                                   << "";
        QTest::addRow("A100 80GB") << "NVIDIA A100-SXM4-80GB"
                                   << "A100-SXM-80GB";
        QTest::addRow("A100 40GB") << "NVIDIA A100-SXM4-40GB"
                                   << "A100-SXM-80GB";
        QTest::addRow("V100") << "Tesla V100-SXM2-16GB"
                              << "V100-SXM2-32GB";
        QTest::addRow("B200") << "NVIDIA B200"
                              << "B200";
        QTest::addRow("GB200") << "NVIDIA GB200"
                               << "GB200";
        QTest::addRow("B300") << "NVIDIA B300 SXM6 AC"
                              << "B300";
        QTest::addRow("GB300") << "NVIDIA GB300"
                               << "GB300";
        QTest::addRow("MI300X") << "AMD Instinct MI300X"
                                << "MI300X";
        QTest::addRow("MI300X VF") << "AMD Instinct MI300X VF"
                                   << "MI300X";
        QTest::addRow("MI325X") << "AMD Instinct MI325X"
                                << "MI325X";
        QTest::addRow("MI355X") << "AMD Instinct MI355X"
                                << "MI355X";
        QTest::addRow("L40S") << "NVIDIA L40S"
                              << "";
        QTest::addRow("empty") << ""
                               << "";
    }
    void gpuNames()
    {
        QFETCH(QString, name);
        static const engine::Catalog catalog = engine::Catalog::builtin().value();
        const auto id = catalogGpuIdForDeviceName(catalog, name.toStdString());
        QTEST(QString::fromStdString(id.value_or(std::string())), "id");
    }
};

QTEST_GUILESS_MAIN(TestNcclTestsCalibration)
#include "tst_nccltestscalibration.moc"
