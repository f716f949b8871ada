#include "app/gui/runniccontroller.h"

#include "app/gui/livecontroller.h"
#include "engine/run/runmodel.h"
#include "importers/telemetry/nicthroughput.h"
#include "importers/telemetry/sourceprofile.h"
#include "views/live/liveview.h"
#include "views/runs/nicoverlay.h"
#include "views/runs/runsview.h"

#include <QFutureWatcher>
#include <QtConcurrent>

#include <algorithm>
#include <cmath>

namespace clusterscope::app {

namespace {
    /// At most this many points per host over the run's window (whole seconds apart at least:
    /// the exporters' counters move once a second or slower).
    constexpr double kMaxPoints = 600.0;

    struct Fetched {
        QString error;
        importers::NicThroughput nic;
    };

    QString joined(const std::vector<std::string>& names, std::size_t max)
    {
        QStringList out;
        for (std::size_t i = 0; i < names.size() && i < max; ++i)
            out << QString::fromStdString(names[i]);
        if (names.size() > max)
            out << QStringLiteral("…");
        return out.join(QStringLiteral(", "));
    }
} // namespace

RunNicController::RunNicController(
    views::RunsView& runs, views::LiveView& live, LiveController& liveController, QObject* parent)
    : QObject(parent)
    , m_runs(runs)
    , m_live(live)
    , m_liveController(liveController)
{
    connect(&m_runs, &views::RunsView::eventsShown, this, &RunNicController::eventsShown);
    connect(&m_runs, &views::RunsView::eventsCleared, this, &RunNicController::eventsCleared);
    // A connection made (or a window refreshed) after the run was shown: fetch then.
    connect(&m_liveController, &LiveController::connectionTested, this, [this](bool ok, const QString&) {
        if (ok)
            fetchIfConnected();
    });
    connect(&m_liveController, &LiveController::refreshed, this, [this](bool ok, const QString&) {
        if (ok)
            fetchIfConnected();
    });
}

RunNicController::~RunNicController() { cancel(); }

void RunNicController::cancel()
{
    if (m_stop)
        m_stop->store(true);
    m_stop.reset();
    ++m_generation; // a result still on its way is dropped
    m_busy = false;
}

void RunNicController::eventsCleared()
{
    cancel();
    m_hasWindow = false;
    m_hosts.clear();
    m_fetchedUrl.clear();
    m_runs.setRankHosts({});
}

void RunNicController::eventsShown(const engine::Run& run)
{
    cancel();
    m_fetchedUrl.clear();
    views::NicOverlay* overlay = m_runs.nicOverlay();
    // The hosts, from the trace file names (rank -> host for the highlight).
    std::vector<QString> rankHosts;
    m_hosts.clear();
    for (const auto& r : run.ranks) {
        const std::string host = importers::traceFileHost(r.sourceFile);
        if (host.empty() || r.rank < 0)
            continue;
        if (std::size_t(r.rank) >= rankHosts.size())
            rankHosts.resize(std::size_t(r.rank) + 1);
        rankHosts[std::size_t(r.rank)] = QString::fromStdString(host);
        m_hosts.push_back(host);
    }
    std::sort(m_hosts.begin(), m_hosts.end());
    m_hosts.erase(std::unique(m_hosts.begin(), m_hosts.end()), m_hosts.end());
    m_runs.setRankHosts(std::move(rankHosts));
    auto window = importers::runWallClockWindowS(run);
    m_hasWindow = bool(window);
    if (!window) {
        overlay->setMessage(tr("No NIC throughput for this run: %1.").arg(QString::fromStdString(window.message())));
        return;
    }
    m_startS = window->first;
    m_endS = window->second;
    fetchIfConnected();
}

void RunNicController::fetchIfConnected()
{
    if (!m_hasWindow)
        return;
    views::NicOverlay* overlay = m_runs.nicOverlay();
    if (m_live.connectionState() != views::LiveView::Connection::Connected) {
        overlay->setMessage(tr("No telemetry source connected: connect one in the Live tab (Test connection) to see "
                               "the hosts' NIC throughput over this run's window."));
        return;
    }
    if (m_fetchedUrl == m_live.url())
        return; // this run's window is being read, or was read, from this server
    auto client = m_liveController.makeClient();
    if (!client) {
        overlay->setMessage(tr("No NIC throughput: %1").arg(QString::fromStdString(client.message())));
        return;
    }
    cancel();
    m_stop = std::make_shared<std::atomic<bool>>(false);
    m_busy = true;
    m_fetchedUrl = m_live.url();
    const int generation = m_generation;
    const double startS = m_startS, endS = m_endS;
    const double stepS = std::max(1.0, std::ceil((endS - startS) / kMaxPoints));
    overlay->setMessage(tr("Reading the hosts' NIC throughput over the run's window from %1 …").arg(m_fetchedUrl));

    auto* watcher = new QFutureWatcher<Fetched>(this);
    connect(watcher, &QFutureWatcher<Fetched>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // the run changed (or the fetch was cancelled) meanwhile
        m_busy = false;
        const Fetched result = watcher->result();
        views::NicOverlay* overlay = m_runs.nicOverlay();
        if (!result.error.isEmpty()) {
            const QString text = tr("No NIC throughput: %1").arg(result.error);
            m_fetchedUrl.clear(); // the next connection test or refresh tries again
            overlay->setMessage(text);
            Q_EMIT fetched(false, text);
            return;
        }
        // The run's hosts only; all the server's hosts when the trace names do not say.
        std::vector<views::NicOverlayHost> lines;
        std::vector<std::string> serverHosts;
        for (const auto& h : result.nic.hosts) {
            serverHosts.push_back(h.host);
            const bool ours = m_hosts.empty()
                || std::any_of(m_hosts.begin(), m_hosts.end(),
                    [&](const std::string& mine) { return importers::sameHost(mine, h.host); });
            if (ours)
                lines.push_back({ QString::fromStdString(h.host), h.txBytesPerS });
        }
        if (lines.empty()) {
            const QString text = m_hosts.empty()
                ? tr("No NIC series on %1 over this run's window.").arg(m_fetchedUrl)
                : tr("No NIC series for this run's hosts (%1) on %2; it has %3 host(s): %4.")
                      .arg(joined(m_hosts, 4), m_fetchedUrl)
                      .arg(serverHosts.size())
                      .arg(joined(serverHosts, 4));
            overlay->setMessage(text);
            Q_EMIT fetched(false, text);
            return;
        }
        // The overlay's host names are the trace's where they differ only by domain, so the
        // highlight (rank -> trace host) finds them.
        for (auto& line : lines)
            for (const auto& mine : m_hosts)
                if (importers::sameHost(mine, line.host.toStdString()))
                    line.host = QString::fromStdString(mine);
        overlay->setThroughput(result.nic.startS, result.nic.stepS, std::move(lines));
        Q_EMIT fetched(true, {});
    });
    watcher->setFuture(QtConcurrent::run([c = std::move(client.value()), stop = m_stop, startS, endS, stepS]() mutable {
        Fetched out;
        c.setStopFlag(stop.get());
        auto profiles = importers::builtinSourceProfiles();
        if (!profiles) {
            out.error = QString::fromStdString(profiles.message());
            return out;
        }
        auto nic = importers::fetchNicThroughput(c, *profiles, startS, endS, stepS);
        if (!nic)
            out.error = QString::fromStdString(nic.message());
        else
            out.nic = std::move(nic.value());
        return out;
    }));
}

} // namespace clusterscope::app
