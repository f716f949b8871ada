// Hybrid stacks (model.hybrid_pattern: Mamba-2, attention, MLP and MoE layers, one block each, as
// Megatron-Core's hybrid_layer_pattern; Nemotron-H, Nemotron 3):
// - a pattern of attention and MLP blocks is the plain transformer it spells, to the last digit of
//   every figure (time, memory, traffic, parameters, FLOPs): the block shares are one mechanism;
// - Nemotron 3 Nano's parameters are the published 31.6B total / 3.6B active;
// - the Mamba-2 mixer's work (in_proj / out_proj GEMMs, the SSD scan, conv and copies), its CUDA
//   graph, its tensor-parallel rule, and the scenario keys with their errors;
// - pipeline stages run their own slices of the pattern (with virtual stages, chunks r, r + pp, ...);
// - context parallelism: the Mamba mixer's all-to-alls and whole-sequence scan, the attention blocks'
//   ring or Ulysses traffic as the transformer's, and the splits Megatron-Core refuses;
// - recompute module "moe" (the whole MoE MLP again in the backward, all-to-alls included);
// - an MTP layer of its own (model.mtp_pattern, model.mtp_shared_weights, training.bf16_mtp): written as
//   the transformer's MTP layer it is that layer; shared weights are held once; BF16 MTP adds its BF16 time;
// - modules of their own precision (training.module_dtypes): timed and cast as a run in their dtype.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/training/memorymodel.h"
#include "engine/training/trafficmatrix.h"
#include "engine/training/trainingevaluator.h"
#include "engine/training/transformershape.h"
#include "resources/embeddedresources.h"
#include "tests/support/evaluatorfor.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace clusterscope::engine;

namespace {

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

Scenario example(const char* file) { return *parseScenarioJson(clusterscope::resources::embeddedFile(file), file); }

// Nemotron 3 Nano 30B-A3B (Megatron-Bridge src/megatron/bridge/recipes/nemotronh/nemotron_3_nano.py)
// on one DGX-B200 as its published MXFP8 run (Megatron-Bridge docs/performance-summary.md, 26.04.01).
const char* const kNano = R"({
  "format": "clusterscope-scenario", "version": 1, "name": "nano",
  "cluster": {"gpu": "B200", "gpus": 8, "gpus_per_node": 8, "nic": {"gbps": 400, "per_node": 8},
              "transport": "infiniband", "fabric": {"type": "rail-optimized"}},
  "model": {"layers": 52, "hidden": 2688, "heads": 32, "kv_heads": 2, "head_dim": 128, "ffn_hidden": 1856,
            "vocab": 131072, "seq_len": 8192, "gated_mlp": false, "dropout": false,
            "hybrid_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
            "mamba": {"heads": 64, "head_dim": 64, "state_dim": 128, "groups": 8},
            "moe": {"experts": 128, "top_k": 6, "expert_ffn_hidden": 1856, "shared_experts": 1,
                    "shared_expert_ffn_hidden": 3712, "load_imbalance": 1, "dispatcher": "hybridep"}},
  "training": {"global_batch": 512, "micro_batch": 2, "dtype": "mxfp8", "recompute": "none"},
  "parallelism": {"tp": 1, "pp": 1, "dp": 8, "ep": 8}
})";

// kNano cut to 8 attention and MoE blocks (no Mamba mixer) at sequence 4096: small stacks whose blocks
// differ a lot.
Scenario smallNano()
{
    Scenario s = *parseScenarioJson(kNano, "nano.json");
    s.model.layers = 8;
    s.model.seqLen = 4096;
    s.model.mamba.reset();
    return s;
}

const char* const kNanoPattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";

// `s` with every layer written as two blocks of the hybrid pattern: "*-" (attention, then MLP), or
// "*E" for an MoE layer (its leading dense layers "*-"); its MTP layers likewise (an MoE model's
// MTP layer is an MoE layer when it has no dense layers).
Scenario asHybrid(Scenario s)
{
    std::string pattern;
    const int dense = s.model.moe ? s.model.moe->denseLayers : s.model.layers;
    for (int i = 0; i < s.model.layers; ++i)
        pattern += i < dense ? "*-" : "*E";
    s.model.layers *= 2;
    s.model.hybridPattern = pattern;
    if (s.model.mtpLayers > 0)
        s.model.mtpPattern = dense > 0 ? "*-" : "*E";
    if (s.model.moe)
        s.model.moe->denseLayers = 0;
    return s;
}

} // namespace

class TestTrainingHybrid : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    TrainingEvaluator evaluator(const Scenario& s) { return clusterscope::testsupport::evaluatorFor(s, m_catalog); }

    // The validator refuses `s` at `pointer` with a message containing `text`, and the evaluator too.
    void refused(const Scenario& s, const std::string& pointer, const std::string& text)
    {
        const Status invalid = validateScenario(s, m_catalog, "h.json");
        QVERIFY(!invalid);
        QVERIFY2(invalid.message().find("h.json: " + pointer + ": ") != std::string::npos, invalid.message().c_str());
        QVERIFY2(invalid.message().find(text) != std::string::npos, invalid.message().c_str());
        // The evaluator refuses the strategy (the search skips it) at the same place.
        const auto ev = TrainingEvaluator::create(s, m_catalog);
        QVERIFY2(ev, ev.message().c_str());
        const char* reason = ev->invalidReason(TrainingStrategy::fromScenario(s));
        QVERIFY(reason != nullptr);
        QVERIFY2(std::string(reason).rfind(pointer + ": ", 0) == 0, reason);
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    // The block shares are one mechanism: a hybrid pattern of attention and MLP blocks evaluates as the
    // transformer it spells (dense with TP 8, SP and PP 4; dropless MoE with EP 8 and a dense layer).
    void attentionAndMlpBlocksAreTheTransformer_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("denseLayers");
        QTest::addColumn<bool>("fp8");
        QTest::addColumn<int>("mtpLayers");
        QTest::addColumn<int>("cp"); // context parallelism: 0 none, 1 ring, 2 Ulysses (cp 2 each)
        QTest::addRow("llama 70b, tp 8, pp 4")
            << QStringLiteral("examples/llama3-70b-1024-h100.json") << 0 << false << 0 << 0;
        QTest::addRow("llama 70b, fp8, full recompute")
            << QStringLiteral("examples/llama3-70b-1024-h100.json") << 0 << true << 0 << 0;
        QTest::addRow("mixtral, ep 8, 1 dense layer")
            << QStringLiteral("examples/mixtral-8x7b-256-h200-roce.json") << 1 << false << 0 << 0;
        // MTP layers as model.mtp_pattern blocks ("*-", "*E") on the last stage: as the transformer's.
        QTest::addRow("llama 70b, tp 8, pp 4, 2 mtp layers")
            << QStringLiteral("examples/llama3-70b-1024-h100.json") << 0 << false << 2 << 0;
        QTest::addRow("mixtral, ep 8, 1 mtp layer")
            << QStringLiteral("examples/mixtral-8x7b-256-h200-roce.json") << 0 << false << 1 << 0;
        // Context parallelism runs in the attention blocks (ring attention; Ulysses), the MTP layers' too.
        QTest::addRow("llama 70b, tp 8, pp 4, ring cp 2, 2 mtp layers")
            << QStringLiteral("examples/llama3-70b-1024-h100.json") << 0 << false << 2 << 1;
        QTest::addRow("llama 70b, fp8, full recompute, ring cp 2")
            << QStringLiteral("examples/llama3-70b-1024-h100.json") << 0 << true << 0 << 1;
        QTest::addRow("mixtral, ep 8, ulysses cp 2")
            << QStringLiteral("examples/mixtral-8x7b-256-h200-roce.json") << 0 << false << 0 << 2;
    }
    void attentionAndMlpBlocksAreTheTransformer()
    {
        QFETCH(QString, file);
        QFETCH(int, denseLayers);
        QFETCH(bool, fp8);
        QFETCH(int, mtpLayers);
        QFETCH(int, cp);
        Scenario plain = example(file.toStdString().c_str());
        plain.model.mtpLayers = mtpLayers;
        if (plain.model.moe) {
            plain.parallelism = ParallelismSpec {};
            plain.parallelism->ep = 8;
            plain.parallelism->dp = plain.cluster.gpus;
            plain.model.moe->capacityFactor = 0.0;
            plain.model.moe->denseLayers = denseLayers;
        }
        if (cp > 0) {
            plain.parallelism->cp = 2;
            plain.parallelism->dp /= 2;
            plain.parallelism->cpKind = cp == 1 ? ContextParallelKind::Ring : ContextParallelKind::Ulysses;
        }
        if (fp8) {
            plain.training.dtype = DType::FP8;
            plain.training.recompute = Recompute::Full;
        }
        const Scenario hybrid = asHybrid(plain);
        QVERIFY(validateScenario(hybrid, m_catalog, "h.json"));
        const TrainingEstimate a = evaluator(plain).evaluate(TrainingStrategy::fromScenario(plain));
        const TrainingEstimate b = evaluator(hybrid).evaluate(TrainingStrategy::fromScenario(hybrid));
        QVERIFY(a.valid && b.valid);
        constexpr double rel = 1e-9;
        QVERIFY2(near(b.iterationSeconds, a.iterationSeconds, rel),
            qPrintable(QStringLiteral("%1 s vs %2 s").arg(b.iterationSeconds).arg(a.iterationSeconds)));
        QVERIFY(near(b.breakdown.compute, a.breakdown.compute, rel));
        QVERIFY(near(b.communication.tp + 1.0, a.communication.tp + 1.0, rel));
        QVERIFY(near(b.communication.ep + 1.0, a.communication.ep + 1.0, rel));
        QVERIFY(near(b.communication.cp + 1.0, a.communication.cp + 1.0, rel));
        QVERIFY(near(b.breakdown.cpExposed + 1.0, a.breakdown.cpExposed + 1.0, rel));
        QVERIFY(near(b.bytesSent.cp + 1.0, a.bytesSent.cp + 1.0, rel));
        QCOMPARE(b.bytesSent.cp > 0, cp > 0);
        QVERIFY(near(b.bytesSent.dp, a.bytesSent.dp, rel));
        if (plain.training.recompute != Recompute::Full) {
            QVERIFY(near(b.memory.activationsBytes, a.memory.activationsBytes, rel));
            QVERIFY(near(b.memory.totalBytes(), a.memory.totalBytes(), rel));
        } else {
            // Full recomputation keeps each layer's input (Megatron-Core checkpoints layer by layer):
            // a hybrid stack's blocks are layers, so it keeps one input per block.
            QVERIFY(b.memory.activationsBytes > a.memory.activationsBytes);
        }
        QVERIFY(near(b.modelFlopsPerIteration, a.modelFlopsPerIteration, rel));
        const TransformerShape pa = TransformerShape::fromModel(plain.model);
        const TransformerShape pb = TransformerShape::fromModel(hybrid.model);
        QVERIFY(near(pb.totalParams(), pa.totalParams(), rel));
        QVERIFY(near(pb.activeParams(), pa.activeParams(), rel));
    }

    // Nemotron 3 Nano as published: 31.6B parameters, 3.6B active per token including the embedding and
    // the output layer, 3.2B without the input embedding (NVIDIA model card of
    // nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 and the Nemotron 3 Nano technical report).
    void nemotron3NanoShape()
    {
        const auto s = parseScenarioJson(kNano, "nano.json");
        QVERIFY2(s, s.message().c_str());
        const TransformerShape m = TransformerShape::fromModel(s->model);
        QVERIFY(m.hybrid);
        QCOMPARE(m.mambaShare, 23.0 / 52.0);
        QCOMPARE(m.moeShare, 23.0 / 52.0);
        QCOMPARE(m.attentionShare, 6.0 / 52.0);
        QCOMPARE(m.mambaInner(), 4096.0);
        QVERIFY2(near(m.totalParams(), 31.6e9, 0.005), qPrintable(QString::number(m.totalParams())));
        QVERIFY2(near(m.activeParams(), 3.6e9, 0.01), qPrintable(QString::number(m.activeParams())));
        QVERIFY(near(m.activeParams() - m.embeddingParams, 3.2e9, 0.01));
        // Every parameter sits on a GPU: on one stage without tp or ep the local parameters are the
        // model's, the Mamba mixers' included (weights, gradients, optimizer state and the data-parallel
        // traffic count them); tp 2 splits the mixers with the attention and MLP blocks.
        ParallelismSpec whole = *s->parallelism;
        whole.ep = 1;
        QVERIFY2(near(localParams(m, whole).total(), m.totalParams(), 1e-12),
            qPrintable(QString::number(localParams(m, whole).total())));
        ParallelismSpec tp2 = whole;
        tp2.tp = 2;
        const double mixers = 52.0 * m.mambaParamsPerLayer;
        QVERIFY(mixers > 0.85e9);
        QVERIFY(near(localParams(m, whole).dense - localParams(m, tp2).dense,
            (mixers + 52.0 * (m.attentionParamsPerLayer + m.sharedExpertParamsPerLayer) + m.embeddingParams
                + m.outputLayerParams)
                / 2.0,
            1e-12));
        // A Mamba layer's forward FLOPs per token: in_proj and out_proj GEMMs and the scan as Megatron-LM
        // counts them (megatron/training/training.py mamba_layer_flops, with the model's d_inner).
        Scenario onlyMamba = *s;
        onlyMamba.model.hybridPattern = std::string(52, 'M');
        onlyMamba.model.moe.reset();
        const TransformerShape mm = TransformerShape::fromModel(onlyMamba.model);
        const double h = 2688, inner = 4096, width = 2 * inner + 2 * 8 * 128 + 64;
        const double perToken = 2 * h * width + 7 * inner * 128 + 2 * inner * h;
        QCOMPARE(mm.layerForwardFlops(1.0, 8192.0), perToken);
    }

    // Latent MoE (Megatron-Core moe_latent_size; Nemotron 3 Super): the routed experts and the dispatch
    // run at the latent width. Nemotron 3 Super 120B-A12B has its nominal 120B parameters and ~12B active
    // per token (the output layer counted, the input embedding not); the all-to-all bytes shrink by
    // latent / hidden; the latent projections are whole on every tp rank.
    void latentMoe()
    {
        nlohmann::json j = nlohmann::json::parse(kNano);
        j["model"].merge_patch(nlohmann::json::parse(R"({"layers": 88, "hidden": 4096, "ffn_hidden": 2688,
            "hybrid_pattern": "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME",
            "mamba": {"heads": 128},
            "moe": {"experts": 512, "top_k": 22, "expert_ffn_hidden": 2688, "shared_expert_ffn_hidden": 5376,
                    "latent_size": 1024}})"));
        j["cluster"]["gpus"] = 64;
        j["parallelism"] = { { "tp", 1 }, { "pp", 1 }, { "dp", 64 }, { "ep", 64 } };
        const auto s = parseScenarioJson(j.dump(), "super.json");
        QVERIFY2(s, s.message().c_str());
        const TransformerShape m = TransformerShape::fromModel(s->model);
        QCOMPARE(m.expertInput, 1024.0);
        QVERIFY2(near(m.totalParams(), 120e9, 0.01), qPrintable(QString::number(m.totalParams())));
        QVERIFY2(near(m.activeParams() - m.embeddingParams, 12e9, 0.03), qPrintable(QString::number(m.activeParams())));
        const auto back = parseScenarioJson(scenarioToJson(*s), "back.json");
        QVERIFY2(back && *back == *s, back ? "differs" : back.message().c_str());

        Scenario full = *s;
        full.model.moe->latentSize = 0;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(*s);
        const TrainingEstimate latent = evaluator(*s).evaluate(strategy);
        const TrainingEstimate wide = evaluator(full).evaluate(strategy);
        QVERIFY(near(latent.bytesSent.ep, wide.bytesSent.ep * 1024.0 / 4096.0, 1e-12));
        QVERIFY(latent.iterationSeconds < wide.iterationSeconds);
        // tp 2 keeps the latent projections whole: the local parameters lose less than half of them.
        Scenario tp2 = *s;
        tp2.parallelism->tp = 2;
        tp2.parallelism->dp = 32;
        tp2.parallelism->etp = 1;
        tp2.parallelism->sequenceParallel = true;
        const double whole = TransformerShape::fromModel(s->model).latentProjParamsPerLayer * 88;
        QVERIFY(
            localParams(m, *tp2.parallelism).dense > localParams(m, *s->parallelism).dense / 2.0 + whole / 2.0 - 1.0);
    }

    // The Mamba-2 mixer's work shows where it belongs: the SSD scan with the sequence mixing (it grows
    // with the state size), its GEMMs with the GEMMs; its CUDA graph removes the layer's per-op host
    // time; its heads and groups bound tp.
    void mambaMixer()
    {
        Scenario s = *parseScenarioJson(kNano, "nano.json");
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const LayerTimes base = evaluator(s).layerTimes(strategy);
        Scenario larger = s;
        larger.model.mamba->stateDim = 256;
        const LayerTimes state = evaluator(larger).layerTimes(strategy);
        QVERIFY(state.forwardKernels.attention > base.forwardKernels.attention);
        QVERIFY(state.backwardKernels.attention > base.backwardKernels.attention);
        QVERIFY(state.forwardKernels.gemm > base.forwardKernels.gemm); // in_proj carries B and C
        Scenario noMamba = s; // the Mamba layers as MLP layers
        std::replace(noMamba.model.hybridPattern.begin(), noMamba.model.hybridPattern.end(), 'M', '-');
        noMamba.model.mamba.reset();
        QVERIFY(evaluator(noMamba).layerTimes(strategy).forwardKernels.attention < base.forwardKernels.attention);

        s.computeCalibration.hostSecondsPerKernel = 1e-3; // every op host-bound
        const LayerTimes eager = evaluator(s).layerTimes(strategy);
        s.training.cudaGraphScope = CudaGraphMamba;
        const TrainingEvaluator graphed = evaluator(s);
        const LayerTimes graph = graphed.layerTimes(strategy);
        QVERIFY(graph.forward
            < eager.forward - (23.0 / 52.0) * 10.0 * (1e-3 - graphed.efficiency().params().graphLaunchHostSeconds));
        QVERIFY(graph.backward < eager.backward);

        Scenario tp = *parseScenarioJson(kNano, "nano.json");
        tp.parallelism->tp = 16; // 8 B / C groups
        tp.parallelism->dp = 1;
        tp.cluster.gpus = 16;
        tp.parallelism->ep = 1;
        refused(tp, "/parallelism/tp", "the Mamba heads (64) and groups (8) must be divisible by tp (16)");
    }

    // Context parallelism of the Mamba-2 mixer (Megatron-Core ssm/mamba_context_parallel.py): all-to-alls
    // move the in_proj output from sequence to head shards before the conv1d and the scan (z, x, B, C,
    // dt) and y back after it, forward and backward, none hidden; each rank scans the whole sequence
    // for heads / (tp cp) heads, repeating a B / C group on cp / groups_tp ranks when it must. The
    // attention layers of the stack keep ring attention's traffic; the all-to-alls reach every cp peer.
    void mambaContextParallel()
    {
        Scenario s = *parseScenarioJson(kNano, "nano.json");
        s.model.hybridPattern = std::string(52, 'M');
        s.model.moe.reset();
        s.parallelism->ep = 1;
        Scenario cp = s;
        cp.parallelism->cp = 2;
        cp.parallelism->dp = 4;
        QVERIFY(validateScenario(cp, m_catalog, "h.json"));
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(cp);
        const TrainingEvaluator ev = evaluator(cp);
        const TrainingEstimate e = ev.evaluate(strategy);
        QVERIFY(e.valid);
        // The exchanges by hand: per micro-batch of 2 x 8192 / 2 tokens a rank, 16-bit, z and x (4096
        // each), B and C (8 groups: 4 per cp rank, all 4 x 2 x 128 columns sent), dt (64 heads) and y
        // (4096), each sending (cp - 1) / cp of itself; forward and backward in 52 layers, 64 micro-batches.
        const double tokens = 2.0 * 8192.0 / 2.0, widths = 4096 + 4096 + 1024 + 1024 + 64 + 4096;
        const double perLayer = 2.0 * tokens * 2.0 * widths * 0.5;
        QCOMPARE(e.microBatchesPerPipeline, 64);
        QVERIFY2(near(e.bytesSent.cp, 64.0 * 52.0 * perLayer, 1e-12), qPrintable(QString::number(e.bytesSent.cp)));
        QCOMPARE(e.bytesSent.cpAllToAll, e.bytesSent.cp);
        QVERIFY(e.communication.cp > 0);
        QVERIFY(near(e.breakdown.cpExposed, e.communication.cp, 1e-12)); // on the layer's stream: exposed
        // The scan of the whole sequence at half the heads is the scan of half the sequence at all of
        // them (as many chunk x head products); cp adds the reshuffles around the all-to-alls.
        Scenario half = s;
        half.model.seqLen = 4096;
        const TrainingStrategy noCp = TrainingStrategy::fromScenario(half);
        const LayerTimes whole = ev.layerTimes(strategy), halved = evaluator(half).layerTimes(noCp);
        QVERIFY(near(whole.forwardKernels.attention, halved.forwardKernels.attention, 1e-12));
        QVERIFY(near(whole.backwardKernels.attention, halved.backwardKernels.attention, 1e-12));
        QVERIFY(near(whole.forwardKernels.gemm, halved.forwardKernels.gemm, 1e-12));
        QVERIFY(whole.forwardKernels.elementwise > halved.forwardKernels.elementwise);
        QCOMPARE(whole.forwardKernels.kernels, halved.forwardKernels.kernels + 9.0);
        // One group per tp rank over two cp ranks: both scan the group's C B^T and send it whole.
        Scenario oneGroup = cp, oneGroupHalf = half;
        oneGroup.model.mamba->groups = 1;
        oneGroupHalf.model.mamba->groups = 1;
        const LayerTimes repeated = evaluator(oneGroup).layerTimes(strategy);
        QVERIFY(repeated.forwardKernels.attention > evaluator(oneGroupHalf).layerTimes(noCp).forwardKernels.attention);
        QCOMPARE(repeated.forwardKernels.kernels, halved.forwardKernels.kernels + 11.0);
        // It keeps the scan's input after the all-to-all: as many elements, the repeated group's more.
        QVERIFY(near(ev.memory(strategy).activationsBytes, evaluator(half).memory(noCp).activationsBytes, 1e-12));
        QVERIFY(evaluator(oneGroup).memory(strategy).activationsBytes
            > evaluator(oneGroupHalf).memory(noCp).activationsBytes);
        const double repeatedWidths = 4096 + 4096 + 2 * 128 + 2 * 128 + 64 + 4096; // B, C: the group twice
        QVERIFY(near(evaluator(oneGroup).evaluate(strategy).bytesSent.cp,
            64.0 * 52.0 * 2.0 * tokens * 2.0 * repeatedWidths * 0.5, 1e-12));

        // Nemotron 3 Nano at ring cp 4: its 6 attention layers pass K and V around the ring (2 x 8192 / 4
        // tokens, 2 kv heads of 128, 16-bit; 3 steps, forward and both ways backward), its 23 Mamba
        // layers exchange all-to-all: ring neighbours and the rank across the ring both receive cp bytes.
        Scenario nano = *parseScenarioJson(kNano, "nano.json");
        nano.parallelism->cp = 4;
        nano.parallelism->dp = 2;
        QVERIFY(validateScenario(nano, m_catalog, "h.json"));
        const TrainingEvaluator nanoEv = evaluator(nano);
        const TrainingEstimate n = nanoEv.evaluate(TrainingStrategy::fromScenario(nano));
        QVERIFY(n.valid);
        const double kvBytes = 2.0 * 8192.0 / 4.0 * 2.0 * 2.0 * 128.0 * 2.0;
        const double ringBytes = n.microBatchesPerPipeline * 6.0 * 3.0 * kvBytes * 3.0;
        QVERIFY2(near(n.bytesSent.cp - n.bytesSent.cpAllToAll, ringBytes, 1e-12),
            qPrintable(QStringLiteral("%1 vs %2").arg(n.bytesSent.cp - n.bytesSent.cpAllToAll).arg(ringBytes)));
        QVERIFY(n.bytesSent.cpAllToAll > 0);
        const TrafficMatrix traffic = TrafficMatrix::fromEstimate(n, nanoEv.placer());
        const long long stride = nanoEv.groups(*nano.parallelism).cpStride;
        QVERIFY(traffic.pairBytes(0, 2 * stride)[int(TrafficDimension::CP)] > 0);

        // What Megatron-Core asserts: whole heads on every tp x cp rank; cp and the groups per tp rank
        // dividing one another.
        Scenario heads = nano;
        heads.model.mamba->heads = 40; // 10 heads per group: 40 / 4 = 10 is fine, 40 / 16 is not
        heads.cluster.gpus = 16;
        heads.parallelism->cp = 16;
        heads.parallelism->dp = 1;
        refused(
            heads, "/parallelism/cp", "the Mamba heads must be divisible by tp x cp (heads 40, groups 8, tp 1, cp 16");
        Scenario groups = nano;
        groups.model.mamba->heads = 48;
        groups.model.mamba->groups = 6;
        refused(groups, "/parallelism/cp", "cp and the Mamba groups per tp rank must divide one another");
    }

    // With pipelines each stage runs its own slice of the pattern (Megatron-Core
    // hybrid_layer_allocation.py select_pipeline_segment): "****EEEE" on two stages is four attention
    // blocks, then four MoE blocks with the output layer, whose stage sets the pace exactly as in
    // "EEEEEEEE" (the time, the all-to-alls, the parameters the busiest stage holds), where the pattern's
    // average would put two of each on both. With two virtual stages each stage holds chunks r and r + pp:
    // "****EEEE" then runs "**EE" on both, as "*E*E*E*E" does. '|' separators state the layout.
    void pipelineStagesRunTheirSlices()
    {
        Scenario s = smallNano();
        s.parallelism->pp = 2;
        s.parallelism->dp = 4;
        s.parallelism->ep = 4;
        const auto run = [&](const char* pattern, int vpp) {
            Scenario x = s;
            x.model.hybridPattern = pattern;
            x.parallelism->vpp = vpp;
            if (vpp > 1)
                x.parallelism->schedule = PipelineSchedule::Interleaved;
            const Status valid = validateScenario(x, m_catalog, "h.json");
            if (!valid)
                qFatal("%s", valid.message().c_str());
            return evaluator(x).evaluate(TrainingStrategy::fromScenario(x));
        };
        const TrainingEstimate split = run("****EEEE", 1), moe = run("EEEEEEEE", 1), mixed = run("*E*E*E*E", 1);
        QVERIFY(split.valid && moe.valid && mixed.valid);
        QVERIFY2(near(split.breakdown.compute, moe.breakdown.compute, 1e-12),
            qPrintable(QStringLiteral("%1 vs %2").arg(split.breakdown.compute).arg(moe.breakdown.compute)));
        QVERIFY(near(split.bytesSent.ep, moe.bytesSent.ep, 1e-12));
        QVERIFY(near(split.communication.ep, moe.communication.ep, 1e-12));
        QVERIFY(near(split.memory.weightsBytes, moe.memory.weightsBytes, 1e-12));
        QVERIFY(split.breakdown.compute > mixed.breakdown.compute); // the average would be "*E*E" per stage
        QVERIFY(near(split.bytesSent.ep, 2.0 * mixed.bytesSent.ep, 1e-12));
        const TrainingEstimate interleavedSplit = run("****EEEE", 2), interleavedMixed = run("*E*E*E*E", 2);
        QVERIFY(interleavedSplit.valid && interleavedMixed.valid);
        QVERIFY(near(interleavedSplit.breakdown.compute, interleavedMixed.breakdown.compute, 1e-12));
        QVERIFY(near(interleavedSplit.bytesSent.ep, interleavedMixed.bytesSent.ep, 1e-12));
        QVERIFY(near(interleavedSplit.memory.weightsBytes, interleavedMixed.memory.weightsBytes, 1e-12));

        // '|' separators state the layout (Megatron-Core select_pipeline_segment): segment i on stage
        // i mod pp. "****|EEEE" is the contiguous split; "**|**|EE|EE" on two stages of two virtual
        // stages puts "**EE" on each; uneven segments give uneven stages.
        const TrainingEstimate piped = run("****|EEEE", 1), pipedVirtual = run("**|**|EE|EE", 2);
        QVERIFY(piped.valid && pipedVirtual.valid);
        QCOMPARE(piped.breakdown.compute, split.breakdown.compute);
        QCOMPARE(piped.bytesSent.ep, split.bytesSent.ep);
        QCOMPARE(piped.memory.totalBytes(), split.memory.totalBytes());
        QCOMPARE(pipedVirtual.breakdown.compute, interleavedMixed.breakdown.compute);
        const TrainingEstimate uneven = run("*|***EEEE", 1);
        QVERIFY(uneven.valid);
        QCOMPARE(uneven.firstStageLayers, 1);
        QCOMPARE(uneven.lastStageLayers, 7);
        QCOMPARE(QString::fromLatin1(uneven.pipelineSplitRule), QStringLiteral("segments"));
        Scenario written = s;
        written.model.hybridPattern = "*|***EEEE";
        const auto back = parseScenarioJson(scenarioToJson(written), "back.json");
        QVERIFY2(back && back->model.hybridPattern == "*|***EEEE", back ? "differs" : back.message().c_str());
        // Segments that are not one per virtual stage, and a stated split beside them, are refused.
        Scenario deeper = written;
        deeper.parallelism->pp = 4;
        deeper.parallelism->dp = 2;
        deeper.parallelism->ep = 2;
        refused(deeper, "/parallelism/pp", "pp x vpp must equal the '|' segments of model.hybrid_pattern");
        Scenario stated = written;
        stated.parallelism->firstStageLayers = 1;
        refused(stated, "/parallelism/first_stage_layers", "the '|' segments of model.hybrid_pattern state");
    }

    // Layers kept in BF16 (training.bf16_layers_at_start / _at_end) are the pattern's own first and last
    // blocks (Megatron-Core numbers every block a layer): "EEEEEE**" with the last two in BF16 runs the
    // attention blocks in BF16, as "**EEEEEE" with the first two does, and not as with the first two
    // (MoE blocks); it takes exactly two attention blocks' BF16 minus MXFP8 time more than the all-MXFP8
    // stack. The same on the stages of a pipeline. (With the stack's average BF16 layer, as before, the
    // first three were equal and the difference was that of two average layers.)
    void bf16BlocksAreTheirOwn()
    {
        const Scenario s = smallNano();
        const auto estimate = [&](const char* pattern, int start, int end, DType dtype, int pp) {
            Scenario x = s;
            x.model.hybridPattern = pattern;
            x.model.layers = static_cast<int>(std::string(pattern).size());
            x.training.dtype = dtype;
            x.training.bf16LayersAtStart = start;
            x.training.bf16LayersAtEnd = end;
            x.parallelism->pp = pp;
            x.parallelism->dp = 8 / pp;
            x.parallelism->ep = 8 / pp;
            if (x.model.hybridPattern.find('E') == std::string::npos) {
                x.model.moe.reset();
                x.parallelism->ep = 1;
            }
            const Status valid = validateScenario(x, m_catalog, "h.json");
            if (!valid)
                qFatal("%s", valid.message().c_str());
            const TrainingEstimate e = evaluator(x).evaluate(TrainingStrategy::fromScenario(x));
            if (!e.valid)
                qFatal("%s: not valid", pattern);
            return e;
        };
        const auto run = [&](const char* pattern, int start, int end, DType dtype, int pp) {
            return estimate(pattern, start, end, dtype, pp).breakdown.compute;
        };
        const double attentionLast = run("EEEEEE**", 0, 2, DType::MXFP8, 1);
        const double attentionFirst = run("**EEEEEE", 2, 0, DType::MXFP8, 1);
        const double moeFirst = run("EEEEEE**", 2, 0, DType::MXFP8, 1);
        const double quantized = run("EEEEEE**", 0, 0, DType::MXFP8, 1);
        QVERIFY2(near(attentionLast, attentionFirst, 1e-12),
            qPrintable(QStringLiteral("%1 vs %2").arg(attentionLast).arg(attentionFirst)));
        QVERIFY2(!near(attentionLast, moeFirst, 1e-4),
            qPrintable(QStringLiteral("%1 vs %2").arg(attentionLast).arg(moeFirst)));
        // Their activations likewise: those very blocks keep 16-bit GEMM inputs.
        const auto activations = [&](const char* pattern, int start, int end) {
            return estimate(pattern, start, end, DType::MXFP8, 1).memory.activationsBytes;
        };
        QCOMPARE(activations("EEEEEE**", 0, 2), activations("**EEEEEE", 2, 0));
        QVERIFY2(!near(activations("EEEEEE**", 0, 2), activations("EEEEEE**", 2, 0), 1e-6),
            qPrintable(QStringLiteral("%1").arg(activations("EEEEEE**", 0, 2))));
        // Two attention blocks alone (the output layer, 16-bit in both runs, cancels out).
        const double attentionBf16 = run("**", 0, 0, DType::BF16, 1) - run("**", 0, 0, DType::MXFP8, 1);
        QVERIFY(attentionBf16 > 0);
        QVERIFY2(near(attentionLast - quantized, attentionBf16, 1e-9),
            qPrintable(QStringLiteral("%1 vs %2").arg(attentionLast - quantized).arg(attentionBf16)));
        // Two stages, the last ("EE**" or "E**E", with the output layer) the slowest: its last two blocks
        // are its BF16 ones, two attention blocks or one of each.
        const double stagedLast = run("****EE**", 0, 2, DType::MXFP8, 2);
        const double stagedMoe = run("****E**E", 0, 2, DType::MXFP8, 2);
        QVERIFY2(
            !near(stagedLast, stagedMoe, 1e-4), qPrintable(QStringLiteral("%1 vs %2").arg(stagedLast).arg(stagedMoe)));
        // With virtual stages the BF16 blocks are the stack's, wherever they sit: "****EEEE" on 2 x 2
        // chunks of 2 puts blocks 0, 1, 4, 5 on the first stage and 2, 3, 6, 7 on the last, so the last
        // three (5, 6, 7) are one MoE block of the first stage and two of the last.
        Scenario chunked = s;
        chunked.model.hybridPattern = "****EEEE";
        chunked.parallelism->pp = 2;
        chunked.parallelism->vpp = 2;
        const StageShapes stages = hybridStageShapes(chunked.model, *chunked.parallelism, 4, 4, 4, 0, 3);
        QCOMPARE(stages.bf16.size(), std::size_t { 2 });
        QCOMPARE(stages.bf16[0].bf16Layers, 1);
        QCOMPARE(stages.bf16[1].bf16Layers, 2);
        QCOMPARE(stages.bf16[0].layers, 4);
        QVERIFY(near(stages.bf16[0].shape.moeShare, 1.0, 1e-12) && near(stages.bf16[1].shape.moeShare, 1.0, 1e-12));
        const StageShapes firstTwo = hybridStageShapes(chunked.model, *chunked.parallelism, 4, 4, 4, 2, 0);
        QCOMPARE(firstTwo.bf16[0].bf16Layers, 2);
        QCOMPARE(firstTwo.bf16[1].bf16Layers, 0);
        QVERIFY(near(firstTwo.bf16[0].shape.attentionShare, 1.0, 1e-12));
    }

    // An MTP layer of its own (Nemotron 3 Super: two depths of one "*E" layer, Megatron-Core
    // mtp_hybrid_override_pattern with mtp_use_repeated_layer; its GEMMs in BF16 under NVFP4): shared
    // weights are held once (time unchanged), and BF16 MTP modules add exactly their layers' and
    // modules' BF16 time over the quantized one.
    void mtpLayer()
    {
        Scenario s = *parseScenarioJson(kNano, "nano.json");
        s.model.mtpLayers = 2;
        s.model.mtpPattern = "*E";
        QVERIFY(validateScenario(s, m_catalog, "h.json"));
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TransformerShape m = TransformerShape::fromModel(s.model);
        QCOMPARE(m.mtpBlocks, 2.0);
        QCOMPARE(m.mtpMoeBlocks, 1.0);
        QCOMPARE(m.mtpWeightSets, 2.0);
        Scenario shared = s;
        shared.model.mtpSharedWeights = true;
        const TransformerShape ms = TransformerShape::fromModel(shared.model);
        const double mtpLayerParams = m.mtpTpSplitParams + m.mtpReplicatedParams + m.mtpExpertParams / 8.0;
        QVERIFY(near(
            localParams(m, *s.parallelism).total() - localParams(ms, *s.parallelism).total(), mtpLayerParams, 1e-12));
        const TrainingEstimate separate = evaluator(s).evaluate(strategy);
        const TrainingEstimate once = evaluator(shared).evaluate(strategy);
        QVERIFY(separate.valid && once.valid);
        QCOMPARE(once.breakdown.compute, separate.breakdown.compute);
        QVERIFY(once.memory.totalBytes() < separate.memory.totalBytes());

        // BF16 MTP: the two "*E" layers and the two modules in BF16, the rest in MXFP8.
        Scenario bf16 = s;
        bf16.training.bf16Mtp = true;
        const TrainingEstimate mixed = evaluator(bf16).evaluate(strategy);
        Scenario layer = s; // the MTP layer as a model: its blocks, one MTP module
        layer.model.hybridPattern = "*E";
        layer.model.layers = 2;
        layer.model.mamba.reset();
        layer.model.mtpLayers = 1;
        layer.model.mtpPattern.clear();
        const LayerTimes q = evaluator(layer).layerTimes(strategy);
        layer.training.dtype = DType::BF16;
        const LayerTimes b = evaluator(layer).layerTimes(strategy);
        QVERIFY(b.forward > q.forward);
        const double micro = mixed.microBatchesPerPipeline;
        const double expected = micro * 2.0
            * (2.0 * (b.forward + b.backward - q.forward - q.backward) + b.mtpForward + b.mtpBackward - q.mtpForward
                - q.mtpBackward);
        QVERIFY2(near(mixed.breakdown.compute - separate.breakdown.compute, expected, 1e-9),
            qPrintable(
                QStringLiteral("%1 vs %2").arg(mixed.breakdown.compute - separate.breakdown.compute).arg(expected)));

        // Without MTP layers there is nothing to keep in BF16.
        Scenario none = bf16;
        none.model.mtpLayers = 0;
        none.model.mtpPattern.clear();
        const Status invalid = validateScenario(none, m_catalog, "h.json");
        QVERIFY(!invalid);
        QVERIFY2(invalid.message().find("h.json: /training/bf16_mtp: BF16 MTP modules need model.mtp_layers > 0")
                != std::string::npos,
            invalid.message().c_str());
    }

    // Modules of their own precision (training.module_dtypes: a Transformer Engine quantization recipe
    // by module name, as Nemotron 3 Super's NVFP4 te_quant.cfg): a module's GEMMs and casts are those of
    // a run in its dtype. An attention-only stack in NVFP4 with BF16 attention linears times its GEMMs
    // as a BF16 run and casts nothing; a Mamba-only stack in NVFP4 with MXFP8 in_proj / out_proj times
    // its GEMMs and casts as an MXFP8 run.
    void moduleDtypes()
    {
        Scenario s = *parseScenarioJson(kNano, "nano.json");
        s.model.moe.reset();
        s.parallelism->ep = 1;
        s.training.dtype = DType::NVFP4;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const auto times = [&](const Scenario& x) { return evaluator(x).layerTimes(strategy); };

        Scenario attention = s;
        attention.model.hybridPattern = std::string(52, '*');
        attention.model.mamba.reset();
        Scenario attentionBf16Run = attention;
        attentionBf16Run.training.dtype = DType::BF16;
        Scenario attentionBf16 = attention;
        attentionBf16.training.moduleDtypes.attentionLinears = DType::BF16;
        QVERIFY(validateScenario(attentionBf16, m_catalog, "h.json"));
        const LayerTimes quantized = times(attention), module = times(attentionBf16), run = times(attentionBf16Run);
        QVERIFY(module.forwardKernels.gemm > quantized.forwardKernels.gemm);
        QCOMPARE(module.forwardKernels.gemm, run.forwardKernels.gemm);
        QCOMPARE(module.backwardKernels.gemm, run.backwardKernels.gemm);
        QVERIFY(quantized.forwardKernels.fp8Casts > 0);
        QCOMPARE(module.forwardKernels.fp8Casts, 0.0);
        // Their inputs are kept for the weight gradients in 16 bits.
        QVERIFY(evaluator(attentionBf16).memory(strategy).activationsBytes
            > evaluator(attention).memory(strategy).activationsBytes);

        Scenario mamba = s;
        mamba.model.hybridPattern = std::string(52, 'M');
        Scenario mambaMxfp8Run = mamba;
        mambaMxfp8Run.training.dtype = DType::MXFP8;
        Scenario mambaMxfp8 = mamba;
        mambaMxfp8.training.moduleDtypes.mambaInProj = DType::MXFP8;
        mambaMxfp8.training.moduleDtypes.mambaOutProj = DType::MXFP8;
        const LayerTimes nvfp4 = times(mamba), mixed = times(mambaMxfp8), mx = times(mambaMxfp8Run);
        QVERIFY(mixed.forwardKernels.gemm > nvfp4.forwardKernels.gemm);
        QVERIFY(near(mixed.forwardKernels.gemm, mx.forwardKernels.gemm, 1e-12));
        QVERIFY(near(mixed.backwardKernels.gemm, mx.backwardKernels.gemm, 1e-12));
        QVERIFY(near(mixed.forwardKernels.fp8Casts, mx.forwardKernels.fp8Casts, 1e-12));
        QVERIFY(mixed.forwardKernels.fp8Casts != nvfp4.forwardKernels.fp8Casts);

        // Where a module cannot apply: the validator names it; a dtype the GPU lacks, the evaluator.
        Scenario latent = s;
        latent.training.moduleDtypes.moeLatentProj = DType::BF16;
        const Status noLatent = validateScenario(latent, m_catalog, "h.json");
        QVERIFY(!noLatent);
        QVERIFY2(noLatent.message().find("h.json: /training/module_dtypes/moe_latent_proj: the model has no latent MoE")
                != std::string::npos,
            noLatent.message().c_str());
        Scenario noMamba = attention;
        noMamba.training.moduleDtypes.mambaOutProj = DType::MXFP8;
        const Status noMixer = validateScenario(noMamba, m_catalog, "h.json");
        QVERIFY(!noMixer);
        QVERIFY2(
            noMixer.message().find("h.json: /training/module_dtypes/mamba_out_proj: the model has no Mamba-2 layers")
                != std::string::npos,
            noMixer.message().c_str());
        Scenario hopper = attention;
        hopper.cluster.gpu = "H100-SXM-80GB";
        hopper.training.dtype = DType::FP8;
        hopper.training.moduleDtypes.attentionLinears = DType::NVFP4;
        const auto refusedGpu = TrainingEvaluator::create(hopper, m_catalog);
        QVERIFY(!refusedGpu);
        QVERIFY2(refusedGpu.message().rfind("/training/module_dtypes/attention_linears: ", 0) == 0,
            refusedGpu.message().c_str());
    }

    // Megatron-Core's unified pattern (parse_hybrid_pattern): "<main>/<mtp>/<mtp>" states the MTP layer
    // and its depths, read as model.mtp_pattern and model.mtp_layers.
    void unifiedPattern()
    {
        nlohmann::json j = nlohmann::json::parse(kNano);
        const std::string main = j["model"]["hybrid_pattern"];
        j["model"]["hybrid_pattern"] = main
            + "/"
              "*E/"
              "*E"; // (split: moc reads "/" "*" as a comment)
        const auto s = parseScenarioJson(j.dump(), "nano.json");
        QVERIFY2(s, s.message().c_str());
        QCOMPARE(s->model.hybridPattern, main);
        QCOMPARE(s->model.mtpPattern, std::string("*E"));
        QCOMPARE(s->model.mtpLayers, 2);
        Scenario stated = *parseScenarioJson(kNano, "nano.json");
        stated.model.mtpLayers = 2;
        stated.model.mtpPattern = "*E";
        QVERIFY(*s == stated);
        const auto back = parseScenarioJson(scenarioToJson(*s), "back.json");
        QVERIFY(back && *back == *s);
        j["model"]["hybrid_pattern"] = main + "/";
        const auto none = parseScenarioJson(j.dump(), "nano.json");
        QVERIFY2(none && none->model.mtpLayers == 0 && none->model.hybridPattern == main, none.message().c_str());
    }

    void scenarioKeys_data()
    {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("expected");
        QTest::addRow("length") << R"({"model": {"hybrid_pattern": "MEM"}})"
                                << "nano.json: /model/hybrid_pattern: the pattern has 3 layers, model.layers says 52";
        QTest::addRow("symbol")
            << R"({"model": {"hybrid_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEMG"}})"
            << "nano.json: /model/hybrid_pattern: symbol 'G' at position 52 is not modelled";
        QTest::addRow("E without moe") << R"({"model": {"moe": null}})"
                                       << "nano.json: /model/hybrid_pattern: 'E' layers need model.moe";
        QTest::addRow("moe without E")
            << R"({"model": {"hybrid_pattern": "MMMMM*MMMMMM*MMMMMM*MMMMMM*MMMMMM*MMMMMMMM*MMMMMMMMM"}})"
            << "nano.json: /model/hybrid_pattern: model.moe is given but the pattern has no 'E' layer";
        QTest::addRow("M without mamba") << R"({"model": {"mamba": null}})"
                                         << "nano.json: /model/hybrid_pattern: 'M' layers need model.mamba";
        QTest::addRow("dense layers") << R"({"model": {"moe": {"dense_layers": 1}}})"
                                      << "nano.json: /model/moe/dense_layers: a hybrid model's dense layers";
        QTest::addRow("groups") << R"({"model": {"mamba": {"groups": 5}}})"
                                << "nano.json: /model/mamba/groups: heads (64) must be a multiple of groups (5)";
        QTest::addRow("mamba key") << R"({"model": {"mamba": {"d_state": 64}}})"
                                   << "nano.json: /model/mamba/d_state";
        QTest::addRow("mtp pattern without mtp layers")
            << R"({"model": {"mtp_pattern": "*E"}})"
            << "nano.json: /model/mtp_pattern: the pattern of the MTP layers needs model.mtp_layers > 0";
        QTest::addRow("mtp pattern symbol")
            << R"({"model": {"mtp_layers": 1, "mtp_pattern": "*X"}})"
            << "nano.json: /model/mtp_pattern: symbol 'X' at position 2 is not modelled";
        QTest::addRow("mtp pattern of a transformer")
            << R"({"model": {"hybrid_pattern": null, "mamba": null, "mtp_layers": 1, "mtp_pattern": "*E"}})"
            << "nano.json: /model/mtp_pattern: an MTP pattern applies to a hybrid stack";
        QTest::addRow("mtp shared weights") << R"({"model": {"mtp_shared_weights": true}})"
                                            << "nano.json: /model/mtp_shared_weights: shared MTP weights need "
                                               "model.mtp_layers > 0";
        // Patterns with MTP parts are written "/" "*..." (two literals): moc reads a slash-star in a raw
        // string as a comment.
        QTest::addRow("mtp depths differ")
            << QStringLiteral("{\"model\": {\"hybrid_pattern\": \"%1/"
                              "*E/"
                              "*-\"}}")
                   .arg(QLatin1String(kNanoPattern))
            << "nano.json: /model/hybrid_pattern: all MTP patterns after '/' must be identical";
        QTest::addRow("mtp depths and mtp_layers")
            << QStringLiteral("{\"model\": {\"mtp_layers\": 3, \"hybrid_pattern\": \"%1/"
                              "*E/"
                              "*E\"}}")
                   .arg(QLatin1String(kNanoPattern))
            << "nano.json: /model/hybrid_pattern: the pattern has 2 MTP depths after '/', model.mtp_layers says 3";
        QTest::addRow("mtp twice")
            << QStringLiteral("{\"model\": {\"mtp_pattern\": \"*E\", \"hybrid_pattern\": \"%1/"
                              "*E\"}}")
                   .arg(QLatin1String(kNanoPattern))
            << "nano.json: /model/hybrid_pattern: the pattern's MTP part (after '/') and model.mtp_pattern";
        QTest::addRow("pipeline segments in the mtp pattern")
            << R"({"model": {"mtp_layers": 1, "mtp_pattern": "*|E"}})"
            << "nano.json: /model/mtp_pattern: symbol '|' at position 2 is not modelled";
        QTest::addRow("pipeline segments count no layer")
            << R"({"model": {"hybrid_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*E|MEMEM*EMEMEMEM*EMEMEMEM"}})"
            << "nano.json: /model/hybrid_pattern: the pattern has 51 layers, model.layers says 52";
        QTest::addRow("module dtypes in bf16")
            << R"({"training": {"dtype": "bf16", "module_dtypes": {"attention_linears": "bf16"}}})"
            << "nano.json: /training/module_dtypes: module precisions apply to a quantized dtype";
        QTest::addRow("module name") << R"({"training": {"module_dtypes": {"attention_linear": "bf16"}}})"
                                     << "nano.json: /training/module_dtypes/attention_linear";
        QTest::addRow("module dtype") << R"({"training": {"module_dtypes": {"mamba_out_proj": "fp16"}}})"
                                      << "nano.json: /training/module_dtypes/mamba_out_proj";
        QTest::addRow("bf16 mtp in bf16")
            << R"({"model": {"mtp_layers": 1}, "training": {"dtype": "bf16", "bf16_mtp": true}})"
            << "nano.json: /training/bf16_mtp: BF16 MTP modules apply to a quantized dtype";
    }
    void scenarioKeys()
    {
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        nlohmann::json j = nlohmann::json::parse(kNano);
        j.merge_patch(nlohmann::json::parse(patch.toStdString()));
        if (j["model"].contains("mamba") && j["model"]["mamba"].is_null())
            j["model"].erase("mamba");
        const auto s = parseScenarioJson(j.dump(), "nano.json");
        QVERIFY(!s);
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
    }

    // What is read is written back: the pattern, the mixer (with its defaults made explicit), the
    // "mamba" graph scope and the "moe" recompute module.
    void roundTrip()
    {
        nlohmann::json j = nlohmann::json::parse(kNano);
        j["model"]["mamba"] = { { "head_dim", 64 }, { "groups", 4 } }; // heads: 2 h / head_dim
        j["training"]["recompute"] = "selective";
        j["training"]["recompute_modules"] = { "moe", "layernorm" };
        j["training"]["cuda_graph_scope"] = { "mamba" };
        j["model"]["mtp_layers"] = 2;
        j["model"]["mtp_pattern"] = "*E";
        j["model"]["mtp_shared_weights"] = true;
        j["training"]["bf16_mtp"] = true;
        j["training"]["module_dtypes"] = { { "attention_linears", "bf16" }, { "mamba_out_proj", "nvfp4" } };
        const auto s = parseScenarioJson(j.dump(), "nano.json");
        QVERIFY2(s, s.message().c_str());
        QCOMPARE(s->model.mamba->heads, 2 * 2688 / 64);
        QCOMPARE(s->model.mamba->chunkSize, 128);
        const auto back = parseScenarioJson(scenarioToJson(*s), "back.json");
        QVERIFY2(back, back.message().c_str());
        QVERIFY(*back == *s);
        QCOMPARE(back->training.cudaGraphScope, unsigned(CudaGraphMamba));
        QCOMPARE(back->training.recomputeModules, unsigned(RecomputeMoe | RecomputeLayerNorm));
        QCOMPARE(back->model.mtpPattern, std::string("*E"));
        QVERIFY(back->model.mtpSharedWeights && back->training.bf16Mtp);
        QVERIFY(back->training.moduleDtypes.attentionLinears == DType::BF16);
        QVERIFY(back->training.moduleDtypes.mambaOutProj == DType::NVFP4 && !back->training.moduleDtypes.mambaInProj);
    }

    // Recompute module "moe" (Megatron-Core transformer_layer.py): the MoE MLP's forward again in the
    // backward, its all-to-alls included (one more forward pass of dispatch and combine), and the MoE
    // MLP keeps no activations of its own.
    void moeRecompute()
    {
        Scenario s = *parseScenarioJson(kNano, "nano.json");
        s.training.recompute = Recompute::Selective;
        s.training.recomputeModules = RecomputeLayerNorm;
        const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
        const TrainingEvaluator without = evaluator(s);
        const TrainingEstimate a = without.evaluate(strategy);
        const LayerTimes la = without.layerTimes(strategy);
        s.training.recomputeModules = RecomputeLayerNorm | RecomputeMoe;
        const TrainingEvaluator with = evaluator(s);
        const TrainingEstimate b = with.evaluate(strategy);
        const LayerTimes lb = with.layerTimes(strategy);
        // At least the MoE layers' share of the experts' forward GEMMs is recomputed.
        QVERIFY(lb.selectiveRecompute > la.selectiveRecompute + 0.3 * (23.0 / 52.0) * la.forwardKernels.gemm);
        QVERIFY(lb.selectiveRecompute < la.selectiveRecompute + la.forward);
        QVERIFY(near(b.bytesSent.ep, 1.5 * a.bytesSent.ep, 1e-12)); // (1 + 2) / (1 + 1) forward passes
        QVERIFY(b.memory.activationsBytes < 0.8 * a.memory.activationsBytes);
        QVERIFY(b.iterationSeconds > a.iterationSeconds);
    }
};

QTEST_GUILESS_MAIN(TestTrainingHybrid)
#include "tst_traininghybrid.moc"
