#pragma once

#include <QMainWindow>

#include <memory>
#include <optional>

#include <QStringList>

class QDockWidget;
class QTemporaryDir;
class QListView;
class QMenu;
class QTabWidget;
class QLabel;

namespace clusterscope::engine {
class Catalog;
struct Scenario;
class PriceBook;
}
namespace clusterscope::views {
class BomView;
class BreakdownChart;
class StrategiesView;
class TrafficHeatmapWidget;
class RunsView;
class FabricView;
class ScenarioEditor;
class ScenarioListModel;
}

namespace clusterscope::app {

class AnalysisRunner;
class FabricImportController;
class RunsController;
class ComputeCalibrationController;
class ProjectDocument;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ProjectDocument* document() const { return m_document; }
    views::FabricView* fabricView() const { return m_fabric; }
    views::BomView* bomView() const { return m_bom; }
    views::BreakdownChart* breakdownChart() const { return m_breakdown; }
    views::StrategiesView* strategiesView() const { return m_strategies; }
    views::TrafficHeatmapWidget* trafficView() const { return m_traffic; }
    views::RunsView* runsView() const { return m_runs; }
    RunsController* runsController() const { return m_runsController; }
    ComputeCalibrationController* computeCalibrationController() const { return m_computeCalibration; }
    FabricImportController* fabricImport() const { return m_fabricImport; }
    AnalysisRunner* analysisRunner() const { return m_runner; }
    QTabWidget* tabs() const { return m_tabs; }
    QListView* scenarioList() const { return m_list; }
    views::ScenarioEditor* editor() const { return m_editor; }

    /// Opens a project file, or imports a scenario JSON file into the current project.
    /// Returns the error message on failure (also shown to the user unless `quiet`).
    std::optional<QString> openPath(const QString& path, bool quiet = false);
    /// An nccl-tests log: measured vs modelled per size, and its calibration stored in the project.
    void openNcclTestsLog(const QString& path);
    int currentScenario() const;
    void selectScenario(int index);
    /// Selects the scenario with this name, or with this 1-based number; false if there is none.
    bool selectScenarioByName(const QString& nameOrNumber);
    /// Renders every tab of the current scenario to `dir`/<nn>-<tab>.png (creating `dir`).
    /// Returns the files written, or nothing when a file cannot be written.
    std::optional<QStringList> exportViews(const QString& dir);
    /// Opens the project that was open when the application last closed (none: the example stays).
    /// Returns whether a project was opened.
    bool reopenLastProject();
    /// Imports the example run (8 DLRM rank traces, compiled in) into the Runs tab, so the example
    /// project shows the post-mortem half too. Returns false when it cannot be unpacked.
    bool showExampleRun();
    /// Imports the example fabric (an ibnetdiscover dump of the Llama example's fabric with a
    /// degraded and a missing leaf-spine link, compiled in), so Fabric 3D and its flags have
    /// content on first start. Returns false when it cannot be unpacked.
    bool showExampleFabric();
    QDockWidget* scenariosDock() const { return m_scenariosDock; }
    QDockWidget* editorDock() const { return m_editorDock; }

public Q_SLOTS:
    void newProject();
    void openProject();
    bool save();
    bool saveAs();
    void importScenario();
    void exportScenario();
    void duplicateScenario();
    void deleteScenario();
    void about();
    void exportReport();
    void compareRunWithScenario();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    /// Restores the last window geometry and dock layout, or fits a first layout to the screen.
    void restoreLayout();
    void createCentre();
    void updateTitle();
    void updateViews();
    void showAnalysis();
    void presentVisible();
    void useProjectCalibration();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    bool maybeSave();
    void showError(const QString& title, const QString& message);
    /// Warnings when the run shown in the Runs tab did not run on the cluster `s` models (GPU
    /// count, GPU type); empty when they match or are unknown.
    QStringList runScenarioMismatches(const engine::Scenario& s) const;

    ProjectDocument* m_document;
    views::ScenarioListModel* m_listModel;
    QListView* m_list = nullptr;
    QDockWidget* m_scenariosDock = nullptr;
    QDockWidget* m_editorDock = nullptr;
    bool m_dockWidthsPending = false; ///< first layout: dock widths are set when first shown
    std::unique_ptr<QTemporaryDir> m_exampleRunDir; ///< the unpacked example run
    QTabWidget* m_tabs = nullptr;
    views::FabricView* m_fabric = nullptr;
    views::ScenarioEditor* m_editor = nullptr;
    views::BomView* m_bom = nullptr;
    views::BreakdownChart* m_breakdown = nullptr;
    views::StrategiesView* m_strategies = nullptr;
    views::TrafficHeatmapWidget* m_traffic = nullptr;
    views::RunsView* m_runs = nullptr;
    RunsController* m_runsController = nullptr;
    ComputeCalibrationController* m_computeCalibration = nullptr;
    FabricImportController* m_fabricImport = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_statusScenario = nullptr;
    const engine::Catalog* m_catalog = nullptr;
    const engine::PriceBook* m_prices = nullptr;
    AnalysisRunner* m_runner = nullptr;
    enum : unsigned { kStaleFabric = 1, kStaleTraining = 2, kStaleTraffic = 4 };
    unsigned m_stale = 0; ///< views not yet showing the latest analysis
    bool m_fabricShowsImport = false; ///< Fabric 3D shows an imported fabric, not the scenario's
    QWidget* m_busy = nullptr; ///< progress bar + cancel in the status bar
};

} // namespace clusterscope::app
