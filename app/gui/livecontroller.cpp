#include "app/gui/livecontroller.h"

#include "app/gui/projectdocument.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/store/projectstore.h"
#include "engine/telemetry/measuredvsmodelled.h"
#include "engine/telemetry/telemetryrecord.h"
#include "importers/telemetry/fabricmapping.h"
#include "importers/telemetry/sourceprofile.h"
#include "views/fabric/fabricview.h"
#include "views/live/liveview.h"
#include "views/presentation/fabricscenebuilder.h"
#include "views/presentation/tiernames.h"

#include <QDateTime>
#include <QFutureWatcher>
#include <QLocale>
#include <QPointer>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace clusterscope::app {

using views::LiveView;

struct LiveController::Fabric {
    engine::FabricGraph graph; ///< a copy: the mapping labels its NICs as the telemetry names them
    std::unique_ptr<importers::FabricMapping> mapping;
    std::vector<importers::SourceProfile> profiles;
    std::vector<float> modelled;
};

namespace {

    struct Work {
        std::shared_ptr<LiveController::Fabric> fabric;
        std::shared_ptr<LiveSnapshot> snapshot;
        QString error;
    };

    double nowS() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

    QString seconds(double s) { return QString::number(s, 'f', s < 10 ? 2 : 1) + QStringLiteral(" s"); }

} // namespace

LiveController::LiveController(views::LiveView& view, ProjectDocument& document,
    std::function<std::shared_ptr<const engine::ScenarioAnalysis>()> analysis, QObject* parent)
    : QObject(parent)
    , m_view(view)
    , m_document(document)
    , m_analysis(std::move(analysis))
{
    m_follow = new QTimer(this);
    m_follow->setInterval(m_view.refreshSeconds() * 1000);
    connect(m_follow, &QTimer::timeout, this, &LiveController::refresh);
    connect(&m_view, &LiveView::testConnectionRequested, this, &LiveController::testConnection);
    connect(&m_view, &LiveView::refreshRequested, this, &LiveController::refresh);
    connect(&m_view, &LiveView::cancelRequested, this, &LiveController::cancel);
    connect(&m_view, &LiveView::recordRequested, this, [this] {
        const QString error = recordWindow();
        m_view.setSummary(error.isEmpty() ? m_view.summary() + tr(" · window recorded into the project") : error);
    });
    connect(&m_view, &LiveView::followChanged, this, &LiveController::followChanged);
    connect(&m_view, &LiveView::refreshIntervalChanged, this, [this](int s) { m_follow->setInterval(s * 1000); });
    connect(&m_view, &LiveView::presentationChanged, this, &LiveController::presentScene);
    connect(&m_view, &LiveView::linkChosen, this, &LiveController::chart);
    m_view.fabricView()->setDetailsProvider([this](const views::FabricSceneData& data, const views::ScenePick& pick) {
        if (!m_latest || !pick.isLink || pick.index < 0 || pick.index >= int(data.links.size()))
            return QString();
        const int id = data.links[std::size_t(pick.index)].graphLink;
        if (id < 0 || std::size_t(id) >= m_latest->report.utilisation.size())
            return QString();
        QString text = QStringLiteral("<b>%1</b>")
                           .arg(QString::fromStdString(engine::linkName(*m_latest->graph, id)).toHtmlEscaped());
        for (int dir = 0; dir < 2; ++dir) {
            const auto& u = m_latest->report.utilisation[std::size_t(id)][std::size_t(dir)];
            if (u.hasData)
                text += tr("<br>%1: average %2 %, p99 %3 %, 1-s peak %4 % (measured)")
                            .arg(dir == 0 ? tr("up") : tr("down"))
                            .arg(u.average * 100, 0, 'f', 1)
                            .arg(u.p99 * 100, 0, 'f', 1)
                            .arg(u.peak * 100, 0, 'f', 1);
        }
        return text;
    });
}

LiveController::~LiveController()
{
    if (m_stop)
        m_stop->store(true);
    for (auto* w : findChildren<QFutureWatcher<Work>*>())
        w->waitForFinished();
    for (auto* w : findChildren<QFutureWatcher<QString>*>())
        w->waitForFinished();
}

engine::Result<importers::PromClient> LiveController::makeClient() const
{
    importers::PromClientOptions o;
    o.url = m_view.url().toStdString();
    if (m_view.auth() == LiveView::Auth::Bearer)
        o.bearerToken = m_view.secret().toStdString();
    else if (m_view.auth() == LiveView::Auth::Basic) {
        o.basicUser = m_view.user().toStdString();
        o.basicPassword = m_view.secret().toStdString();
    }
    o.insecureTls = m_view.insecureTls();
    o.timeout = std::chrono::milliseconds(15000);
    o.maxAttempts = 2;
    return importers::PromClient::create(o);
}

void LiveController::testConnection()
{
    auto client = makeClient();
    if (!client) {
        m_view.setConnectionState(LiveView::Connection::Failed, QString::fromStdString(client.message()));
        Q_EMIT connectionTested(false, QString::fromStdString(client.message()));
        return;
    }
    m_view.setConnectionState(LiveView::Connection::Connecting, tr("testing %1 ...").arg(m_view.url()));
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
        watcher->deleteLater();
        const QString result = watcher->result();
        const bool ok = result.startsWith(QLatin1Char('+'));
        m_view.setConnectionState(ok ? LiveView::Connection::Connected : LiveView::Connection::Failed, result.mid(1));
        Q_EMIT connectionTested(ok, result.mid(1));
    });
    watcher->setFuture(QtConcurrent::run([c = std::move(client.value())]() -> QString {
        auto info = c.buildInfo();
        if (!info)
            return QStringLiteral("-") + QString::fromStdString(info.message());
        return QStringLiteral("+connected: Prometheus API %1 at %2")
            .arg(QString::fromStdString(info->version), QString::fromStdString(c.options().url));
    }));
}

void LiveController::followChanged(bool on)
{
    if (on) {
        m_follow->start(m_view.refreshSeconds() * 1000);
        refresh();
    } else
        m_follow->stop();
}

void LiveController::cancel()
{
    if (m_stop)
        m_stop->store(true);
}

void LiveController::refresh()
{
    if (m_busy)
        return; // a follow tick while the previous refresh runs is skipped, never queued
    auto analysis = m_analysis ? m_analysis() : nullptr;
    if (!analysis || !analysis->fabric) {
        m_view.setSummary(tr("The current scenario has no built fabric to attach telemetry to%1.")
                              .arg(analysis && !analysis->fabricError.empty()
                                      ? QStringLiteral(": ") + QString::fromStdString(analysis->fabricError)
                                      : QString()));
        Q_EMIT refreshed(false, m_view.summary());
        return;
    }
    auto client = makeClient();
    if (!client) {
        m_view.setConnectionState(LiveView::Connection::Failed, QString::fromStdString(client.message()));
        Q_EMIT refreshed(false, QString::fromStdString(client.message()));
        return;
    }
    double start = 0, end = 0;
    if (const double w = m_view.windowSeconds(); w > 0) {
        end = std::floor(nowS());
        start = end - w;
    } else {
        start = m_view.fixedStartS();
        end = m_view.fixedEndS();
    }
    if (!(end > start)) {
        m_view.setSummary(tr("The window is empty: its end is not after its start."));
        Q_EMIT refreshed(false, m_view.summary());
        return;
    }
    m_clock.start();
    m_busy = true;
    m_stop = std::make_shared<std::atomic<bool>>(false);
    m_view.setBusy(true);
    m_view.setProgress(0, 1);
    if (m_view.connectionState() != LiveView::Connection::Connected)
        m_view.setConnectionState(LiveView::Connection::Connecting, tr("querying %1 ...").arg(m_view.url()));
    auto fabric = m_fabricOf == analysis.get() ? m_fabric : nullptr;
    m_fabricOf = analysis.get();
    if (!fabric)
        m_cache = std::make_shared<importers::TelemetryCache>(); // its link ends belong to the old fabric

    auto* watcher = new QFutureWatcher<Work>(this);
    connect(watcher, &QFutureWatcher<Work>::finished, this, [this, watcher] {
        watcher->deleteLater();
        Work w = watcher->result();
        m_busy = false;
        m_view.setBusy(false);
        if (w.fabric)
            m_fabric = w.fabric;
        if (!w.snapshot && m_stop && m_stop->load()) {
            // Cancelled by the user: the connection and the last window stay as they were.
            const QString note = tr(" · refresh cancelled: this is the previous window");
            if (!m_view.summary().endsWith(note))
                m_view.setSummary(m_view.summary() + note);
            Q_EMIT refreshed(false, tr("cancelled: %1").arg(w.error));
            return;
        }
        if (!w.snapshot) {
            m_view.setConnectionState(LiveView::Connection::Failed, w.error);
            Q_EMIT refreshed(false, w.error);
            return;
        }
        m_latest = w.snapshot;
        m_view.setConnectionState(LiveView::Connection::Connected,
            tr("connected: Prometheus API %1 at %2")
                .arg(QString::fromStdString(m_latest->fetch.build.version), m_view.url()));
        present();
        m_lastRefreshS = m_clock.elapsed() / 1000.0;
        m_view.setSummary(m_view.summary() + tr(" · shown %1 after the request").arg(seconds(m_lastRefreshS)));
        m_view.setRecordEnabled(true);
        Q_EMIT refreshed(true, m_view.summary());
    });
    QPointer<LiveController> self(this);
    watcher->setFuture(QtConcurrent::run([self, analysis, fabric, cache = m_cache, c = std::move(client.value()),
                                             stop = m_stop, start, end]() mutable -> Work {
        Work w;
        QElapsedTimer t;
        t.start();
        if (!fabric) {
            fabric = std::make_shared<Fabric>();
            fabric->graph = analysis->fabric->graph;
            fabric->mapping = std::make_unique<importers::FabricMapping>(fabric->graph, importers::HostNaming {});
            auto profiles = importers::builtinSourceProfiles();
            if (!profiles) {
                w.error = QString::fromStdString(profiles.message());
                return w;
            }
            fabric->profiles = std::move(profiles.value());
            fabric->modelled = analysis->load.linkUtilisation;
        }
        w.fabric = fabric;
        c.setStopFlag(stop.get());
        auto fetched = importers::fetchTelemetry(
            c, *fabric->mapping, fabric->profiles, start, end,
            [&](int done, int total) {
                QMetaObject::invokeMethod(
                    self, [self, done, total] { self->m_view.setProgress(done, total); }, Qt::QueuedConnection);
            },
            importers::FetchOptions {}, cache.get());
        if (!fetched) {
            w.error = QString::fromStdString(fetched.message());
            return w;
        }
        auto snap = std::make_shared<LiveSnapshot>();
        snap->fetchS = t.elapsed() / 1000.0;
        t.restart();
        snap->graph = std::shared_ptr<const engine::FabricGraph>(fabric, &fabric->graph);
        snap->modelled = fabric->modelled;
        snap->fetch = std::move(fetched.value());
        snap->incremental = cache->incremental > 0;
        snap->report = engine::analyseTelemetry(fabric->graph, snap->fetch.data, engine::AlertRules::defaults());
        snap->tiers = engine::tierUtilisationSeries(fabric->graph, snap->fetch.data);
        snap->analyseS = t.elapsed() / 1000.0;
        w.snapshot = std::move(snap);
        return w;
    }));
}

void LiveController::present()
{
    const LiveSnapshot& s = *m_latest;
    const engine::FabricGraph& g = *s.graph;
    const engine::TelemetryReport& r = s.report;

    std::vector<views::LiveAlertRow> alerts;
    std::vector<char> alerted(g.linkCount(), 0);
    for (const auto& a : r.alerts) {
        views::LiveAlertRow row;
        row.severity = QString::fromLatin1(engine::toString(a.severity));
        row.rule = QString::fromStdString(a.rule);
        row.link = a.link == engine::kNoId ? QString() : QString::fromStdString(engine::linkName(g, a.link));
        row.message = QString::fromStdString(a.message);
        row.linkId = a.link == engine::kNoId ? -1 : int(a.link);
        row.direction = a.direction;
        if (a.link != engine::kNoId && a.link < g.linkCount())
            alerted[a.link] = 1;
        alerts.push_back(std::move(row));
    }
    // Critical first, then warnings, then information.
    std::stable_sort(alerts.begin(), alerts.end(), [](const auto& x, const auto& y) {
        auto rank = [](const QString& sev) {
            return sev == QLatin1String("critical") ? 0 : sev == QLatin1String("warning") ? 1 : 2;
        };
        return rank(x.severity) < rank(y.severity);
    });
    m_view.setAlerts(alerts);

    std::vector<double> errors(g.linkCount(), 0.0);
    for (const auto& e : r.errors)
        if (e.link < g.linkCount())
            errors[e.link] += e.increase[0] + e.increase[1];
    std::map<std::pair<engine::LinkId, int>, double> paused;
    for (const auto& p : r.pfc)
        paused[{ p.link, p.direction }] = std::max(p.receivedFraction, p.sentFraction);
    std::vector<views::LiveLinkRow> rows;
    for (engine::LinkId id = 0; id < r.utilisation.size(); ++id)
        for (int dir = 0; dir < 2; ++dir) {
            const auto& u = r.utilisation[id][std::size_t(dir)];
            if (!u.hasData)
                continue;
            views::LiveLinkRow row;
            row.link = int(id);
            row.direction = dir;
            row.name = QString::fromStdString(engine::linkName(g, id));
            row.tier = views::linkLevelLabel(g.level(id));
            row.average = u.average;
            row.p99 = u.p99;
            row.peak = u.peak;
            row.errors = errors[id];
            if (const auto it = paused.find({ id, dir }); it != paused.end())
                row.pfcPaused = it->second;
            if (id < s.modelled.size())
                row.modelled = s.modelled[id];
            row.alert = alerted[id] != 0;
            rows.push_back(std::move(row));
        }
    m_view.setRows(std::move(rows));

    const QLocale locale;
    QString summary
        = tr("Prometheus %1 · window %2 at %3 samples · %4 links measured, %5 without data (gaps, not "
             "zeros) · %6 series mapped, %7 unmatched · %8 alerts · %9 requests: fetch %10, analysis %11")
              .arg(QString::fromStdString(s.fetch.build.version), seconds(r.windowS), seconds(r.sampleIntervalS),
                  locale.toString(qulonglong(r.linksMeasured)), locale.toString(qulonglong(r.linksWithoutData)),
                  locale.toString(qulonglong(s.fetch.seriesMapped)),
                  locale.toString(qulonglong(s.fetch.seriesUnmatched)), QString::number(r.alerts.size()),
                  QString::number(s.fetch.requests), seconds(s.fetchS), seconds(s.analyseS));
    if (s.incremental)
        summary += tr(" · only the new samples fetched");
    if (r.period.found)
        summary += tr(" · iteration period %1").arg(seconds(r.period.periodS));
    // Measured against the scenario model, per tier (the definition the CLI's JSON uses).
    QStringList tiers;
    for (const auto& t : engine::compareMeasuredWithModelled(g, r, s.modelled))
        tiers << tr("%1 %2 % (model %3 %)")
                     .arg(views::linkLevelLabel(t.level))
                     .arg(t.measured * 100, 0, 'f', 1)
                     .arg(t.modelled * 100, 0, 'f', 1);
    if (!tiers.isEmpty())
        summary += tr(" · measured vs modelled: ") + tiers.join(QStringLiteral(", "));
    m_view.setSummary(summary);
    presentScene();

    // Chart: the link chosen before if it still has data, else the first alert's link, else the busiest.
    int link = m_chartLink, direction = m_chartDirection;
    if (link < 0 || std::size_t(link) >= r.utilisation.size()
        || !r.utilisation[std::size_t(link)][std::size_t(direction)].hasData) {
        link = -1;
        for (const auto& a : r.alerts)
            if (a.link != engine::kNoId && a.link < r.utilisation.size()) {
                link = int(a.link);
                direction = a.direction < 0 ? 0 : a.direction;
                break;
            }
    }
    if (link >= 0)
        chart(link, direction);
}

void LiveController::presentScene()
{
    if (!m_latest)
        return;
    const LiveSnapshot& s = *m_latest;
    const engine::TelemetryReport& r = s.report;
    engine::FabricGraph g = *s.graph;
    // Links whose counters show errors or a link-down are drawn flagged.
    for (const auto& a : r.alerts)
        if ((a.kind == engine::AlertKind::LinkErrors || a.kind == engine::AlertKind::LinkDown)
            && a.link < g.linkCount())
            g.link(a.link).flags |= engine::kLinkDegraded;
    const auto by = m_view.colourBy();
    std::vector<float> values(g.linkCount(), -1.0f);
    float busiest = 0.0f;
    for (engine::LinkId id = 0; id < r.utilisation.size(); ++id)
        for (const auto& u : r.utilisation[id]) {
            if (!u.hasData)
                continue;
            const double v = by == LiveView::ColourBy::Peak ? u.peak
                : by == LiveView::ColourBy::Average         ? u.average
                                                            : u.p99;
            values[id] = std::max(values[id], float(v));
            busiest = std::max(busiest, float(v));
        }
    const bool relative = m_view.relativeScale() && busiest > 0;
    if (relative)
        for (float& v : values)
            if (v >= 0)
                v /= busiest;
    const QString what = by == LiveView::ColourBy::Peak ? tr("1-s peak")
        : by == LiveView::ColourBy::Average             ? tr("average")
                                                        : tr("p99");
    const QString window
        = QDateTime::fromSecsSinceEpoch(qint64(s.fetch.data.startS)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
        + QStringLiteral(" + ") + seconds(r.windowS);
    views::FabricSceneData scene = views::sceneFromGraph(g, views::SceneLayout::Tiers, values,
        tr("MEASURED %1 utilisation, %2%3")
            .arg(what, window,
                relative ? tr(" (relative to the busiest link, %1 %)").arg(busiest * 100, 0, 'f', 1) : QString())
            .toStdString());
    scene.valueTitle = (relative ? tr("Measured\n%1\n(% of busiest)") : tr("Measured\n%1")).arg(what).toStdString();
    scene.flagLegend = tr("Links with errors (measured)").toStdString();
    m_view.setScene(scene);
}

void LiveController::chart(int link, int direction)
{
    if (!m_latest || link < 0 || std::size_t(link) >= m_latest->graph->linkCount())
        return;
    m_chartLink = link;
    m_chartDirection = direction;
    const LiveSnapshot& s = *m_latest;
    const engine::FabricGraph& g = *s.graph;
    views::LiveChartData d;
    const auto series = engine::linkUtilisationSeries(g, s.fetch.data, engine::LinkId(link), direction);
    d.startS = series.startS;
    d.stepS = series.stepS;
    d.link = series.values;
    d.linkLabel = QString::fromStdString(engine::linkName(g, engine::LinkId(link)))
        + (direction == 0 ? tr(" (up)") : tr(" (down)"));
    const engine::LinkLevel level = g.level(engine::LinkId(link));
    d.tierLabel = views::linkLevelLabel(level) + (direction == 0 ? tr(" up") : tr(" down"));
    for (const auto& t : s.tiers)
        if (t.level == level && t.direction == direction) {
            d.tierAverage = t.average.values;
            d.tierPeak = t.peak.values;
        }
    m_view.setChart(d);
}

QString LiveController::recordWindow()
{
    if (!m_latest)
        return tr("Nothing to record: refresh a window first.");
    engine::ProjectStore* store = m_document.store();
    if (!store)
        return tr("Save the project first: the window is recorded into the project's file.");
    const LiveSnapshot& s = *m_latest;
    const std::string json = engine::telemetryWindowJson(*s.graph, s.fetch.data, s.report, s.tiers, 120);
    const std::string name = engine::telemetryWindowName(s.fetch.data.startS, s.fetch.data.endS);
    if (auto st = store->putDocument(std::string(engine::kTelemetryWindowKind), name, json); !st)
        return QString::fromStdString(st.message());
    return {};
}

} // namespace clusterscope::app
