// The measured step of a stored run (median over steps of the mean over ranks), the check that a
// run is the job a scenario models (GPU count and type), and where a project's compute
// calibration applies (the GPU and dtype it was fitted on).

#include "engine/analysis/runcomputecalibration.h"
#include "engine/run/runanalysis.h"
#include "engine/store/runstore.h"

#include <QtTest>

using namespace clusterscope::engine;

namespace {
StepBreakdown step(std::int64_t n, std::vector<std::pair<double, double>> durationCompute)
{
    StepBreakdown s;
    s.step = n;
    std::int32_t rank = 0;
    for (const auto& [duration, compute] : durationCompute) {
        RankStepBreakdown r;
        r.rank = rank++;
        r.durationSeconds = duration;
        r.computeSeconds = compute;
        s.ranks.push_back(r);
    }
    return s;
}

Scenario scenario(const char* gpu, int gpus)
{
    Scenario s;
    s.name = "s";
    s.cluster.gpu = gpu;
    s.cluster.gpus = gpus;
    s.training.dtype = DType::BF16;
    return s;
}
}

class TestRunComputeCalibration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void medianOfStepMeans()
    {
        RunAnalysis a;
        // A slow first step (warm-up) does not move the median of three.
        a.steps.push_back(step(0, { { 3.0, 1.0 }, { 5.0, 1.4 } }));
        a.steps.push_back(step(1, { { 1.0, 0.5 }, { 1.2, 0.7 } }));
        a.steps.push_back(step(2, { { 0.9, 0.4 }, { 1.1, 0.6 } }));
        a.steps.push_back(step(3, {}));
        const RunStepMeasurement m = measureRunSteps(a);
        QCOMPARE(m.steps, 3);
        QCOMPARE(m.stepSeconds, 1.1);
        QCOMPARE(m.computeSeconds, 0.6);
        a.steps.pop_back();
        a.steps.pop_back();
        QCOMPARE(measureRunSteps(a).stepSeconds, (4.0 + 1.1) / 2);
        QCOMPARE(measureRunSteps(RunAnalysis {}).steps, 0);
    }

    void mismatches_data()
    {
        QTest::addColumn<QString>("runGpu");
        QTest::addColumn<int>("worldSize");
        QTest::addColumn<int>("rankFiles");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("expected");
        QTest::addRow("same") << "NVIDIA H100 80GB HBM3" << 8 << 8 << "H100-SXM-80GB" << 8 << 0;
        QTest::addRow("count") << "NVIDIA H100 80GB HBM3" << 8 << 8 << "H100-SXM-80GB" << 16 << 1;
        QTest::addRow("world size over rank files") << "NVIDIA H100 80GB HBM3" << 16 << 2 << "H100-SXM-80GB" << 16 << 0;
        QTest::addRow("type") << "NVIDIA A100-SXM4-80GB" << 8 << 8 << "H100-SXM-80GB" << 8 << 1;
        QTest::addRow("H100 is not GH100") << "NVIDIA GH100" << 8 << 8 << "H100-SXM-80GB" << 8 << 1;
        QTest::addRow("V100 with dashes") << "Tesla V100-SXM2-32GB" << 8 << 8 << "V100-SXM2-32GB" << 8 << 0;
        QTest::addRow("both") << "Tesla V100-SXM2-32GB" << 8 << 8 << "B200" << 72 << 2;
        QTest::addRow("unknown GPU") << "" << 8 << 8 << "B200" << 8 << 0;
    }
    void mismatches()
    {
        QFETCH(QString, runGpu);
        QFETCH(int, worldSize);
        QFETCH(int, rankFiles);
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(int, expected);
        StoredRunSummary run;
        run.gpuName = runGpu.toStdString();
        run.worldSize = worldSize;
        run.rankCount = rankFiles;
        const auto found = runScenarioMismatches(run, scenario(gpu.toLatin1().constData(), gpus));
        QCOMPARE(int(found.size()), expected);
    }

    void projectCalibrationAppliesToItsGpuAndDtype()
    {
        ProjectComputeCalibration fit;
        fit.compute.gemmPeakFraction = 0.5;
        fit.compute.calibratedFrom = "run \"r\"";
        fit.fittedGpu = "H100-SXM-80GB";
        fit.fittedDtype = "bf16";
        Scenario h100 = scenario("H100-SXM-80GB", 8);
        QVERIFY(applyProjectComputeCalibration(fit, h100));
        QCOMPARE(*h100.computeCalibration.gemmPeakFraction, 0.5);
        QCOMPARE(h100.computeCalibration.calibratedFrom, std::string("run \"r\""));

        Scenario a100 = scenario("A100-SXM-80GB", 8);
        std::string why;
        QVERIFY(!applyProjectComputeCalibration(fit, a100, &why));
        QVERIFY(a100.computeCalibration == ComputeCalibrationSpec {});
        QVERIFY(QString::fromStdString(why).contains(QStringLiteral("fitted on H100-SXM-80GB bf16")));

        Scenario fp8 = scenario("H100-SXM-80GB", 8);
        fp8.training.dtype = DType::FP8;
        QVERIFY(!applyProjectComputeCalibration(fit, fp8));

        // Keys typed by hand (no fitted GPU) apply everywhere.
        ProjectComputeCalibration typed;
        typed.compute.flashAttention = false;
        QVERIFY(applyProjectComputeCalibration(typed, a100));
        QCOMPARE(*a100.computeCalibration.flashAttention, false);
    }

    void documentRoundTrip()
    {
        ProjectComputeCalibration fit;
        fit.compute.gemmPeakFraction = 0.625;
        fit.compute.calibratedFrom = "run \"r\"";
        fit.fittedGpu = "B200";
        fit.fittedDtype = "fp8";
        auto back = parseProjectComputeCalibrationJson(projectComputeCalibrationToJson(fit), "p.csproj");
        QVERIFY2(back, back.message().c_str());
        QVERIFY(back->compute == fit.compute);
        QCOMPARE(back->fittedGpu, fit.fittedGpu);
        QCOMPARE(back->fittedDtype, fit.fittedDtype);
        // Documents of earlier versions (no "fitted") still read and apply everywhere.
        auto old = parseProjectComputeCalibrationJson(
            R"({"format": "clusterscope-compute-calibration", "version": 1, "compute": {"gemm_peak_fraction": 0.5}})",
            "p.csproj");
        QVERIFY2(old, old.message().c_str());
        QVERIFY(old->fittedGpu.empty());
        auto bad = parseProjectComputeCalibrationJson(
            R"({"format": "clusterscope-compute-calibration", "version": 1, "compute": {}, "fitted": {"gpu": "B200", "dtype": "int4"}})",
            "p.csproj");
        QVERIFY(!bad);
        QVERIFY2(QString::fromStdString(bad.message()).contains(QStringLiteral("p.csproj: /fitted/dtype")),
            bad.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestRunComputeCalibration)
#include "tst_runcomputecalibration.moc"
