// Step windows on a trace shaped like a real single-GPU PyTorch 2.x (DDP) profile: ProfilerStep
// ranges annotated on two threads (agreeing or not), the GPU ~55 ms behind the CPU, and kernels of
// an unprofiled (warm-up) step still running when the first profiled step starts on the host. A
// step's host range is the one on the thread that launched the most GPU work inside it; the step is
// the GPU work launched inside that range (launch matched to kernel by correlation id); its window
// starts when the GPU is done with earlier work, not at the host range's start.

#include "engine/run/runanalysis.h"
#include "importers/kineto/runloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <string>

using namespace clusterscope;
using namespace clusterscope::importers;

namespace {

// Times in microseconds, as Kineto writes them.
struct Kernel {
    double launchUs; ///< cudaLaunchKernel on the host
    double startUs; ///< on the GPU
    double durUs;
};

std::string event(const std::string& fields) { return "  {" + fields + "},\n"; }

// Host: warm-up step (not profiled) launches at 0..40 ms; ProfilerStep#2 is [50, 110] ms,
// ProfilerStep#3 is [110, 170] ms on the main thread and again on a second thread. GPU: warm-up
// kernels run until 105 ms (55 ms behind); step 2's kernels run back to back from 105 ms for
// 163 ms with 4 ms of gaps (159 ms busy); step 3's from 268 ms for 160 ms, gap-free.
std::string pytorch2Trace(std::vector<Kernel>& step2, std::vector<Kernel>& step3, double otherStep2StartUs = 50000,
    double otherStep2DurUs = 60000)
{
    std::string t
        = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85100000000}],
 "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1, "nccl_version": "2.28.3"},
 "traceEvents": [
)";
    for (const char* tid : { "101", "202" }) {
        const bool other = std::string(tid) == "202";
        t += event(std::string(R"("ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": )")
            + tid + R"(, "ts": )" + std::to_string(other ? otherStep2StartUs : 50000.0) + R"(, "dur": )"
            + std::to_string(other ? otherStep2DurUs : 60000.0));
        t += event(std::string(R"("ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": )")
            + tid + R"(, "ts": 110000, "dur": 60000)");
    }
    int correlation = 1;
    const auto add = [&](const Kernel& k) {
        t += event(R"("ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 101, "ts": )"
            + std::to_string(k.launchUs) + R"(, "dur": 4, "args": {"correlation": )" + std::to_string(correlation)
            + "}");
        t += event(R"("ph": "X", "cat": "kernel", "name": "ampere_bf16_s16816gemm", "pid": 0, "tid": 7, "ts": )"
            + std::to_string(k.startUs) + R"(, "dur": )" + std::to_string(k.durUs) + R"(, "args": {"correlation": )"
            + std::to_string(correlation) + R"(, "device": 0, "stream": 7})");
        ++correlation;
    };
    // Warm-up: 10 kernels launched at 0..36 ms, running 45..105 ms.
    for (int i = 0; i < 10; ++i)
        add({ i * 4000.0, 45000.0 + i * 6000.0, 6000.0 });
    // Step 2: 40 kernels launched at 50..109 ms; 163 ms span from 105 ms, a 0.1 ms gap after each of
    // the first 40 kernels but the last (3.9 ms of gaps) -> busy 159.1 ms.
    double at = 105000.0;
    const double dur2 = (163000.0 - 39 * 100.0) / 40;
    for (int i = 0; i < 40; ++i) {
        step2.push_back({ 50000.0 + i * 1500.0, at, dur2 });
        at += dur2 + 100.0;
    }
    at -= 100.0;
    for (int i = 0; i < 40; ++i) {
        step3.push_back({ 110000.0 + i * 1500.0, at, 4000.0 });
        at += 4000.0;
    }
    for (const Kernel& k : step2)
        add(k);
    for (const Kernel& k : step3)
        add(k);
    t.resize(t.size() - 2); // the last ",\n"
    t += "\n ], \"baseTimeNanoseconds\": 1764000000000000000}\n";
    return t;
}

} // namespace

class TestStepWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pytorch2Shape_data()
    {
        QTest::addColumn<double>("otherStartUs");
        QTest::addColumn<double>("otherDurUs");
        QTest::addRow("both threads agree") << 50000.0 << 60000.0;
        // The second thread (no launches) says step 2 began at 30 ms, before the last warm-up
        // launches (32, 36 ms), and ended inside step 3: its range must not be the step's window.
        QTest::addRow("second thread earlier and longer") << 30000.0 << 90000.0;
        QTest::addRow("second thread later and shorter") << 60000.0 << 20000.0;
    }
    void pytorch2Shape()
    {
        QFETCH(double, otherStartUs);
        QFETCH(double, otherDurUs);
        std::vector<Kernel> step2, step3;
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("rank0.pt.trace.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(pytorch2Trace(step2, step3, otherStartUs, otherDurUs)));
        f.close();
        auto run = loadRun({ f.fileName().toStdString() });
        QVERIFY2(run, run.message().c_str());
        engine::Diagnostics diagnostics;
        const auto steps = engine::computeStepBreakdowns(*run, diagnostics);
        QCOMPARE(int(steps.size()), 2);
        QCOMPARE(steps[0].step, std::int64_t(2));
        const engine::RankStepBreakdown& s2 = steps[0].ranks.front();
        const engine::RankStepBreakdown& s3 = steps[1].ranks.front();
        // Step 2: its own kernels' span (163 ms) and busy time (159.1 ms); the warm-up kernels still
        // running on the GPU when the host entered ProfilerStep#2 are neither compute nor idle of it.
        const double span2 = (step2.back().startUs + step2.back().durUs - step2.front().startUs) * 1e-6;
        QVERIFY2(std::abs(span2 - 0.163) < 1e-6, qPrintable(QString::number(span2)));
        QVERIFY2(std::abs(s2.durationSeconds - span2) < 1e-6, qPrintable(QString::number(s2.durationSeconds)));
        QVERIFY2(std::abs(s2.computeSeconds - 0.1591) < 1e-6, qPrintable(QString::number(s2.computeSeconds)));
        QVERIFY2(std::abs(s2.idleSeconds - 0.0039) < 1e-6, qPrintable(QString::number(s2.idleSeconds)));
        // Step 3 starts where step 2's GPU work ends (its host range began 158 ms earlier).
        QVERIFY2(std::abs(s3.durationSeconds - 0.160) < 1e-6, qPrintable(QString::number(s3.durationSeconds)));
        QVERIFY2(std::abs(s3.computeSeconds - 0.160) < 1e-6, qPrintable(QString::number(s3.computeSeconds)));
        // The warm-up kernels were launched outside every ProfilerStep: counted, not attributed.
        const auto* outside = diagnostics.find("run.activity_outside_steps");
        QVERIFY(outside);
        QCOMPARE(outside->count, std::int64_t(10));
    }

    // Without GPU lag the window is still the host range: idle before the first kernel is host-wait.
    void hostBoundStepKeepsItsIdle()
    {
        engine::Run run;
        engine::RankTrace r;
        r.rank = 0;
        r.sourceFile = "synthetic";
        r.steps = { { 1, 0, 100'000'000 } };
        engine::GpuActivity k;
        k.kind = engine::GpuActivityKind::Compute;
        k.launchNs = 39'000'000;
        k.startNs = 40'000'000;
        k.endNs = 90'000'000;
        r.activities = { k };
        run.ranks.push_back(r);
        engine::Diagnostics diagnostics;
        const auto steps = engine::computeStepBreakdowns(run, diagnostics);
        QCOMPARE(int(steps.size()), 1);
        const engine::RankStepBreakdown& b = steps[0].ranks.front();
        QCOMPARE(b.durationSeconds, 0.1);
        QCOMPARE(b.computeSeconds, 0.05);
        QVERIFY(b.idleHostWaitSeconds > 0.039);
    }
};

QTEST_GUILESS_MAIN(TestStepWindow)
#include "tst_stepwindow.moc"
