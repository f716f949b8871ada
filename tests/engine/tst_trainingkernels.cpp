// The kernel-level compute model, uneven pipeline splits and device memory:
// - Megatron-LM's layer splits (even, --account-for-embedding/loss-in-pipeline-split, the
//   --decoder-first/last-pipeline-num-layers kind) for layer counts that do not divide pp x vpp;
// - memory capacity as the device reports it minus CUDA context, NCCL buffers and allocator reserve;
// - GEMM tile/wave quantization, fp8 not 2x bf16, attention by head_dim, and the compute breakdown.

#include "engine/catalog/catalog.h"
#include "engine/scenario/pipelinesplit.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/memorymodel.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "engine/training/transformershape.h"
#include "resources/embeddedresources.h"
#include "tests/support/evaluatorfor.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace clusterscope::engine;

namespace {

Scenario llama70b()
{
    return *parseScenarioJson(clusterscope::resources::embeddedFile("examples/llama3-70b-1024-h100.json"), "llama");
}

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

// DeepSeek-V3's multi-head latent attention (DeepSeek-V3 technical report Table 1): 128 heads, q and kv
// latents of 1536 and 512, 64 rotary and 128 value dimensions per head.
void useLatentAttention(Scenario& s)
{
    s.model.heads = s.model.kvHeads = 128;
    s.model.headDim = 128;
    s.model.qLoraRank = 1536;
    s.model.kvLoraRank = 512;
    s.model.qkRopeHeadDim = 64;
    s.model.vHeadDim = 128;
}

} // namespace

class TestTrainingKernels : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    TrainingEvaluator evaluator(const Scenario& s) { return clusterscope::testsupport::evaluatorFor(s, m_catalog); }

    // The validator refuses `s` with `expected` ("file: /pointer: message"), and so does the evaluator,
    // with the same pointer and message.
    void refusedWithPointer(const Scenario& s, const std::string& expected)
    {
        const std::string file = expected.substr(0, expected.find(':'));
        const Status invalid = validateScenario(s, m_catalog, file);
        QVERIFY(!invalid);
        QVERIFY2(invalid.message().find(expected) != std::string::npos, invalid.message().c_str());
        const auto refused = TrainingEvaluator::create(s, m_catalog);
        QVERIFY(!refused);
        const std::string pointerAndMessage = expected.substr(file.size() + 2);
        QVERIFY2(refused.message().find(pointerAndMessage) != std::string::npos, refused.message().c_str());
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    // --- pipeline splits ----------------------------------------------------------------------------
    void megatronSplits_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("firstStated");
        QTest::addColumn<int>("lastStated");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("middle");
        QTest::addColumn<int>("last");
        QTest::addColumn<QString>("rule");
        QTest::addRow("even 80 / pp4") << 80 << 4 << 1 << 0 << 0 << 20 << 20 << 20 << "even";
        // Llama 3.1 405B in NeMo: 126 layers on pp 8 x vpp 8 with the embedding and the loss each
        // taking one layer slot: 128 slots, 16 per stage.
        QTest::addRow("405B 126 / pp8 vpp8") << 126 << 8 << 8 << 0 << 0 << 15 << 16 << 15 << "embedding-and-loss";
        // DeepSeek-V3's 61 layers on pp 16: 14 middle stages of 4, first 3 (with the embedding), last 2.
        QTest::addRow("DeepSeek-V3 61 / pp16") << 61 << 16 << 1 << 0 << 0 << 3 << 4 << 2 << "balanced";
        // Qwen3-235B's 94 layers on pp 8: 94 + 2 slots divide by 8: 6 x 12 in the middle, 11 + 11 at the ends.
        QTest::addRow("Qwen3-235B 94 / pp8") << 94 << 8 << 1 << 0 << 0 << 11 << 12 << 11 << "embedding-and-loss";
        QTest::addRow("93 / pp8") << 93 << 8 << 1 << 0 << 0 << 11 << 12 << 10 << "balanced";
        QTest::addRow("81 / pp2") << 81 << 2 << 1 << 0 << 0 << 41 << 0 << 40 << "balanced";
        // Stated like --decoder-first-pipeline-num-layers 13 --decoder-last-pipeline-num-layers 12 (61 layers, pp 8).
        QTest::addRow("stated 13 + 6x6 + 12") << 61 << 8 << 1 << 13 << 12 << 13 << 6 << 12 << "stated";
        QTest::addRow("stated last only") << 94 << 8 << 1 << 0 << 10 << 12 << 12 << 10 << "stated";
    }
    void megatronSplits()
    {
        QFETCH(int, layers);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, firstStated);
        QFETCH(int, lastStated);
        QFETCH(int, first);
        QFETCH(int, middle);
        QFETCH(int, last);
        QFETCH(QString, rule);
        PipelineSplit split;
        const char* reason = splitPipeline(layers, pp, vpp, firstStated, lastStated, split);
        QVERIFY2(!reason, reason);
        QCOMPARE(split.first, first);
        QCOMPARE(split.middle, middle);
        QCOMPARE(split.last, last);
        QCOMPARE(QString::fromLatin1(split.rule), rule);
        QCOMPARE(split.first + (pp - 2) * split.middle + split.last, layers); // every layer placed once
    }

    // The configurations the issue lists as refused now evaluate, and the slowest stage sets the pace.
    void unevenPipelinesEvaluate_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addRow("126 on pp8 vpp8") << 126 << 8 << 8;
        QTest::addRow("61 on pp4") << 61 << 4 << 1;
        QTest::addRow("94 on pp8") << 94 << 8 << 1;
    }
    void unevenPipelinesEvaluate()
    {
        QFETCH(int, layers);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        Scenario s = llama70b();
        s.model.layers = layers;
        s.parallelism->pp = pp;
        s.parallelism->vpp = vpp;
        s.parallelism->dp = 1024 / (8 * pp);
        s.parallelism->schedule = vpp > 1 ? PipelineSchedule::Interleaved : PipelineSchedule::OneFOneB;
        QVERIFY(validateScenario(s, m_catalog, "uneven.json").isOk());
        const TrainingEvaluator ev = evaluator(s);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const char* reason = ev.invalidReason(strategy);
        QVERIFY2(!reason, reason);
        const TrainingEstimate e = ev.evaluate(strategy);
        QVERIFY(e.valid && e.iterationSeconds > 0);
        // Stage compute: the busiest stage's layers (ceil(layers / pp) or more) set the compute.
        const LayerTimes lt = ev.layerTimes(strategy);
        const double perLayer = lt.forward + lt.backward;
        const int critical = std::max({ e.firstStageLayers, e.middleStageLayers, e.lastStageLayers });
        QVERIFY(e.breakdown.compute >= e.microBatchesPerPipeline * critical * perLayer * 0.999);
        QVERIFY(critical >= (layers + pp - 1) / pp);
    }

    // The search considers pipeline sizes that do not divide the layers.
    void searchOffersUnevenPipelines()
    {
        Scenario s = llama70b();
        s.model.layers = 61;
        s.parallelism.reset();
        const TrainingEvaluator ev = evaluator(s);
        SearchOptions options;
        options.topK = 2000;
        const SearchResult r = StrategySearch::run(ev, options);
        QVERIFY(!r.ranked.empty());
        bool uneven = false;
        for (const TrainingEstimate& e : r.ranked)
            uneven = uneven || (e.strategy.parallelism.pp > 1 && 61 % e.strategy.parallelism.pp != 0);
        QVERIFY(uneven);
    }

    // --- memory --------------------------------------------------------------------------------------
    void capacityAsTheDeviceReports_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<double>("bytes");
        QTest::addRow("A100 80 GiB") << "A100-SXM-80GB" << 81920.0 * 1048576.0;
        QTest::addRow("H100 81559 MiB") << "H100-SXM-80GB" << 81559.0 * 1048576.0;
        QTest::addRow("H200") << "H200-SXM-141GB" << 150.1e9;
    }
    void capacityAsTheDeviceReports()
    {
        QFETCH(QString, gpu);
        QFETCH(double, bytes);
        QVERIFY(near(m_catalog.findGpu(gpu.toStdString())->hbmBytes, bytes, 0.001));
        Scenario s = llama70b();
        s.cluster.gpu = gpu.toStdString();
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QCOMPARE(e.memory.capacityBytes, m_catalog.findGpu(gpu.toStdString())->hbmBytes);
        // Reserves: CUDA context, one NCCL communicator per parallel group (tp, pp, dp here), allocator share.
        const MemoryInputs defaults;
        QCOMPARE(e.memory.cudaContextBytes, defaults.cudaContextBytes);
        QCOMPARE(e.memory.ncclBytes, 3.0 * defaults.ncclBytesPerCommunicator);
        // The allocator's share is of what is allocated and freed every step (activations, logits),
        // not of the parameters, gradients and optimizer state allocated once.
        const double transient = e.memory.activationsBytes + e.memory.otherBytes;
        QVERIFY(e.memory.weightsBytes + e.memory.gradientsBytes + e.memory.optimizerBytes > transient / 10);
        QVERIFY(near(e.memory.allocatorReserveBytes, defaults.allocatorReserveFraction * transient, 1e-12));
    }

    // ZeRO-3 / FSDP gathers two layers' full weights at a time and frees them again: those count toward
    // the allocator's share, the shards do not.
    void allocatorShareOfGatheredLayers()
    {
        Scenario s = llama70b();
        s.parallelism = ParallelismSpec {};
        s.parallelism->dp = s.cluster.gpus;
        s.parallelism->zero = 1;
        s.training.microBatch = 1;
        s.training.globalBatch = s.cluster.gpus;
        s.training.recompute = Recompute::Full;
        const TrainingEstimate unsharded = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        s.parallelism->zero = 3;
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(unsharded.valid && e.valid);
        const double gathered = e.memory.weightsBytes - unsharded.memory.weightsBytes / s.cluster.gpus;
        QVERIFY(near(gathered, 2.0 * unsharded.memory.weightsBytes / s.model.layers, 1e-9));
        const MemoryInputs defaults;
        const double transient = e.memory.activationsBytes + e.memory.otherBytes + gathered;
        QVERIFY(near(e.memory.allocatorReserveBytes, defaults.allocatorReserveFraction * transient, 1e-9));
    }

    // GPT-3 175B on 64 A100 (Megatron: t 8, p 8, b 1, full recomputation) fits once capacity is
    // what the device reports (it did not against "80.0 GB").
    void gpt3On64A100Fits()
    {
        auto s = parseScenarioJson(clusterscope::resources::embeddedFile("examples/gpt3-175b-1024-a100.json"), "gpt3");
        QVERIFY(s.isOk());
        s->cluster.gpus = 64;
        s->training.globalBatch = 64;
        s->training.microBatch = 1;
        s->training.recompute = Recompute::Full;
        s->parallelism = ParallelismSpec {};
        s->parallelism->tp = 8;
        s->parallelism->pp = 8;
        s->parallelism->dp = 1;
        s->parallelism->sequenceParallel = true;
        const TrainingEstimate e = evaluator(*s).evaluate(TrainingStrategy::fromScenario(*s));
        QVERIFY(e.valid);
        qInfo("%.1f of %.1f GB", e.memory.totalBytes() / 1e9, e.memory.capacityBytes / 1e9);
        QVERIFY(e.memory.fits());
    }

    void memoryReservesOverridable()
    {
        Scenario s = llama70b();
        s.computeCalibration.cudaContextBytes = 1e9;
        s.computeCalibration.ncclBufferBytes = 0.5e9;
        s.computeCalibration.allocatorReserveFraction = 0.0;
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QCOMPARE(e.memory.cudaContextBytes, 1e9);
        QCOMPARE(e.memory.ncclBytes, 1.5e9);
        QCOMPARE(e.memory.allocatorReserveBytes, 0.0);
    }

    // --- kernels ----------------------------------------------------------------------------------------
    // Tile and wave quantization: one more row than a full wave of tiles costs a whole extra wave.
    void gemmWaveQuantization()
    {
        const GpuModel& h100 = *m_catalog.findGpu("H100-SXM-80GB");
        const ComputeEfficiency e = *ComputeEfficiency::forGpu({}, h100, DType::BF16);
        // 132 SMs x (128 x 256) tiles: M = 128 x 12, N = 256 x 11 is exactly one wave.
        const double full = e.gemmEfficiency(128 * 12, 256 * 11, 8192);
        const double plusOne = e.gemmEfficiency(128 * 12 + 1, 256 * 11, 8192);
        QVERIFY(full > 0.9 * h100.gemmBf16Fraction);
        QVERIFY(plusOne < 0.75 * full);
        // Small K loses efficiency (prologue / epilogue per tile).
        QVERIFY(e.gemmEfficiency(8192, 8192, 64) < 0.7 * e.gemmEfficiency(8192, 8192, 8192));
    }

    // fp8 is not 2x bf16: the GEMMs gain the catalog's fp8 / bf16 ratio, attention and the output
    // layer stay 16-bit and fp8 adds cast kernels, so a layer speeds up well under 2x.
    void fp8IsNotTwiceBf16()
    {
        Scenario s = llama70b();
        const TrainingEvaluator bf16 = evaluator(s);
        s.training.dtype = DType::FP8;
        const TrainingEvaluator fp8 = evaluator(s);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const LayerTimes a = bf16.layerTimes(strategy), b = fp8.layerTimes(strategy);
        const double speedup = (a.forward + a.backward) / (b.forward + b.backward);
        qInfo("fp8 layer speed-up %.2fx (GEMMs %.2fx)", speedup,
            (a.forwardKernels.gemm + a.backwardKernels.gemm) / (b.forwardKernels.gemm + b.backwardKernels.gemm));
        QVERIFY(speedup > 1.2 && speedup < 1.8);
        QVERIFY(b.forwardKernels.fp8Casts > 0 && a.forwardKernels.fp8Casts == 0);
        QCOMPARE(a.forwardKernels.attention, b.forwardKernels.attention); // bf16 attention in both
        QCOMPARE(a.logitsForward, b.logitsForward);
    }

    // MXFP8 (block-scaled fp8, Blackwell only): the GEMMs run on the fp8 tensor cores at the catalog's
    // gemm_mxfp8 fraction (a few percent under per-tensor fp8), each cast reads the 16-bit input once
    // and writes both copies with their E8M0 scales (mxfp8_cast_bytes_per_element, overridable), MXFP8
    // primary weights hold both copies (2 + 2/32 B), the dtype survives a JSON round trip, and a GPU
    // without block-scaled tensor cores is refused with the JSON pointer, by the validator and by the
    // evaluator.
    void mxfp8BlockScaled()
    {
        Scenario s = llama70b();
        s.cluster.gpu = "B200";
        s.training.dtype = DType::FP8;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const LayerTimes fp8 = evaluator(s).layerTimes(strategy);
        s.training.dtype = DType::MXFP8;
        const LayerTimes mx = evaluator(s).layerTimes(strategy);
        const GpuModel& b200 = *m_catalog.findGpu("B200");
        QVERIFY(b200.gemmMxfp8Fraction && *b200.gemmMxfp8Fraction < b200.gemmFp8Fraction);
        const double gemmRatio = b200.gemmFp8Fraction / *b200.gemmMxfp8Fraction;
        const double gemmMx = mx.forwardKernels.gemm + mx.backwardKernels.gemm;
        const double gemmFp8 = fp8.forwardKernels.gemm + fp8.backwardKernels.gemm;
        QVERIFY2(gemmMx > gemmFp8 && gemmMx <= gemmRatio * gemmFp8 * (1 + 1e-9),
            qPrintable(QString::number(gemmMx / gemmFp8)));
        const ComputeEfficiencyParams defaults;
        QCOMPARE(defaults.mxfp8CastBytesPerElement, 2.0 + 2.0 * (1.0 + 1.0 / 32.0));
        QVERIFY(fp8.forwardKernels.fp8Casts > 0);
        QVERIFY(near(mx.forwardKernels.fp8Casts / fp8.forwardKernels.fp8Casts,
            defaults.mxfp8CastBytesPerElement / defaults.fp8CastBytesPerElement, 1e-9));
        // The cast constant is overridable (calibration.compute.mxfp8_cast_bytes_per_element).
        Scenario cheap = s;
        cheap.computeCalibration.mxfp8CastBytesPerElement = defaults.fp8CastBytesPerElement;
        QVERIFY(near(evaluator(cheap).layerTimes(strategy).forwardKernels.fp8Casts, fp8.forwardKernels.fp8Casts, 1e-9));
        // Primary weights: 1 B per parameter under fp8, both MXFP8 copies under mxfp8.
        s.training.fp8ParamGather = true;
        const double mxWeights = evaluator(s).evaluate(strategy).memory.weightsBytes;
        s.training.dtype = DType::FP8;
        const double fp8Weights = evaluator(s).evaluate(strategy).memory.weightsBytes;
        QVERIFY(near(mxWeights / fp8Weights, 2.0 + 2.0 / 32.0, 1e-9));
        s.training.dtype = DType::MXFP8;
        s.training.fp8ParamGather = false;

        auto back = parseScenarioJson(scenarioToJson(s), "mx.json");
        QVERIFY2(back, back ? "" : back.message().c_str());
        QCOMPARE(back->training.dtype, DType::MXFP8);
        QVERIFY(validateScenario(s, m_catalog, "mx.json").isOk());

        s.cluster.gpu = "H100-SXM-80GB";
        refusedWithPointer(
            s, "mx.json: /training/dtype: GPU H100-SXM-80GB (hopper) has no block-scaled MXFP8 tensor cores");
        s.training.dtype = DType::FP8; // Hopper runs per-tensor fp8
        QVERIFY(TrainingEvaluator::create(s, m_catalog));
    }

    // NVFP4 (Blackwell): the GEMMs run at the catalog's FP4 peak and gemm_nvfp4 fraction with 0.5625-byte
    // operands, each cast reads the 16-bit input twice (the Hadamard amax pass, then the fused cast of
    // both copies: nvfp4_cast_bytes_per_element), the saved GEMM inputs and NVFP4 primary weights
    // (fp4_param_gather) are 4-bit with their scales, and a GPU without FP4 tensor cores is refused.
    void nvfp4BlockScaled()
    {
        Scenario s = llama70b();
        s.cluster.gpu = "B200";
        s.training.dtype = DType::FP8;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator fp8Evaluator = evaluator(s);
        const LayerTimes fp8 = fp8Evaluator.layerTimes(strategy);
        s.training.dtype = DType::NVFP4;
        const LayerTimes fp4 = evaluator(s).layerTimes(strategy);
        const GpuModel& b200 = *m_catalog.findGpu("B200");
        QVERIFY(b200.fp4FlopsPerSecond && b200.gemmNvfp4Fraction);
        const double gemmSpeedup = (fp8.forwardKernels.gemm + fp8.backwardKernels.gemm)
            / (fp4.forwardKernels.gemm + fp4.backwardKernels.gemm);
        const double rateRatio
            = *b200.fp4FlopsPerSecond * *b200.gemmNvfp4Fraction / (*b200.fp8FlopsPerSecond * b200.gemmFp8Fraction);
        qInfo("nvfp4 GEMMs %.2fx fp8's (tensor-core rate %.2fx)", gemmSpeedup, rateRatio);
        QVERIFY(gemmSpeedup > 0.9 * rateRatio && gemmSpeedup < 1.05 * rateRatio);
        const ComputeEfficiencyParams defaults;
        QCOMPARE(defaults.nvfp4CastBytesPerElement, 2.0 + 2.0 + 2.0 * (0.5 + 1.0 / 16.0));
        QVERIFY(near(fp4.forwardKernels.fp8Casts / fp8.forwardKernels.fp8Casts,
            defaults.nvfp4CastBytesPerElement / defaults.fp8CastBytesPerElement, 1e-9));
        QVERIFY(fp4.forwardKernels.kernels > fp8.forwardKernels.kernels); // amax passes, per-GEMM scales
        QCOMPARE(fp4.forwardKernels.attention, fp8.forwardKernels.attention); // attention stays 16-bit

        // Memory: 0.5625-byte saved GEMM inputs; NVFP4 primary weights hold both copies (1.125 B).
        const TrainingEstimate e8 = fp8Evaluator.evaluate(strategy);
        const TrainingEstimate e4 = evaluator(s).evaluate(strategy);
        QVERIFY(e4.memory.activationsBytes < e8.memory.activationsBytes);
        s.training.fp4ParamGather = true;
        const TrainingEstimate packed = evaluator(s).evaluate(strategy);
        QVERIFY(near(packed.memory.weightsBytes / e4.memory.weightsBytes, 2.0 * (0.5 + 1.0 / 16.0) / 2.0, 1e-9));
        auto back = parseScenarioJson(scenarioToJson(s), "fp4.json");
        QVERIFY2(back, back ? "" : back.message().c_str());
        QCOMPARE(back->training.dtype, DType::NVFP4);
        QVERIFY(back->training.fp4ParamGather);

        // fp4_param_gather needs nvfp4; Hopper has no FP4 tensor cores.
        s.training.dtype = DType::MXFP8;
        refusedWithPointer(
            s, "fp4.json: /training/fp4_param_gather: NVFP4 primary weights need training.dtype nvfp4, not mxfp8");
        s.training.dtype = DType::NVFP4;
        s.training.fp4ParamGather = false;
        s.cluster.gpu = "H100-SXM-80GB";
        refusedWithPointer(s, "fp4.json: /training/dtype: GPU H100-SXM-80GB (hopper) has no NVFP4 tensor cores");
    }

    // Flash attention slows down at small head_dim (same FLOPs, lower efficiency).
    void attentionByHeadDim()
    {
        Scenario s = llama70b(); // head_dim 128
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const LayerTimes d128 = evaluator(s).layerTimes(strategy);
        s.model.heads = 128;
        s.model.kvHeads = 16;
        s.model.headDim = 64; // same q width (8192), half the head size
        const LayerTimes d64 = evaluator(s).layerTimes(strategy);
        QVERIFY(d64.forwardKernels.attention > 1.15 * d128.forwardKernels.attention);
        QVERIFY(near(d64.forwardKernels.gemm, d128.forwardKernels.gemm, 1e-9)); // same projections
    }

    // The compute breakdown adds up to compute + recompute, and the JSON-facing parts are all set.
    void computeBreakdownAddsUp_data()
    {
        QTest::addColumn<int>("recompute");
        QTest::addRow("none") << int(Recompute::None);
        QTest::addRow("selective") << int(Recompute::Selective);
        QTest::addRow("full") << int(Recompute::Full);
    }
    void computeBreakdownAddsUp()
    {
        QFETCH(int, recompute);
        Scenario s = llama70b();
        s.training.recompute = Recompute(recompute);
        const TrainingEstimate e = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        const ComputeBreakdown& c = e.computeBreakdown;
        const double sum = c.gemm + c.attention + c.elementwise + c.fp8Casts + c.overhead + c.logits;
        QVERIFY2(near(sum, e.breakdown.compute + e.breakdown.recompute, 1e-9),
            qPrintable(QString::number(sum / (e.breakdown.compute + e.breakdown.recompute))));
        QVERIFY(c.gemm > c.attention && c.attention > 0 && c.elementwise > 0 && c.kernels > 0);
    }

    // --- real model shapes and MoE as it runs --------------------------------------------------------
    // DeepSeek-V3 (DeepSeek-AI 2024, Table 1 / config.json): MLA with q/kv LoRA ranks 1536 / 512,
    // 128 heads of 128 (+64 rotary), 3 dense leading layers, 256 routed experts (top 8) of 2048 plus
    // one shared expert: 671 B parameters, 37 B active.
    void deepseekV3Shape()
    {
        const char* json = R"({"format": "clusterscope-scenario", "version": 1, "name": "DeepSeek-V3",
            "cluster": {"gpu": "H100-SXM-80GB", "gpus": 2048, "nic": {"gbps": 400, "per_node": 8}, "transport": "infiniband",
                        "fabric": {"type": "rail-optimized", "switch_radix": 64, "tiers": 2}},
            "model": {"layers": 61, "hidden": 7168, "heads": 128, "kv_heads": 128, "head_dim": 128, "ffn_hidden": 18432,
                      "vocab": 129280, "seq_len": 4096, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                      "v_head_dim": 128,
                      "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 3}},
            "training": {"global_batch": 1920, "dtype": "fp8"},
            "parallelism": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "zero": 1}})";
        auto s = parseScenarioJson(json, "dsv3.json");
        QVERIFY2(s.isOk(), s.message().c_str());
        QVERIFY(validateScenario(*s, m_catalog, "dsv3.json").isOk());
        const TransformerShape shape = TransformerShape::fromModel(s->model);
        qInfo("DeepSeek-V3: %.1f B total, %.1f B active", shape.totalParams() / 1e9, shape.activeParams() / 1e9);
        QVERIFY(near(shape.totalParams(), 671e9, 0.01));
        QVERIFY(near(shape.activeParams(), 37e9, 0.03));
        // 61 layers on pp 16 evaluate (uneven), and the round trip keeps every new key.
        const TrainingEstimate e = evaluator(*s).evaluate(TrainingStrategy::fromScenario(*s));
        QVERIFY(e.valid && e.breakdown.epExposed > 0);
        auto again = parseScenarioJson(scenarioToJson(*s), "again.json");
        QVERIFY2(again.isOk(), again.message().c_str());
        QVERIFY(*again == *s);
    }

    // The busiest expert sets the pace: a higher load imbalance slows the all-to-all and the grouped
    // GEMMs; a capacity factor caps it (tokens beyond it are dropped).
    void moeLoadImbalance()
    {
        auto s = parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "mixtral");
        QVERIFY(s.isOk());
        if (!s->parallelism || s->parallelism->ep == 1) {
            s->parallelism = ParallelismSpec {};
            s->parallelism->tp = 2;
            s->parallelism->ep = 8;
            s->parallelism->dp = s->cluster.gpus / 2;
            s->parallelism->sequenceParallel = true;
        }
        s->model.moe->loadImbalance = 1.0;
        const TrainingEstimate even = evaluator(*s).evaluate(TrainingStrategy::fromScenario(*s));
        s->model.moe->loadImbalance = 1.5;
        const TrainingEstimate skewed = evaluator(*s).evaluate(TrainingStrategy::fromScenario(*s));
        s->model.moe->capacityFactor = 1.25;
        const TrainingEstimate capped = evaluator(*s).evaluate(TrainingStrategy::fromScenario(*s));
        QVERIFY(even.valid && skewed.valid && capped.valid);
        QVERIFY(near(skewed.communication.ep, 1.5 * even.communication.ep, 1e-9));
        QVERIFY(skewed.computeBreakdown.gemm > even.computeBreakdown.gemm);
        QVERIFY(near(capped.communication.ep, 1.25 * even.communication.ep, 1e-9));
    }

    // Sliding-window layers attend at most the window: attention time and FLOPs fall.
    void slidingWindowAttention()
    {
        Scenario s = llama70b();
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const LayerTimes full = evaluator(s).layerTimes(strategy);
        const double fullFlops = TransformerShape::fromModel(s.model).modelFlopsPerIteration(1);
        s.model.slidingWindow = 128;
        s.model.slidingWindowFraction = 0.5; // GPT-OSS: every other layer
        const LayerTimes windowed = evaluator(s).layerTimes(strategy);
        QVERIFY(windowed.forwardKernels.attention < 0.6 * full.forwardKernels.attention);
        QVERIFY(TransformerShape::fromModel(s.model).modelFlopsPerIteration(1) < fullFlops);
        QCOMPARE(windowed.forwardKernels.gemm, full.forwardKernels.gemm);
    }

    // Fused attention computes whole 128 x 128 tiles: a causal window of w keys costs the key tiles it
    // touches, not w/s of the scores. Reference: cuDNN SDPA backward at S 4096, D 64, window / causal
    // time (NVIDIA/cudnn-frontend pull request 505): 0.306 at window 511, 0.496 at window 1023; the
    // smooth w/s share gave 0.234 and 0.437.
    void slidingWindowTiles_data()
    {
        QTest::addColumn<int>("window");
        QTest::addColumn<double>("measuredRatio");
        QTest::addColumn<double>("tolerance");
        QTest::addRow("window 511") << 511 << 0.306 << 0.10;
        QTest::addRow("window 1023") << 1023 << 0.496 << 0.05;
        // GPT-OSS: 128 keys touch 2 tiles per query tile: (1 + 2 x 31) / 528 of the causal tiles.
        QTest::addRow("window 128") << 128 << 63.0 / 528.0 << 1e-9;
    }
    void slidingWindowTiles()
    {
        QFETCH(int, window);
        QFETCH(double, measuredRatio);
        QFETCH(double, tolerance);
        Scenario s = llama70b();
        s.model.seqLen = 4096;
        s.model.heads = 64;
        s.model.kvHeads = 8;
        s.model.headDim = 64;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const double causal = evaluator(s).layerTimes(strategy).forwardKernels.attention;
        s.model.slidingWindow = window;
        s.model.slidingWindowFraction = 1.0;
        const double windowed = evaluator(s).layerTimes(strategy).forwardKernels.attention;
        QVERIFY2(std::abs(windowed / causal / measuredRatio - 1.0) <= tolerance,
            qPrintable(QString("windowed / causal %1, reference %2").arg(windowed / causal).arg(measuredRatio)));
    }

    // Tied embeddings count the vocabulary matrix once.
    void tiedEmbeddings()
    {
        Scenario s = llama70b();
        const double untied = TransformerShape::fromModel(s.model).totalParams();
        s.model.tiedEmbeddings = true;
        QVERIFY(near(untied - TransformerShape::fromModel(s.model).totalParams(),
            double(s.model.vocab) * s.model.hidden, 1e-12));
    }

    // Small layers become host-bound: the layer cannot run faster than its kernels are launched.
    void hostBoundSmallLayers()
    {
        Scenario s = llama70b();
        s.model.hidden = 512;
        s.model.heads = 8;
        s.model.kvHeads = 8;
        s.model.ffnHidden = 1536;
        s.model.seqLen = 256;
        const TrainingEvaluator ev = evaluator(s);
        const LayerTimes lt = ev.layerTimes(TrainingStrategy::fromScenario(s));
        const double floor = lt.forwardKernels.kernels * ev.efficiency().params().hostSecondsPerKernel;
        QVERIFY(lt.forward >= floor * 0.999);
        QVERIFY(lt.forwardKernels.overhead > 0.5 * lt.forward);
    }
    // Transformer Engine runs the routed experts as one cuBLAS GEMM per local expert on a few
    // streams: each expert's GEMM (and, in fp8, its cast) is a launch from the library's C++ loop,
    // and fewer streams serialise more of them.
    void groupedGemmPerExpert_data()
    {
        QTest::addColumn<int>("ep");
        QTest::addColumn<bool>("fp8");
        QTest::addRow("8 local experts, bf16") << 1 << false;
        QTest::addRow("1 local expert, bf16") << 8 << false;
        QTest::addRow("8 local experts, fp8") << 1 << true;
    }
    void groupedGemmPerExpert()
    {
        QFETCH(int, ep);
        QFETCH(bool, fp8);
        auto s = parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "mixtral");
        QVERIFY(s.isOk());
        s->parallelism = ParallelismSpec {};
        s->parallelism->ep = ep;
        s->parallelism->dp = s->cluster.gpus;
        s->training.dtype = fp8 ? DType::FP8 : DType::BF16;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(*s);
        const LayerTimes lt = evaluator(*s).layerTimes(strategy);
        const double local = double(s->model.moe->experts) / ep;
        // FC1 and FC2 forward; dgrad and wgrad of both backward; plus one cast per expert and GEMM input in fp8.
        QCOMPARE(lt.forwardKernels.libraryLaunches, local * (fp8 ? 4.0 : 2.0));
        QCOMPARE(lt.backwardKernels.libraryLaunches, local * (fp8 ? 6.0 : 4.0));
        // One stream at a time is never faster than four.
        s->computeCalibration.groupedGemmStreams = 1.0;
        const LayerTimes serial = evaluator(*s).layerTimes(strategy);
        QVERIFY(serial.forwardKernels.gemm >= lt.forwardKernels.gemm);
        if (local > 1)
            QVERIFY(serial.forwardKernels.gemm > lt.forwardKernels.gemm);
        // A slow host per library launch makes the layer host-bound by exactly those launches.
        s->computeCalibration.groupedGemmStreams.reset();
        s->computeCalibration.libraryHostSecondsPerLaunch = 1e-2;
        const TrainingEvaluator slow = evaluator(*s);
        const LayerTimes hostBound = slow.layerTimes(strategy);
        const KernelTimes& f = hostBound.forwardKernels;
        const double host = (f.kernels - f.libraryLaunches) * slow.efficiency().params().hostSecondsPerKernel
            + f.libraryLaunches * 1e-2;
        QVERIFY(host > f.gemm + f.attention + f.elementwise + f.fp8Casts);
        // Dropless routing syncs the host in the forward: after it every op costs max(host, GPU), so
        // each library launch costs at least its host time, and the layer no more than GPU + host + sync.
        const ComputeEfficiencyParams& k = slow.efficiency().params();
        const double gpu = f.gemm + f.attention + f.elementwise + f.fp8Casts + f.kernels * k.kernelLaunchSeconds;
        const double groupedHostForward
            = 2.0 * (k.groupedLinearCallHostSeconds + local * k.moeExpertHostSecondsForward);
        QVERIFY(hostBound.forward >= f.libraryLaunches * 1e-2 + groupedHostForward);
        QVERIFY(hostBound.forward >= host + groupedHostForward);
        QVERIFY(hostBound.forward <= gpu + host + groupedHostForward + k.moeSyncSeconds + 1e-12);
        // The backward has no sync: host-bound by its launches and GroupedLinear's per-call and
        // per-expert host work.
        const KernelTimes& w = hostBound.backwardKernels;
        QVERIFY(near(hostBound.backward,
            (w.kernels - w.libraryLaunches) * k.hostSecondsPerKernel + w.libraryLaunches * 1e-2
                + 2.0 * (k.groupedLinearCallHostSeconds + 2.0 * local * k.moeExpertHostSecondsBackward),
            1e-9));
    }

    // Dropless routing makes Megatron-Core's alltoall dispatcher copy the token counts to the host and
    // block on them in every MoE layer forward: the GPU drains, and the host work after the sync
    // (all-to-alls, sorts, per-expert launches) is added to the GPU time. Dropped-and-padded
    // tokens (capacity factor) have static shapes and do not sync; the backward never syncs.
    void droplessMoeHostSync_data()
    {
        QTest::addColumn<bool>("fp8");
        QTest::addRow("bf16") << false;
        QTest::addRow("fp8") << true;
    }
    void droplessMoeHostSync()
    {
        QFETCH(bool, fp8);
        auto s = parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "mixtral");
        QVERIFY(s.isOk());
        s->parallelism = ParallelismSpec {};
        s->parallelism->ep = 8;
        s->parallelism->dp = s->cluster.gpus;
        s->training.dtype = fp8 ? DType::FP8 : DType::BF16;
        s->model.moe->capacityFactor = 0.0;
        s->model.moe->loadImbalance = 1.0; // the capacity below then drops nothing
        s->computeCalibration.moeSyncSeconds = 0.05; // far above any layer's kernels
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(*s);
        const TrainingEvaluator dropless = evaluator(*s);
        const LayerTimes synced = dropless.layerTimes(strategy);
        const ComputeEfficiencyParams& k = dropless.efficiency().params();
        const KernelTimes& f = synced.forwardKernels;
        const double gpu = f.gemm + f.attention + f.elementwise + f.fp8Casts + f.kernels * k.kernelLaunchSeconds;
        const double local = double(s->model.moe->experts) / 8.0;
        // The sync plus, op by op, whatever host time exceeds the GPU's: at least the GroupedLinear
        // calls' host work (no GPU work of their own), at most all of the host time.
        const double host = (f.kernels - f.libraryLaunches) * k.hostSecondsPerKernel
            + f.libraryLaunches * k.libraryHostSecondsPerLaunch
            + 2.0 * (k.groupedLinearCallHostSeconds + local * k.moeExpertHostSecondsForward);
        QVERIFY(synced.forward >= gpu + 0.05 + 2.0 * k.groupedLinearCallHostSeconds);
        QVERIFY(synced.forward <= gpu + 0.05 + host + 1e-12);
        const double afterSync = 0.05;
        s->model.moe->capacityFactor = 1.0;
        const LayerTimes padded = evaluator(*s).layerTimes(strategy);
        QVERIFY(padded.forward < 0.05);
        // No sync and no Fp8Padding copies with static shapes.
        if (fp8)
            QVERIFY(padded.backward < synced.backward);
        else
            QVERIFY(near(padded.backward, synced.backward, 1e-9));
        // Full recomputation repeats the forward, and with it the sync.
        s->model.moe->capacityFactor = 0.0;
        s->training.recompute = Recompute::Full;
        const TrainingEstimate e = evaluator(*s).evaluate(TrainingStrategy::fromScenario(*s));
        QVERIFY(e.valid);
        QVERIFY(e.breakdown.recompute >= e.microBatchesPerPipeline * s->model.layers * afterSync * 0.999);
    }

    // The MoE host model: Transformer Engine GroupedLinear's host work per call and per local expert,
    // CUDA-graph scopes, the EP-overlap schedule's host time and Fp8Padding's copies.
    Scenario droplessMixtral(bool fp8)
    {
        auto s = parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "mixtral");
        s->parallelism = ParallelismSpec {};
        s->parallelism->ep = 8;
        s->parallelism->dp = s->cluster.gpus;
        s->training.microBatch = 1;
        s->training.dtype = fp8 ? DType::FP8 : DType::BF16;
        s->model.moe->capacityFactor = 0.0;
        s->model.moe->loadImbalance = 1.0;
        return *s;
    }

    void moeExpertHostCost_data()
    {
        QTest::addColumn<bool>("fp8");
        QTest::addRow("bf16") << false;
        QTest::addRow("fp8") << true;
    }
    void moeExpertHostCost()
    {
        QFETCH(bool, fp8);
        Scenario s = droplessMixtral(fp8);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const double local = double(s.model.moe->experts) / 8.0;
        // Per-expert host times far above any per-expert GEMM: every expert op is host-bound, so after
        // the sync each extra microsecond per expert shows once per expert and GroupedLinear call
        // (forward), and the host-bound backward grows by it twice per call (dgrad and wgrad passes).
        s.computeCalibration.moeExpertHostSecondsForward = 1e-2;
        s.computeCalibration.moeExpertHostSecondsBackward = 1e-2;
        const LayerTimes a = evaluator(s).layerTimes(strategy);
        s.computeCalibration.moeExpertHostSecondsForward = 2e-2;
        s.computeCalibration.moeExpertHostSecondsBackward = 3e-2;
        const LayerTimes b = evaluator(s).layerTimes(strategy);
        QVERIFY(near(b.forward - a.forward, 2.0 * local * 1e-2, 1e-9));
        QVERIFY(near(b.backward - a.backward, 2.0 * 2.0 * local * 2e-2, 1e-9));
        // The per-call part: no GPU work of its own, so fully exposed after the sync.
        s.computeCalibration.groupedLinearCallHostSeconds = 5e-3;
        const LayerTimes c = evaluator(s).layerTimes(strategy);
        s.computeCalibration.groupedLinearCallHostSeconds = 7e-3;
        const LayerTimes d = evaluator(s).layerTimes(strategy);
        QVERIFY(near(d.forward - c.forward, 2.0 * 2e-3, 1e-9));
        // Static shapes (capacity factor): no sync, the host runs ahead; the same host work only shows
        // where the whole layer's host time exceeds its GPU time (pooled), never more than after a sync.
        s.model.moe->capacityFactor = 1.0;
        const TrainingEvaluator static_ = evaluator(s);
        const LayerTimes padded = static_.layerTimes(strategy);
        QVERIFY(padded.forward < d.forward);
        const KernelTimes& f = padded.forwardKernels;
        const ComputeEfficiencyParams& k = static_.efficiency().params();
        const double host = (f.kernels - f.libraryLaunches) * k.hostSecondsPerKernel
            + f.libraryLaunches * k.libraryHostSecondsPerLaunch + 2.0 * (7e-3 + local * 2e-2);
        QVERIFY(near(padded.forward,
            std::max(host, f.gemm + f.attention + f.elementwise + f.fp8Casts + f.kernels * k.kernelLaunchSeconds),
            1e-9));
    }

    // --cuda-graph-scope: graphed ops cost one replay instead of their launches; a whole-layer graph
    // needs static shapes (refused for dropless MoE, naming the key).
    void cudaGraphScope()
    {
        Scenario s = droplessMixtral(false);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        s.computeCalibration.hostSecondsPerKernel = 1e-3; // every Python-level op host-bound
        const LayerTimes eager = evaluator(s).layerTimes(strategy);
        s.training.cudaGraphScope = CudaGraphMoeRouter | CudaGraphMoePreprocess;
        const TrainingEvaluator routerGraphs = evaluator(s);
        const LayerTimes router = routerGraphs.layerTimes(strategy);
        const ComputeEfficiencyParams& k = routerGraphs.efficiency().params();
        // Router GEMM + 8 router ops + 7 preprocessing ops no longer launched one by one; one replay.
        QVERIFY(router.forward < eager.forward - 15.0 * (1e-3 - 1e-4));
        QVERIFY(router.forward > eager.forward - 16.0 * 1e-3 + k.graphLaunchHostSeconds - 1e-9);
        QVERIFY(router.backward < eager.backward);
        s.training.cudaGraphScope |= CudaGraphAttention;
        const LayerTimes attention = evaluator(s).layerTimes(strategy);
        QVERIFY(attention.forward < router.forward);
        QVERIFY(attention.backward < router.backward);
        // A whole-layer graph with dropless routing is refused by the validator and the evaluator alike.
        s.training.cudaGraphScope = CudaGraphFullLayer;
        refusedWithPointer(s, "g.json: /training/cuda_graph_scope: \"full_layer\" needs static shapes");
        // With static shapes the whole layer's host work is one replay: no host-bound time is left.
        s.model.moe->capacityFactor = 1.0;
        const LayerTimes full = evaluator(s).layerTimes(strategy);
        QVERIFY(near(full.forwardKernels.overhead, full.forwardKernels.kernels * k.kernelLaunchSeconds, 1e-9));
        QVERIFY(near(full.backwardKernels.overhead, full.backwardKernels.kernels * k.kernelLaunchSeconds, 1e-9));
    }

    // Megatron-Core's combined-1F1B EP overlap: host time per MoE layer and micro-batch, exposed after
    // a dropless sync; dropless or with static shapes, it hides the expert all-to-all behind the
    // other micro-batch's compute.
    void moeA2aOverlap()
    {
        Scenario s = droplessMixtral(false);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const LayerTimes plain = evaluator(s).layerTimes(strategy);
        s.communication.moeA2aOverlap = true;
        s.computeCalibration.moeA2aOverlapHostSeconds = 4e-3;
        const LayerTimes overlapped = evaluator(s).layerTimes(strategy);
        QVERIFY(near(overlapped.forward - plain.forward, 4e-3, 1e-9));
        QVERIFY(near(overlapped.backward, plain.backward, 1e-12));
        s.computeCalibration.moeA2aOverlapHostSeconds = 0.0;
        for (const double capacityFactor : { 0.0, 1.0 }) { // dropless, then static shapes
            s.model.moe->capacityFactor = capacityFactor;
            s.communication.moeA2aOverlap = false;
            const TrainingEstimate exposed = evaluator(s).evaluate(strategy);
            s.communication.moeA2aOverlap = true;
            const TrainingEstimate hidden = evaluator(s).evaluate(strategy);
            QVERIFY(exposed.valid && hidden.valid);
            QVERIFY(exposed.breakdown.epExposed > 0);
            QVERIFY(hidden.breakdown.epExposed < 0.5 * exposed.breakdown.epExposed);
            QVERIFY(hidden.iterationSeconds < exposed.iterationSeconds);
        }
    }

    // Fp8Padding (TE fp8_padding.py): dropless fp8 MoE copies the received top-k rows in and out of
    // the padded layout, forward and backward; static shapes and bf16 copy nothing.
    void fp8Padding()
    {
        Scenario s = droplessMixtral(true);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator dropless = evaluator(s);
        const LayerTimes a = dropless.layerTimes(strategy);
        s.model.moe->capacityFactor = 1.0;
        const LayerTimes b = evaluator(s).layerTimes(strategy);
        const double tokens = s.model.seqLen;
        const double bytes = 4.0 * tokens * s.model.moe->topK * 2.0 * s.model.hidden;
        const double seconds = dropless.efficiency().memoryBoundSeconds(bytes);
        QVERIFY(seconds > 0);
        QVERIFY(near(a.forwardKernels.elementwise - b.forwardKernels.elementwise, seconds, 1e-9));
        QVERIFY(near(a.backwardKernels.elementwise - b.backwardKernels.elementwise, seconds, 1e-9));
        Scenario bf16 = droplessMixtral(false);
        const LayerTimes c = evaluator(bf16).layerTimes(strategy);
        bf16.model.moe->capacityFactor = 1.0;
        const LayerTimes d = evaluator(bf16).layerTimes(strategy);
        QVERIFY(near(c.forwardKernels.elementwise, d.forwardKernels.elementwise, 1e-12));
    }

    // GPT-OSS's linear biases (model.linear_bias): FC2's per-expert biases added eagerly by
    // Megatron-Core (TEGroupedMLP._apply_bias: 6 element passes of the received rows forward, 8
    // backward, 2 kernels per local expert + a cat forward, 4 + 2 backward) and the attention
    // projection's bias in an unfused bias-dropout-add (2 h forward, h backward per token).
    void linearBias()
    {
        Scenario s = droplessMixtral(false);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator plain = evaluator(s);
        const LayerTimes a = plain.layerTimes(strategy);
        s.model.linearBias = true;
        const LayerTimes b = evaluator(s).layerTimes(strategy);
        const double tokens = s.model.seqLen, h = s.model.hidden, rows = tokens * s.model.moe->topK * h;
        const ComputeEfficiency& e = plain.efficiency();
        QVERIFY(near(b.forwardKernels.elementwise - a.forwardKernels.elementwise,
            e.memoryBoundSeconds(6.0 * 2.0 * rows + 2.0 * 2.0 * tokens * h), 1e-9));
        QVERIFY(near(b.backwardKernels.elementwise - a.backwardKernels.elementwise,
            e.memoryBoundSeconds(8.0 * 2.0 * rows + 2.0 * tokens * h), 1e-9));
        const double local = double(s.model.moe->experts) / strategy.parallelism.ep;
        QCOMPARE(b.forwardKernels.kernels - a.forwardKernels.kernels, 2.0 * local + 1.0 + 1.0);
        QCOMPARE(b.backwardKernels.kernels - a.backwardKernels.kernels, 4.0 * local + 2.0 + 1.0);
        QVERIFY(b.forward > a.forward && b.backward > a.backward);
    }

    // Query / key normalisation (model.qk_layernorm): an RMSNorm over every query and key head (read +
    // write q + kv per token forward, twice that backward, one kernel each for q and k) whose inputs
    // stay saved (2 (q + kv) bytes per token); with latent attention the q and kv latents instead.
    void qkLayerNorm_data()
    {
        QTest::addColumn<bool>("latent");
        QTest::addRow("per head (Qwen3)") << false;
        QTest::addRow("latents (DeepSeek-V3)") << true;
    }
    void qkLayerNorm()
    {
        QFETCH(bool, latent);
        Scenario s = droplessMixtral(false);
        if (latent)
            useLatentAttention(s);
        else
            s.model.headDim = 128; // heads of their own width: 32 x 128 queries, 8 x 128 keys
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator plain = evaluator(s);
        const LayerTimes a = plain.layerTimes(strategy);
        const MemoryBreakdown ma = plain.memory(strategy);
        s.model.qkLayerNorm = true;
        const TrainingEvaluator normed = evaluator(s);
        const LayerTimes b = normed.layerTimes(strategy);
        const double tokens = s.model.seqLen;
        const double width = latent ? 1536.0 + 512.0 : (s.model.heads + s.model.kvHeads) * 128.0;
        const ComputeEfficiency& e = plain.efficiency();
        const double forward = e.memoryBoundSeconds(tokens * 2.0 * 2.0 * width);
        QVERIFY(forward > 0);
        QVERIFY(near(b.forwardKernels.elementwise - a.forwardKernels.elementwise, forward, 1e-9));
        QVERIFY(near(b.backwardKernels.elementwise - a.backwardKernels.elementwise,
            e.params().backwardElementwiseFactor * forward, 1e-9));
        QCOMPARE(b.forwardKernels.kernels - a.forwardKernels.kernels, 2.0);
        QCOMPARE(b.backwardKernels.kernels - a.backwardKernels.kernels, 2.0);
        QVERIFY(b.forward > a.forward && b.backward > a.backward);
        MemoryInputs in;
        in.dropout = s.model.dropout;
        Scenario off = s;
        off.model.qkLayerNorm = false;
        const double extra = activationBytesPerLayer(TransformerShape::fromModel(s.model), strategy, in)
            - activationBytesPerLayer(TransformerShape::fromModel(off.model), strategy, in);
        QVERIFY(near(extra, tokens * 2.0 * width, 1e-9));
        QVERIFY(normed.memory(strategy).activationsBytes > ma.activationsBytes);
        QVERIFY(normed.evaluate(strategy).iterationSeconds > plain.evaluate(strategy).iterationSeconds);
    }

    // Rotary embedding without fusion (model.rope_fusion false; GPT-OSS's YaRN embeddings in
    // Megatron-Bridge): Megatron-Core's unfused ops move 12 E element accesses forward and 13 E backward
    // on the queries and keys (E = (q + k) per token), against the fused kernel's 2 E and 4 E, and
    // launch 12 + 7 kernels per tensor instead of one each way; nothing more is saved.
    void unfusedRotary()
    {
        Scenario s = droplessMixtral(false);
        s.model.headDim = 128; // 32 x 128 queries, 8 x 128 keys
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator fused = evaluator(s);
        const LayerTimes a = fused.layerTimes(strategy);
        s.model.ropeFusion = false;
        const TrainingEvaluator unfused = evaluator(s);
        const LayerTimes b = unfused.layerTimes(strategy);
        const double elements = s.model.seqLen * (s.model.heads + s.model.kvHeads) * 128.0;
        const ComputeEfficiency& e = fused.efficiency();
        QVERIFY(near(b.forwardKernels.elementwise - a.forwardKernels.elementwise,
            e.memoryBoundSeconds(2.0 * (12.0 - 2.0) * elements), 1e-9));
        QVERIFY(near(b.backwardKernels.elementwise - a.backwardKernels.elementwise,
            e.memoryBoundSeconds(2.0 * (13.0 - 4.0) * elements), 1e-9));
        QCOMPARE(b.forwardKernels.kernels - a.forwardKernels.kernels, 23.0);
        QCOMPARE(b.backwardKernels.kernels - a.backwardKernels.kernels, 13.0);
        QVERIFY(b.forward > a.forward && b.backward > a.backward);
        QVERIFY(near(unfused.memory(strategy).activationsBytes, fused.memory(strategy).activationsBytes, 1e-12));
        QVERIFY(unfused.evaluate(strategy).iterationSeconds > fused.evaluate(strategy).iterationSeconds);
    }

    // NeMo 2.x's eager squared ReLU (model.activation squared_relu, activation_fusion false; Nemotron-4):
    // relu and pow move 4 f element passes forward in 2 kernels and autograd 10 f in 4 kernels,
    // against the fused activation's 2 f and 4 f in one kernel each way; the saved tensor is the same.
    // The fused squared ReLU (Megatron-Core's jit-fused one) costs what GeLU does.
    void eagerSquaredRelu()
    {
        Scenario s = droplessMixtral(false);
        s.model.moe.reset(); // a dense two-matrix MLP
        s.parallelism->ep = 1;
        s.model.ffnHidden = 4 * s.model.hidden;
        s.model.gatedMlp = false;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator gelu = evaluator(s);
        const LayerTimes a = gelu.layerTimes(strategy);
        s.model.activation = "squared_relu";
        const TrainingEvaluator fusedSquared = evaluator(s);
        QCOMPARE(fusedSquared.layerTimes(strategy).forward, a.forward);
        s.model.activationFusion = false;
        const TrainingEvaluator eager = evaluator(s);
        const LayerTimes b = eager.layerTimes(strategy);
        const double elements = s.model.seqLen * double(s.model.ffnHidden) / strategy.parallelism.tp;
        const ComputeEfficiency& e = gelu.efficiency();
        QVERIFY(near(b.forwardKernels.elementwise - a.forwardKernels.elementwise,
            e.memoryBoundSeconds(2.0 * (4.0 - 2.0) * elements), 1e-9));
        QVERIFY(near(b.backwardKernels.elementwise - a.backwardKernels.elementwise,
            e.memoryBoundSeconds(2.0 * (10.0 - 4.0) * elements), 1e-9));
        QCOMPARE(b.forwardKernels.kernels - a.forwardKernels.kernels, 1.0);
        QCOMPARE(b.backwardKernels.kernels - a.backwardKernels.kernels, 3.0);
        QVERIFY(near(eager.memory(strategy).activationsBytes, gelu.memory(strategy).activationsBytes, 1e-12));
        QVERIFY(eager.evaluate(strategy).iterationSeconds > gelu.evaluate(strategy).iterationSeconds);
    }

    // GPT-OSS's clamped gated activation (model.activation_clamp_value): two clamps and a cat before
    // the fused activation (8 f element passes forward, 10 f backward) and one more FC1-output-wide
    // tensor saved per top-k copy.
    void clampedActivation()
    {
        Scenario s = droplessMixtral(false);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator plain = evaluator(s);
        const LayerTimes a = plain.layerTimes(strategy);
        const MemoryBreakdown ma = plain.memory(strategy);
        s.model.activationClampValue = 7.0;
        const TrainingEvaluator clamped = evaluator(s);
        const LayerTimes b = clamped.layerTimes(strategy);
        const double tokens = s.model.seqLen, f = s.model.moe->topK * s.model.moe->expertFfnHidden;
        const ComputeEfficiency& e = plain.efficiency();
        QVERIFY(near(b.forwardKernels.elementwise - a.forwardKernels.elementwise,
            e.memoryBoundSeconds(8.0 * 2.0 * tokens * f), 1e-9));
        QVERIFY(near(b.backwardKernels.elementwise - a.backwardKernels.elementwise,
            e.memoryBoundSeconds(10.0 * 2.0 * tokens * f), 1e-9));
        QCOMPARE(b.forwardKernels.kernels - a.forwardKernels.kernels, 3.0);
        MemoryInputs in;
        in.dropout = s.model.dropout;
        const TransformerShape shape = TransformerShape::fromModel(s.model);
        Scenario noClamp = s;
        noClamp.model.activationClampValue = 0.0;
        const double extra = activationBytesPerLayer(shape, strategy, in)
            - activationBytesPerLayer(TransformerShape::fromModel(noClamp.model), strategy, in);
        QVERIFY(near(extra, tokens * f * 2.0 * 2.0, 1e-9)); // gate + up halves, 2 bytes each
        QVERIFY(clamped.memory(strategy).activationsBytes > ma.activationsBytes);
    }

    // training.recompute_modules: each module's forward is recomputed in the backward (selective)
    // and its outputs are not stored; the default (the attention core) is unchanged.
    void recomputeModules_data()
    {
        QTest::addColumn<unsigned>("modules");
        QTest::addColumn<bool>("deepseek");
        QTest::addRow("layernorm") << unsigned(RecomputeLayerNorm) << false;
        QTest::addRow("moe_act") << unsigned(RecomputeMoeAct) << false;
        QTest::addRow("mla_up_proj") << unsigned(RecomputeMlaUpProj) << true;
        QTest::addRow("layernorm + moe_act") << unsigned(RecomputeLayerNorm | RecomputeMoeAct) << false;
    }
    void recomputeModules()
    {
        QFETCH(unsigned, modules);
        QFETCH(bool, deepseek);
        Scenario s = droplessMixtral(false);
        if (deepseek)
            useLatentAttention(s);
        s.training.recompute = Recompute::Selective;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator defaults = evaluator(s);
        const LayerTimes a = defaults.layerTimes(strategy);
        QCOMPARE(a.selectiveRecompute, 0.0); // fused attention: nothing recomputed by default
        s.training.recomputeModules = modules;
        const TrainingEvaluator chosen = evaluator(s);
        const LayerTimes b = chosen.layerTimes(strategy);
        QCOMPARE(b.forward, a.forward);
        QCOMPARE(b.backward, a.backward);
        const double tokens = s.model.seqLen, h = s.model.hidden;
        const ComputeEfficiency& e = defaults.efficiency();
        const double launch = e.params().kernelLaunchSeconds;
        double expected = 0, freedBytes = 0;
        if (modules & RecomputeLayerNorm) {
            expected += e.memoryBoundSeconds(tokens * 2.0 * 2.0 * 2.0 * h) + 2.0 * launch;
            freedBytes += 4.0 * h * tokens; // QKV input and router input, 16-bit
        }
        if (modules & RecomputeMoeAct) {
            const double f = s.model.moe->topK * s.model.moe->expertFfnHidden;
            expected += e.memoryBoundSeconds(tokens * 2.0 * 3.0 * f) + launch;
            freedBytes += 2.0 * f * tokens; // the activation output, FC2's input
        }
        if (modules & RecomputeMlaUpProj) {
            QVERIFY(b.selectiveRecomputeGemm > 0 && b.selectiveRecomputeGemm < b.forwardKernels.gemm);
            expected
                += b.selectiveRecomputeGemm + e.memoryBoundSeconds(tokens * 2.0 * 2.0 * 2.0 * 128 * 192) + 4.0 * launch;
            freedBytes += 6.0 * h * tokens; // Q, K and V
        }
        QVERIFY2(near(b.selectiveRecompute, expected, 1e-9),
            qPrintable(QStringLiteral("%1 vs %2").arg(b.selectiveRecompute).arg(expected)));
        const TrainingEstimate ea = defaults.evaluate(strategy), eb = chosen.evaluate(strategy);
        QVERIFY(eb.iterationSeconds > ea.iterationSeconds);
        QVERIFY(eb.breakdown.recompute > 0);
        MemoryInputs in;
        in.dropout = s.model.dropout;
        in.recomputeModules = modules;
        const TransformerShape shape = TransformerShape::fromModel(s.model);
        MemoryInputs none = in;
        none.recomputeModules = 0;
        QVERIFY(near(activationBytesPerLayer(shape, strategy, none) - activationBytesPerLayer(shape, strategy, in),
            freedBytes, 1e-9));
        // Only under selective recomputation.
        TrainingStrategy off = strategy;
        off.recompute = Recompute::None;
        QCOMPARE(activationBytesPerLayer(shape, off, in), activationBytesPerLayer(shape, off, none));
    }

    // recompute_modules "mlp" (Megatron-Core recompute_mlp, dense layers only): the dense MLP's
    // forward (both GEMMs, the fused pre-MLP norm, the activation) runs again in the backward and the
    // MLP keeps only its dropout mask; a MoE model recomputes only the share of its dense layers; the
    // module survives a JSON round trip.
    void mlpRecompute()
    {
        Scenario s = llama70b(); // tp 8 with sequence parallelism, bf16, gated MLP
        s.training.recompute = Recompute::Selective;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator plain = evaluator(s);
        s.training.recomputeModules = RecomputeMlp;
        const TrainingEvaluator chosen = evaluator(s);
        const LayerTimes b = chosen.layerTimes(strategy);
        const ComputeEfficiency& e = plain.efficiency();
        const double t = 8, h = s.model.hidden, f = s.model.ffnHidden, tokens = s.model.seqLen;
        const double gemm = e.gemmSeconds(tokens, 2.0 * f / t, h) + e.gemmSeconds(tokens, h, f / t);
        QVERIFY(near(b.selectiveRecomputeGemm, gemm, 1e-9));
        const double expected = gemm + e.memoryBoundSeconds(tokens * 2.0 * 2.0 * h / t)
            + e.memoryBoundSeconds(tokens * 2.0 * 3.0 * f / t) + 5.0 * e.params().kernelLaunchSeconds;
        QVERIFY2(near(b.selectiveRecompute, expected, 1e-9),
            qPrintable(QStringLiteral("%1 vs %2").arg(b.selectiveRecompute).arg(expected)));
        QVERIFY(chosen.evaluate(strategy).breakdown.recompute > plain.evaluate(strategy).breakdown.recompute);
        MemoryInputs in;
        in.dropout = s.model.dropout;
        MemoryInputs recomputed = in;
        recomputed.recomputeModules = RecomputeMlp;
        const TransformerShape shape = TransformerShape::fromModel(s.model);
        const double freed
            = activationBytesPerLayer(shape, strategy, in) - activationBytesPerLayer(shape, strategy, recomputed);
        QVERIFY2(
            near(freed, tokens * (2.0 * h + 2.0 * 2.0 * f + 2.0 * f) / t, 1e-9), qPrintable(QString::number(freed)));
        auto back = parseScenarioJson(scenarioToJson(s), "mlp.json");
        QVERIFY2(back, back ? "" : back.message().c_str());
        QCOMPARE(back->training.recomputeModules, unsigned(RecomputeMlp));

        // A MoE model without dense layers recomputes nothing; with 2 of its 32 layers dense, 1/16 of
        // a dense layer's MLP forward.
        Scenario moe = droplessMixtral(false);
        moe.training.recompute = Recompute::Selective;
        moe.training.recomputeModules = RecomputeMlp;
        const TrainingStrategy moeStrategy = TrainingStrategy::fromScenario(moe);
        QCOMPARE(evaluator(moe).layerTimes(moeStrategy).selectiveRecompute, 0.0);
        moe.model.moe->denseLayers = 2;
        const LayerTimes withDense = evaluator(moe).layerTimes(moeStrategy);
        QVERIFY(withDense.selectiveRecompute > 0.0);
        QVERIFY(withDense.selectiveRecomputeGemm < 0.1 * withDense.forwardKernels.gemm);
    }

    // The flex dispatcher (DeepEP / HybridEP) sends a token once per distinct rank and, across nodes,
    // once per distinct node; the all-to-all dispatcher once per expert. Mixtral top-2 over EP 16 on
    // two 8-GPU nodes: fewer bytes, less time, and two permutation passes instead of four.
    void flexDispatcher()
    {
        Scenario s = droplessMixtral(false);
        s.model.moe->experts = 64; // 4 experts per rank: the all-to-all dispatcher sorts chunks
        s.model.moe->topK = 8;
        s.model.moe->expertFfnHidden = 2048;
        s.parallelism->ep = 16;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEstimate a2a = evaluator(s).evaluate(strategy);
        const LayerTimes la = evaluator(s).layerTimes(strategy);
        s.model.moe->dispatcher = "hybridep";
        const TrainingEvaluator flexEvaluator = evaluator(s);
        const TrainingEstimate flex = flexEvaluator.evaluate(strategy);
        const LayerTimes lf = flexEvaluator.layerTimes(strategy);
        QVERIFY(a2a.valid && flex.valid);
        QVERIFY(flex.communication.ep < a2a.communication.ep);
        // Bytes: per token k copies (7/8 leave... of 16 ranks) against distinct ranks within the node
        // plus distinct nodes across nodes.
        const double k = 8.0, n = 16.0;
        const double distinctRanks = n * (1.0 - std::pow(1.0 - 1.0 / n, k));
        const double distinctNodes = 2.0 * (1.0 - std::pow(0.5, k));
        const double expected = (distinctRanks * 7.0 / 8.0 + distinctNodes / 2.0) / (k * 15.0 / 16.0);
        QVERIFY2(near(flex.bytesSent.ep / a2a.bytesSent.ep, expected, 1e-6),
            qPrintable(QStringLiteral("%1 vs %2").arg(flex.bytesSent.ep / a2a.bytesSent.ep).arg(expected)));
        // Permutation: 2 passes of the top-k copies instead of 4.
        const double tokens = s.model.seqLen;
        const double pass = flexEvaluator.efficiency().memoryBoundSeconds(tokens * k * 2.0 * 2.0 * s.model.hidden);
        QVERIFY(near(la.forwardKernels.elementwise - lf.forwardKernels.elementwise, 2.0 * pass, 1e-9));
    }

    // The flex dispatcher's exchange is one fused kernel: the same bytes and links as NCCL's all-to-all
    // but none of its per-peer send/receive cost (extracost.cpp, 4.5 us per peer) or NVLink fraction.
    void fusedExchangeHasNoPerPeerCost()
    {
        const TrainingEvaluator ev = evaluator(droplessMixtral(false));
        const double bytes = 256e6;
        const GroupPlacement acrossNodes { 64, 8, 8, 1, 0 }; // NIC-bound: only the per-peer cost differs
        QVERIFY(near(ev.collectiveSeconds(CollectiveOp::AllToAll, bytes, acrossNodes)
                - ev.fusedExchangeSeconds(bytes, acrossNodes),
            63 * 4.5e-6, 1e-6));
        const GroupPlacement oneNode { 8, 8, 8, 0, 0 };
        const double nccl = ev.collectiveSeconds(CollectiveOp::AllToAll, bytes, oneNode);
        const double fused = ev.fusedExchangeSeconds(bytes, oneNode);
        QVERIFY2(nccl - 7 * 4.5e-6 > fused / 0.9 * 0.99 && nccl - 7 * 4.5e-6 < fused / 0.9 * 1.01,
            qPrintable(QStringLiteral("NCCL %1 s, fused %2 s").arg(nccl).arg(fused)));
        QCOMPARE(ev.fusedExchangeSeconds(bytes, GroupPlacement { 1, 1, 8, 0, 0 }), 0.0);
        // Memoised beside the collectives under its own key: the same figures as computed afresh, with
        // a same-sized all-to-all of the same group in the memo at the same time.
        TrainingEvaluator fresh = ev;
        fresh.setMemoization(false);
        for (const GroupPlacement& g : { acrossNodes, oneNode }) {
            QCOMPARE(ev.fusedExchangeSeconds(bytes, g), fresh.fusedExchangeSeconds(bytes, g));
            QCOMPARE(ev.collectiveSeconds(CollectiveOp::AllToAll, bytes, g),
                fresh.collectiveSeconds(CollectiveOp::AllToAll, bytes, g));
        }
    }

    // A multi-token prediction module's own work (multi_token_prediction.py: shifted embedding, enorm,
    // hnorm, concatenation, eh_proj 2h -> h, final norm) joins its layer and logits on the last stage.
    void mtpModuleWork()
    {
        Scenario s = droplessMixtral(false);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const LayerTimes none = evaluator(s).layerTimes(strategy);
        QCOMPARE(none.mtpForward, 0.0);
        s.model.mtpLayers = 1;
        const TrainingEvaluator ev = evaluator(s);
        const LayerTimes lt = ev.layerTimes(strategy);
        const ComputeEfficiency& e = ev.efficiency();
        const double tokens = s.model.seqLen, h = s.model.hidden;
        const double elementwise = e.memoryBoundSeconds(tokens * 2.0 * h * 11.0);
        const double launch = e.params().kernelLaunchSeconds;
        QVERIFY(near(lt.mtpForward, e.gemmSeconds(tokens, h, 2.0 * h) + elementwise + 6.0 * launch, 1e-12));
        QVERIFY(near(lt.mtpBackward,
            e.gemmSeconds(tokens, 2.0 * h, h) + e.gemmSeconds(2.0 * h, h, tokens, 1.0, false, 8.0) + 2.0 * elementwise
                + 8.0 * launch,
            1e-12));
        const TrainingEstimate est = ev.evaluate(strategy);
        const double micro = double(s.training.globalBatch) / (strategy.parallelism.dp * s.training.microBatch);
        QVERIFY(near(est.computeBreakdown.logits,
            micro * (2.0 * (lt.logitsForward + lt.logitsBackward) + lt.mtpForward + lt.mtpBackward), 1e-9));
    }

    // Activation offloading (Megatron-Core --cpu-offloading-num-layers through Transformer Engine's
    // offload handler): the offloaded layers' activations live in host memory, one layer's worth in
    // transit stays on the device, and each copy costs what the neighbouring layer's compute does not
    // hide, over the GPU's host link (PCIe on H100, NVLink-C2C on GB200).
    void activationOffload_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<double>("hostLink");
        QTest::addRow("H100 over PCIe") << "H100-SXM-80GB" << 64e9;
        QTest::addRow("GB200 over NVLink-C2C") << "GB200" << 225e9;
    }
    void activationOffload()
    {
        QFETCH(QString, gpu);
        QFETCH(double, hostLink);
        Scenario s = llama70b();
        s.cluster.gpu = gpu.toStdString();
        s.parallelism = ParallelismSpec {};
        s.parallelism->dp = s.cluster.gpus;
        s.parallelism->zero = 3;
        s.training.microBatch = 2;
        s.training.globalBatch = 4 * s.cluster.gpus; // two micro-batches per GPU
        s.training.recompute = Recompute::None;
        s.training.dtype = DType::FP8;
        const TrainingEstimate kept = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        s.training.activationOffloadLayers = 40;
        const TrainingEvaluator ev = evaluator(s);
        const TrainingEstimate off = ev.evaluate(TrainingStrategy::fromScenario(s));
        QVERIFY(kept.valid && off.valid);
        const double perLayer = kept.memory.activationsBytes / s.model.layers;
        QVERIFY(near(off.memory.activationsBytes, (s.model.layers - 40 + 1) * perLayer, 1e-9));
        QVERIFY(near(off.memory.offloadedActivationsBytes, 40 * perLayer, 1e-9));
        QCOMPARE(kept.memory.offloadedActivationsBytes, 0.0);
        QCOMPARE(off.offloadedLayers, 40);
        QVERIFY(near(off.offloadCopySeconds, perLayer / hostLink, 1e-9));
        const LayerTimes lt = ev.layerTimes(TrainingStrategy::fromScenario(s));
        const double exposed = off.microBatchesPerPipeline * 40.0
            * (std::max(0.0, off.offloadCopySeconds - lt.forward)
                + std::max(0.0, off.offloadCopySeconds - lt.backward));
        QVERIFY(near(off.offloadExposedSeconds, exposed, 1e-9));
        QVERIFY(near(off.iterationSeconds - kept.iterationSeconds, exposed, 1e-6));
        if (hostLink < 100e9)
            QVERIFY(exposed > 0); // PCIe cannot hide a 70B layer's activations behind its compute
        // At least one layer per stage keeps its activations.
        s.training.activationOffloadLayers = 79;
        const TrainingEstimate most = evaluator(s).evaluate(TrainingStrategy::fromScenario(s));
        QCOMPARE(most.offloadedLayers, 79);
        QVERIFY(near(most.memory.activationsBytes, 2 * perLayer, 1e-9));
    }
    void activationOffloadKey_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<QString>("error");
        QTest::addRow("kept") << 40 << QString();
        QTest::addRow("negative") << -1 << "/training/activation_offload_layers";
        QTest::addRow("every layer") << 80 << "/training/activation_offload_layers";
        QTest::addRow("with recomputation") << -40 << "activation offloading runs without recomputation";
    }
    void activationOffloadKey()
    {
        QFETCH(int, layers);
        QFETCH(QString, error);
        nlohmann::json j = nlohmann::json::parse(
            std::string(clusterscope::resources::embeddedFile("examples/llama3-70b-1024-h100.json")));
        // Megatron-Core offloads without recomputation only (-n: n layers with the example's selective one).
        j["training"]["recompute"] = layers < -1 ? "selective" : "none";
        if (layers < -1)
            layers = -layers;
        j["training"]["activation_offload_layers"] = layers;
        auto s = parseScenarioJson(j.dump(), "offload.json");
        if (s.isOk())
            if (auto status = validateScenario(*s, m_catalog, "offload.json"); !status)
                s = Result<Scenario>(status);
        if (error.isEmpty()) {
            QVERIFY2(s.isOk(), s.message().c_str());
            QCOMPARE(s->training.activationOffloadLayers, layers);
            const auto again = parseScenarioJson(scenarioToJson(*s), "again.json");
            QVERIFY(again.isOk());
            QCOMPARE(again->training.activationOffloadLayers, layers);
        } else {
            QVERIFY(!s.isOk());
            QVERIFY2(s.message().find(error.toStdString()) != std::string::npos, s.message().c_str());
        }
    }

    // fp8 training keeps the fp8 copies of the QKV, FC1 and FC2 inputs for the weight gradients:
    // h + f bytes less per token and layer than 16-bit copies (split over TP with SP).
    void fp8ActivationsSaved()
    {
        const Scenario s = llama70b();
        const TransformerShape shape = TransformerShape::fromModel(s.model);
        TrainingStrategy st = TrainingStrategy::fromScenario(s);
        st.recompute = Recompute::None;
        st.parallelism.sequenceParallel = true;
        MemoryInputs in;
        const double bf16 = activationBytesPerLayer(shape, st, in);
        in.fp8GemmInputs = true;
        const double fp8 = activationBytesPerLayer(shape, st, in);
        const double tokens = double(st.microBatch) * shape.seqLen / st.parallelism.cp;
        QVERIFY(near(bf16 - fp8, tokens * (shape.hidden + shape.ffnHidden) / st.parallelism.tp, 1e-12));
        // Full recomputation keeps only the layer input: no change.
        st.recompute = Recompute::Full;
        in.fp8GemmInputs = false;
        const double fullBf16 = activationBytesPerLayer(shape, st, in);
        in.fp8GemmInputs = true;
        QCOMPARE(activationBytesPerLayer(shape, st, in), fullBf16);
    }

    // Heads of their own width (Qwen3, GPT-OSS: heads x head_dim != hidden) save Q and the attention
    // output at heads x head_dim and K, V at kv_heads x head_dim; with head_dim = hidden / heads the
    // count is Korthikanti's.
    void attentionActivationsByHeadWidth()
    {
        Scenario s = llama70b(); // hidden 8192, 64 heads, 8 KV heads
        TrainingStrategy st = TrainingStrategy::fromScenario(s);
        st.recompute = Recompute::None;
        st.parallelism.sequenceParallel = true;
        MemoryInputs in;
        in.dropout = false;
        const TransformerShape plain = TransformerShape::fromModel(s.model);
        const double korthikanti = activationBytesPerLayer(plain, st, in);
        s.model.headDim = 8192 / 64; // the same width stated explicitly: no change
        QCOMPARE(activationBytesPerLayer(TransformerShape::fromModel(s.model), st, in), korthikanti);
        s.model.headDim = 256; // q = 16384, kv = 2048 (twice hidden / heads)
        const double tokens = double(st.microBatch) * plain.seqLen / st.parallelism.cp;
        const double t = st.parallelism.tp;
        // Korthikanti's attention term without masks: 6h + 4 h kv_heads / heads; with the heads' own
        // widths: 2h + 4q + 4kv.
        const double h = 8192, q = 64 * 256, kv = 8 * 256;
        const double expected = korthikanti + tokens * ((2 * h + 4 * q + 4 * kv) - h * (6 + 4.0 * 8 / 64)) / t;
        QVERIFY(near(activationBytesPerLayer(TransformerShape::fromModel(s.model), st, in), expected, 1e-12));
        // Under fp8 the projection keeps its fp8 copy of the q-wide attention output.
        in.fp8GemmInputs = true;
        const double fp8Plain = activationBytesPerLayer(plain, st, in);
        QVERIFY(near(activationBytesPerLayer(TransformerShape::fromModel(s.model), st, in),
            fp8Plain + tokens * ((2 * h + 4 * q + 4 * kv + (q - h)) - h * (6 + 4.0 * 8 / 64)) / t, 1e-12));
    }

    // Multi-token prediction modules run on the last stage: one more layer and one more output
    // layer each; their parameters live there too. The key round-trips.
    void multiTokenPrediction()
    {
        const char* json = R"({"format": "clusterscope-scenario", "version": 1, "name": "DeepSeek-V3",
            "cluster": {"gpu": "B200", "gpus": 256, "nic": {"gbps": 400, "per_node": 8}, "transport": "infiniband",
                        "fabric": {"type": "rail-optimized", "switch_radix": 64, "tiers": 2}},
            "model": {"layers": 61, "hidden": 7168, "heads": 128, "kv_heads": 128, "head_dim": 128, "ffn_hidden": 18432,
                      "vocab": 129280, "seq_len": 4096, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                      "v_head_dim": 128, "mtp_layers": 1,
                      "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 3}},
            "training": {"global_batch": 2048, "dtype": "fp8", "recompute": "none"},
            "parallelism": {"tp": 1, "pp": 16, "dp": 16, "ep": 8, "zero": 1, "first_stage_layers": 4, "last_stage_layers": 1}})";
        auto s = parseScenarioJson(json, "dsv3.json");
        QVERIFY2(s.isOk(), s.message().c_str());
        QCOMPARE(s->model.mtpLayers, 1);
        auto again = parseScenarioJson(scenarioToJson(*s), "again.json");
        QVERIFY2(again.isOk(), again.message().c_str());
        QVERIFY(*again == *s);
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(*s);
        const TrainingEstimate with = evaluator(*s).evaluate(strategy);
        ParallelismSpec one = strategy.parallelism; // a single stage holds the MTP module's parameters too
        one.pp = 1;
        one.dp = 256;
        one.firstStageLayers = one.lastStageLayers = 0;
        const double lastWith = localParams(TransformerShape::fromModel(s->model), one).total();
        s->model.mtpLayers = 0;
        const TrainingEstimate without = evaluator(*s).evaluate(strategy);
        const double lastWithout = localParams(TransformerShape::fromModel(s->model), one).total();
        QVERIFY(with.valid && without.valid);
        // The last stage (1 layer + the MTP layer + two output layers over a 129k vocabulary) now
        // outweighs the 4-layer stages and sets the pace; the stage holding it holds one more MoE layer.
        QVERIFY(with.breakdown.compute > without.breakdown.compute);
        QVERIFY(lastWith > lastWithout);
    }

    void moeCalibrationKeysRejected_data()
    {
        QTest::addColumn<QString>("compute");
        QTest::addColumn<QString>("key");
        QTest::addRow("streams below 1") << R"({"grouped_gemm_streams": 0})"
                                         << "grouped_gemm_streams";
        QTest::addRow("negative launch") << R"({"library_host_seconds_per_launch": -1})"
                                         << "library_host_seconds_per_launch";
        QTest::addRow("negative sync") << R"({"moe_sync_seconds": -1e-6})"
                                       << "moe_sync_seconds";
        QTest::addRow("mtp_layers negative") << QString() << "mtp_layers";
        QTest::addRow("mtp_layers above 64") << QStringLiteral("mtp:65") << "mtp_layers";
    }
    void moeCalibrationKeysRejected()
    {
        QFETCH(QString, compute);
        QFETCH(QString, key);
        const std::string text(clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"));
        nlohmann::json j = nlohmann::json::parse(text);
        if (compute.isEmpty())
            j["model"]["mtp_layers"] = -1;
        else if (compute == QStringLiteral("mtp:65"))
            j["model"]["mtp_layers"] = 65;
        else
            j["calibration"]["compute"] = nlohmann::json::parse(compute.toStdString());
        auto s = parseScenarioJson(j.dump(), "bad.json");
        QVERIFY(!s.isOk());
        QVERIFY2(s.message().find(key.toStdString()) != std::string::npos, s.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTrainingKernels)
#include "tst_trainingkernels.moc"
