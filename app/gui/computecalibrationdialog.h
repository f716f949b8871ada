#pragma once

// "Calibrate from this run": the fit of the compute model to a stored run as the job of a chosen
// scenario, shown before it is stored: which quantity was fitted, the residual before and after,
// the modelled iteration before and after, and a warning when the run and the scenario differ in
// GPU type or count (then nothing can be stored).

#include "engine/analysis/runcomputecalibration.h"
#include "engine/store/runstore.h"

#include <QDialog>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace clusterscope::engine {
class Catalog;
}

namespace clusterscope::app {

class ComputeCalibrationDialog : public QDialog {
    Q_OBJECT
public:
    /// `run` is fitted as the job of one of `scenarios` (initially `scenarioIndex`), from the
    /// documented defaults (the stored fit replaces the project's compute calibration, as
    /// calibrate-compute --project does). The fit runs synchronously (one step, about 120
    /// evaluations of the scenario's strategy: milliseconds).
    ComputeCalibrationDialog(engine::StoredRun run, std::vector<engine::Scenario> scenarios, int scenarioIndex,
        const engine::Catalog& catalog, QWidget* parent = nullptr);

    /// The fit for the chosen scenario; none when it cannot be made (see summaryText()).
    const std::optional<engine::RunComputeCalibration>& fit() const { return m_fit; }
    int scenarioIndex() const;
    void setScenarioIndex(int index);

    QComboBox* scenarioCombo() const { return m_scenario; }
    QPushButton* storeButton() const { return m_store; }
    QString warningText() const;
    QString summaryText() const;

private:
    void refit();

    engine::StoredRun m_run;
    std::vector<engine::Scenario> m_scenarios;
    const engine::Catalog& m_catalog;
    std::optional<engine::RunComputeCalibration> m_fit;
    QComboBox* m_scenario;
    QLabel* m_warning;
    QTextBrowser* m_summary;
    QPushButton* m_store;
};

} // namespace clusterscope::app
