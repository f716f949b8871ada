#pragma once

// File > Export Report: builds the procurement report of the current scenario (optionally compared
// with others) on a worker with progress and cancel, previews it, and saves PDF, HTML and BOM CSV.

#include "app/report/reportdocument.h"
#include "engine/calibration/sweepcalibration.h"
#include "engine/scenario/scenario.h"
#include "engine/training/computecalibration.h"

#include <QDialog>
#include <QImage>

#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTextBrowser;

namespace clusterscope::engine {
class Catalog;
class PriceBook;
}

namespace clusterscope::app {

class ReportDialog : public QDialog {
    Q_OBJECT
public:
    /// `subject` is reported; `others` can be ticked for comparison. `fabricPicture` (may be null)
    /// is the 3D view's snapshot of the subject's fabric, used instead of the 2D schematic.
    /// `computeCalibration` is the project's compute calibration (applied as the GUI applies it).
    ReportDialog(const engine::Scenario& subject, const std::vector<engine::Scenario>& others,
        const engine::Catalog& catalog, const engine::PriceBook& prices,
        std::optional<engine::CalibrationSet> calibration, QImage fabricPicture, QWidget* parent = nullptr,
        std::optional<engine::ProjectComputeCalibration> computeCalibration = std::nullopt,
        std::optional<ReportRun> run = std::nullopt);
    ~ReportDialog() override;

    /// Builds the report (again) in the background.
    void build();
    bool isBuilding() const { return m_building; }
    /// Blocks (processing events) until the build is done; for tests.
    void waitUntilBuilt();
    /// The built report, or null (not built yet, failed or cancelled).
    const ReportDocument* document() const { return m_document.get(); }
    QString previewText() const;

    /// Writes the built report; error message on failure.
    std::optional<QString> savePdf(const QString& path);
    std::optional<QString> saveHtml(const QString& path);
    std::optional<QString> saveBomCsv(const QString& path);

private:
    void saveInteractively(const QString& title, const QString& filter, const QString& suffix,
        std::optional<QString> (ReportDialog::*save)(const QString&));

    engine::Scenario m_subject;
    std::vector<engine::Scenario> m_others;
    const engine::Catalog& m_catalog;
    const engine::PriceBook& m_prices;
    std::optional<engine::CalibrationSet> m_calibration;
    std::optional<engine::ProjectComputeCalibration> m_computeCalibration;
    QImage m_fabricPicture;
    std::optional<ReportRun> m_run; ///< the measured run to report (the Runs tab's)
    std::shared_ptr<ReportDocument> m_document;
    std::stop_source m_stop;
    bool m_building = false;

    QListWidget* m_compare;
    QTextBrowser* m_preview;
    QProgressBar* m_progress;
    QLabel* m_status;
    QPushButton* m_pdf;
    QPushButton* m_html;
    QPushButton* m_csv;
    QPushButton* m_cancel;
};

} // namespace clusterscope::app
