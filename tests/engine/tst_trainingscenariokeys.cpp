// Scenario keys added for the training model: model.gated_mlp, training.gpu_hour_usd and
// parallelism.placement_order, model.dropout, training.fp8_param_gather / cuda_graph_scope,
// communication.moe_a2a_overlap, the MoE host-cost calibration keys, model.linear_bias /
// activation_clamp_value, training.recompute_modules and parallelism.etp (defaults, round trip, errors naming the JSON
// pointer).

#include "engine/scenario/scenariojson.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace clusterscope::engine;
using nlohmann::json;

class TestTrainingScenarioKeys : public QObject {
    Q_OBJECT

    static json base()
    {
        return json::parse(std::string(clusterscope::resources::embeddedFile("examples/llama3-70b-1024-h100.json")));
    }

private Q_SLOTS:
    void defaults()
    {
        auto s = parseScenarioJson(base().dump(), "a.json");
        QVERIFY(s.isOk());
        QVERIFY(s->model.gatedMlp); // 28672 != 4 x 8192: SwiGLU
        QCOMPARE(s->training.gpuHourUsd, 0.0);
        QCOMPARE(s->parallelism->placementOrder, std::string("tp-cp-dp-pp"));
        json gpt = base();
        gpt["model"]["ffn_hidden"] = 4 * 8192;
        QVERIFY(!parseScenarioJson(gpt.dump(), "g.json")->model.gatedMlp);
    }

    void roundTrip_data()
    {
        QTest::addColumn<bool>("gated");
        QTest::addColumn<double>("price");
        QTest::addColumn<QString>("order");
        QTest::addRow("defaults") << true << 0.0 << "tp-cp-dp-pp";
        QTest::addRow("explicit") << false << 2.5 << "dp-tp-cp-pp";
    }
    void roundTrip()
    {
        QFETCH(bool, gated);
        QFETCH(double, price);
        QFETCH(QString, order);
        json j = base();
        j["model"]["gated_mlp"] = gated;
        j["training"]["gpu_hour_usd"] = price;
        j["parallelism"]["placement_order"] = order.toStdString();
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        QCOMPARE(first->model.gatedMlp, gated);
        QCOMPARE(first->training.gpuHourUsd, price);
        QCOMPARE(first->parallelism->placementOrder, order.toStdString());
        auto second = parseScenarioJson(scenarioToJson(*first), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
    }

    void computeCalibration()
    {
        json j = base();
        j["calibration"] = { { "compute",
            { { "gemm_peak_fraction", 0.6 }, { "flash_attention", false },
                { "overlap_interference_fraction", 0.0 } } } };
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        QCOMPARE(*first->computeCalibration.gemmPeakFraction, 0.6);
        QCOMPARE(*first->computeCalibration.flashAttention, false);
        QCOMPARE(*first->computeCalibration.overlapInterferenceFraction, 0.0);
        QVERIFY(!first->computeCalibration.gemmHalfDimension);
        auto second = parseScenarioJson(scenarioToJson(*first), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
    }

    void recipeKeys()
    {
        auto plain = parseScenarioJson(base().dump(), "a.json");
        QVERIFY(plain.isOk());
        QVERIFY(plain->model.dropout);
        QVERIFY(!plain->training.fp8ParamGather);
        QCOMPARE(plain->training.cudaGraphScope, unsigned(CudaGraphNone));
        QVERIFY(!plain->communication.moeA2aOverlap);
        json j = base();
        j["model"]["dropout"] = false;
        j["training"]["fp8_param_gather"] = true;
        j["training"]["cuda_graph_scope"] = { "moe_router", "attn" };
        j["communication"]["moe_a2a_overlap"] = true;
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        QVERIFY(!first->model.dropout);
        QVERIFY(first->training.fp8ParamGather);
        QCOMPARE(first->training.cudaGraphScope, unsigned(CudaGraphAttention | CudaGraphMoeRouter));
        QVERIFY(first->communication.moeA2aOverlap);
        const json written = json::parse(scenarioToJson(*first));
        QCOMPARE(written["training"]["cuda_graph_scope"], json({ "attn", "moe_router" }));
        auto second = parseScenarioJson(written.dump(), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
        // The defaults are not written.
        const json plainWritten = json::parse(scenarioToJson(*plain));
        QVERIFY(!plainWritten["model"].contains("dropout"));
        QVERIFY(!plainWritten["training"].contains("cuda_graph_scope"));
        QVERIFY(!plainWritten["training"].contains("fp8_param_gather"));
    }

    // The MLP's activation (model.activation) and its eager path (model.activation_fusion false):
    // defaults, round trip, and swiglu only on a gated MLP.
    void activationKeys()
    {
        auto plain = parseScenarioJson(base().dump(), "a.json");
        QVERIFY(plain.isOk());
        QVERIFY(plain->model.activation.empty());
        QVERIFY(plain->model.activationFusion);
        json j = base();
        j["model"]["ffn_hidden"] = 4 * 8192; // a two-matrix MLP (Nemotron-4)
        j["model"]["activation"] = "squared_relu";
        j["model"]["activation_fusion"] = false;
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        QVERIFY(!first->model.gatedMlp);
        QCOMPARE(first->model.activation, std::string("squared_relu"));
        QVERIFY(!first->model.activationFusion);
        const json written = json::parse(scenarioToJson(*first));
        QCOMPARE(written["model"]["activation"], json("squared_relu"));
        QCOMPARE(written["model"]["activation_fusion"], json(false));
        auto second = parseScenarioJson(written.dump(), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
        const json plainWritten = json::parse(scenarioToJson(*plain));
        QVERIFY(!plainWritten["model"].contains("activation"));
        QVERIFY(!plainWritten["model"].contains("activation_fusion"));
        json swiglu = base();
        swiglu["model"]["activation"] = "swiglu";
        QVERIFY(parseScenarioJson(swiglu.dump(), "c.json").isOk());
        swiglu["model"]["gated_mlp"] = false;
        const auto refused = parseScenarioJson(swiglu.dump(), "c.json");
        QVERIFY(!refused.isOk());
        QVERIFY2(refused.message().find("c.json: /model/activation: \"swiglu\" needs a gated MLP") != std::string::npos,
            refused.message().c_str());
    }

    // GPT-OSS's architecture keys and Megatron-Core's recompute modules: defaults, round trip, and
    // the modules only under selective recomputation.
    void gptOssAndRecomputeModules()
    {
        auto plain = parseScenarioJson(base().dump(), "a.json");
        QVERIFY(plain.isOk());
        QVERIFY(!plain->model.linearBias);
        QVERIFY(!plain->model.qkLayerNorm);
        QVERIFY(plain->model.ropeFusion);
        QCOMPARE(plain->model.activationClampValue, 0.0);
        QCOMPARE(plain->training.recomputeModules, unsigned(RecomputeModulesDefault));
        json j = base();
        j["model"]["linear_bias"] = true;
        j["model"]["qk_layernorm"] = true;
        j["model"]["rope_fusion"] = false;
        j["model"]["activation_clamp_value"] = 7.0;
        j["training"]["recompute"] = "selective";
        j["training"]["recompute_modules"] = { "moe_act", "layernorm", "mla_up_proj" };
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        QVERIFY(first->model.linearBias);
        QVERIFY(first->model.qkLayerNorm);
        QVERIFY(!first->model.ropeFusion);
        QCOMPARE(first->model.activationClampValue, 7.0);
        QCOMPARE(first->training.recomputeModules, unsigned(RecomputeMoeAct | RecomputeLayerNorm | RecomputeMlaUpProj));
        const json written = json::parse(scenarioToJson(*first));
        QCOMPARE(written["training"]["recompute_modules"], json({ "layernorm", "moe_act", "mla_up_proj" }));
        auto second = parseScenarioJson(written.dump(), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
        const json plainWritten = json::parse(scenarioToJson(*plain));
        QVERIFY(!plainWritten["model"].contains("linear_bias"));
        QVERIFY(!plainWritten["model"].contains("qk_layernorm"));
        QVERIFY(!plainWritten["model"].contains("rope_fusion"));
        QCOMPARE(written["model"]["rope_fusion"], json(false));
        QVERIFY(!plainWritten["model"].contains("activation_clamp_value"));
        QVERIFY(!plainWritten["training"].contains("recompute_modules"));
        // Megatron-Core recomputes the modules only under --recompute-granularity selective.
        j["training"]["recompute"] = "full";
        auto full = parseScenarioJson(j.dump(), "f.json");
        QVERIFY(!full.isOk());
        QVERIFY2(full.message().rfind("f.json: /training/recompute_modules: modules are recomputed only under", 0) == 0,
            full.message().c_str());
        // A scenario edited away from selective (editor, applied strategy) is written without the
        // modules, so that the file it saves loads again.
        Scenario edited = *first;
        edited.training.recompute = Recompute::Full;
        const json editedWritten = json::parse(scenarioToJson(edited));
        QVERIFY(!editedWritten["training"].contains("recompute_modules"));
        auto reloaded = parseScenarioJson(editedWritten.dump(), "e.json");
        QVERIFY2(reloaded.isOk(), reloaded.message().c_str());
        QCOMPARE(reloaded->training.recompute, Recompute::Full);
        // The clamp belongs to a gated activation.
        json gelu = base();
        gelu["model"]["gated_mlp"] = false;
        gelu["model"]["activation_clamp_value"] = 7.0;
        auto ungated = parseScenarioJson(gelu.dump(), "g.json");
        QVERIFY(!ungated.isOk());
        QVERIFY2(ungated.message().rfind("g.json: /model/activation_clamp_value:", 0) == 0, ungated.message().c_str());
    }

    // model.moe.dispatcher: Megatron-Core's token dispatcher (alltoall, flex = DeepEP, hybridep).
    void moeDispatcher()
    {
        json j = json::parse(
            std::string(clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json")));
        auto plain = parseScenarioJson(j.dump(), "m.json");
        QVERIFY(plain.isOk());
        QCOMPARE(plain->model.moe->dispatcher, std::string("alltoall"));
        QVERIFY(!json::parse(scenarioToJson(*plain))["model"]["moe"].contains("dispatcher"));
        for (const char* name : { "flex", "hybridep" }) {
            j["model"]["moe"]["dispatcher"] = name;
            auto first = parseScenarioJson(j.dump(), "m.json");
            QVERIFY2(first.isOk(), first.message().c_str());
            QCOMPARE(first->model.moe->dispatcher, std::string(name));
            auto second = parseScenarioJson(scenarioToJson(*first), "b.json");
            QVERIFY2(second.isOk(), second.message().c_str());
            QVERIFY(*first == *second);
        }
        for (const auto& [value, message] :
            { std::pair<json, std::string> {
                  "allgather", "m.json: /model/moe/dispatcher: the allgather dispatcher is not modelled" },
                { "deep_ep", "m.json: /model/moe/dispatcher: expected \"alltoall\"" },
                { 3, "m.json: /model/moe/dispatcher:" } }) {
            j["model"]["moe"]["dispatcher"] = value;
            auto bad = parseScenarioJson(j.dump(), "m.json");
            QVERIFY(!bad.isOk());
            QVERIFY2(bad.message().rfind(message, 0) == 0, bad.message().c_str());
        }
    }

    // parallelism.etp: Megatron-Core's expert_tensor_parallel_size; absent = tp, and not written back.
    void expertTensorParallel()
    {
        json j = json::parse(
            std::string(clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json")));
        auto plain = parseScenarioJson(j.dump(), "m.json");
        QVERIFY(plain.isOk());
        QCOMPARE(plain->parallelism->etp, 0);
        QCOMPARE(plain->parallelism->expertTp(), 2);
        QVERIFY(!json::parse(scenarioToJson(*plain))["parallelism"].contains("etp"));
        j["parallelism"]["etp"] = 1;
        auto folded = parseScenarioJson(j.dump(), "m.json");
        QVERIFY2(folded.isOk(), folded.message().c_str());
        QCOMPARE(folded->parallelism->expertTp(), 1);
        auto again = parseScenarioJson(scenarioToJson(*folded), "b.json");
        QVERIFY2(again.isOk(), again.message().c_str());
        QVERIFY(*folded == *again);
    }

    void moeHostCalibration()
    {
        json j = base();
        j["calibration"] = { { "compute",
            { { "moe_expert_host_seconds_forward", 3e-5 }, { "moe_expert_host_seconds_backward", 6e-5 },
                { "grouped_linear_call_host_seconds", 2e-4 }, { "moe_a2a_overlap_host_seconds", 1e-3 },
                { "graph_launch_host_seconds", 2e-5 }, { "host_jitter_fraction", 0.1 } } } };
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        const ComputeCalibrationSpec& c = first->computeCalibration;
        QCOMPARE(*c.moeExpertHostSecondsForward, 3e-5);
        QCOMPARE(*c.moeExpertHostSecondsBackward, 6e-5);
        QCOMPARE(*c.groupedLinearCallHostSeconds, 2e-4);
        QCOMPARE(*c.moeA2aOverlapHostSeconds, 1e-3);
        QCOMPARE(*c.graphLaunchHostSeconds, 2e-5);
        QCOMPARE(*c.hostJitterFraction, 0.1);
        auto second = parseScenarioJson(scenarioToJson(*first), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
    }

    // A whole-layer graph needs static shapes: refused for dropless MoE, accepted with a capacity
    // factor and for dense models.
    void fullLayerGraph()
    {
        json j = json::parse(
            std::string(clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json")));
        j["training"]["cuda_graph_scope"] = { "full_layer" };
        j["model"]["moe"]["capacity_factor"] = 0.0;
        auto dropless = parseScenarioJson(j.dump(), "m.json");
        QVERIFY(!dropless.isOk());
        QVERIFY2(dropless.message().rfind("m.json: /training/cuda_graph_scope:", 0) == 0, dropless.message().c_str());
        QVERIFY(dropless.message().find("capacity_factor") != std::string::npos);
        j["model"]["moe"]["capacity_factor"] = 1.25;
        QVERIFY(parseScenarioJson(j.dump(), "m.json").isOk());
        json dense = base();
        dense["training"]["cuda_graph_scope"] = { "full_layer" };
        QVERIFY(parseScenarioJson(dense.dump(), "d.json").isOk());
    }

    void errors_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::addRow("gated_mlp type") << "/model/gated_mlp"
                                        << "\"yes\""
                                        << "a.json: /model/gated_mlp: expected";
        QTest::addRow("negative price") << "/training/gpu_hour_usd"
                                        << "-1"
                                        << "a.json: /training/gpu_hour_usd:";
        QTest::addRow("order missing pp") << "/parallelism/placement_order"
                                          << "\"tp-cp-dp\""
                                          << "a.json: /parallelism/placement_order: expected the dimensions";
        QTest::addRow("order repeated") << "/parallelism/placement_order"
                                        << "\"tp-tp-dp-pp\""
                                        << "a.json: /parallelism/placement_order: expected the dimensions";
        QTest::addRow("calibration fraction") << "/calibration/compute/gemm_peak_fraction"
                                              << "1.5"
                                              << "a.json: /calibration/compute/gemm_peak_fraction:";
        QTest::addRow("calibration unknown key") << "/calibration/compute/gemm_peak"
                                                 << "0.5"
                                                 << "a.json: /calibration/compute/gemm_peak:";
        QTest::addRow("calibration unknown section") << "/calibration/computer"
                                                     << "{}"
                                                     << "a.json: /calibration/computer:";
        QTest::addRow("graph scope not a list") << "/training/cuda_graph_scope"
                                                << "\"attn\""
                                                << "a.json: /training/cuda_graph_scope: expected a list";
        QTest::addRow("graph scope unknown") << "/training/cuda_graph_scope"
                                             << "[\"attn\", \"mlp\"]"
                                             << "a.json: /training/cuda_graph_scope/1: expected";
        QTest::addRow("dropout type") << "/model/dropout"
                                      << "0.1"
                                      << "a.json: /model/dropout:";
        QTest::addRow("fp8 param gather type") << "/training/fp8_param_gather"
                                               << "1"
                                               << "a.json: /training/fp8_param_gather:";
        QTest::addRow("a2a overlap type") << "/communication/moe_a2a_overlap"
                                          << "\"on\""
                                          << "a.json: /communication/moe_a2a_overlap:";
        QTest::addRow("negative expert host") << "/calibration/compute/moe_expert_host_seconds_forward"
                                              << "-1e-6"
                                              << "a.json: /calibration/compute/moe_expert_host_seconds_forward:";
        QTest::addRow("jitter above one") << "/calibration/compute/host_jitter_fraction"
                                          << "1.5"
                                          << "a.json: /calibration/compute/host_jitter_fraction:";
        QTest::addRow("linear_bias type") << "/model/linear_bias"
                                          << "1"
                                          << "a.json: /model/linear_bias:";
        QTest::addRow("qk_layernorm type") << "/model/qk_layernorm"
                                           << "\"yes\""
                                           << "a.json: /model/qk_layernorm:";
        QTest::addRow("rope_fusion type") << "/model/rope_fusion"
                                          << "0"
                                          << "a.json: /model/rope_fusion:";
        QTest::addRow("activation unknown")
            << "/model/activation"
            << "\"relu\""
            << "a.json: /model/activation: expected \"swiglu\", \"gelu\" or \"squared_relu\"";
        QTest::addRow("two-matrix activation on a gated MLP")
            << "/model/activation"
            << "\"squared_relu\""
            << "a.json: /model/activation: \"squared_relu\" is a two-matrix MLP's activation but the MLP is gated";
        QTest::addRow("eager gated activation") << "/model/activation_fusion"
                                                << "false"
                                                << "a.json: /model/activation_fusion: an eager gated activation";
        QTest::addRow("activation_fusion type") << "/model/activation_fusion"
                                                << "0"
                                                << "a.json: /model/activation_fusion:";
        QTest::addRow("negative clamp") << "/model/activation_clamp_value"
                                        << "-7"
                                        << "a.json: /model/activation_clamp_value:";
        QTest::addRow("recompute modules not a list")
            << "/training/recompute_modules"
            << "\"layernorm\""
            << "a.json: /training/recompute_modules: expected a non-empty list";
        QTest::addRow("recompute modules empty") << "/training/recompute_modules"
                                                 << "[]"
                                                 << "a.json: /training/recompute_modules: expected a non-empty list";
        QTest::addRow("recompute module unknown") << "/training/recompute_modules"
                                                  << "[\"layernorm\", \"attn\"]"
                                                  << "a.json: /training/recompute_modules/1: expected";
        QTest::addRow("recompute module not modelled") << "/training/recompute_modules"
                                                       << "[\"shared_experts\"]"
                                                       << "a.json: /training/recompute_modules/0: Megatron-Core module";
        QTest::addRow("etp zero") << "/parallelism/etp"
                                  << "0"
                                  << "a.json: /parallelism/etp:";
        QTest::addRow("etp type") << "/parallelism/etp"
                                  << "\"1\""
                                  << "a.json: /parallelism/etp:";
        QTest::addRow("order unknown") << "/parallelism/placement_order"
                                       << "\"tp-cp-dp-ep\""
                                       << "a.json: /parallelism/placement_order: expected the dimensions";
    }
    void errors()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, message);
        json j = base();
        j[json::json_pointer(pointer.toStdString())] = json::parse(value.toStdString());
        auto s = parseScenarioJson(j.dump(), "a.json");
        QVERIFY(!s.isOk());
        QVERIFY2(s.message().rfind(message.toStdString(), 0) == 0, s.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTrainingScenarioKeys)
#include "tst_trainingscenariokeys.moc"
