#pragma once

// Drives the Runs tab: imports traces and stores the run in the open project on a worker (its own
// connection to the project file; progress and cancel over both; one transaction: a failed or
// cancelled import leaves the project as it was), lists the stored runs and shows the one
// selected, without re-parsing. A fresh import is shown once, from memory (with its timeline).

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <string>

namespace clusterscope::engine {
struct Run;
struct RunAnalysis;
}
namespace clusterscope::views {
class RunsView;
}

namespace clusterscope::app {

class ProjectDocument;

class RunsController : public QObject {
    Q_OBJECT
public:
    RunsController(views::RunsView* view, ProjectDocument* document, QWidget* dialogParent);
    ~RunsController() override;

    /// Imports per-rank traces (files or directories) in the background.
    void importPaths(const QStringList& paths);
    bool isImporting() const { return m_importing; }
    /// Blocks (processing events) until no import runs; for tests.
    void waitUntilIdle();
    /// Why `paths` are not profiler traces (a fabric dump, a scenario, an nccl-tests log: their
    /// content says so, whatever their names) and where they go; empty when they may be traces.
    static QString notATrace(const QStringList& paths);
    /// The analysis of the run shown in the tab (null when none).
    std::shared_ptr<const engine::RunAnalysis> shownRun() const { return m_shown; }
    /// The name of the run shown (the stored run's name, or the imported folder's).
    QString shownRunName() const { return m_shownName; }

public Q_SLOTS:
    /// Asks for trace files or a folder and imports them.
    void importInteractively();
    /// Lists the project's runs again (after open, save or an import).
    void refresh();

Q_SIGNALS:
    void importFinished(bool stored, const QString& message);

private:
    void showStored(qint64 id);
    /// Lists the stored runs; returns the newest one's id (-1 when none or no store).
    qint64 listRuns();
    /// Shows an analysis in the view, with the measured GPU-pair heatmap in its slot.
    void present(const engine::RunAnalysis& analysis, const engine::Run* events, const QString& title);
    void removeStored(qint64 id);

    views::RunsView* m_view;
    ProjectDocument* m_document;
    QWidget* m_dialogParent;
    bool m_importing = false;
    std::shared_ptr<std::atomic<bool>> m_stop;
    std::shared_ptr<const engine::RunAnalysis> m_shown;
    QString m_shownName;
    /// The stored run shown (store, its file, run id); empty when the tab shows something else.
    struct ShownStored {
        const void* store = nullptr;
        std::string path;
        qint64 id = -1;
        bool operator==(const ShownStored&) const = default;
    };
    ShownStored m_shownStored;
};

} // namespace clusterscope::app
