#pragma once

// "Calibrate from this run" in the Runs tab: fits the compute model to a stored run as the job of a
// scenario (ComputeCalibrationDialog shows the fit, its residuals and the iteration before and
// after), stores the fit as the project's compute calibration on confirmation, as an undoable edit,
// and says so: the main window then re-reads the calibration and every view recomputes.

#include <QObject>

#include <cstdint>
#include <functional>

class QWidget;

namespace clusterscope::engine {
class Catalog;
}

namespace clusterscope::app {

class ComputeCalibrationDialog;
class ProjectDocument;

class ComputeCalibrationController : public QObject {
    Q_OBJECT
public:
    ComputeCalibrationController(ProjectDocument& document, const engine::Catalog& catalog, QWidget* dialogParent);

    /// Shows the fit of stored run `runId` with scenario `scenarioIndex` (the user may pick another)
    /// and stores it when confirmed. Returns true when the calibration was stored.
    bool calibrateFromRun(std::int64_t runId, int scenarioIndex);

    /// How the dialog is answered (default: shown modally, stored on "Store in the project"). Tests
    /// answer it themselves.
    void setConfirmation(std::function<bool(ComputeCalibrationDialog&)> confirm) { m_confirm = std::move(confirm); }

Q_SIGNALS:
    /// The project's compute calibration changed (stored, undone or redone).
    void calibrationChanged();
    /// Something to tell the user in the status line.
    void message(const QString& text);

private:
    ProjectDocument& m_document;
    const engine::Catalog& m_catalog;
    QWidget* m_parent;
    std::function<bool(ComputeCalibrationDialog&)> m_confirm;
};

} // namespace clusterscope::app
