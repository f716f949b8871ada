#include "app/gui/runscontroller.h"

#include "importers/common/fileformat.h"

#include "app/gui/projectdocument.h"
#include "engine/analysis/rungeometry.h"
#include "engine/run/runanalysis.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"
#include "engine/training/trafficblocks.h"
#include "importers/kineto/runloader.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include "views/runs/runheatmap.h"
#include "views/runs/runsview.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace clusterscope::app {

namespace {

    struct ImportResult {
        std::shared_ptr<engine::Run> run;
        engine::RunAnalysis analysis;
        std::string error;
        std::int64_t storedId = -1; ///< -1: not stored (no project file, or the store failed: storeError)
        std::string storeError;
    };

    // Reading and analysing the traces is this share of the progress bar; storing the run the rest.
    constexpr double kLoadShare = 0.7;

} // namespace

RunsController::RunsController(views::RunsView* view, ProjectDocument* document, QWidget* dialogParent)
    : QObject(view)
    , m_view(view)
    , m_document(document)
    , m_dialogParent(dialogParent)
{
    connect(m_view, &views::RunsView::importRequested, this, &RunsController::importInteractively);
    connect(m_view, &views::RunsView::importPathsDropped, this, &RunsController::importPaths);
    connect(m_view, &views::RunsView::runSelected, this, &RunsController::showStored);
    connect(m_view, &views::RunsView::deleteRequested, this, &RunsController::removeStored);
    connect(m_view, &views::RunsView::cancelImportRequested, this, [this] {
        if (m_stop)
            m_stop->store(true);
    });
    connect(m_document, &ProjectDocument::reset, this, &RunsController::refresh);
    connect(m_document, &ProjectDocument::pathChanged, this, &RunsController::refresh);
    refresh();
}

RunsController::~RunsController()
{
    if (m_stop)
        m_stop->store(true);
    for (auto* watcher : findChildren<QFutureWatcher<ImportResult>*>()) {
        watcher->disconnect(this);
        watcher->future().waitForFinished();
    }
}

qint64 RunsController::listRuns()
{
    engine::ProjectStore* store = m_document->store();
    if (!store) {
        m_view->setRuns({});
        m_shown.reset();
        m_view->clearRun(tr("Import profiler traces (PyTorch/Kineto JSON, Nsight Systems SQLite) with File > Import "
                            "Traces or by dropping files or folders here. Save the project to keep imported runs."));
        return -1;
    }
    auto runs = engine::RunStore(*store).list();
    if (!runs) {
        m_view->setRuns({});
        m_shown.reset();
        m_view->clearRun(QString::fromStdString(runs.message()));
        return -1;
    }
    m_view->setRuns(*runs);
    if (runs->empty()) {
        m_shown.reset();
        m_view->clearRun(tr("No runs in this project yet: File > Import Traces, or drop trace files or folders here."));
        return -1;
    }
    return runs->back().id;
}

void RunsController::refresh()
{
    // Show the newest run (from the store: no re-parse).
    const qint64 newest = listRuns();
    if (newest < 0) {
        m_shownStored = {};
        return;
    }
    m_view->setCurrentRunId(newest);
    // Opening a project signals both reset and pathChanged: the run already shown from the same
    // file is not read and drawn twice.
    engine::ProjectStore* store = m_document->store();
    const ShownStored key { store, store ? store->path() : std::string(), newest };
    if (key == m_shownStored && m_view->isShowingRun())
        return;
    showStored(newest);
}

void RunsController::importInteractively()
{
    const QStringList files = QFileDialog::getOpenFileNames(m_dialogParent,
        tr("Import profiler traces (one file per rank)"), {}, tr("Traces (*.json *.json.gz *.sqlite);;All files (*)"));
    if (!files.isEmpty())
        importPaths(files);
}

QString RunsController::notATrace(const QStringList& paths)
{
    // Files are recognised by their content, not their name: a fabric dump fed to the trace import
    // is told where it goes instead of failing in the JSON parser.
    for (const QString& p : paths) {
        const importers::FileFormat format = importers::detectFileFormatOf(p.toStdString());
        QString where;
        switch (format) {
        case importers::FileFormat::IbnetdiscoverDump:
            where = tr("import it as a fabric (File > Import Fabric, or clusterscope-cli import-fabric FILE)");
            break;
        case importers::FileFormat::ScenarioJson:
            where = tr("open it with File > Import Scenario JSON");
            break;
        case importers::FileFormat::NcclTestsLog:
            where = tr("it calibrates the collective model: File > Import nccl-tests Log shows it against "
                       "the model and stores the calibration (clusterscope-cli import-nccl-tests FILE --project P)");
            break;
        default:
            continue;
        }
        return tr("%1 is %2, not a profiler trace: %3.")
            .arg(QFileInfo(p).fileName(), QString::fromLatin1(importers::describe(format)), where);
    }
    return {};
}

void RunsController::importPaths(const QStringList& paths)
{
    if (m_importing || paths.isEmpty())
        return;
    if (const QString wrong = notATrace(paths); !wrong.isEmpty()) {
        m_view->setImportStatus(wrong);
        Q_EMIT importFinished(false, wrong);
        return;
    }
    m_importing = true;
    m_stop = std::make_shared<std::atomic<bool>>(false);
    m_view->setImporting(true);
    m_view->setImportProgress(0.0);
    m_view->setImportStatus(
        tr("Reading %1...")
            .arg(paths.size() == 1 ? QFileInfo(paths.front()).fileName() : tr("%1 paths").arg(paths.size())));

    std::vector<std::string> sources;
    for (const QString& p : paths)
        sources.push_back(QFileInfo(p).absoluteFilePath().toStdString());
    QPointer<views::RunsView> view(m_view);
    importers::RunLoadOptions options;
    options.stop = m_stop.get();
    options.progress = [view](std::size_t done, std::size_t total) {
        QMetaObject::invokeMethod(
            view.data(),
            [view, done, total] {
                if (view)
                    view->setImportProgress(kLoadShare * (total ? double(done) / double(total) : 0.0));
            },
            Qt::QueuedConnection);
    };
    auto stop = m_stop; // keeps the flag alive for the worker
    engine::ProjectStore* openStore = m_document->store();
    const std::string projectPath = openStore ? openStore->path() : std::string();
    const QString name = QFileInfo(paths.front()).fileName();
    engine::RunStoreOptions storeOptions;
    storeOptions.stop = m_stop.get();
    storeOptions.progress = [view](double fraction) {
        QMetaObject::invokeMethod(
            view.data(),
            [view, fraction] {
                if (view)
                    view->setImportProgress(kLoadShare + (1.0 - kLoadShare) * fraction);
            },
            Qt::QueuedConnection);
    };
    auto* watcher = new QFutureWatcher<ImportResult>(this);
    connect(watcher, &QFutureWatcher<ImportResult>::finished, this, [this, watcher, name] {
        ImportResult result = watcher->result();
        watcher->deleteLater();
        m_importing = false;
        m_view->setImporting(false);
        if (!result.error.empty()) {
            m_view->setImportStatus(QString::fromStdString(result.error));
            Q_EMIT importFinished(false, QString::fromStdString(result.error));
            return;
        }
        if (result.storedId < 0 && result.storeError.empty()) {
            present(result.analysis, result.run.get(), tr("%1 (not stored: save the project to keep runs)").arg(name));
            Q_EMIT importFinished(false, tr("imported %1, not stored (the project has no file yet)").arg(name));
            return;
        }
        if (result.storedId < 0) {
            QMessageBox::warning(m_dialogParent, tr("Cannot store the run"), QString::fromStdString(result.storeError));
            present(result.analysis, result.run.get(), name);
            Q_EMIT importFinished(false, QString::fromStdString(result.storeError));
            return;
        }
        // Listed from the store, shown once from memory (the events give the timeline).
        listRuns();
        m_view->setCurrentRunId(result.storedId);
        present(result.analysis, result.run.get(), name);
        Q_EMIT importFinished(true, tr("run \"%1\" stored in the project").arg(name));
    });
    watcher->setFuture(QtConcurrent::run([sources, options, storeOptions, stop, projectPath, name]() -> ImportResult {
        ImportResult out;
        auto run = importers::loadRun(sources, options);
        if (!run) {
            out.error = run.message();
            return out;
        }
        if (stop->load()) {
            out.error = "the import was cancelled";
            return out;
        }
        out.analysis = engine::analyseRun(*run);
        out.run = std::make_shared<engine::Run>(std::move(*run));
        if (projectPath.empty())
            return out;
        // The worker's own connection: SQLite serialises it with the GUI's (WAL, busy timeout).
        auto project = engine::ProjectStore::open(projectPath);
        if (!project) {
            out.storeError = project.message();
            return out;
        }
        auto id = engine::RunStore(*project).add(name.toStdString(), sources, *out.run, out.analysis, storeOptions);
        if (id)
            out.storedId = *id;
        else if (stop->load())
            out.error = "the import was cancelled";
        else
            out.storeError = id.message();
        return out;
    }));
}

void RunsController::waitUntilIdle()
{
    while (m_importing)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

void RunsController::present(const engine::RunAnalysis& analysis, const engine::Run* events, const QString& title)
{
    m_shownStored = {};
    m_view->showRun(analysis, events, title);
    m_shown = std::make_shared<const engine::RunAnalysis>(analysis);
    m_shownName = title;
    m_view->setHeatmapWidget(views::makeRunHeatmap(analysis));
}

void RunsController::showStored(qint64 id)
{
    engine::ProjectStore* store = m_document->store();
    if (!store)
        return;
    auto run = engine::RunStore(*store).load(id);
    if (!run) {
        m_shown.reset();
        m_view->clearRun(QString::fromStdString(run.message()));
        return;
    }
    present(run->analysis, nullptr, QString::fromStdString(run->summary.name));
    m_shownStored = { store, store->path(), id };
}

void RunsController::removeStored(qint64 id)
{
    engine::ProjectStore* store = m_document->store();
    if (!store)
        return;
    if (auto status = engine::RunStore(*store).remove(id); !status)
        QMessageBox::warning(m_dialogParent, tr("Cannot delete the run"), QString::fromStdString(status.message()));
    refresh();
}

} // namespace clusterscope::app
