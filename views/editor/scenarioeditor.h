#pragma once

// The scenario editor dock: forms for cluster, fabric, model, training, parallelism and
// communication, with units, ranges and tooltips. Every change emits edited() with the whole new
// scenario (the document turns it into an undoable edit); setScenario() reloads the forms without
// emitting. Problems found by the engine's validator are shown inline beside the offending field.

#include "engine/scenario/scenario.h"
#include "engine/scenario/scenariovalidator.h"

#include <QWidget>

#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;
class QLineEdit;

namespace clusterscope::engine {
class Catalog;
}

namespace clusterscope::views {

/// A finding about the scenario that only its analysis reveals (the fabric cannot be built, no
/// strategy fits, tiers were raised, little memory headroom), shown in the editor like a validation
/// problem: beside the field at `pointer`.
struct EditorNote {
    QString pointer; ///< JSON pointer of the field it concerns ("/cluster/fabric/tiers")
    QString message;
    bool error = true; ///< false: a warning or an explanation (not red)
};

class ScenarioEditor : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioEditor(const engine::Catalog& catalog, QWidget* parent = nullptr);

    /// Shows `scenario` in the forms (no edited() signal).
    /// `issues` are the scenario's validation issues (findScenarioIssues), highlighted at their fields.
    void setScenario(const engine::Scenario& scenario, const std::vector<engine::ValidationIssue>& issues);
    /// The scenario the forms describe now.
    engine::Scenario scenario() const;

    /// The widget editing the value at a JSON pointer ("/cluster/gpus"), or nullptr.
    QWidget* fieldFor(const QString& pointer) const;
    /// Text of the inline problem list (empty when valid).
    QString problemsText() const;
    /// Findings of the analysis of the scenario shown (cleared by setScenario() and by edits).
    void setAnalysisNotes(const QList<EditorNote>& notes);
    /// Text of the analysis notes (empty when none).
    QString notesText() const;

Q_SIGNALS:
    /// The user changed a field. `what` names it for the undo stack ("GPUs", "Oversubscription").
    void edited(const engine::Scenario& scenario, const QString& what);
    /// A field refused what was typed; `message` says why and what was kept.
    void inputRejected(const QString& message);

private:
    QSpinBox* intField(QFormLayout* form, const QString& pointer, const QString& label, int min, int max,
        const QString& tip, const QString& suffix = {});
    QDoubleSpinBox* realField(QFormLayout* form, const QString& pointer, const QString& label, double min, double max,
        int decimals, const QString& tip, const QString& suffix = {});
    QComboBox* choiceField(
        QFormLayout* form, const QString& pointer, const QString& label, const QStringList& items, const QString& tip);
    QCheckBox* boolField(QFormLayout* form, const QString& pointer, const QString& label, const QString& tip);
    void register_(const QString& pointer, const QString& label, QWidget* w);
    void emitEdit(const QString& what);
    void showProblems(const std::vector<engine::ValidationIssue>& issues);
    void updateEnabled();

    const engine::Catalog& m_catalog;
    engine::Scenario m_base; ///< fields the forms do not show are kept from here
    std::vector<engine::ValidationIssue> m_issues; ///< m_base's validation issues (given by setScenario)
    bool m_loading = false;
    std::map<QString, QWidget*> m_fields;
    std::map<QWidget*, QString> m_labels;
    QLabel* m_problems = nullptr;
    QLabel* m_notes = nullptr;
    QList<EditorNote> m_analysisNotes;

    // Cluster
    QComboBox* m_gpu;
    QSpinBox* m_gpus;
    QSpinBox* m_gpusPerNode;
    QComboBox* m_nicGbps;
    QSpinBox* m_nicsPerNode;
    QComboBox* m_transport;
    QComboBox* m_net; ///< catalog net transport id as item data; "" is NCCL's default
    // Fabric
    QComboBox* m_fabricType;
    QSpinBox* m_radix;
    QSpinBox* m_tiers;
    QDoubleSpinBox* m_oversub;
    QSpinBox* m_planes;
    QCheckBox* m_dualTor;
    QSpinBox* m_dfP;
    QSpinBox* m_dfA;
    QSpinBox* m_dfH;
    QLineEdit* m_torusDims;
    // Model
    QSpinBox* m_layers;
    QSpinBox* m_hidden;
    QSpinBox* m_heads;
    QSpinBox* m_kvHeads;
    QSpinBox* m_ffn;
    QSpinBox* m_vocab;
    QSpinBox* m_seqLen;
    QCheckBox* m_moe;
    QSpinBox* m_experts;
    QSpinBox* m_topK;
    QSpinBox* m_expertFfn;
    QCheckBox* m_dropout;
    // Training
    QSpinBox* m_globalBatch;
    QSpinBox* m_microBatch;
    QComboBox* m_dtype;
    QComboBox* m_recompute;
    QComboBox* m_recomputeMethod;
    QSpinBox* m_recomputeLayers;
    QDoubleSpinBox* m_tokens;
    QSpinBox* m_offloadLayers;
    QCheckBox* m_fp8ParamGather;
    QCheckBox* m_fp4ParamGather;
    QSpinBox* m_bf16Start;
    QSpinBox* m_bf16End;
    QCheckBox* m_graphAttention;
    QCheckBox* m_graphRouter;
    QCheckBox* m_graphPreprocess;
    QCheckBox* m_graphFullLayer;
    // Parallelism
    QCheckBox* m_autoParallel;
    QSpinBox* m_tp;
    QSpinBox* m_pp;
    QSpinBox* m_dp;
    QSpinBox* m_cp;
    QSpinBox* m_ep;
    QSpinBox* m_etp;
    QSpinBox* m_vpp;
    QSpinBox* m_vppGroup;
    QSpinBox* m_zero;
    QCheckBox* m_sp;
    QComboBox* m_schedule;
    QComboBox* m_cpKind;
    // Communication
    QComboBox* m_compression;
    QDoubleSpinBox* m_topkFraction;
    QCheckBox* m_dpOverlap;
    QDoubleSpinBox* m_tpOverlap;
    QComboBox* m_algorithm;
    QComboBox* m_routing;
    QDoubleSpinBox* m_lossRate;
    QCheckBox* m_moeA2aOverlap;
};

} // namespace clusterscope::views
