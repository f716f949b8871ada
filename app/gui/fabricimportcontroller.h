#pragma once

// File > Import Fabric and dropped ibnetdiscover dumps: the dump is read on a worker thread
// (progress with cancel in the status bar), kept in the project beside its scenarios (engine
// fabricstore: the dump as read, so reopening re-runs the current importer) and shown in the
// Fabric 3D tab with its flagged links and switches highlighted and listed by pattern.

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QDockWidget;
class QLabel;
class QListWidget;
class QMainWindow;
class QProgressBar;
class QTabWidget;
class QTreeWidget;
class QWidget;
template <typename T> class QFutureWatcher;

namespace clusterscope::importers {
struct ImportedFabric;
}
namespace clusterscope::views {
class FabricView;
}

namespace clusterscope::app {

class ProjectDocument;

class FabricImportController : public QObject {
    Q_OBJECT
public:
    /// Adds an "Imported fabrics" list (left) and a "Fabric flags" table (bottom) to `window`.
    FabricImportController(QMainWindow& window, ProjectDocument& document, views::FabricView& view, QTabWidget& tabs);
    ~FabricImportController() override;

    /// True when the file's first lines read as an ibnetdiscover dump (node headers such as
    /// `Switch 41 "S-..."` / `Ca 2 "H-..."` or its vendid/switchguid/caguid lines), whatever its
    /// name; gzip is looked into.
    static bool looksLikeIbnetdiscover(const QString& path);

    /// Reads the dump on a worker; when done it is stored in the project (kept until the project
    /// is saved when it has no file yet) and shown. Errors go to failed() and the status bar, and
    /// to a message box when `showErrors`. The Fabric 3D tab is brought to the front when
    /// `bringForward` (a user's import); the example project's fabric on first start is not, so the
    /// first tab shown does not depend on which of the example's imports ends last.
    void importFile(const QString& path, bool showErrors = false, bool bringForward = true);
    bool isBusy() const;
    /// Blocks (processing events) until the import under way has finished or was cancelled.
    void waitUntilIdle();
    /// Shows imported fabric `row` of the list (re-importing the stored dump when needed).
    /// Returns the error message on failure.
    std::optional<QString> showFabric(int row);
    /// Renders every imported fabric of the project: DIR/<nn>-fabric-<name>.png (3D view) and
    /// ...-flags.png (the flag table), numbered from `firstNumber`. Nothing on a write failure.
    std::optional<QStringList> exportViews(const QString& dir, int firstNumber);

    QListWidget* fabricList() const { return m_list; }
    QTreeWidget* flagTable() const { return m_flags; }
    /// The fabric shown last (null before any).
    const importers::ImportedFabric* shownFabric() const { return m_shown.get(); }

public Q_SLOTS:
    void importInteractively();
    void cancel();

Q_SIGNALS:
    void imported(int row);
    /// Fabric 3D now shows an imported fabric (after an import or a pick in the list).
    void presented();
    void failed(const QString& message);

private:
    struct Entry {
        std::int64_t id = 0; ///< stored fabric id; 0 = not stored yet (untitled project)
        QString name;
        QString source;
        std::string dump; ///< kept only while not stored
        std::shared_ptr<const importers::ImportedFabric> fabric; ///< parsed (cached for the session)
    };
    struct Outcome;

    void reload();
    void storePending();
    void finishImport();
    void present(const Entry& entry, bool bringForward);
    void fillFlagTable(const importers::ImportedFabric& fabric);
    /// Shows the flags dock; on a short window, as a tab beside the imported-fabrics list.
    void showFlagDock(QDockWidget* dock);

    QMainWindow& m_window;
    ProjectDocument& m_document;
    views::FabricView& m_view;
    QTabWidget& m_tabs;
    QListWidget* m_list = nullptr;
    QTreeWidget* m_flags = nullptr;
    bool m_flagsPlaced = false; ///< the flags dock was placed for the window's height once
    QWidget* m_busy = nullptr;
    std::vector<Entry> m_entries;
    std::shared_ptr<const importers::ImportedFabric> m_shown;
    QFutureWatcher<std::shared_ptr<Outcome>>* m_watcher = nullptr;
    bool m_cancelled = false;
    bool m_pending = false; ///< an import was started and its result not yet handled
    bool m_showErrors = false;
    bool m_bringForward = true;
};

} // namespace clusterscope::app
