#pragma once

// Drives the Live tab: tests the connection (status/buildinfo), fetches and analyses a window of
// telemetry on a worker thread (QtConcurrent; the GUI thread never waits on the network), follows
// live on a timer (one refresh at a time: a tick while busy is skipped), cancels through the
// client's stop flag, and presents the result: alerts, per-link rows (with the scenario model's
// utilisation beside the measured one), the chart of the chosen link against its tier, and the
// current scenario's fabric coloured by measured utilisation. "Record window into project" stores
// the analysed window, downsampled, in the project's store.

#include "engine/telemetry/telemetryanalysis.h"
#include "engine/telemetry/utilisationseries.h"
#include "importers/telemetry/promclient.h"
#include "importers/telemetry/telemetryfetcher.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QTimer;

namespace clusterscope::engine {
struct ScenarioAnalysis;
}
namespace clusterscope::views {
class LiveView;
}

namespace clusterscope::app {

class ProjectDocument;

/// One analysed window: everything the Live tab shows, computed on the worker.
struct LiveSnapshot {
    std::shared_ptr<const engine::FabricGraph> graph; ///< with the mapping's NIC labels
    std::vector<float> modelled; ///< the scenario model's utilisation per link (empty: none)
    importers::TelemetryFetch fetch;
    engine::TelemetryReport report;
    std::vector<engine::TierSeries> tiers;
    double fetchS = 0.0; ///< queries (network + decoding)
    bool incremental = false; ///< only the samples appended since the previous window were fetched
    double analyseS = 0.0; ///< analyses + tier series
};

class LiveController : public QObject {
    Q_OBJECT
public:
    /// `analysis` returns the current scenario's newest analysis (its fabric and modelled load).
    LiveController(views::LiveView& view, ProjectDocument& document,
        std::function<std::shared_ptr<const engine::ScenarioAnalysis>()> analysis, QObject* parent = nullptr);
    ~LiveController() override;

    /// Cached per analysed scenario: the graph copy the mapping labels, the mapping, the profiles.
    struct Fabric;

    bool isBusy() const { return m_busy; }
    /// The newest analysed window (null before the first).
    std::shared_ptr<const LiveSnapshot> latest() const { return m_latest; }
    /// Seconds from the refresh request to the view showing its result (the last refresh).
    double lastRefreshS() const { return m_lastRefreshS; }

    /// A client with the Live tab's settings (URL, auth, TLS): other views reading the same server
    /// (the Runs tab's NIC overlay) use it.
    engine::Result<importers::PromClient> makeClient() const;

public Q_SLOTS:
    void testConnection();
    void refresh();
    void cancel();
    /// Stores the latest window in the project (document kind "telemetry_window"). Returns the
    /// error message, or an empty string.
    QString recordWindow();

Q_SIGNALS:
    void connectionTested(bool ok, const QString& text);
    void refreshed(bool ok, const QString& message);

private:
    void present();
    void presentScene();
    void chart(int link, int direction);
    void followChanged(bool on);

    views::LiveView& m_view;
    ProjectDocument& m_document;
    std::function<std::shared_ptr<const engine::ScenarioAnalysis>()> m_analysis;
    QTimer* m_follow = nullptr;
    bool m_busy = false;
    std::shared_ptr<std::atomic<bool>> m_stop;
    std::shared_ptr<const LiveSnapshot> m_latest;
    QElapsedTimer m_clock;
    double m_lastRefreshS = 0.0;
    int m_chartLink = -1;
    int m_chartDirection = 0;
    std::shared_ptr<Fabric> m_fabric;
    /// The last window's samples: a follow-mode refresh fetches only what was appended since.
    std::shared_ptr<importers::TelemetryCache> m_cache = std::make_shared<importers::TelemetryCache>();
    const engine::ScenarioAnalysis* m_fabricOf = nullptr;
};

} // namespace clusterscope::app
