#include "app/gui/projectdocument.h"

#include "app/gui/scenariocommands.h"
#include "engine/calibration/calibrationjson.h"
#include "engine/scenario/scenariojson.h"
#include "engine/store/projectdocuments.h"
#include "engine/store/projectstore.h"
#include "resources/embeddedresources.h"

#include <QFileInfo>

#include <QUndoStack>
#include <algorithm>

namespace clusterscope::app {

using engine::ProjectStore;

using engine::Scenario;

ProjectDocument::ProjectDocument(QObject* parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
{
}

ProjectDocument::~ProjectDocument() = default;

void ProjectDocument::setContent(
    std::vector<Scenario> scenarios, std::vector<std::int64_t> ids, QString path, std::unique_ptr<ProjectStore> store)
{
    m_scenarios = std::move(scenarios);
    m_ids = std::move(ids);
    m_ids.resize(m_scenarios.size(), 0);
    m_path = std::move(path);
    m_store = std::move(store);
    m_undo->clear();
    m_undo->setClean();
    Q_EMIT reset();
    Q_EMIT pathChanged();
}

void ProjectDocument::loadExample()
{
    std::vector<Scenario> list;
    for (const auto& f : resources::embeddedFiles()) {
        if (f.path.rfind("examples/", 0) != 0)
            continue;
        auto s = engine::parseScenarioJson(f.contents, std::string(f.path));
        if (s) // the examples are tested to parse; a broken one would be skipped, not shown half-read
            list.push_back(std::move(*s));
    }
    // The flagship example first.
    std::stable_sort(list.begin(), list.end(), [](const Scenario& a, const Scenario& b) {
        return (a.name.rfind("Llama", 0) == 0) > (b.name.rfind("Llama", 0) == 0);
    });
    setContent(std::move(list), {}, {}, nullptr);
}

void ProjectDocument::clear() { setContent({}, {}, {}, nullptr); }

std::optional<QString> ProjectDocument::open(const QString& path)
{
    auto store = ProjectStore::open(path.toStdString());
    if (!store)
        return QString::fromStdString(store.message());
    auto stored = store->scenarios();
    if (!stored)
        return QString::fromStdString(stored.message());
    std::vector<Scenario> scenarios;
    std::vector<std::int64_t> ids;
    for (auto& s : *stored) {
        ids.push_back(s.id);
        scenarios.push_back(std::move(s.scenario));
    }
    setContent(std::move(scenarios), std::move(ids), QFileInfo(path).absoluteFilePath(),
        std::make_unique<ProjectStore>(std::move(*store)));
    return std::nullopt;
}

std::optional<QString> ProjectDocument::save()
{
    if (!m_store)
        return tr("The project has no file yet: use Save As.");
    std::vector<engine::StoredScenario> list;
    for (std::size_t i = 0; i < m_scenarios.size(); ++i)
        list.push_back({ m_ids[i], m_scenarios[i] });
    auto ids = m_store->saveScenarios(list);
    if (!ids)
        return QString::fromStdString(ids.message());
    m_ids = std::move(*ids);
    m_undo->setClean();
    return std::nullopt;
}

std::optional<QString> ProjectDocument::saveAs(const QString& path)
{
    const std::string target = QFileInfo(path).absoluteFilePath().toStdString();
    if (m_store) {
        if (auto s = m_store->saveAs(target); !s)
            return QString::fromStdString(s.message());
    } else {
        auto created = ProjectStore::create(target);
        if (!created)
            return QString::fromStdString(created.message());
        m_store = std::make_unique<ProjectStore>(std::move(*created));
        std::fill(m_ids.begin(), m_ids.end(), 0);
    }
    m_path = QString::fromStdString(target);
    Q_EMIT pathChanged();
    return save();
}

QString ProjectDocument::displayName() const
{
    if (m_path.isEmpty())
        return m_scenarios.empty() ? tr("Untitled project") : tr("Example project");
    return QFileInfo(m_path).fileName();
}

engine::Result<std::optional<engine::CalibrationSet>> ProjectDocument::calibration() const
{
    if (!m_store)
        return std::optional<engine::CalibrationSet>();
    auto names = m_store->documentNames(engine::kCalibrationDocumentKind);
    if (!names)
        return names.status();
    if (std::find(names->begin(), names->end(), std::string(engine::kCalibrationDocumentName)) == names->end())
        return std::optional<engine::CalibrationSet>();
    auto text = m_store->document(engine::kCalibrationDocumentKind, engine::kCalibrationDocumentName);
    if (!text)
        return text.status();
    auto set = engine::calibrationFromJson(*text, m_store->path() + " (calibration)");
    if (!set)
        return set.status();
    return std::optional<engine::CalibrationSet>(std::move(*set));
}

bool ProjectDocument::isModified() const { return !m_undo->isClean(); }

void ProjectDocument::addScenario(const Scenario& scenario, int at)
{
    if (at < 0 || at > int(m_scenarios.size()))
        at = int(m_scenarios.size());
    m_undo->push(new InsertScenarioCommand(this, at, scenario));
}

void ProjectDocument::removeScenario(int index)
{
    if (index >= 0 && index < int(m_scenarios.size()))
        m_undo->push(new RemoveScenarioCommand(this, index));
}

void ProjectDocument::renameScenario(int index, const QString& name)
{
    if (index < 0 || index >= int(m_scenarios.size()))
        return;
    Scenario renamed = m_scenarios[std::size_t(index)];
    renamed.name = name.toStdString();
    replaceScenario(index, renamed, tr("Rename scenario"));
}

void ProjectDocument::replaceScenario(int index, const Scenario& scenario, const QString& what)
{
    if (index < 0 || index >= int(m_scenarios.size()) || m_scenarios[std::size_t(index)] == scenario)
        return;
    m_undo->push(new ReplaceScenarioCommand(this, index, scenario, what));
}

void ProjectDocument::insertRaw(int index, const Scenario& scenario)
{
    m_scenarios.insert(m_scenarios.begin() + index, scenario);
    m_ids.insert(m_ids.begin() + index, 0);
    Q_EMIT scenarioInserted(index);
}

Scenario ProjectDocument::takeRaw(int index)
{
    Scenario s = std::move(m_scenarios[std::size_t(index)]);
    m_scenarios.erase(m_scenarios.begin() + index);
    m_ids.erase(m_ids.begin() + index);
    Q_EMIT scenarioRemoved(index);
    return s;
}

void ProjectDocument::setRaw(int index, const Scenario& scenario)
{
    m_scenarios[std::size_t(index)] = scenario;
    Q_EMIT scenarioChanged(index);
}

} // namespace clusterscope::app
