// Training model formulas: parameter counts and FLOPs (Megatron SC21), worked
// examples (gradient volumes, accumulation, compression claims), memory (ZeRO, Korthikanti et al.
// 2022 activations) and pipeline bubble fractions.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/gradientcompression.h"
#include "engine/training/trainingevaluator.h"
#include "engine/training/trainingjson.h"
#include "resources/embeddedresources.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

using namespace clusterscope::engine;

namespace {

Scenario llama70b()
{
    auto s = parseScenarioJson(clusterscope::resources::embeddedFile("examples/llama3-70b-1024-h100.json"), "llama");
    return *s;
}

// GPT-3 175B (Brown et al. 2020): 96 layers, h 12288, 96 heads, s 2048, V 50257, 4h GeLU MLP.
ModelSpec gpt3()
{
    ModelSpec m;
    m.layers = 96;
    m.hidden = 12288;
    m.heads = 96;
    m.kvHeads = 96;
    m.ffnHidden = 4 * 12288;
    m.gatedMlp = false;
    m.vocab = 50257;
    m.seqLen = 2048;
    return m;
}

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

} // namespace

class TestTrainingModel : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    TrainingEvaluator evaluator(const Scenario& s, ComputeEfficiencyParams e = {})
    {
        auto r = TrainingEvaluator::create(s, m_catalog, e);
        if (!r)
            qFatal("%s", r.message().c_str());
        return *r;
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    // --- parameters and FLOPs -------------------------------------------------------------------
    void megatronFlopFormulas_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("vocab");
        QTest::addRow("gpt3-175b") << 96 << 12288 << 51200;
        QTest::addRow("1.7b") << 24 << 2304 << 51200;
        QTest::addRow("1t") << 128 << 25600 << 51200;
    }
    void megatronFlopFormulas()
    {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, vocab);
        ModelSpec m = gpt3();
        m.layers = layers;
        m.hidden = hidden;
        m.heads = hidden / 128;
        m.kvHeads = m.heads;
        m.ffnHidden = 4 * hidden;
        m.vocab = vocab;
        const TransformerShape shape = TransformerShape::fromModel(m);
        const double B = 1536, s = 2048, l = layers, h = hidden, V = vocab;
        const double model72 = 72.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * l * h));
        const double full96 = 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
        QVERIFY(near(shape.modelFlopsPerIteration(B), model72, 1e-12));
        QVERIFY(near(shape.fullRecomputeFlopsPerIteration(B), full96, 1e-12));
    }

    void parameterCounts_data()
    {
        QTest::addColumn<QString>("which");
        QTest::addColumn<double>("billions");
        QTest::addRow("llama3-70b") << QStringLiteral("llama") << 70.55; // Meta model card: 70.6 B
        QTest::addRow("gpt3-175b") << QStringLiteral("gpt3") << 175.2; // 174.6 B + untied output layer
    }
    void parameterCounts()
    {
        QFETCH(QString, which);
        QFETCH(double, billions);
        const ModelSpec m = which == QStringLiteral("llama") ? llama70b().model : gpt3();
        const double n = TransformerShape::fromModel(m).totalParams();
        QVERIFY2(near(n / 1e9, billions, 0.005), qPrintable(QString::number(n / 1e9)));
    }

    // --- worked examples ---------------------------------------------------------------------------
    void seedGradientVolumes_data()
    {
        QTest::addColumn<QString>("which");
        QTest::addColumn<double>("seedGigabytes");
        QTest::addRow("70B fp32 -> 280 GB") << QStringLiteral("llama") << 280.0;
        QTest::addRow("175B fp32 -> 700 GB") << QStringLiteral("gpt3") << 700.0;
    }
    void seedGradientVolumes()
    {
        QFETCH(QString, which);
        QFETCH(double, seedGigabytes);
        const ModelSpec m = which == QStringLiteral("llama") ? llama70b().model : gpt3();
        const double fp32GradientBytes = 4.0 * TransformerShape::fromModel(m).totalParams();
        QVERIFY2(
            near(fp32GradientBytes / 1e9, seedGigabytes, 0.01), qPrintable(QString::number(fp32GradientBytes / 1e9)));
        // "every 2 seconds -> 140 GB/s or 1.12 Tb/s" for the 70B case.
        if (seedGigabytes == 280.0)
            QVERIFY(near(fp32GradientBytes / 2.0 * 8.0 / 1e12, 1.12, 0.01));
    }

    // The seed: DP traffic per GPU "stays constant with the GPU count". True for ring all-reduce:
    // each GPU sends 2 (n-1)/n of the gradients, which barely moves between 128 and 1024 GPUs.
    void dataParallelTrafficIndependentOfGpuCount_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addRow("256") << 256;
        QTest::addRow("1024") << 1024;
    }
    void dataParallelTrafficIndependentOfGpuCount()
    {
        QFETCH(int, gpus);
        Scenario s = llama70b();
        s.cluster.gpus = gpus;
        s.training.globalBatch = 2048;
        s.parallelism->pp = 1;
        s.parallelism->dp = gpus / 8;
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(e.valid);
        const LocalParams local = localParams(TransformerShape::fromModel(s.model), *s.parallelism);
        const int n = s.parallelism->dp;
        // ZeRO-1: reduce-scatter of 16-bit gradients + all-gather of 16-bit parameters, once per step.
        const double expected = 2.0 * (n - 1.0) / n * 2.0 * local.dense;
        QVERIFY2(near(e.bytesSent.dp, expected, 1e-9), qPrintable(QString::number(e.bytesSent.dp / expected)));
        QVERIFY(near(e.bytesSent.dp, 2.0 * 2.0 * local.dense, 0.04));
    }

    // "Accumulating over 8 micro-batches syncs 8x less often: 87.5% less traffic" (for the same samples).
    void accumulationCutsDataParallelTraffic()
    {
        Scenario s = llama70b();
        s.training.microBatch = 1;
        s.training.globalBatch = 32; // dp = 32, one micro-batch per step: sync after every micro-batch
        const TrainingEstimate once = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        s.training.globalBatch = 8 * 32; // eight micro-batches accumulated per step
        const TrainingEstimate accumulated = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(once.valid && accumulated.valid);
        QCOMPARE(accumulated.microBatchesPerPipeline, 8);
        const double perSampleOnce = once.bytesSent.dp / 32.0;
        const double perSampleAccumulated = accumulated.bytesSent.dp / 256.0;
        QVERIFY(near(1.0 - perSampleAccumulated / perSampleOnce, 0.875, 1e-9));
    }

    void compressionVolumes_data()
    {
        QTest::addColumn<int>("method");
        QTest::addColumn<double>("fraction");
        QTest::addColumn<double>("warmup");
        QTest::addColumn<double>("ratioVsFp32");
        QTest::addColumn<double>("runReduction");
        // Seed: "top-1% ~100x" -- with 4-byte indices next to 4-byte values it is 50x.
        QTest::newRow("top-1% with indices: 50x, not 100x")
            << int(CompressionMethod::TopK) << 0.01 << 0.0 << 0.02 << 0.98;
        QTest::addRow("int8: 4x") << int(CompressionMethod::Int8) << 0.0 << 0.0 << 0.25049 << 0.74951;
        QTest::addRow("fp8: 4x") << int(CompressionMethod::Fp8) << 0.0 << 0.0 << 0.25049 << 0.74951;
        QTest::addRow("1-bit: 32x") << int(CompressionMethod::OneBit) << 0.0 << 0.0 << 0.03174 << 0.96826;
        // Seed: 1-bit Adam "94% less" -- matches an uncompressed warm-up of ~3% of the steps.
        QTest::newRow("1-bit Adam, 3% warm-up: 94%")
            << int(CompressionMethod::OneBit) << 0.0 << 0.03 << 0.03174 << 0.93921;
        QTest::addRow("none") << int(CompressionMethod::None) << 0.0 << 0.0 << 1.0 << 0.0;
    }
    void compressionVolumes()
    {
        QFETCH(int, method);
        QFETCH(double, fraction);
        QFETCH(double, warmup);
        QFETCH(double, ratioVsFp32);
        QFETCH(double, runReduction);
        CompressionSpec c;
        c.method = CompressionMethod(method);
        c.topkFraction = fraction > 0 ? fraction : 0.01;
        c.warmupFraction = warmup;
        QVERIFY(near(GradientCompression::volumeRatio(c, 4.0), ratioVsFp32, 1e-4));
        QVERIFY(std::abs(GradientCompression::runTrafficReduction(c, 4.0) - runReduction) < 1e-4);
    }

    // Compression on a real scenario: less DP traffic, compression kernels in "other", residual memory.
    void compressionInTheIteration_data()
    {
        QTest::addColumn<int>("method");
        QTest::addRow("topk") << int(CompressionMethod::TopK);
        QTest::addRow("int8") << int(CompressionMethod::Int8);
        QTest::addRow("onebit") << int(CompressionMethod::OneBit);
    }
    void compressionInTheIteration()
    {
        QFETCH(int, method);
        Scenario s = llama70b();
        s.parallelism->zero = 0;
        const TrainingEstimate plain = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        s.communication.compression.method = CompressionMethod(method);
        s.communication.compression.warmupFraction = 0.1;
        s.training.tokens = 1e12;
        const TrainingEstimate packed = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(packed.valid);
        QVERIFY(packed.breakdown.other > 0);
        QVERIFY(plain.breakdown.other == 0);
        QVERIFY(packed.memory.compressionBytes > 0);
        const double n = s.parallelism->dp;
        const double ratio = GradientCompression::volumeRatio(s.communication.compression, 2.0);
        // Top-k gathers every rank's pairs: (n-1) x payload, versus 2 (n-1)/n x gradients for a ring.
        const double expected = CompressionMethod(method) == CompressionMethod::TopK
            ? plain.bytesSent.dp * ratio * n / 2.0
            : plain.bytesSent.dp * ratio;
        QVERIFY2(
            near(packed.bytesSent.dp, expected, 1e-9), qPrintable(QString::number(packed.bytesSent.dp / expected)));
        // The warm-up share of the steps runs at the uncompressed iteration time.
        const double iterations = 1e12 / (s.training.globalBatch * double(s.model.seqLen));
        QVERIFY(near(
            packed.trainingSeconds, iterations * (0.9 * packed.iterationSeconds + 0.1 * plain.iterationSeconds), 1e-9));
    }

    // --- memory -----------------------------------------------------------------------------------
    void modelStateBytes_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("grads");
        QTest::addColumn<double>("optimizer");
        const double d = 128;
        QTest::addRow("zero0: 2+2+12") << 0 << 2.0 << 2.0 << 12.0;
        QTest::addRow("zero1: optimizer / d") << 1 << 2.0 << 2.0 << 12.0 / d;
        QTest::addRow("zero2: grads / d") << 2 << 2.0 << 2.0 / d << 12.0 / d;
        QTest::addRow("zero3: all / d") << 3 << 2.0 / d << 2.0 / d << 12.0 / d;
    }
    void modelStateBytes()
    {
        QFETCH(int, zero);
        QFETCH(double, weights);
        QFETCH(double, grads);
        QFETCH(double, optimizer);
        Scenario s = llama70b();
        s.parallelism = ParallelismSpec { 8, 1, 128, 1, 1, 1, zero, true };
        const TrainingStrategy st = TrainingStrategy::fromScenario(s);
        const MemoryBreakdown m = evaluator(s).memory(st);
        const double n = localParams(TransformerShape::fromModel(s.model), st.parallelism).total();
        QVERIFY(near(m.gradientsBytes, grads * n, 1e-12));
        QVERIFY(near(m.optimizerBytes, optimizer * n, 1e-12));
        if (zero < 3)
            QVERIFY(near(m.weightsBytes, weights * n, 1e-12));
        else // + two gathered layers
            QVERIFY(m.weightsBytes > weights * n && m.weightsBytes < weights * n + 4.0 * n / 80.0 * 1.01);
    }

    // Korthikanti et al. 2022 Table 2 with dropout (masks of 1 byte per element saved), and the same
    // terms for recipes without dropout (hidden_dropout = attention_dropout = 0, e.g. Llama 3), which
    // save no masks: attention 10h, MLP 18h, norms 4h (32h instead of 34h), 8h replicated without
    // sequence parallelism, and of the scores only the softmax output (2 a s^2 b instead of 5).
    void korthikantiActivations_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::addColumn<int>("recompute");
        QTest::addColumn<bool>("dropout");
        QTest::addColumn<double>("coefficient"); // bytes / (s b h), a = heads
        const double a = 96, s = 2048, h = 12288;
        const double scores = 5.0 * a * s / h;
        QTest::addRow("t1 none") << 1 << false << int(Recompute::None) << true << 34.0 + scores;
        QTest::addRow("t8 no-sp none") << 8 << false << int(Recompute::None) << true << 10.0 + 24.0 / 8 + scores / 8;
        QTest::addRow("t8 sp none") << 8 << true << int(Recompute::None) << true << 34.0 / 8 + scores / 8;
        QTest::addRow("t8 sp selective") << 8 << true << int(Recompute::Selective) << true << 34.0 / 8;
        QTest::addRow("t8 no-sp selective") << 8 << false << int(Recompute::Selective) << true << 10.0 + 24.0 / 8;
        QTest::addRow("t8 sp full") << 8 << true << int(Recompute::Full) << true << 2.0 / 8;
        QTest::addRow("t1 full") << 1 << false << int(Recompute::Full) << true << 2.0;
        const double softmaxOnly = 2.0 * a * s / h;
        QTest::addRow("no dropout t1 none") << 1 << false << int(Recompute::None) << false << 32.0 + softmaxOnly;
        QTest::addRow("no dropout t8 no-sp none")
            << 8 << false << int(Recompute::None) << false << 8.0 + 24.0 / 8 + softmaxOnly / 8;
        QTest::addRow("no dropout t8 sp selective") << 8 << true << int(Recompute::Selective) << false << 32.0 / 8;
        QTest::addRow("no dropout t1 full") << 1 << false << int(Recompute::Full) << false << 2.0;
    }
    void korthikantiActivations()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        QFETCH(int, recompute);
        QFETCH(bool, dropout);
        QFETCH(double, coefficient);
        const TransformerShape shape = TransformerShape::fromModel(gpt3());
        TrainingStrategy st;
        st.parallelism.tp = tp;
        st.parallelism.sequenceParallel = sp;
        st.microBatch = 2;
        st.recompute = Recompute(recompute);
        MemoryInputs in;
        in.flashAttention = false;
        in.dropout = dropout;
        const double sbh = 2048.0 * 2 * 12288;
        QVERIFY(near(activationBytesPerLayer(shape, st, in), coefficient * sbh, 1e-12));
        // Fused attention never stores the scores.
        in.flashAttention = true;
        if (recompute == int(Recompute::None))
            QVERIFY(activationBytesPerLayer(shape, st, in) < coefficient * sbh);
    }

    // The scenario's model.dropout reaches the memory model.
    void dropoutKeyReachesMemory()
    {
        Scenario sc = llama70b();
        sc.parallelism = ParallelismSpec { 8, 1, 128, 1, 1, 1, 1, true };
        const TrainingStrategy s70 = TrainingStrategy::fromScenario(sc);
        const double with = evaluator(sc).memory(s70).activationsBytes;
        sc.model.dropout = false;
        QVERIFY(evaluator(sc).memory(s70).activationsBytes < with);
    }

    // fp8 primary weights (--fp8-param-gather): 1-byte weights and gather buffers; gradients and
    // optimizer state unchanged. Only with fp8 training.
    void fp8PrimaryWeights()
    {
        Scenario s = llama70b();
        s.training.dtype = DType::FP8;
        s.parallelism = ParallelismSpec { 8, 1, 128, 1, 1, 1, 0, true };
        const TrainingStrategy st = TrainingStrategy::fromScenario(s);
        const double n = localParams(TransformerShape::fromModel(s.model), st.parallelism).total();
        const MemoryBreakdown bf16Weights = evaluator(s).memory(st);
        s.training.fp8ParamGather = true;
        const MemoryBreakdown fp8Weights = evaluator(s).memory(st);
        QVERIFY(near(bf16Weights.weightsBytes, 2.0 * n, 1e-12));
        QVERIFY(near(fp8Weights.weightsBytes, 1.0 * n, 1e-12));
        QVERIFY(near(fp8Weights.gradientsBytes, bf16Weights.gradientsBytes, 1e-12));
        QVERIFY(near(fp8Weights.optimizerBytes, bf16Weights.optimizerBytes, 1e-12));
        // ZeRO-3: the shard and the two gathered layers at 1 byte.
        s.parallelism->zero = 3;
        const TrainingStrategy st3 = TrainingStrategy::fromScenario(s);
        const double gathered = 2.0 * 1.0 * n / 80.0;
        QVERIFY(near(evaluator(s).memory(st3).weightsBytes, n / 128.0 + gathered, 1e-9));
        s.training.dtype = DType::BF16;
        auto refused = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(!refused.isOk());
        QVERIFY(refused.message().find("/training/fp8_param_gather") != std::string::npos);
    }

    // Logits: fp32 (4 B) unless Transformer Engine's fused cross entropy keeps them 16-bit in place
    // (fp8 training); only on the stage with the output layer.
    void logitsOnTheLastStage()
    {
        TransformerShape shape = TransformerShape::fromModel(gpt3());
        TrainingStrategy st;
        st.parallelism = ParallelismSpec { 8, 1, 8, 1, 1, 1, 1, true };
        st.microBatch = 1;
        st.recompute = Recompute::Selective;
        MemoryInputs in;
        in.globalBatch = 1536;
        const double logits = 2048.0 * shape.vocab / 8.0;
        QVERIFY(near(estimateMemory(shape, st, in).otherBytes, 4.0 * logits, 1e-12));
        in.fusedCrossEntropy = true;
        QVERIFY(near(estimateMemory(shape, st, in).otherBytes, 2.0 * logits, 1e-12));
        // pp 8: the first stage holds 8 micro-batches' activations, the last one micro-batch + logits.
        st.parallelism.pp = 8;
        const MemoryBreakdown first = estimateMemory(shape, st, in);
        QCOMPARE(first.otherBytes, 0.0);
        QVERIFY(near(first.activationsBytes, 12.0 * 8.0 * activationBytesPerLayer(shape, st, in), 1e-12));
        // A vocabulary so large that the last stage is the busiest: its one micro-batch plus the logits.
        shape.vocab = 64.0 * 1024 * 1024;
        const MemoryBreakdown last = estimateMemory(shape, st, in);
        QVERIFY(near(last.otherBytes, 2.0 * 2048.0 * shape.vocab / 8.0, 1e-12));
        QVERIFY(near(last.activationsBytes, 12.0 * 1.0 * activationBytesPerLayer(shape, st, in), 1e-12));
    }

    void activationsInFlight_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("schedule");
        QTest::addColumn<double>("microBatchesHeld"); // m = 1536 / (8 x 1) = 192 micro-batches
        QTest::addRow("1f1b p=8 holds p") << 8 << 1 << int(PipelineSchedule::OneFOneB) << 8.0;
        QTest::addRow("gpipe holds m") << 8 << 1 << int(PipelineSchedule::GPipe) << 192.0;
        QTest::addRow("interleaved v=4") << 8 << 4 << int(PipelineSchedule::Interleaved) << 8.0 * (1.0 + 7.0 / 32.0);
    }
    void activationsInFlight()
    {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, schedule);
        QFETCH(double, microBatchesHeld);
        const TransformerShape shape = TransformerShape::fromModel(gpt3());
        TrainingStrategy st;
        st.parallelism = ParallelismSpec { 8, pp, 8, 1, 1, vpp, 1, true, PipelineSchedule(schedule) };
        st.microBatch = 1;
        st.recompute = Recompute::Selective;
        MemoryInputs in;
        in.globalBatch = 1536;
        const MemoryBreakdown m = estimateMemory(shape, st, in);
        const double expected = 96.0 / pp * microBatchesHeld * activationBytesPerLayer(shape, st, in);
        QVERIFY(near(m.activationsBytes, expected, 1e-12));
    }

    void outOfMemoryVerdict()
    {
        Scenario s = llama70b();
        s.parallelism = ParallelismSpec { 1, 1, 1024, 1, 1, 1, 0, false };
        const MemoryBreakdown m = evaluator(s).memory(TrainingStrategy::fromScenario(s));
        QVERIFY(m.totalBytes() > 16.0 * 70e9); // 70B x 16 B does not fit 80 GB
        QVERIFY(!m.fits());
        s.parallelism = ParallelismSpec { 8, 4, 32, 1, 1, 1, 1, true };
        QVERIFY(evaluator(s).memory(TrainingStrategy::fromScenario(s)).fits());
    }

    // --- pipeline bubble ---------------------------------------------------------------------------
    void bubbleFraction_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("batch");
        QTest::addRow("1f1b p4 m8") << 4 << 1 << int(PipelineSchedule::OneFOneB) << 256;
        QTest::addRow("gpipe p4 m8") << 4 << 1 << int(PipelineSchedule::GPipe) << 256;
        QTest::addRow("1f1b p8 m32") << 8 << 1 << int(PipelineSchedule::OneFOneB) << 512;
        QTest::addRow("interleaved p4 v5 m8") << 4 << 5 << int(PipelineSchedule::Interleaved) << 256;
        QTest::addRow("interleaved p8 v2 m32") << 8 << 2 << int(PipelineSchedule::Interleaved) << 512;
    }
    void bubbleFraction()
    {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, schedule);
        QFETCH(int, batch);
        Scenario s = llama70b();
        s.cluster.gpus = 8 * pp * 32 / 2;
        s.training.globalBatch = batch / 2;
        s.parallelism = ParallelismSpec { 8, pp, 16, 1, 1, vpp, 1, true, PipelineSchedule(schedule) };
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(e.valid);
        const double m = e.microBatchesPerPipeline;
        const double v = schedule == int(PipelineSchedule::Interleaved) ? vpp : 1;
        // SC21 Sec. 2.2: bubble time / ideal time = (p - 1) / (v m), the ideal time being the steady
        // state's: compute, recomputation and the exposed tensor-parallel collectives between the kernels.
        QVERIFY(e.breakdown.tpExposed > 0);
        QVERIFY(near(e.breakdown.bubble / (e.breakdown.compute + e.breakdown.recompute + e.breakdown.tpExposed),
            (pp - 1.0) / (v * m), 1e-9));
    }

    void breakdownAddsUp()
    {
        Scenario s = llama70b();
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(e.valid);
        QVERIFY(near(e.breakdown.total(), e.iterationSeconds, 1e-12));
        QVERIFY(e.breakdown.tpExposed > 0 && e.breakdown.ppExposed > 0 && e.breakdown.dpExposed > 0);
        QCOMPARE(e.breakdown.cpExposed, 0.0);
        QCOMPARE(e.breakdown.epExposed, 0.0);
        QVERIFY(e.mfu > 0.2 && e.mfu < 0.8);
        QVERIFY(near(e.tokensPerSecond, 1024.0 * 8192 / e.iterationSeconds, 1e-12));
        QVERIFY(near(e.networkShare, e.breakdown.exposedCommunication() / e.iterationSeconds, 1e-12));
        QCOMPARE(e.networkShareAboveGuideline, e.networkShare > 0.25);
        QVERIFY(near(e.trainingSeconds, 15e12 / e.tokensPerSecond, 1e-9));
        QVERIFY(near(e.trainingCostUsd, e.trainingSeconds / 3600 * 1024 * e.gpuHourUsd, 1e-9));
        // TP overlap hides the stated share of TP traffic, less the interference of hidden traffic.
        s.communication.tpOverlapFraction = 0.5;
        const TrainingEstimate half = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        const double interference = ComputeEfficiencyParams {}.overlapInterferenceFraction;
        QVERIFY(near(half.breakdown.tpExposed, (0.5 + 0.5 * interference) * e.breakdown.tpExposed, 1e-9));
        // Without overlap the DP traffic is fully exposed.
        s.communication.dpOverlap = false;
        const TrainingEstimate exposed = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(near(exposed.breakdown.dpExposed, exposed.communication.dp, 1e-9));
        QVERIFY(exposed.breakdown.dpExposed > e.breakdown.dpExposed);
    }

    // The per-thread memos (collective times, per-layer times) must return exactly what a fresh
    // estimate gives, for many strategies and two evaluators whose entries share the caches.
    void memoisedEqualsFresh()
    {
        Scenario a = llama70b();
        Scenario b = llama70b();
        b.cluster.nic.gbps = 200.0; // same strategies, different collective times
        TrainingEvaluator memoA = evaluator(a), memoB = evaluator(b), freshA = evaluator(a), freshB = evaluator(b);
        freshA.setMemoization(false);
        freshB.setMemoization(false);
        std::vector<TrainingStrategy> strategies;
        for (int tp : { 1, 2, 4, 8 })
            for (int pp : { 1, 2, 4, 8 })
                for (int cp : { 1, 2 })
                    for (int mb : { 1, 2 })
                        for (int zero : { 0, 1, 3 }) {
                            TrainingStrategy t = TrainingStrategy::fromScenario(a);
                            t.parallelism.tp = tp;
                            t.parallelism.pp = pp;
                            t.parallelism.cp = cp;
                            t.parallelism.vpp = 1;
                            t.parallelism.schedule = PipelineSchedule::OneFOneB;
                            t.parallelism.dp = 1024 / (tp * pp * cp);
                            t.parallelism.zero = zero;
                            t.parallelism.sequenceParallel = tp > 1;
                            t.microBatch = mb;
                            if (!memoA.invalidReason(t))
                                strategies.push_back(t);
                        }
        QVERIFY(strategies.size() > 100);
        int compared = 0;
        for (int pass = 0; pass < 2; ++pass) // the second pass is answered from the memos
            for (const TrainingStrategy& t : strategies) {
                const TrainingEstimate ma = memoA.evaluate(t), mb = memoB.evaluate(t);
                const TrainingEstimate fa = freshA.evaluate(t), fb = freshB.evaluate(t);
                QCOMPARE(ma.iterationSeconds, fa.iterationSeconds);
                QCOMPARE(mb.iterationSeconds, fb.iterationSeconds);
                QCOMPARE(ma.breakdown.dpExposed, fa.breakdown.dpExposed);
                QCOMPARE(mb.breakdown.tpExposed, fb.breakdown.tpExposed);
                QCOMPARE(ma.breakdown.compute, fa.breakdown.compute);
                compared += ma.iterationSeconds != mb.iterationSeconds; // the NICs matter somewhere
            }
        QVERIFY(compared > 0);
    }

    // Pipeline sends without virtual stages are batched on the whole pipeline group's communicator
    // (Megatron-LM batch_p2p_comm; PyTorch runs batched p2p on the group's communicator), so a 16-stage
    // pipeline across 16 servers sends on one NCCL p2p channel per peer (extracost.cpp p2pChannels), at a
    // network channel's rate rather than the NIC's. The interleaved schedule keeps the neighbour pair.
    void pipelineSendsOnTheGroupCommunicator()
    {
        Scenario s = llama70b();
        s.parallelism = ParallelismSpec { 8, 16, 8, 1, 1, 1, 1, true };
        const TrainingEvaluator e = evaluator(s);
        TrainingStrategy st = TrainingStrategy::fromScenario(s);
        QVERIFY2(!e.invalidReason(st), e.invalidReason(st));
        const StrategyGroups g = e.groups(st.parallelism);
        QCOMPARE(g.pp.ranks, 16);
        QCOMPARE(g.pp.ranksPerNode, 1);
        QCOMPARE(g.ppPair.ranks, 2);
        const double bytes = 8192.0 * 8192 * 2 / 8; // one micro-batch's activations, 1/t slices
        const double group = e.collectiveSeconds(CollectiveOp::SendRecv, bytes, g.pp);
        const double pair = e.collectiveSeconds(CollectiveOp::SendRecv, bytes, g.ppPair);
        QVERIFY2(group > 1.5 * pair, qPrintable(QStringLiteral("%1 vs %2 s").arg(group).arg(pair)));
        const TrainingEstimate flat = e.evaluate(st);
        const double sends = 2.0 * (flat.microBatchesPerPipeline + 16 - 1);
        QVERIFY(near(flat.communication.pp, sends * group, 1e-12));
        st.parallelism.vpp = 2;
        st.parallelism.schedule = PipelineSchedule::Interleaved;
        QVERIFY2(!e.invalidReason(st), e.invalidReason(st));
        const TrainingEstimate interleaved = e.evaluate(st);
        QVERIFY(
            near(interleaved.communication.pp, 2.0 * (interleaved.microBatchesPerPipeline * 2 + 16 - 1) * pair, 1e-12));
        // The JSON's pipeline group is the communicator the sends were costed on.
        const auto reportedRanks = [&](const TrainingEstimate& estimate) {
            return nlohmann::json::parse(trainingEstimateToJson(estimate, e, "scenario"))["groups"]["pp"]["ranks"]
                .get<int>();
        };
        QCOMPARE(reportedRanks(flat), 16);
        QCOMPARE(reportedRanks(interleaved), 2);
    }

    // MoE parallel folding (parallelism.etp, Megatron-Core expert_tensor_parallel_size): with etp
    // different from tp the expert ranks etp x ep x expert-dp tile tp x cp x dp, so ep may exceed
    // dp x cp (Qwen3-235B-A22B on 256 H100 at TP 2, EP 32 in Megatron-Bridge 26.04).
    void moeParallelFolding()
    {
        Scenario s = *parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "mixtral");
        s.model.moe->experts = 64;
        TrainingStrategy folded = TrainingStrategy::fromScenario(s);
        ParallelismSpec& p = folded.parallelism;
        p.tp = 2;
        p.pp = 8;
        p.dp = 16;
        p.ep = 32;
        p.zero = 1;
        p.sequenceParallel = true;
        const TrainingEvaluator e = evaluator(s);
        QCOMPARE(QString(e.invalidReason(folded)), QString("/parallelism/ep: ep must divide dp x cp"));
        p.etp = 1;
        QVERIFY2(!e.invalidReason(folded), e.invalidReason(folded));
        // Megatron-LM requires sequence parallelism with tensor-parallel MoE.
        TrainingStrategy noSp = folded;
        noSp.parallelism.sequenceParallel = false;
        QVERIFY(e.invalidReason(noSp) != nullptr);
        TrainingStrategy tooWide = folded;
        tooWide.parallelism.ep = 64; // 64 x 1 does not divide 2 x 16
        QVERIFY(e.invalidReason(tooWide) != nullptr);

        // The same expert shard per GPU (ep x etp = 32) with etp = tp: identical expert weights.
        TrainingStrategy unfolded = folded;
        unfolded.parallelism.ep = 16;
        unfolded.parallelism.etp = 0;
        QVERIFY2(!e.invalidReason(unfolded), e.invalidReason(unfolded));
        const LocalParams a = localParams(e.shape(), folded.parallelism),
                          b = localParams(e.shape(), unfolded.parallelism);
        QVERIFY(near(a.expert, b.expert, 1e-12));
        QVERIFY(near(a.dense, b.dense, 1e-12));
        QCOMPARE(expertDataParallel(folded.parallelism), 1.0);
        QCOMPARE(expertDataParallel(unfolded.parallelism), 1.0);

        // etp = tp stated is the default: identical estimates.
        TrainingStrategy stated = unfolded;
        stated.parallelism.etp = 2;
        QCOMPARE(e.evaluate(stated).iterationSeconds, e.evaluate(unfolded).iterationSeconds);

        // Folded: the all-to-all spans 32 ranks, contiguous (stride etp = 1); an MoE layer's MLP has no
        // tp all-gather / reduce-scatter pair, so each layer sends half the tp bytes (no dense layers).
        const TrainingEstimate f = e.evaluate(folded), u = e.evaluate(unfolded);
        QVERIFY(f.valid && u.valid);
        const StrategyGroups g = e.groups(folded.parallelism);
        QCOMPARE(g.ep.ranks, 32);
        QCOMPARE(g.epStride, 1);
        QCOMPARE(g.expertDpGrad.ranks, 1);
        QVERIFY(near(f.bytesSent.tp, 0.5 * u.bytesSent.tp, 1e-9));
        QVERIFY(f.bytesSent.ep > 0);
        QCOMPARE(f.bytesSent.expertDp, 0.0); // one copy of each expert shard per stage
        // Per expert, a folded rank computes the full FFN width on one sequence shard's tokens.
        QVERIFY(f.computeBreakdown.gemm > 0);
    }

    void computeCalibrationFromTheScenario()
    {
        Scenario s = llama70b();
        const TrainingEstimate base = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        // The default (0) takes the catalog's sustained fraction for the GPU and dtype.
        const double catalogFraction = m_catalog.findGpu(s.cluster.gpu)->gemmBf16Fraction;
        s.computeCalibration.gemmPeakFraction = catalogFraction / 2.0;
        const TrainingEstimate slow = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        // Halving the GEMM efficiency roughly doubles the GEMM time, the bulk of compute.
        QVERIFY(near(slow.computeBreakdown.gemm, 2.0 * base.computeBreakdown.gemm, 0.05));
        QVERIFY(slow.breakdown.compute > 1.5 * base.breakdown.compute);
        QVERIFY(slow.breakdown.compute < 2.0 * base.breakdown.compute);
        QCOMPARE(evaluator(s).efficiency().params().gemmPeakFraction, catalogFraction / 2.0);
    }

    void moeAndContextParallel_data()
    {
        QTest::addColumn<int>("cpKind");
        QTest::addRow("ring") << int(ContextParallelKind::Ring);
        QTest::addRow("ulysses") << int(ContextParallelKind::Ulysses);
    }
    void moeAndContextParallel()
    {
        QFETCH(int, cpKind);
        auto s = *parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "m");
        s.parallelism->cp = 2;
        s.parallelism->dp = 64;
        s.parallelism->cpKind = ContextParallelKind(cpKind);
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY2(e.valid, evaluator(s).invalidReason(TrainingStrategy::fromScenario(s)));
        QVERIFY(e.breakdown.epExposed > 0);
        QVERIFY(e.communication.cp > 0);
        QVERIFY(e.bytesSent.ep > 0 && e.bytesSent.cp > 0 && e.bytesSent.expertDp > 0);
        // Mixtral 8x7B: 46.7 B parameters, 12.9 B active (Mistral AI).
        const TransformerShape shape = evaluator(s).shape();
        QVERIFY2(near(shape.totalParams() / 1e9, 46.7, 0.01), qPrintable(QString::number(shape.totalParams() / 1e9)));
        QVERIFY2(near(shape.activeParams() / 1e9, 12.9, 0.01), qPrintable(QString::number(shape.activeParams() / 1e9)));
    }

    // Context-parallel traffic at the attention's own widths (Transformer Engine context_parallel.py),
    // on Mixtral with head_dim 256 (queries twice as wide as hidden) at tp 2, cp 2: ring attention
    // passes each tp rank's K and V (4 kv heads x 256 each) once forward and K, V, dK, dV backward;
    // Ulysses sends q (16 x 256), k, v (4 x 256) and the output (16 x 256) all-to-all, half of each to
    // the peer, forward and backward. 2048 tokens a rank, 16-bit, 32 layers, 8 micro-batches.
    void contextParallelWidths()
    {
        auto s = *parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "m");
        s.model.headDim = 256;
        s.parallelism->cp = 2;
        s.parallelism->dp = 64;
        const TrainingEstimate ring = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(ring.valid);
        QCOMPARE(ring.microBatchesPerPipeline, 8);
        const double tokens = 2048.0, kv = 2.0 * 4.0 * 256.0;
        QVERIFY2(near(ring.bytesSent.cp, 8.0 * 32.0 * tokens * kv * 2.0 * 3.0, 1e-12),
            qPrintable(QString::number(ring.bytesSent.cp)));
        QCOMPARE(ring.bytesSent.cpAllToAll, 0.0);
        // The time sent follows the bytes sent whatever the recomputation: the backward's K, V, dK, dV
        // are twice the forward's bytes and twice its time.
        Scenario full = s;
        full.training.recompute = Recompute::Full;
        const TrainingEstimate ringFull = evaluator(full).evaluate(TrainingStrategy::fromScenario(full));
        QVERIFY(near(ringFull.bytesSent.cp, ring.bytesSent.cp * 4.0 / 3.0, 1e-12));
        QVERIFY(
            near(ringFull.communication.cp / ringFull.bytesSent.cp, ring.communication.cp / ring.bytesSent.cp, 1e-12));
        s.parallelism->cpKind = ContextParallelKind::Ulysses;
        const TrainingEstimate a2a = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(a2a.valid);
        const double widths = 4096.0 + 1024.0 + 1024.0 + 4096.0;
        QVERIFY2(near(a2a.bytesSent.cp, 8.0 * 32.0 * 2.0 * tokens * widths * 2.0 * 0.5, 1e-12),
            qPrintable(QString::number(a2a.bytesSent.cp)));
        QCOMPARE(a2a.bytesSent.cpAllToAll, a2a.bytesSent.cp);
        // Nothing hides Ulysses' all-to-alls: exposed as sent.
        QVERIFY(near(a2a.breakdown.cpExposed, a2a.communication.cp, 1e-12));
    }
};

QTEST_GUILESS_MAIN(TestTrainingModel)
#include "tst_trainingmodel.moc"
