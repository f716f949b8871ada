#include "app/gui/fabricimportcontroller.h"

#include "app/gui/projectdocument.h"
#include "engine/fabric/fabricgraph.h"
#include "engine/store/fabricstore.h"
#include "importers/common/inputfile.h"
#include "importers/ibnetdiscover/ibnetdiscoverlexer.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/ibnetdiscover/importedfabric.h"
#include "views/fabric/fabricview.h"
#include "views/presentation/fabricscenebuilder.h"
#include "views/presentation/tiernames.h"
#include "views/widgets/wrappingitemdelegate.h"

#include <nlohmann/json.hpp>

#include <QApplication>
#include <QColor>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMainWindow>
#include <QMessageBox>
#include <QProgressBar>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace clusterscope::app {

namespace {

    QString tr(const char* text) { return QCoreApplication::translate("FabricImportController", text); }

    const QString kDumpFilter = QStringLiteral(
        "ibnetdiscover dumps, ibnetdiscover --ports, iblinkinfo (*.topo *.txt *.out *.ibnd *.log *.gz);;All files (*)");

    // What the importer's JSON summary holds (the same fields as `import-fabric --project`).
    std::string summaryOf(const importers::ImportedFabric& f)
    {
        const nlohmann::json summary = { { "switches", f.graph.countNodes(engine::NodeKind::Switch) },
            { "hcas", f.graph.countNodes(engine::NodeKind::Nic) }, { "flags", f.flags.size() },
            { "tier_confidence", f.structure.tierConfidence } };
        return summary.dump();
    }

    QString kindText(importers::FabricFlag::Kind kind)
    {
        return QString::fromLatin1(importers::toString(kind)).replace(QLatin1Char('_'), QLatin1Char(' '));
    }

    // Graph nodes named by a flag (its switches, by description).
    std::vector<engine::NodeId> nodesOfFlag(
        const importers::FabricFlag& flag, const std::unordered_map<std::string, std::vector<engine::NodeId>>& byLabel)
    {
        std::vector<engine::NodeId> out;
        for (const std::string& s : flag.switches)
            if (auto it = byLabel.find(s); it != byLabel.end())
                out.insert(out.end(), it->second.begin(), it->second.end());
        return out;
    }

    // The flags per graph node (switches named by a flag or owning one of its ports) and the cables
    // its ports name in pairs ("S-<guid>/P<n>" of both ends: a swapped cable, a degraded one).
    struct FlagIndex {
        std::unordered_map<engine::NodeId, std::vector<std::size_t>> flagsOfNode;
        std::map<std::pair<engine::NodeId, engine::NodeId>, std::vector<std::size_t>>
            flagsOfCable; ///< (lower id, higher id)
    };

    FlagIndex indexFlags(const importers::ImportedFabric& f)
    {
        std::unordered_map<std::string, std::vector<engine::NodeId>> byLabel;
        std::unordered_map<std::string, engine::NodeId> byGuid;
        for (engine::NodeId id = 0; id < f.graph.nodeCount(); ++id) {
            const engine::FabricNode& n = f.graph.node(id);
            if (n.kind != engine::NodeKind::Switch)
                continue;
            byLabel[f.graph.label(id)].push_back(id);
            if (n.guid != 0)
                byGuid.emplace(importers::ibGuidName('S', n.guid), id);
        }
        FlagIndex index;
        for (std::size_t i = 0; i < f.flags.size(); ++i) {
            const importers::FabricFlag& flag = f.flags[i];
            std::set<engine::NodeId> nodes;
            for (engine::NodeId n : nodesOfFlag(flag, byLabel))
                nodes.insert(n);
            std::vector<engine::NodeId> ends;
            for (const std::string& port : flag.ports) {
                const auto it = byGuid.find(port.substr(0, port.find('/')));
                ends.push_back(it == byGuid.end() ? engine::kNoId : it->second);
                if (it != byGuid.end())
                    nodes.insert(it->second);
            }
            for (std::size_t k = 0; k + 1 < ends.size(); k += 2)
                if (ends[k] != engine::kNoId && ends[k + 1] != engine::kNoId)
                    index.flagsOfCable[{ std::min(ends[k], ends[k + 1]), std::max(ends[k], ends[k + 1]) }].push_back(i);
            for (engine::NodeId n : nodes)
                index.flagsOfNode[n].push_back(i);
        }
        return index;
    }

    const std::vector<std::size_t>* flagsOfLine(
        const FlagIndex& index, const views::FabricSceneData& scene, const views::SceneLink& l)
    {
        const int a = scene.nodes[std::size_t(l.from)].graphNode, b = scene.nodes[std::size_t(l.to)].graphNode;
        if (a < 0 || b < 0)
            return nullptr;
        const auto it = index.flagsOfCable.find({ engine::NodeId(std::min(a, b)), engine::NodeId(std::max(a, b)) });
        return it == index.flagsOfCable.end() ? nullptr : &it->second;
    }

    views::FabricSceneData sceneOf(
        const importers::ImportedFabric& f, const FlagIndex& index, views::SceneLayout layout, const std::string& title)
    {
        views::FabricSceneData scene = views::sceneFromGraph(f.graph, layout, {}, title);
        for (views::SceneNode& n : scene.nodes)
            if (n.graphNode >= 0 && n.kind != views::SceneNodeKind::Node
                && index.flagsOfNode.count(engine::NodeId(n.graphNode)))
                n.flagged = true;
        for (views::SceneLink& l : scene.links)
            if (!l.flagged && flagsOfLine(index, scene, l))
                l.flagged = true;
        return scene;
    }

    std::string titleOf(const QString& name, const importers::ImportedFabric& f)
    {
        const auto perTier = f.graph.switchesPerTier();
        // Two lines: on a laptop's Fabric 3D tab (~750 px) one line ran out of the view.
        std::string title = name.toStdString()
            + "\nimported: " + std::to_string(f.graph.countNodes(engine::NodeKind::Switch)) + " switches (";
        for (std::size_t t = 0; t < perTier.size(); ++t)
            title += (t ? ", " : "") + std::to_string(perTier[t]) + " " + engine::tierName(int(t));
        title += "), " + std::to_string(f.graph.countNodes(engine::NodeKind::Nic)) + " HCAs, "
            + std::to_string(f.flags.size()) + " flag" + (f.flags.size() == 1 ? "" : "s");
        return title;
    }

    QString flagLines(const importers::ImportedFabric& f, const std::vector<std::size_t>& which, std::size_t limit = 6)
    {
        QString text;
        for (std::size_t i = 0; i < which.size() && i < limit; ++i)
            text += QStringLiteral("<br><font color='#c00'>%1</font>: %2")
                        .arg(kindText(f.flags[which[i]].kind),
                            QString::fromStdString(f.flags[which[i]].message).toHtmlEscaped());
        if (which.size() > limit)
            text += tr("<br>... and %1 more").arg(which.size() - limit);
        return text;
    }

    QString details(const importers::ImportedFabric& f, const FlagIndex& index, const views::FabricSceneData& scene,
        const views::ScenePick& pick)
    {
        using namespace engine;
        const FabricGraph& g = f.graph;
        if (pick.isLink) {
            const views::SceneLink& line = scene.links[std::size_t(pick.index)];
            const auto name
                = [&](int n) { return QString::fromStdString(scene.nodes[std::size_t(n)].label).toHtmlEscaped(); };
            QString text = tr("<b>link</b>: %1 – %2").arg(name(line.from), name(line.to));
            if (line.members > 1)
                text += tr("<br>%1 parallel cables").arg(line.members);
            if (line.graphLink >= 0) {
                const FabricLink& link = g.link(LinkId(line.graphLink));
                text += tr("<br>level %1, %2 Gb/s per direction, %3 lanes")
                            .arg(views::linkLevelLabel(g.level(LinkId(line.graphLink))))
                            .arg(double(link.gbps))
                            .arg(int(link.lanes));
                if (link.flags & kLinkMissing)
                    text += tr(
                        "<br><font color='#c00'>missing</font> (expected from the pod's cabling, not in the dump)");
                else if (link.flags & kLinkDegraded)
                    text += tr("<br><font color='#c00'>degraded</font>");
            }
            const std::vector<std::size_t>* flags = flagsOfLine(index, scene, line);
            const std::vector<std::size_t> shared = flags ? *flags : std::vector<std::size_t> {};
            return text + flagLines(f, shared);
        }
        const views::SceneNode& n = scene.nodes[std::size_t(pick.index)];
        QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(n.label).toHtmlEscaped());
        if (n.kind == views::SceneNodeKind::Node) {
            text += tr("<br>%1 host(s)").arg(n.members);
            return text;
        }
        if (n.graphNode < 0)
            return text;
        const FabricNode& node = g.node(NodeId(n.graphNode));
        text += tr("<br>%1 switch, %2 ports").arg(QString::fromStdString(tierName(node.tier))).arg(node.ports);
        if (node.group >= 0)
            text += tr(", pod %1").arg(node.group + 1);
        int links = 0, flaggedLinks = 0;
        for (LinkId l : g.linksOf(NodeId(n.graphNode))) {
            ++links;
            flaggedLinks += g.link(l).flags != 0;
        }
        text += tr("<br>%1 links (%2 missing or degraded)").arg(links).arg(flaggedLinks);
        if (auto it = index.flagsOfNode.find(NodeId(n.graphNode)); it != index.flagsOfNode.end())
            text += flagLines(f, it->second);
        return text;
    }

} // namespace

struct FabricImportController::Outcome {
    std::shared_ptr<const importers::ImportedFabric> fabric;
    std::string dump;
    QString error;
    QString path;
};

FabricImportController::FabricImportController(
    QMainWindow& window, ProjectDocument& document, views::FabricView& view, QTabWidget& tabs)
    : QObject(&window)
    , m_window(window)
    , m_document(document)
    , m_view(view)
    , m_tabs(tabs)
{
    auto* listDock = new QDockWidget(tr("Imported fabrics"), &window);
    listDock->setObjectName(QStringLiteral("importedFabricsDock"));
    m_list = new QListWidget(listDock);
    m_list->setToolTip(
        tr("ibnetdiscover dumps kept in the project (File > Import Fabric, or drop a dump on the window)"));
    listDock->setWidget(m_list);
    window.addDockWidget(Qt::LeftDockWidgetArea, listDock);
    // Below the scenario list once the window has made it.
    QTimer::singleShot(0, this, [this, listDock] {
        if (auto* scenarios = m_window.findChild<QDockWidget*>(QStringLiteral("scenariosDock")))
            if (m_window.dockWidgetArea(scenarios) == Qt::LeftDockWidgetArea)
                m_window.splitDockWidget(scenarios, listDock, Qt::Vertical);
    });
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (auto error = showFabric(m_list->row(item)))
            QMessageBox::warning(&m_window, tr("Cannot show the fabric"), *error);
    });
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (auto error = showFabric(m_list->row(item)))
            QMessageBox::warning(&m_window, tr("Cannot show the fabric"), *error);
    });

    auto* flagDock = new QDockWidget(tr("Fabric flags"), &window);
    flagDock->setObjectName(QStringLiteral("fabricFlagsDock"));
    m_flags = new QTreeWidget(flagDock);
    m_flags->setHeaderLabels({ tr("Flag"), tr("Count") });
    m_flags->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_flags->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_flags->header()->setStretchLastSection(false);
    // In the narrow left column of a short window the rows wrap instead of being cut.
    views::WrappingItemDelegate::install(m_flags);
    m_flags->setIndentation(12);
    flagDock->setWidget(m_flags);
    window.addDockWidget(Qt::BottomDockWidgetArea, flagDock);
    flagDock->hide(); // shown with the first imported fabric

    m_busy = new QWidget(&window);
    auto* layout = new QHBoxLayout(m_busy);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QProgressBar(m_busy);
    bar->setRange(0, 0); // the importer reports no fraction: a busy indicator
    bar->setMaximumWidth(140);
    auto* label = new QLabel(tr("Importing fabric"), m_busy);
    auto* cancelButton = new QToolButton(m_busy);
    cancelButton->setText(tr("Cancel"));
    layout->addWidget(label);
    layout->addWidget(bar);
    layout->addWidget(cancelButton);
    window.statusBar()->addPermanentWidget(m_busy);
    m_busy->hide();
    connect(cancelButton, &QToolButton::clicked, this, &FabricImportController::cancel);

    m_watcher = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &FabricImportController::finishImport);

    connect(&m_document, &ProjectDocument::reset, this, &FabricImportController::reload);
    connect(&m_document, &ProjectDocument::pathChanged, this, &FabricImportController::storePending);
    reload();
}

FabricImportController::~FabricImportController()
{
    if (m_watcher->isRunning())
        m_watcher->waitForFinished();
}

bool FabricImportController::looksLikeIbnetdiscover(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    constexpr qint64 kHeadBytes = qint64(64) * 1024;
    QByteArray head = file.read(kHeadBytes);
    file.close();
    if (head.size() >= 2 && quint8(head[0]) == 0x1f && quint8(head[1]) == 0x8b) { // gzip: look inside
        auto text = importers::readInputFile(path.toStdString());
        if (!text)
            return false;
        head = QByteArray::fromStdString(text->substr(0, std::size_t(kHeadBytes)));
    }
    // The same fabric listed port by port (ibnetdiscover --ports, iblinkinfo).
    if (importers::looksLikePortListing(std::string_view(head.constData(), std::size_t(head.size()))))
        return true;
    // ibnetdiscover(8): node headers `Switch <ports> "S-<guid>"` / `Ca <ports> "H-<guid>"`, preceded
    // by vendid=/devid=/sysimgguid= and switchguid= or caguid= lines.
    int hints = 0;
    for (const QByteArray& raw : head.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line.startsWith("Switch") && line.contains("\"S-"))
            return true;
        if ((line.startsWith("Ca") || line.startsWith("Rt")) && line.contains("\"H-"))
            return true;
        hints += line.startsWith("vendid=") || line.startsWith("sysimgguid=") || line.startsWith("switchguid=")
            || line.startsWith("caguid=");
    }
    return hints >= 3;
}

void FabricImportController::importInteractively()
{
    const QString path = QFileDialog::getOpenFileName(
        &m_window, tr("Import fabric (ibnetdiscover dump, --ports report or iblinkinfo output)"), {}, kDumpFilter);
    if (!path.isEmpty())
        importFile(path, true);
}

void FabricImportController::importFile(const QString& path, bool showErrors, bool bringForward)
{
    if (isBusy()) {
        m_window.statusBar()->showMessage(tr("A fabric import is already under way"), 4000);
        return;
    }
    m_cancelled = false;
    m_pending = true;
    m_showErrors = showErrors;
    m_bringForward = bringForward;
    m_busy->show();
    m_watcher->setFuture(QtConcurrent::run([path]() {
        auto out = std::make_shared<Outcome>();
        out->path = path;
        auto text = importers::readInputFile(path.toStdString());
        if (!text) {
            out->error = QString::fromStdString(text.message());
            return out;
        }
        auto fabric = importers::parseIbnetdiscover(*text, path.toStdString());
        if (!fabric) {
            out->error = QString::fromStdString(fabric.message());
            return out;
        }
        out->fabric = std::make_shared<const importers::ImportedFabric>(std::move(*fabric));
        out->dump = std::move(*text);
        return out;
    }));
}

bool FabricImportController::isBusy() const { return m_pending; }

void FabricImportController::waitUntilIdle()
{
    while (m_pending) {
        m_watcher->waitForFinished();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
}

void FabricImportController::cancel()
{
    // The importer cannot be interrupted mid-file; its result is dropped when it arrives.
    m_cancelled = true;
    m_busy->hide();
    m_window.statusBar()->showMessage(tr("Fabric import cancelled"), 3000);
}

void FabricImportController::finishImport()
{
    m_busy->hide();
    m_pending = false;
    const std::shared_ptr<Outcome> out = m_watcher->result();
    if (m_cancelled || !out)
        return;
    if (!out->fabric) {
        const QString message = tr("%1: %2").arg(QFileInfo(out->path).fileName(), out->error);
        Q_EMIT failed(message);
        if (m_showErrors)
            QMessageBox::warning(&m_window, tr("Cannot import the fabric"), message);
        m_window.statusBar()->showMessage(message, 8000);
        return;
    }
    Entry e;
    e.name = QFileInfo(out->path).fileName();
    e.source = out->path;
    e.fabric = out->fabric;
    if (engine::ProjectStore* store = m_document.store()) {
        auto id = engine::storeImportedFabric(
            *store, e.name.toStdString(), e.source.toStdString(), out->dump, summaryOf(*e.fabric));
        if (!id) {
            const QString message = QString::fromStdString(id.message());
            Q_EMIT failed(message);
            m_window.statusBar()->showMessage(message, 8000);
            return;
        }
        e.id = *id;
    } else {
        e.dump = std::move(out->dump); // stored when the project is saved
    }
    m_entries.push_back(std::move(e));
    auto* item = new QListWidgetItem(m_entries.back().name, m_list);
    item->setToolTip(m_entries.back().source);
    const int row = int(m_entries.size()) - 1;
    m_list->setCurrentRow(row);
    present(m_entries.back(), m_bringForward);
    m_window.statusBar()->showMessage(
        tr("Imported %1: %2 flags").arg(m_entries.back().name).arg(m_entries.back().fabric->flags.size()), 6000);
    Q_EMIT imported(row);
}

void FabricImportController::reload()
{
    m_entries.clear();
    m_list->clear();
    m_shown.reset();
    m_flags->clear();
    engine::ProjectStore* store = m_document.store();
    if (!store)
        return;
    auto stored = engine::importedFabrics(*store);
    if (!stored) {
        m_window.statusBar()->showMessage(QString::fromStdString(stored.message()), 8000);
        return;
    }
    for (const engine::StoredFabric& s : *stored) {
        Entry e;
        e.id = s.id;
        e.name = QString::fromStdString(s.name);
        e.source = QString::fromStdString(s.source);
        auto* item = new QListWidgetItem(e.name, m_list);
        item->setToolTip(tr("%1, imported %2 UTC").arg(e.source, QString::fromStdString(s.imported)));
        m_entries.push_back(std::move(e));
    }
    // A project of imported fabrics only (import-fabric --project): show the newest once the
    // window has shown its (empty) scenario views.
    if (m_document.scenarios().empty() && !m_entries.empty())
        QTimer::singleShot(0, this, [this] {
            if (m_document.scenarios().empty() && !m_entries.empty() && !m_shown)
                (void)showFabric(int(m_entries.size()) - 1); // an error leaves the list as it is
        });
}

void FabricImportController::storePending()
{
    engine::ProjectStore* store = m_document.store();
    if (!store)
        return;
    for (Entry& e : m_entries) {
        if (e.id != 0 || !e.fabric)
            continue;
        auto id = engine::storeImportedFabric(
            *store, e.name.toStdString(), e.source.toStdString(), e.dump, summaryOf(*e.fabric));
        if (!id) {
            m_window.statusBar()->showMessage(QString::fromStdString(id.message()), 8000);
            continue;
        }
        e.id = *id;
        e.dump.clear();
    }
}

std::optional<QString> FabricImportController::showFabric(int row)
{
    if (row < 0 || row >= int(m_entries.size()))
        return tr("There is no imported fabric %1").arg(row + 1);
    Entry& e = m_entries[std::size_t(row)];
    if (!e.fabric) {
        const engine::ProjectStore* store = m_document.store();
        if (!store)
            return tr("The project has no file to read %1 from").arg(e.name);
        auto dump = engine::importedFabricDump(*store, e.id);
        if (!dump)
            return QString::fromStdString(dump.message());
        QApplication::setOverrideCursor(Qt::WaitCursor);
        auto fabric
            = importers::parseIbnetdiscover(*dump, m_document.path().toStdString() + ": " + e.name.toStdString());
        QApplication::restoreOverrideCursor();
        if (!fabric)
            return QString::fromStdString(fabric.message());
        e.fabric = std::make_shared<const importers::ImportedFabric>(std::move(*fabric));
    }
    if (m_list->currentRow() != row)
        m_list->setCurrentRow(row);
    present(e, true);
    return std::nullopt;
}

void FabricImportController::present(const Entry& entry, bool bringForward)
{
    m_shown = entry.fabric;
    const auto fabric = entry.fabric;
    const auto index = std::make_shared<const FlagIndex>(indexFlags(*fabric));
    const std::string title = titleOf(entry.name, *fabric);
    m_view.setDetailsProvider([fabric, index](const views::FabricSceneData& scene, const views::ScenePick& pick) {
        return details(*fabric, *index, scene, pick);
    });
    m_view.setSceneFactory(
        [fabric, index, title](views::SceneLayout layout) { return sceneOf(*fabric, *index, layout, title); });
    Q_EMIT presented();
    if (bringForward)
        m_tabs.setCurrentWidget(&m_view);
    fillFlagTable(*fabric);
}

void FabricImportController::fillFlagTable(const importers::ImportedFabric& f)
{
    m_flags->clear();
    // One row per kind and pattern (as import-fabric prints them), the flags themselves beneath.
    std::map<std::pair<int, std::string>, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < f.flags.size(); ++i)
        groups[{ int(f.flags[i].kind), f.flags[i].pattern }].push_back(i);
    for (const auto& [key, members] : groups) {
        const importers::FabricFlag& first = f.flags[members.front()];
        const QString pattern = first.pattern.empty() ? kindText(first.kind) : QString::fromStdString(first.pattern);
        auto* group = new QTreeWidgetItem(
            m_flags, { tr("%1: %2").arg(kindText(first.kind), pattern), QString::number(members.size()) });
        group->setForeground(0, QColor(200, 0, 70));
        group->setToolTip(0, tr("%1 (%n flag(s))", nullptr, int(members.size())).arg(group->text(0)));
        for (std::size_t i : members) {
            auto* row = new QTreeWidgetItem(group, { QString::fromStdString(f.flags[i].message), {} });
            row->setToolTip(0, row->text(0));
        }
        group->setExpanded(members.size() <= 4);
    }
    if (f.flags.empty())
        new QTreeWidgetItem(m_flags, { tr("No flags: every cable matches its pod's pattern"), {} });
    if (auto* dock = qobject_cast<QDockWidget*>(m_flags->parentWidget()))
        showFlagDock(dock);
}

void FabricImportController::showFlagDock(QDockWidget* dock)
{
    // Under the tabs the dock takes ~200 px of height from every tab. A short window (a 1366x768
    // laptop opens at ~700 px) has none to give: the Runs tab's chart loses its legend. There the
    // flags join the imported-fabrics list in the left column, as a tab beside it. Once per
    // session, and only from the default place: a dock the user moved stays where they put it.
    constexpr int kShortWindowHeight = 900;
    if (!m_flagsPlaced && !dock->isVisible() && !dock->isFloating()
        && m_window.dockWidgetArea(dock) == Qt::BottomDockWidgetArea && m_window.height() < kShortWindowHeight) {
        if (auto* list = qobject_cast<QDockWidget*>(m_list->parentWidget());
            list && list->isVisible() && !list->isFloating()) {
            m_window.tabifyDockWidget(list, dock);
            // Two tabs in the ~170 px column: short titles, or both are cut ("Imported f…", "Fabri…").
            list->setWindowTitle(tr("Fabrics"));
            dock->setWindowTitle(tr("Flags"));
        }
    }
    const bool first = !m_flagsPlaced;
    m_flagsPlaced = true;
    dock->show();
    dock->raise();
    if (first && m_window.dockWidgetArea(dock) == Qt::BottomDockWidgetArea && !dock->isFloating()) {
        // Under the tabs no taller than its rows need (two flags: ~110 px, not the ~200 px a dock
        // gets by default), at most 220 px: the tabs above keep their room.
        int rows = 0;
        for (QTreeWidgetItemIterator it(m_flags, QTreeWidgetItemIterator::NotHidden); *it; ++it)
            if (!(*it)->parent() || (*it)->parent()->isExpanded())
                ++rows;
        const int rowHeight = std::max(m_flags->fontMetrics().height() + 4, 18);
        const int wanted = m_flags->header()->sizeHint().height() + rows * rowHeight + 2 * m_flags->frameWidth()
            + dock->fontMetrics().height() + 12; // the dock's title bar
        m_window.resizeDocks({ dock }, { std::clamp(wanted, 90, 220) }, Qt::Vertical);
    }
}

std::optional<QStringList> FabricImportController::exportViews(const QString& dir, int firstNumber)
{
    if (!QDir().mkpath(dir))
        return std::nullopt;
    QStringList written;
    const int current = m_tabs.currentIndex();
    for (int row = 0; row < int(m_entries.size()); ++row) {
        if (auto error = showFabric(row)) {
            std::fprintf(stderr, "%s\n", qPrintable(*error));
            continue;
        }
        for (int k = 0; k < 3; ++k)
            QCoreApplication::processEvents();
        QString name = QFileInfo(m_entries[std::size_t(row)].name).completeBaseName().toLower();
        name.replace(QRegularExpression(QStringLiteral("[^a-z0-9_-]+")), QStringLiteral("-"));
        const QString stem = QDir(dir).filePath(
            QStringLiteral("%1-fabric-%2").arg(firstNumber + row, 2, 10, QLatin1Char('0')).arg(name));
        if (!m_view.grab().save(stem + QStringLiteral(".png"), "PNG"))
            return std::nullopt;
        written << stem + QStringLiteral(".png");
        m_flags->resize(std::max(m_flags->width(), 900), std::max(m_flags->height(), 300));
        if (!m_flags->grab().save(stem + QStringLiteral("-flags.png"), "PNG"))
            return std::nullopt;
        written << stem + QStringLiteral("-flags.png");
    }
    m_tabs.setCurrentIndex(current);
    return written;
}

} // namespace clusterscope::app
