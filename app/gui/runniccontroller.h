#pragma once

// Feeds the Runs tab's NIC overlay: when a run with wall-clock GPU events is shown and the Live tab
// is connected to a telemetry server, fetches the hosts' NIC transmit throughput over the run's
// window (importers/telemetry/nicthroughput) on a worker thread with the Live tab's client settings
// (URL, auth, TLS) and hands it to the overlay; the run's hosts (from its trace file names) are
// drawn, the selected rank's host bold. Showing another run cancels the fetch in flight. Otherwise
// the overlay says why there is nothing (no connection, relative times only, no series for the
// run's hosts, the server's error).

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace clusterscope::engine {
struct Run;
}
namespace clusterscope::views {
class LiveView;
class RunsView;
}

namespace clusterscope::app {

class LiveController;

class RunNicController : public QObject {
    Q_OBJECT
public:
    RunNicController(
        views::RunsView& runs, views::LiveView& live, LiveController& liveController, QObject* parent = nullptr);
    ~RunNicController() override;

    bool isBusy() const { return m_busy; }

Q_SIGNALS:
    /// A fetch ended (not emitted for a fetch abandoned because the run changed): `ok` when lines
    /// are drawn, else `message` is what the overlay says.
    void fetched(bool ok, const QString& message);

private:
    void eventsShown(const engine::Run& run);
    void eventsCleared();
    /// Fetches when a window is waiting and the Live tab is connected.
    void fetchIfConnected();
    void cancel();

    views::RunsView& m_runs;
    views::LiveView& m_live;
    LiveController& m_liveController;
    bool m_hasWindow = false;
    double m_startS = 0.0;
    double m_endS = 0.0;
    std::vector<std::string> m_hosts; ///< the run's hosts (sorted, unique; empty: unknown)
    QString m_fetchedUrl; ///< the server this run's window is being or was read from (empty: none yet)
    bool m_busy = false;
    int m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_stop;
};

} // namespace clusterscope::app
