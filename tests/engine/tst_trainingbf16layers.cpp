// Layers a quantized recipe keeps in BF16 (training.bf16_layers_at_start / _at_end; Megatron-Core
// --first-last-layers-bf16): a stage's layers mix the quantized and the BF16 layer times exactly, the
// BF16 layers sit on the first / last pipeline stage (with virtual stages, on whichever stage holds the
// stack's first / last layers), and the keys are refused where they cannot apply.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"
#include "tests/support/evaluatorfor.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace clusterscope::engine;

namespace {

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

} // namespace

class TestTrainingBf16Layers : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    TrainingEvaluator evaluator(const Scenario& s) { return clusterscope::testsupport::evaluatorFor(s, m_catalog); }

    Scenario llama(DType dtype, int pp)
    {
        auto s
            = parseScenarioJson(clusterscope::resources::embeddedFile("examples/llama3-70b-1024-h100.json"), "llama");
        s->training.dtype = dtype;
        s->parallelism->pp = pp;
        s->parallelism->dp = s->cluster.gpus / (s->parallelism->tp * pp);
        return *s;
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    // One stage: the compute time is the layer-weighted mix of the fp8 and the BF16 runs (the output
    // layer runs in 16-bit in both), and it lies between them.
    void oneStageMixesExactly()
    {
        const Scenario fp8 = llama(DType::FP8, 1), bf16 = llama(DType::BF16, 1);
        Scenario mixed = fp8;
        mixed.training.bf16LayersAtStart = 2;
        mixed.training.bf16LayersAtEnd = 6;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(fp8);
        const TrainingEstimate a = evaluator(fp8).evaluate(strategy), b = evaluator(bf16).evaluate(strategy),
                               c = evaluator(mixed).evaluate(strategy);
        QVERIFY(a.valid && b.valid && c.valid);
        const double w = 8.0 / 80.0;
        QVERIFY2(near(c.breakdown.compute, (1 - w) * a.breakdown.compute + w * b.breakdown.compute, 1e-9),
            qPrintable(QStringLiteral("%1 vs %2")
                           .arg(c.breakdown.compute)
                           .arg((1 - w) * a.breakdown.compute + w * b.breakdown.compute)));
        QVERIFY(c.iterationSeconds > a.iterationSeconds && c.iterationSeconds < b.iterationSeconds);
        // BF16 layers keep 16-bit GEMM inputs: more activation memory than all-fp8.
        QVERIFY(c.memory.activationsBytes > a.memory.activationsBytes);
    }

    // Four stages: BF16 layers at the end load the last stage only, so they slow the step when that
    // stage becomes the slowest; BF16 layers at the start load the first.
    void stagesCarryTheirBf16Layers()
    {
        const Scenario fp8 = llama(DType::FP8, 4);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(fp8);
        const TrainingEstimate base = evaluator(fp8).evaluate(strategy);
        Scenario end = fp8;
        end.training.bf16LayersAtEnd = 20; // the whole last stage
        const TrainingEstimate e = evaluator(end).evaluate(strategy);
        QVERIFY(e.valid);
        QVERIFY(e.iterationSeconds > base.iterationSeconds);
        QCOMPARE(e.lastStageLayers, 20);
        Scenario start = fp8;
        start.training.bf16LayersAtStart = 20;
        const TrainingEstimate st = evaluator(start).evaluate(strategy);
        // The first stage (no logits) with BF16 layers is slower than the all-fp8 last stage with
        // logits: it sets the pace.
        QVERIFY(st.iterationSeconds > base.iterationSeconds);
        QVERIFY(st.iterationSeconds < e.iterationSeconds); // the last stage also runs the output layer
        // More than a stage holds is refused for that strategy, as Megatron-Core does.
        end.training.bf16LayersAtEnd = 21;
        const char* reason = evaluator(end).invalidReason(strategy);
        QVERIFY(reason != nullptr);
        QVERIFY2(std::string(reason).rfind("/training/bf16_layers_at_end: ", 0) == 0, reason);
    }

    // With virtual stages (4 x 5 chunks of 4 layers, stage r holding chunks r, r + 4, ...) the last six
    // layers are the last chunk's four on the last stage and two of the third stage's last chunk: the
    // last stage, which sets the pace, runs four BF16 layers, exactly as with four at the end; without
    // virtual stages it runs all six.
    void virtualStagesSpreadTheirBf16Layers()
    {
        const auto computeWith = [&](int vpp, int end) {
            Scenario s = llama(DType::FP8, 4);
            s.parallelism->vpp = vpp;
            if (vpp > 1)
                s.parallelism->schedule = PipelineSchedule::Interleaved;
            s.training.bf16LayersAtEnd = end;
            const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
            if (!e.valid)
                qFatal("vpp %d, %d BF16 layers: not valid", vpp, end);
            return e.breakdown.compute;
        };
        QCOMPARE(computeWith(5, 6), computeWith(5, 4));
        QVERIFY(computeWith(5, 6) > computeWith(5, 0));
        QVERIFY(computeWith(1, 6) > computeWith(1, 4));
    }

    // Memory: BF16 layers keep their 16-bit GEMM inputs on the stages that hold them. Of four stages the
    // first holds the most micro-batches in flight (1F1B): BF16 layers at the end leave its activations as
    // in the all-fp8 run (the stack's average share raised them by a quarter of the difference), a whole
    // first stage of them makes them the BF16 run's.
    void memoryOnTheirStages()
    {
        const Scenario fp8 = llama(DType::FP8, 4), bf16 = llama(DType::BF16, 4);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(fp8);
        Scenario end = fp8;
        end.training.bf16LayersAtEnd = 20;
        Scenario start = fp8;
        start.training.bf16LayersAtStart = 20;
        const auto activations
            = [&](const Scenario& x) { return evaluator(x).evaluate(strategy).memory.activationsBytes; };
        QCOMPARE(activations(end), activations(fp8));
        QVERIFY(activations(start) > activations(fp8));
        QVERIFY2(near(activations(start), activations(bf16), 1e-12),
            qPrintable(QStringLiteral("%1 vs %2").arg(activations(start)).arg(activations(bf16))));
    }

    void keys_data()
    {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("expected");
        QTest::addRow("bf16 dtype") << R"({"training": {"dtype": "bf16", "bf16_layers_at_end": 2}})"
                                    << "l.json: /training/bf16_layers_at_end: BF16 layers apply to a quantized dtype";
        QTest::addRow("too many")
            << R"({"training": {"dtype": "fp8", "bf16_layers_at_start": 40, "bf16_layers_at_end": 40}})"
            << "l.json: /training/bf16_layers_at_end: the BF16 layers (80) must be fewer than the layers (80)";
        QTest::addRow("negative") << R"({"training": {"dtype": "fp8", "bf16_layers_at_start": -1}})"
                                  << "l.json: /training/bf16_layers_at_start";
    }
    void keys()
    {
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        nlohmann::json j
            = nlohmann::json::parse(clusterscope::resources::embeddedFile("examples/llama3-70b-1024-h100.json"));
        j.merge_patch(nlohmann::json::parse(patch.toStdString()));
        auto s = parseScenarioJson(j.dump(), "l.json");
        std::string message;
        if (!s) {
            message = s.message();
        } else {
            const Status invalid = validateScenario(*s, m_catalog, "l.json");
            QVERIFY(!invalid);
            message = invalid.message();
        }
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
    }

    void roundTrip()
    {
        Scenario s = llama(DType::MXFP8, 1);
        s.cluster.gpu = "B200";
        s.training.bf16LayersAtStart = 1;
        s.training.bf16LayersAtEnd = 3;
        const auto back = parseScenarioJson(scenarioToJson(s), "back.json");
        QVERIFY2(back, back.message().c_str());
        QCOMPARE(back->training.bf16LayersAtStart, 1);
        QCOMPARE(back->training.bf16LayersAtEnd, 3);
        // Edited to bf16 (the editor's precision box), the keys are dropped rather than written invalid.
        s.training.dtype = DType::BF16;
        const auto plain = parseScenarioJson(scenarioToJson(s), "plain.json");
        QVERIFY2(plain, plain.message().c_str());
        QCOMPARE(plain->training.bf16LayersAtEnd, 0);
    }
};

QTEST_GUILESS_MAIN(TestTrainingBf16Layers)
#include "tst_trainingbf16layers.moc"
