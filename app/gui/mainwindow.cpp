#include "app/gui/mainwindow.h"

#include "app/gui/analysisnotes.h"
#include "app/gui/analysisrunner.h"
#include "app/gui/comparedialog.h"
#include "app/gui/computecalibrationcontroller.h"
#include "app/gui/fabricimportcontroller.h"
#include "app/gui/fabricpresenter.h"
#include "app/gui/gettingstarted.h"
#include "app/gui/livecontroller.h"
#include "app/gui/nccltestsdialog.h"
#include "app/gui/projectdocument.h"
#include "app/gui/reportdialog.h"
#include "app/gui/runniccontroller.h"
#include "app/gui/runscontroller.h"
#include "app/gui/windowlayout.h"
#include "engine/analysis/runcomparison.h"
#include "engine/analysis/runcomputecalibration.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/store/projectstore.h"
#include "importers/common/fileformat.h"
#include "views/bom/bomview.h"
#include "views/charts/breakdownchart.h"
#include "views/editor/scenarioeditor.h"
#include "views/fabric/fabricview.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include "views/live/liveview.h"
#include "views/models/scenariolistmodel.h"
#include "views/models/strategytablemodel.h"
#include "views/runs/runlistmodel.h"
#include "views/runs/runsview.h"
#include "views/strategies/strategiesview.h"
#include "views/widgets/emptystatewidget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

// Q_INIT_RESOURCE must be called outside any namespace; the resources live in a static library.
static void initExampleRunResources() { Q_INIT_RESOURCE(examplerun); }

namespace clusterscope::app {

namespace {
    const QString kProjectFilter = QStringLiteral("ClusterScope projects (*.csproj);;All files (*)");
    const QString kScenarioFilter = QStringLiteral("Scenario JSON (*.json);;All files (*)");
    constexpr int kMaxRecent = 8;
    constexpr int kLayoutVersion = 1; ///< saveState() version: raise when the docks change

    const engine::Catalog& builtinCatalog()
    {
        // The built-in catalog is compiled in and tested to load; parse it once per process.
        static const engine::Catalog catalog = [] {
            auto c = engine::Catalog::builtin();
            return c ? std::move(*c) : engine::Catalog {};
        }();
        return catalog;
    }

    const engine::PriceBook& builtinPrices()
    {
        static const engine::PriceBook prices = [] {
            auto p = engine::PriceBook::builtin();
            return p ? std::move(*p) : engine::PriceBook {};
        }();
        return prices;
    }
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_document(new ProjectDocument(this))
    , m_listModel(new views::ScenarioListModel(this))
    , m_catalog(&builtinCatalog())
    , m_prices(&builtinPrices())
{
    setAcceptDrops(true);
    m_runner = new AnalysisRunner(*m_catalog, *m_prices, this);
    createCentre();
    createActions();

    connect(m_document, &ProjectDocument::pathChanged, this, &MainWindow::useProjectCalibration);
    connect(m_document, &ProjectDocument::reset, this, [this] {
        useProjectCalibration();
        m_listModel->setScenarios(m_document->scenarios());
        selectScenario(0);
        updateTitle();
    });
    connect(m_document, &ProjectDocument::scenarioInserted, this, [this](int index) {
        m_listModel->setScenarios(m_document->scenarios());
        selectScenario(index);
    });
    connect(m_document, &ProjectDocument::scenarioRemoved, this, [this](int index) {
        m_listModel->setScenarios(m_document->scenarios());
        selectScenario(std::min(index, int(m_document->scenarios().size()) - 1));
    });
    connect(m_document, &ProjectDocument::scenarioChanged, this, [this](int index) {
        m_listModel->updateScenario(index, m_document->scenarios()[std::size_t(index)]);
        if (index == currentScenario())
            updateViews();
    });
    connect(m_document, &ProjectDocument::pathChanged, this, &MainWindow::updateTitle);
    connect(m_document->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    connect(m_listModel, &views::ScenarioListModel::renameRequested, m_document, &ProjectDocument::renameScenario);

    m_document->loadExample();
    restoreLayout();
}

MainWindow::~MainWindow()
{
    // Destroying the editor ends its fields' editing; nothing may reach the half-destroyed window.
    disconnect(m_editor, nullptr, this, nullptr);
}

void MainWindow::createCentre()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_fabric = new views::FabricView(m_tabs);
    m_tabs->addTab(m_fabric, tr("Fabric 3D"));
    m_traffic = new views::TrafficHeatmapWidget(m_tabs);
    m_tabs->addTab(m_traffic, tr("Traffic"));
    m_breakdown = new views::BreakdownChart(m_tabs);
    m_tabs->addTab(m_breakdown, tr("Iteration breakdown"));
    m_strategies = new views::StrategiesView(m_tabs);
    m_tabs->addTab(m_strategies, tr("Strategies"));
    connect(m_strategies, &views::StrategiesView::cancelRequested, this, [this] { m_runner->cancel(); });
    connect(m_strategies, &views::StrategiesView::applyRequested, this, [this](const engine::TrainingStrategy& t) {
        const int index = currentScenario();
        if (index < 0)
            return;
        engine::Scenario s = m_document->scenarios()[std::size_t(index)];
        t.applyTo(s);
        m_document->replaceScenario(index, s, tr("Apply strategy"));
        m_tabs->setCurrentWidget(m_breakdown);
    });
    m_bom = new views::BomView(m_tabs);
    m_tabs->addTab(m_bom, tr("Bill of materials"));
    m_runs = new views::RunsView(m_tabs);
    m_tabs->addTab(m_runs, tr("Runs"));
    m_runsController = new RunsController(m_runs, m_document, this);
    // "Calibrate from this run" (context menu of the stored runs, and the View menu).
    m_computeCalibration = new ComputeCalibrationController(*m_document, *m_catalog, this);
    connect(m_computeCalibration, &ComputeCalibrationController::calibrationChanged, this, [this] {
        useProjectCalibration();
        updateViews();
    });
    connect(m_computeCalibration, &ComputeCalibrationController::message, this,
        [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    auto* calibrate = new QAction(tr("Calibrate Compute from This Run..."), m_runs->runTable());
    connect(calibrate, &QAction::triggered, this,
        [this] { m_computeCalibration->calibrateFromRun(m_runs->currentRunId(), currentScenario()); });
    m_runs->runTable()->addAction(calibrate);
    auto* live = new views::LiveView(m_tabs);
    m_tabs->addTab(live, tr("Live"));
    auto* liveController = new LiveController(
        *live, *m_document, [this] { return m_runner->latest(); }, this);
    // The Runs tab's NIC overlay reads the Live tab's server.
    new RunNicController(*m_runs, *live, *liveController, this);
    m_fabricImport = new FabricImportController(*this, *m_document, *m_fabric, *m_tabs);
    // Fabric 3D shows either the scenario's fabric or an imported one: the one asked for last. An
    // analysis that ends after an import (the example's first start, or a slow one) does not
    // replace the imported fabric; a scenario edit or pick does (updateViews).
    connect(m_fabricImport, &FabricImportController::presented, this, [this] { m_fabricShowsImport = true; });
    connect(m_runsController, &RunsController::importFinished, this, [this](bool, const QString& message) {
        statusBar()->showMessage(message, 6000);
        m_tabs->setCurrentWidget(m_runs);
    });
    setCentralWidget(m_tabs);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::presentVisible);

    auto* dock = new QDockWidget(tr("Scenarios"), this);
    m_scenariosDock = dock;
    dock->setObjectName(QStringLiteral("scenariosDock"));
    m_list = new QListView(dock);
    m_list->setModel(m_listModel);
    m_list->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::DoubleClicked);
    m_list->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_list->setMinimumWidth(140);
    // A long name wraps onto a second line instead of hiding its end behind a sideways scroll bar.
    m_list->setWordWrap(true);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    dock->setWidget(m_list);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { updateViews(); });

    auto* editorDock = new QDockWidget(tr("Scenario"), this);
    m_editorDock = editorDock;
    editorDock->setObjectName(QStringLiteral("editorDock"));
    m_editor = new views::ScenarioEditor(*m_catalog, editorDock);
    editorDock->setWidget(m_editor);
    addDockWidget(Qt::RightDockWidgetArea, editorDock);
    connect(m_editor, &views::ScenarioEditor::inputRejected, this,
        [this](const QString& message) { statusBar()->showMessage(message, 8000); });
    connect(m_editor, &views::ScenarioEditor::edited, this, [this](const engine::Scenario& s, const QString& what) {
        const int index = currentScenario();
        if (index >= 0)
            m_document->replaceScenario(index, s, tr("Edit %1").arg(what));
    });

    m_statusScenario = new QLabel(this);
    // The summary may be long (a validation message): it is cut at the window's edge (the full
    // text is in the tooltip) instead of setting the window's minimum width.
    m_statusScenario->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    statusBar()->addWidget(m_statusScenario, 1);

    // Progress with cancel, shown only when an analysis takes longer than 200 ms.
    m_busy = new QWidget(this);
    auto* busyLayout = new QHBoxLayout(m_busy);
    busyLayout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QProgressBar(m_busy);
    bar->setRange(0, 100);
    bar->setMaximumWidth(180);
    bar->setFormat(tr("Evaluating %p%"));
    auto* cancel = new QToolButton(m_busy);
    cancel->setText(tr("Cancel"));
    busyLayout->addWidget(bar);
    busyLayout->addWidget(cancel);
    statusBar()->addPermanentWidget(m_busy);
    m_busy->hide();
    auto* showBusy = new QTimer(this);
    showBusy->setSingleShot(true);
    showBusy->setInterval(200);
    // Only while the analysis runs: the contended ranking that follows fills one column in the
    // background (the Strategies table shows "…" there) and must not leave "Evaluating 100%" up.
    connect(showBusy, &QTimer::timeout, this, [this] {
        if (m_runner->isAnalysing())
            m_busy->show();
    });
    connect(m_runner, &AnalysisRunner::started, this, [this, bar, showBusy] {
        bar->setValue(0);
        showBusy->start();
        m_strategies->setBusy(true);
    });
    connect(m_runner, &AnalysisRunner::progress, this, [this, bar](double f) {
        bar->setValue(int(f * 100));
        m_strategies->setProgress(f);
    });
    connect(cancel, &QToolButton::clicked, m_runner, &AnalysisRunner::cancel);
    connect(m_runner, &AnalysisRunner::cancelled, this, [this] {
        m_busy->hide();
        m_strategies->setBusy(false);
        statusBar()->showMessage(tr("Evaluation cancelled"), 3000);
        m_strategies->model()->setContendedPending(0); // no "…" left waiting for a cancelled ranking
    });
    connect(m_runner, &AnalysisRunner::finished, this, [this] {
        m_busy->hide();
        m_strategies->setBusy(false);
        showAnalysis();
    });
    // The fastest strategies with contention come after the analysis: fill them in where they are
    // shown now (keeping the table's rows and selection); a hidden tab takes them when shown.
    connect(m_runner, &AnalysisRunner::rankedWithContentionFinished, this, [this] {
        const auto analysis = m_runner->latest();
        if (analysis && !(m_stale & kStaleTraining))
            presentRankedWithContention(*m_breakdown, *m_strategies, *analysis, m_runner->rankedWithContention());
    });
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New Project"), QKeySequence::New, this, &MainWindow::newProject);
    file->addAction(tr("&Open Project..."), QKeySequence::Open, this, &MainWindow::openProject);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    file->addAction(tr("&Import Scenario JSON..."), QKeySequence(tr("Ctrl+I")), this, &MainWindow::importScenario);
    file->addAction(tr("&Export Scenario JSON..."), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportScenario);
    file->addAction(
        tr("Import &Traces..."), QKeySequence(tr("Ctrl+T")), m_runsController, &RunsController::importInteractively);
    file->addAction(tr("Import &nccl-tests Log..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import nccl-tests log"), {},
            tr("nccl-tests output (*.log *.txt *.out *.json *.gz);;All files (*)"));
        if (!path.isEmpty())
            openNcclTestsLog(path);
    });
    file->addAction(tr("Import &Fabric (ibnetdiscover, iblinkinfo)..."), m_fabricImport,
        &FabricImportController::importInteractively);
    file->addAction(tr("Connect to &Telemetry Server..."), this, [this] {
        auto* live = findChild<views::LiveView*>();
        m_tabs->setCurrentWidget(live);
        live->setFocus();
    });
    file->addSeparator();
    file->addAction(tr("Export &Report..."), QKeySequence(tr("Ctrl+R")), this, &MainWindow::exportReport);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction* duplicate
        = edit->addAction(tr("D&uplicate Scenario"), QKeySequence(tr("Ctrl+D")), this, &MainWindow::duplicateScenario);
    QAction* remove = edit->addAction(tr("&Delete Scenario"), QKeySequence::Delete, this, &MainWindow::deleteScenario);
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_list->addAction(duplicate);
    m_list->addAction(remove);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction* a = view->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(QStringLiteral("Alt+%1").arg(i + 1)));
    }

    view->addSeparator();
    view->addAction(tr("Compare &Run with Scenario..."), this, &MainWindow::compareRunWithScenario);
    view->addAction(tr("Calibrate Compute from Run..."), this,
        [this] { m_computeCalibration->calibrateFromRun(m_runs->currentRunId(), currentScenario()); });
    view->addAction(tr("&Compare Scenarios..."), QKeySequence(tr("Ctrl+K")), this, [this] {
        const auto& list = m_document->scenarios();
        if (list.size() < 1)
            return;
        const int a = std::max(0, currentScenario());
        CompareDialog dialog(list, a, list.size() > 1 ? (a + 1) % int(list.size()) : a, *m_catalog, *m_prices, this);
        dialog.exec();
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Getting Started"), QKeySequence::HelpContents, this, [this] { showGettingStarted(this); });
    help->addSeparator();
    help->addAction(tr("&About ClusterScope"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

int MainWindow::currentScenario() const
{
    const QModelIndex index = m_list->currentIndex();
    return index.isValid() ? index.row() : -1;
}

void MainWindow::selectScenario(int index)
{
    if (index >= 0 && index < m_listModel->rowCount())
        m_list->setCurrentIndex(m_listModel->index(index));
    updateViews();
}

bool MainWindow::selectScenarioByName(const QString& nameOrNumber)
{
    const auto& list = m_document->scenarios();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (QString::fromStdString(list[i].name) == nameOrNumber) {
            selectScenario(int(i));
            return true;
        }
    }
    bool isNumber = false;
    const int n = nameOrNumber.toInt(&isNumber);
    if (isNumber && n >= 1 && n <= int(list.size())) {
        selectScenario(n - 1);
        return true;
    }
    return false;
}

std::optional<QStringList> MainWindow::exportViews(const QString& dir)
{
    if (!QDir().mkpath(dir))
        return std::nullopt;
    m_runner->waitUntilIdle();
    m_runsController->waitUntilIdle();
    QStringList written;
    const int current = m_tabs->currentIndex();
    for (int i = 0; i < m_tabs->count(); ++i) {
        m_tabs->setCurrentIndex(i);
        // Let layouts settle and GL widgets paint before grabbing.
        for (int k = 0; k < 3; ++k)
            QCoreApplication::processEvents();
        QString name
            = m_tabs->tabText(i).toLower().replace(QLatin1Char(' '), QLatin1Char('-')).remove(QLatin1Char('&'));
        const QString path
            = QDir(dir).filePath(QStringLiteral("%1-%2.png").arg(i + 1, 2, 10, QLatin1Char('0')).arg(name));
        if (!m_tabs->currentWidget()->grab().save(path, "PNG"))
            return std::nullopt;
        written << path;
    }
    m_tabs->setCurrentIndex(current);
    // Imported fabrics of the project, after the tabs of the current scenario.
    auto fabrics = m_fabricImport->exportViews(dir, int(written.size()) + 1);
    if (!fabrics)
        return std::nullopt;
    written << *fabrics;
    return written;
}

void MainWindow::updateViews()
{
    const int index = currentScenario();
    if (index < 0 || index >= int(m_document->scenarios().size())) {
        m_fabric->setEmptyState(tr("The project has no scenarios. Import a scenario JSON file (File > Import) "
                                   "or drop one on the window."));
        m_statusScenario->clear();
        m_editor->setEnabled(false);
        return;
    }
    const engine::Scenario& s = m_document->scenarios()[std::size_t(index)];
    m_editor->setEnabled(true);
    // Validated once per edit: the editor highlights, the status line and the analysis reuse it.
    auto issues = engine::findScenarioIssues(s, *m_catalog);
    m_editor->setScenario(s, issues);
    QString status = views::ScenarioListModel::summaryOf(s);
    if (!issues.empty())
        status
            += tr(" — %1: %2")
                   .arg(QString::fromStdString(issues.front().pointer), QString::fromStdString(issues.front().message));
    m_statusScenario->setText(status);
    m_statusScenario->setToolTip(status);
    m_fabricShowsImport = false;
    m_runner->request(s, std::move(issues));
}

void MainWindow::useProjectCalibration()
{
    // The compute calibration (calibrate-compute --project, or Calibrate from this run).
    m_runner->setComputeCalibration(std::nullopt);
    if (engine::ProjectStore* store = m_document->store()) {
        auto compute = engine::readProjectComputeCalibration(*store, store->path());
        if (compute)
            m_runner->setComputeCalibration(*compute);
        else
            statusBar()->showMessage(tr("The project's compute calibration cannot be read: %1")
                                         .arg(QString::fromStdString(compute.message())),
                8000);
    }
    auto calibration = m_document->calibration();
    if (!calibration) {
        statusBar()->showMessage(
            tr("The project's calibration cannot be read: %1").arg(QString::fromStdString(calibration.message())),
            8000);
        m_runner->setCalibration(std::nullopt);
        return;
    }
    m_runner->setCalibration(
        *calibration ? std::optional<engine::CollectiveCalibration>((*calibration)->calibration) : std::nullopt);
}

void MainWindow::compareRunWithScenario()
{
    const auto run = m_runsController->shownRun();
    int index = currentScenario();
    if (!run || index < 0) {
        QMessageBox::information(this, tr("Compare run with scenario"),
            tr("Show a run in the Runs tab first (File > Import Traces, or select a stored run)."));
        return;
    }
    // The run's cluster: which scenario models it is the user's call (the current one is offered).
    if (m_document->scenarios().size() > 1) {
        QStringList names;
        for (const engine::Scenario& sc : m_document->scenarios())
            names << QString::fromStdString(sc.name);
        bool ok = false;
        const QString picked = QInputDialog::getItem(this, tr("Compare run with scenario"),
            tr("Scenario of the cluster the run ran on:"), names, index, false, &ok);
        if (!ok)
            return;
        index = int(names.indexOf(picked));
        if (index != currentScenario())
            selectScenario(index);
    }
    m_runner->waitUntilIdle();
    const auto analysis = m_runner->latest();
    const engine::Scenario& s = m_document->scenarios()[std::size_t(index)];
    const engine::RunComparison c = engine::compareRunWithScenario(*run, s, *m_catalog, analysis.get());
    QString html
        = tr("<h3>Measured run vs the model of \"%1\"</h3>").arg(QString::fromStdString(s.name).toHtmlEscaped());
    for (const QString& w : runScenarioMismatches(s))
        html += QStringLiteral("<p style=\"background:#fff4d6\"><b>%1</b></p>").arg(w.toHtmlEscaped());
    html += QStringLiteral("<ul>");
    for (const auto& f : c.findings)
        html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(f).toHtmlEscaped());
    html
        += QStringLiteral("</ul><table border=1 cellspacing=0 cellpadding=4><tr><th>op</th><th>group</th><th>bytes</th>"
                          "<th>ranks</th><th>calls</th><th>measured busbw</th><th>modelled busbw</th><th>ratio</th>"
                          "<th>model algorithm</th></tr>");
    const QLocale l;
    for (const auto& row : c.collectives)
        html += QStringLiteral(
            "<tr><td>%1</td><td>%2</td><td align=right>%3</td><td align=right>%4</td><td align=right>%5</td>"
            "<td align=right>%6 GB/s</td><td align=right>%7 GB/s</td><td align=right>%8%</td><td>%9</td></tr>")
                    .arg(QString::fromStdString(row.op), QString::fromStdString(row.processGroup).toHtmlEscaped(),
                        l.toString(qlonglong(row.bytes)), QString::number(row.ranks), QString::number(row.calls),
                        l.toString(row.measuredBusbwGbps, 'f', 2), l.toString(row.modelledBusbwGbps, 'f', 2),
                        l.toString(row.ratio * 100, 'f', 0), QString::fromStdString(row.algorithm));
    html += QStringLiteral("</table>");
    html += tr("<p>Time per step, measured: %1 s (compute %2, exposed communication %3, overlapped %4, idle and memcpy "
               "%5).</p>")
                .arg(c.measured.total, 0, 'f', 4)
                .arg(c.measured.compute, 0, 'f', 4)
                .arg(c.measured.exposedComm, 0, 'f', 4)
                .arg(c.measured.overlappedComm, 0, 'f', 4)
                .arg(c.measured.other, 0, 'f', 4);
    if (c.modelled)
        html += tr("<p>Iteration, modelled: %1 s (compute %2, exposed communication %3, bubble and other %4).</p>")
                    .arg(c.modelled->total, 0, 'f', 4)
                    .arg(c.modelled->compute, 0, 'f', 4)
                    .arg(c.modelled->exposedComm, 0, 'f', 4)
                    .arg(c.modelled->other, 0, 'f', 4);
    for (const auto& n : c.notes)
        html += QStringLiteral("<p><i>%1</i></p>").arg(QString::fromStdString(n).toHtmlEscaped());
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Measured vs modelled"));
    dialog.resize(1000, 650);
    auto* layout = new QVBoxLayout(&dialog);
    auto* browser = new QTextBrowser(&dialog);
    browser->setHtml(html);
    layout->addWidget(browser);
    dialog.exec();
}

QStringList MainWindow::runScenarioMismatches(const engine::Scenario& s) const
{
    QStringList out;
    const views::RunListModel* runs = m_runs->runListModel();
    const int row = runs->rowOf(m_runs->currentRunId());
    if (row < 0)
        return out;
    // The same check as calibrating from a run (engine/analysis/runcomputecalibration.h), with what
    // it means for the comparison.
    for (const std::string& m : engine::runScenarioMismatches(runs->runs()[std::size_t(row)], s)) {
        QString text = QString::fromStdString(m);
        text[0] = text[0].toUpper();
        out << text
                + (m.find(" ranks ") != std::string::npos
                        ? tr(": the iteration is not compared, and the collectives are modelled on the scenario's "
                             "cluster, not the run's.")
                        : tr(": measured and modelled times differ by the GPUs as well as by the network."));
    }
    return out;
}

void MainWindow::exportReport()
{
    const int index = currentScenario();
    if (index < 0)
        return;
    std::vector<engine::Scenario> others;
    for (std::size_t i = 0; i < m_document->scenarios().size(); ++i)
        if (int(i) != index)
            others.push_back(m_document->scenarios()[i]);
    auto calibration = m_document->calibration();
    // The 3D view's picture of the subject's fabric, when it shows one.
    QImage picture;
    if (m_fabric->hasScene())
        picture = m_fabric->grabPicture();
    // The run the Runs tab shows gets the report's measured-run section.
    std::optional<ReportRun> run;
    if (const auto shown = m_runsController->shownRun())
        run = ReportRun { m_runsController->shownRunName(), *shown };
    ReportDialog dialog(m_document->scenarios()[std::size_t(index)], others, *m_catalog, *m_prices,
        calibration ? *calibration : std::nullopt, picture, this, m_runner->computeCalibration(), std::move(run));
    dialog.exec();
}

void MainWindow::showAnalysis()
{
    const auto analysis = m_runner->latest();
    const int index = currentScenario();
    if (!analysis || index < 0)
        return;
    m_editor->setAnalysisNotes(editorNotesFor(m_document->scenarios()[std::size_t(index)], *analysis));
    // Only the visible tab is redrawn now; the others when they are shown (an edit must update
    // what the user looks at within tens of milliseconds).
    m_stale = kStaleFabric | kStaleTraining | kStaleTraffic;
    presentVisible();
}

void MainWindow::presentVisible()
{
    const auto analysis = m_runner->latest();
    const int index = currentScenario();
    if (!analysis || index < 0)
        return;
    const engine::Scenario& s = m_document->scenarios()[std::size_t(index)];
    QWidget* visible = m_tabs->currentWidget();
    if ((m_stale & kStaleFabric) && (visible == m_fabric || visible == m_bom)) {
        presentFabric(*m_fabric, *m_bom, s, analysis, *m_catalog, !m_fabricShowsImport);
        m_stale &= ~kStaleFabric;
    }
    if ((m_stale & kStaleTraining) && (visible == m_breakdown || visible == m_strategies)) {
        presentTraining(*m_breakdown, *m_strategies, s, *analysis, m_runner->rankedWithContention(),
            m_runner->isRankingWithContention());
        m_stale &= ~kStaleTraining;
    }
    if ((m_stale & kStaleTraffic) && visible == m_traffic) {
        presentTraffic(*m_traffic, s, *analysis);
        m_stale &= ~kStaleTraffic;
    }
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_document->displayName() + QStringLiteral("[*] — ClusterScope"));
    setWindowModified(m_document->isModified());
}

void MainWindow::openNcclTestsLog(const QString& path)
{
    NcclTestsDialog dialog(path, m_document->path(), m_document->scenarios(), this);
    connect(&dialog, &NcclTestsDialog::stored, this, [this] {
        useProjectCalibration();
        updateViews();
    });
    dialog.exec();
}

std::optional<QString> MainWindow::openPath(const QString& path, bool quiet)
{
    std::optional<QString> error;
    // By content first, so a trace, a folder of traces or a fabric dump dropped on the window goes
    // where it belongs (or says where), whatever its name.
    const importers::FileFormat format = importers::detectFileFormatOf(path.toStdString());
    if (format == importers::FileFormat::KinetoTrace || format == importers::FileFormat::Directory) {
        m_runsController->importPaths({ path });
        return std::nullopt;
    }
    if (format == importers::FileFormat::IbnetdiscoverDump
        || (!path.endsWith(QLatin1String(".csproj"), Qt::CaseInsensitive)
            && FabricImportController::looksLikeIbnetdiscover(path))) {
        m_fabricImport->importFile(path, !quiet); // an ibnetdiscover dump, recognised by its content
        if (quiet) // batch use (--export-views, --screenshot): the picture needs the fabric
            m_fabricImport->waitUntilIdle();
    } else if (format == importers::FileFormat::NcclTestsLog) {
        if (quiet) // batch use: no dialog to show
            error = RunsController::notATrace({ path });
        else
            openNcclTestsLog(path);
    } else if (format == importers::FileFormat::ScenarioJson
        || path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
        auto scenario = engine::loadScenarioFile(path.toStdString());
        if (!scenario)
            error = QString::fromStdString(scenario.message());
        else
            m_document->addScenario(*scenario);
    } else {
        error = m_document->open(path);
        if (!error)
            addRecent(path);
    }
    if (error && !quiet)
        showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), *error);
    return error;
}

void MainWindow::newProject()
{
    if (maybeSave())
        m_document->clear();
}

void MainWindow::openProject()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), {}, kProjectFilter);
    if (!path.isEmpty())
        openPath(path);
}

bool MainWindow::save()
{
    if (m_document->path().isEmpty())
        return saveAs();
    if (auto error = m_document->save()) {
        showError(tr("Save failed"), *error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(m_document->path()), 4000);
    return true;
}

bool MainWindow::saveAs()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Save project as"), m_document->displayName(), kProjectFilter);
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".csproj");
    if (auto error = m_document->saveAs(path)) {
        showError(tr("Save failed"), *error);
        return false;
    }
    addRecent(path);
    return true;
}

void MainWindow::importScenario()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Import scenario"), {}, kScenarioFilter);
    for (const QString& p : paths)
        openPath(p);
}

void MainWindow::exportScenario()
{
    const int index = currentScenario();
    if (index < 0)
        return;
    const engine::Scenario& s = m_document->scenarios()[std::size_t(index)];
    const QString path = QFileDialog::getSaveFileName(this, tr("Export scenario"),
        QString::fromStdString(s.name).replace(QLatin1Char('/'), QLatin1Char('-')) + QStringLiteral(".json"),
        kScenarioFilter);
    if (path.isEmpty())
        return;
    if (auto status = engine::saveScenarioFile(s, path.toStdString()); !status)
        showError(tr("Export failed"), QString::fromStdString(status.message()));
}

void MainWindow::duplicateScenario()
{
    const int index = currentScenario();
    if (index < 0)
        return;
    engine::Scenario copy = m_document->scenarios()[std::size_t(index)];
    copy.name += " (copy)";
    m_document->addScenario(copy, index + 1);
}

void MainWindow::deleteScenario()
{
    const int index = currentScenario();
    if (index >= 0)
        m_document->removeScenario(index);
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About ClusterScope"),
        tr("<h3>ClusterScope %1</h3><p>Sizing, post-mortem analysis and procurement for the networks that "
           "large-model training runs on.</p><p>Hardware figures come from the built-in catalog; every entry "
           "names its source and date (clusterscope-cli catalog).</p>")
            .arg(QStringLiteral(CLUSTERSCOPE_VERSION)));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
    if (m_document->path().isEmpty())
        settings.remove(QStringLiteral("lastProject"));
    else
        settings.setValue(QStringLiteral("lastProject"), m_document->path());
    event->accept();
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    const bool geometry = restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    // Layouts saved before the docks had sensible widths (version 0) are not restored.
    const bool state = restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    const QScreen* screen = QGuiApplication::primaryScreen();
    const FirstLayout first = firstLayoutFor(screen ? screen->availableGeometry().size() : QSize(1366, 768));
    if (!geometry)
        resize(first.window);
    m_dockWidthsPending = !state;
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!m_dockWidthsPending)
        return;
    m_dockWidthsPending = false;
    const FirstLayout first = firstLayoutFor(size());
    resizeDocks({ m_scenariosDock, m_editorDock }, { first.scenariosWidth, first.editorWidth }, Qt::Horizontal);
}

bool MainWindow::showExampleFabric()
{
    initExampleRunResources();
    if (!m_exampleRunDir)
        m_exampleRunDir = std::make_unique<QTemporaryDir>();
    if (!m_exampleRunDir->isValid())
        return false;
    // The file's name is the imported fabric's name in the list.
    const QString name = QStringLiteral("llama3-70b-1024-h100.ibnetdiscover.gz");
    const QString path = m_exampleRunDir->filePath(name);
    if (!QFile::exists(path) && !QFile::copy(QStringLiteral(":/examplefabric/") + name, path))
        return false;
    m_fabricImport->importFile(path, false, false);
    return true;
}

bool MainWindow::showExampleRun()
{
    initExampleRunResources();
    if (!m_exampleRunDir) // shared with the example fabric
        m_exampleRunDir = std::make_unique<QTemporaryDir>();
    if (!m_exampleRunDir->isValid())
        return false;
    // The folder's name is the run's name in the Runs tab.
    const QString folder = m_exampleRunDir->filePath(QStringLiteral("DLRM, 8 ranks on V100 (example run)"));
    if (!QDir().mkpath(folder))
        return false;
    const QDir resources(QStringLiteral(":/examplerun"));
    const QStringList files = resources.entryList(QDir::Files);
    for (const QString& f : files)
        if (!QFile::exists(QDir(folder).filePath(f)) && !QFile::copy(resources.filePath(f), QDir(folder).filePath(f)))
            return false;
    if (files.isEmpty())
        return false;
    m_runsController->importPaths({ folder });
    return true;
}

bool MainWindow::reopenLastProject()
{
    const QString path = QSettings().value(QStringLiteral("lastProject")).toString();
    if (path.isEmpty() || !QFileInfo::exists(path))
        return false;
    if (auto error = openPath(path, true)) {
        statusBar()->showMessage(tr("The last project (%1) cannot be opened: %2").arg(path, *error), 10000);
        return false;
    }
    return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            openPath(url.toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::addRecent(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentProjects")).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentProjects"), recent);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentProjects")).toStringList();
    for (const QString& path : recent) {
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                [this, path] {
                    if (maybeSave())
                        openPath(path);
                })
            ->setToolTip(path);
    }
    if (recent.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
}

bool MainWindow::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
        tr("%1 has unsaved changes. Save them?").arg(m_document->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::showError(const QString& title, const QString& message) { QMessageBox::warning(this, title, message); }

} // namespace clusterscope::app
