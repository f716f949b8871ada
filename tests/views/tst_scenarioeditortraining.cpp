// The scenario editor's fields for the training recipe keys: model.dropout, training.recompute_method /
// recompute_num_layers, training.activation_offload_layers / fp8_param_gather / fp4_param_gather / bf16_layers_at_start
// / bf16_layers_at_end / cuda_graph_scope and communication.moe_a2a_overlap, parallelism.etp and
// parallelism.vpp_microbatch_group load from a scenario, write back to it, and say their ranges.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "resources/embeddedresources.h"
#include "views/editor/scenarioeditor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

using namespace clusterscope::engine;
using clusterscope::views::ScenarioEditor;

class TestScenarioEditorTraining : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    static Scenario mixtral()
    {
        return *parseScenarioJson(
            clusterscope::resources::embeddedFile("examples/mixtral-8x7b-256-h200-roce.json"), "mixtral");
    }

private Q_SLOTS:
    void initTestCase() { m_catalog = *Catalog::builtin(); }

    void loadAndWriteBack()
    {
        ScenarioEditor editor(m_catalog);
        Scenario s = mixtral();
        s.model.dropout = false;
        s.training.activationOffloadLayers = 3;
        s.training.recompute = Recompute::None; // Megatron-Core offloads without recomputation only
        s.training.cudaGraphScope = CudaGraphAttention | CudaGraphMoePreprocess;
        s.communication.moeA2aOverlap = true;
        editor.setScenario(s, {});
        QVERIFY(editor.scenario() == s); // nothing lost or changed by loading
        auto* dropout = qobject_cast<QCheckBox*>(editor.fieldFor(QStringLiteral("/model/dropout")));
        auto* offload = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/training/activation_offload_layers")));
        auto* router
            = qobject_cast<QCheckBox*>(editor.fieldFor(QStringLiteral("/training/cuda_graph_scope/moe_router")));
        auto* overlap = qobject_cast<QCheckBox*>(editor.fieldFor(QStringLiteral("/communication/moe_a2a_overlap")));
        auto* fp8Weights = qobject_cast<QCheckBox*>(editor.fieldFor(QStringLiteral("/training/fp8_param_gather")));
        QVERIFY(dropout && offload && router && overlap && fp8Weights);
        QVERIFY(!dropout->isChecked());
        QCOMPARE(offload->value(), 3);
        QVERIFY(!router->isChecked());
        QVERIFY(overlap->isChecked() && overlap->isEnabled()); // an MoE model
        // Edits reach the scenario and are announced.
        QSignalSpy edits(&editor, &ScenarioEditor::edited);
        router->setChecked(true);
        offload->setValue(7);
        dropout->setChecked(true);
        fp8Weights->setChecked(true);
        QCOMPARE(edits.count(), 4);
        const Scenario edited = editor.scenario();
        QCOMPARE(
            edited.training.cudaGraphScope, unsigned(CudaGraphAttention | CudaGraphMoeRouter | CudaGraphMoePreprocess));
        QCOMPARE(edited.training.activationOffloadLayers, 7);
        QVERIFY(edited.model.dropout);
        QVERIFY(edited.training.fp8ParamGather);
        // The range is in the tooltip; the problems of the whole scope point at its first field.
        QVERIFY(offload->toolTip().contains(QStringLiteral("100")));
        QCOMPARE(offload->maximum(), 100000);
        QVERIFY(editor.fieldFor(QStringLiteral("/training/cuda_graph_scope")) != nullptr);
        // fp8 weights on this bf16 model and a whole-layer graph on this dropless one: the validator's
        // issues land at their fields.
        auto* fullLayer
            = qobject_cast<QCheckBox*>(editor.fieldFor(QStringLiteral("/training/cuda_graph_scope/full_layer")));
        QVERIFY(fullLayer);
        fullLayer->setChecked(true);
        const Scenario graphed = editor.scenario();
        const auto issues = findScenarioIssues(graphed, m_catalog);
        QCOMPARE(issues.size(), std::size_t(2));
        QCOMPARE(issues[0].pointer, std::string("/training/fp8_param_gather"));
        QCOMPARE(issues[1].pointer, std::string("/training/cuda_graph_scope"));
        editor.setScenario(graphed, issues);
        QVERIFY2(editor.problemsText().contains(QStringLiteral("needs static shapes"))
                && editor.problemsText().contains(QStringLiteral("need training.dtype fp8 or mxfp8, not bf16")),
            qPrintable(editor.problemsText()));
        // MoE-only fields are disabled for a dense model.
        Scenario dense = s;
        dense.model.moe.reset();
        dense.parallelism->ep = 1;
        editor.setScenario(dense, {});
        QVERIFY(!overlap->isEnabled());
        QVERIFY(!router->isEnabled());
    }

    // The block-scaled precisions and NVFP4 primary weights (training.fp4_param_gather) load, write back
    // and, on the wrong precision, are shown as the validator's problem at their own field.
    void blockScaledPrecision()
    {
        ScenarioEditor editor(m_catalog);
        Scenario s = mixtral();
        s.cluster.gpu = "GB200";
        s.cluster.gpusPerNode = 4;
        s.training.dtype = DType::NVFP4;
        s.training.fp4ParamGather = true;
        QVERIFY(findScenarioIssues(s, m_catalog).empty());
        editor.setScenario(s, {});
        QVERIFY(editor.scenario() == s);
        auto* dtype = qobject_cast<QComboBox*>(editor.fieldFor(QStringLiteral("/training/dtype")));
        auto* fp4Weights = qobject_cast<QCheckBox*>(editor.fieldFor(QStringLiteral("/training/fp4_param_gather")));
        QVERIFY(dtype && fp4Weights);
        QCOMPARE(dtype->currentText(), QStringLiteral("nvfp4"));
        QVERIFY(fp4Weights->isChecked());
        QVERIFY(fp4Weights->toolTip().contains(QStringLiteral("--fp4-param-gather")));
        // mxfp8 with NVFP4 weights still checked: the validator names the field, the editor shows it.
        dtype->setCurrentIndex(dtype->findText(QStringLiteral("mxfp8")));
        Scenario edited = editor.scenario();
        QCOMPARE(edited.training.dtype, DType::MXFP8);
        QVERIFY(edited.training.fp4ParamGather);
        const auto issues = findScenarioIssues(edited, m_catalog);
        QCOMPARE(issues.size(), std::size_t(1));
        QCOMPARE(issues.front().pointer, std::string("/training/fp4_param_gather"));
        editor.setScenario(edited, issues);
        QVERIFY2(editor.problemsText().contains(QStringLiteral("NVFP4 primary weights need training.dtype nvfp4")),
            qPrintable(editor.problemsText()));
        fp4Weights->setChecked(false);
        edited = editor.scenario();
        QVERIFY(!edited.training.fp4ParamGather);
        QVERIFY(findScenarioIssues(edited, m_catalog).empty());
    }

    // Layers kept in BF16 under a quantized precision (training.bf16_layers_at_start / _at_end): they
    // load and write back; under BF16 they do not apply: their fields are disabled and the scenario is
    // written without them (what is saved loads again).
    void bf16Layers()
    {
        ScenarioEditor editor(m_catalog);
        Scenario s = mixtral();
        s.training.dtype = DType::FP8;
        s.training.bf16LayersAtEnd = 2;
        QVERIFY(findScenarioIssues(s, m_catalog).empty());
        editor.setScenario(s, {});
        QVERIFY(editor.scenario() == s);
        auto* start = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/training/bf16_layers_at_start")));
        auto* end = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/training/bf16_layers_at_end")));
        auto* dtype = qobject_cast<QComboBox*>(editor.fieldFor(QStringLiteral("/training/dtype")));
        QVERIFY(start && end && dtype);
        QCOMPARE(start->value(), 0);
        QCOMPARE(end->value(), 2);
        QVERIFY(start->isEnabled() && end->isEnabled());
        QVERIFY(end->toolTip().contains(QStringLiteral("--num-layers-at-end-in-bf16")));
        start->setValue(1);
        Scenario edited = editor.scenario();
        QCOMPARE(edited.training.bf16LayersAtStart, 1);
        QCOMPARE(edited.training.bf16LayersAtEnd, 2);
        QVERIFY(findScenarioIssues(edited, m_catalog).empty());
        const auto saved = parseScenarioJson(scenarioToJson(edited), "edited.json");
        QVERIFY2(saved, saved.message().c_str());
        QCOMPARE(saved->training.bf16LayersAtStart, 1);
        QCOMPARE(saved->training.bf16LayersAtEnd, 2);
        // Under BF16: disabled, and the saved scenario loads without them.
        dtype->setCurrentIndex(dtype->findText(QStringLiteral("bf16")));
        edited = editor.scenario();
        editor.setScenario(edited, findScenarioIssues(edited, m_catalog));
        QVERIFY(!start->isEnabled() && !end->isEnabled());
        const auto bf16 = parseScenarioJson(scenarioToJson(edited), "bf16.json");
        QVERIFY2(bf16, bf16.message().c_str());
        QCOMPARE(bf16->training.bf16LayersAtStart + bf16->training.bf16LayersAtEnd, 0);
    }

    // training.recompute_method / recompute_num_layers: loaded, edited, saved and re-read; disabled and
    // not saved once the recomputation is no longer full.
    void recomputeLayers()
    {
        ScenarioEditor editor(m_catalog);
        Scenario s = mixtral();
        s.training.recompute = Recompute::Full;
        s.training.recomputeMethod = RecomputeMethod::Block;
        s.training.recomputeNumLayers = 3;
        QVERIFY(findScenarioIssues(s, m_catalog).empty());
        editor.setScenario(s, {});
        QVERIFY(editor.scenario() == s);
        auto* method = qobject_cast<QComboBox*>(editor.fieldFor(QStringLiteral("/training/recompute_method")));
        auto* layers = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/training/recompute_num_layers")));
        auto* recompute = qobject_cast<QComboBox*>(editor.fieldFor(QStringLiteral("/training/recompute")));
        QVERIFY(method && layers && recompute);
        QCOMPARE(method->currentText(), QStringLiteral("block"));
        QCOMPARE(layers->value(), 3);
        QVERIFY(method->isEnabled() && layers->isEnabled());
        QVERIFY(layers->toolTip().contains(QStringLiteral("--recompute-num-layers")));
        layers->setValue(5);
        method->setCurrentIndex(method->findText(QStringLiteral("uniform")));
        Scenario edited = editor.scenario();
        QCOMPARE(edited.training.recomputeMethod, RecomputeMethod::Uniform);
        QCOMPARE(edited.training.recomputeNumLayers, 5);
        const auto saved = parseScenarioJson(scenarioToJson(edited), "edited.json");
        QVERIFY2(saved, saved.message().c_str());
        QCOMPARE(saved->training.recomputeNumLayers, 5);
        // Selective: disabled, and the saved scenario loads without them.
        recompute->setCurrentIndex(recompute->findText(QStringLiteral("selective")));
        edited = editor.scenario();
        editor.setScenario(edited, findScenarioIssues(edited, m_catalog));
        QVERIFY(!method->isEnabled() && !layers->isEnabled());
        const auto selective = parseScenarioJson(scenarioToJson(edited), "selective.json");
        QVERIFY2(selective, selective.message().c_str());
        QCOMPARE(selective->training.recomputeNumLayers, 1);
        QCOMPARE(selective->training.recomputeMethod, RecomputeMethod::Uniform);
    }

    // parallelism.etp (MoE parallel folding) has a field; an edit of another parallelism field keeps
    // etp and the keys without a field (placement order, first / last stage layers).
    void expertTensorParallelField()
    {
        ScenarioEditor editor(m_catalog);
        Scenario s = mixtral();
        QVERIFY(s.parallelism.has_value());
        s.parallelism->etp = 1;
        s.parallelism->placementOrder = "tp-dp-cp-pp";
        s.parallelism->firstStageLayers = 3;
        editor.setScenario(s, {});
        QVERIFY(editor.scenario() == s);
        auto* etp = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/parallelism/etp")));
        auto* vpp = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/parallelism/vpp")));
        QVERIFY(etp && vpp);
        QCOMPARE(etp->value(), 1);
        QVERIFY(etp->isEnabled());
        QCOMPARE(etp->minimum(), 0); // 0 = as tp
        vpp->setValue(vpp->value() + 1);
        Scenario edited = editor.scenario();
        QCOMPARE(edited.parallelism->etp, 1);
        QCOMPARE(edited.parallelism->placementOrder, std::string("tp-dp-cp-pp"));
        QCOMPARE(edited.parallelism->firstStageLayers, 3);
        etp->setValue(0);
        QCOMPARE(editor.scenario().parallelism->etp, 0);
        // Disabled for a dense model.
        Scenario dense = s;
        dense.model.moe.reset();
        dense.parallelism->ep = 1;
        dense.parallelism->etp = 0;
        editor.setScenario(dense, {});
        QVERIFY(!etp->isEnabled());
    }

    // parallelism.vpp_microbatch_group (Megatron-Core's micro-batch group of the interleaved schedule) has
    // a field, enabled with virtual stages (or while a stated group is left to clear), 0 = as PP.
    void interleavingGroupField()
    {
        ScenarioEditor editor(m_catalog);
        Scenario s = mixtral(); // pp 1
        editor.setScenario(s, {});
        auto* group = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/parallelism/vpp_microbatch_group")));
        auto* vpp = qobject_cast<QSpinBox*>(editor.fieldFor(QStringLiteral("/parallelism/vpp")));
        QVERIFY(group && vpp);
        QCOMPARE(group->value(), 0);
        QCOMPARE(group->specialValueText(), QStringLiteral("as PP"));
        QVERIFY(!group->isEnabled()); // no interleaving
        s.parallelism->pp = 4;
        s.parallelism->dp /= 4;
        s.parallelism->vpp = 2;
        s.parallelism->schedule = PipelineSchedule::Interleaved;
        s.parallelism->vppMicrobatchGroup = 6;
        editor.setScenario(s, {});
        QVERIFY(editor.scenario() == s);
        QCOMPARE(group->value(), 6);
        QVERIFY(group->isEnabled());
        QSignalSpy edits(&editor, &ScenarioEditor::edited);
        group->setValue(8);
        QCOMPARE(edits.count(), 1);
        QCOMPARE(editor.scenario().parallelism->vppMicrobatchGroup, 8);
        vpp->setValue(1); // a stated group stays editable so it can be cleared
        QVERIFY(group->isEnabled());
        group->setValue(0);
        QVERIFY(!group->isEnabled());
        QCOMPARE(editor.scenario().parallelism->vppMicrobatchGroup, 0);
    }
};

QTEST_MAIN(TestScenarioEditorTraining)
#include "tst_scenarioeditortraining.moc"
