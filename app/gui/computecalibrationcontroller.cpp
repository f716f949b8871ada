#include "app/gui/computecalibrationcontroller.h"

#include "app/gui/computecalibrationdialog.h"
#include "app/gui/projectdocument.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"

#include <QMessageBox>
#include <QPointer>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <optional>
#include <string>

namespace clusterscope::app {

namespace {

    // Replaces the project's compute-calibration document; undo puts the previous one back (or
    // removes it). The document is written to the project file at once, as stored runs are.
    class StoreComputeCalibration : public QUndoCommand {
    public:
        StoreComputeCalibration(ProjectDocument& document, ComputeCalibrationController& controller,
            std::optional<std::string> previous, std::string next, const QString& text)
            : QUndoCommand(text)
            , m_document(&document)
            , m_controller(&controller)
            , m_previous(std::move(previous))
            , m_next(std::move(next))
        {
        }
        void redo() override { write(m_next); }
        void undo() override { write(m_previous); }

    private:
        void write(const std::optional<std::string>& json)
        {
            engine::ProjectStore* store = m_document ? m_document->store() : nullptr;
            if (!store || !m_controller)
                return;
            const engine::Status status = json ? store->putDocument(engine::kComputeCalibrationDocumentKind,
                                              engine::kComputeCalibrationDocumentName, *json)
                                               : store->removeDocument(engine::kComputeCalibrationDocumentKind,
                                                   engine::kComputeCalibrationDocumentName);
            if (!status)
                Q_EMIT m_controller->message(QObject::tr("The compute calibration cannot be written: %1")
                                                 .arg(QString::fromStdString(status.message())));
            Q_EMIT m_controller->calibrationChanged();
        }

        QPointer<ProjectDocument> m_document;
        QPointer<ComputeCalibrationController> m_controller;
        std::optional<std::string> m_previous;
        std::string m_next;
    };

} // namespace

ComputeCalibrationController::ComputeCalibrationController(
    ProjectDocument& document, const engine::Catalog& catalog, QWidget* dialogParent)
    : QObject(dialogParent)
    , m_document(document)
    , m_catalog(catalog)
    , m_parent(dialogParent)
    , m_confirm([](ComputeCalibrationDialog& dialog) { return dialog.exec() == QDialog::Accepted; })
{
}

bool ComputeCalibrationController::calibrateFromRun(std::int64_t runId, int scenarioIndex)
{
    const QString title = tr("Calibrate from this run");
    engine::ProjectStore* store = m_document.store();
    if (!store || runId == 0) {
        QMessageBox::information(m_parent, title,
            tr("Select a run stored in the project (the calibration is stored in the project file: save the project "
               "and import the run's traces into it first)."));
        return false;
    }
    auto run = engine::RunStore(*store).load(runId);
    if (!run) {
        QMessageBox::warning(m_parent, title, QString::fromStdString(run.message()));
        return false;
    }
    ComputeCalibrationDialog dialog(std::move(*run), m_document.scenarios(), scenarioIndex, m_catalog, m_parent);
    if (!m_confirm(dialog) || !dialog.fit())
        return false;
    const engine::RunComputeCalibration& fit = *dialog.fit();
    std::optional<std::string> previous;
    auto names = store->documentNames(engine::kComputeCalibrationDocumentKind);
    if (names
        && std::find(names->begin(), names->end(), std::string(engine::kComputeCalibrationDocumentName))
            != names->end()) {
        auto text = store->document(engine::kComputeCalibrationDocumentKind, engine::kComputeCalibrationDocumentName);
        if (text)
            previous = std::move(*text);
    }
    m_document.undoStack()->push(new StoreComputeCalibration(m_document, *this, std::move(previous),
        engine::projectComputeCalibrationToJson(engine::projectCalibration(fit.fit)),
        tr("Calibrate Compute from Run")));
    Q_EMIT message(tr("Compute calibrated from run: modelled iteration %1 s -> %2 s")
                       .arg(fit.iterationSecondsBefore, 0, 'g', 4)
                       .arg(fit.iterationSecondsAfter, 0, 'g', 4));
    return true;
}

} // namespace clusterscope::app
