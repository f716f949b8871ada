#pragma once

// Runs engine::analyseScenario on a worker thread (QtConcurrent), then, on a second worker, the
// search's fastest strategies with the contention of their own traffic (engine::rankedWithContention):
// the views get the analysis first (finished) and fill the "With contention" times when they come
// (rankedWithContentionFinished). The newest request wins: a new request cancels the running work
// through its stop token, and results of superseded requests are dropped. Progress and results are
// delivered on the GUI thread, progress throttled to ~20 Hz.

#include "engine/analysis/contendedranking.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/scenario/scenario.h"
#include "engine/training/computecalibration.h"

#include <QElapsedTimer>
#include <QObject>

#include <memory>
#include <optional>
#include <stop_token>

namespace clusterscope::engine {
class Catalog;
class PriceBook;
}

namespace clusterscope::app {

class AnalysisRunner : public QObject {
    Q_OBJECT
public:
    AnalysisRunner(const engine::Catalog& catalog, const engine::PriceBook& prices, QObject* parent = nullptr);
    ~AnalysisRunner() override;

    /// The collective calibration to use from now on (none: NCCL's defaults).
    void setCalibration(std::optional<engine::CollectiveCalibration> calibration);

    /// The project's compute calibration to use from now on (none: the documented defaults). It is
    /// applied to each requested scenario fitted on its GPU and dtype (applyProjectComputeCalibration),
    /// as the CLI's evaluate --project and the report do.
    void setComputeCalibration(std::optional<engine::ProjectComputeCalibration> calibration);
    const std::optional<engine::ProjectComputeCalibration>& computeCalibration() const { return m_computeCalibration; }

    /// Starts analysing `scenario` (a copy is taken), cancelling any analysis still running.
    /// `issues`, when given, are the scenario's validation issues already found by the caller
    /// (validation runs once per edit).
    void request(
        const engine::Scenario& scenario, std::optional<std::vector<engine::ValidationIssue>> issues = std::nullopt);
    /// Cancels the running analysis and contended ranking (nothing is delivered for them).
    void cancel();
    /// An analysis or its contended ranking is running.
    bool isBusy() const { return m_running > 0 || m_ranking > 0; }
    /// The analysis is running (the contended ranking may follow it).
    bool isAnalysing() const { return m_running > 0; }
    /// latest() was delivered and its contended ranking is still being computed.
    bool isRankingWithContention() const { return m_ranking > 0; }
    /// Blocks (processing events) until neither an analysis nor a contended ranking is running; for
    /// tests and batch export.
    void waitUntilIdle();

    /// The newest finished analysis (null before the first).
    std::shared_ptr<const engine::ScenarioAnalysis> latest() const { return m_latest; }
    /// The first kContendedRanked strategies of latest()'s search with the contention of their own
    /// traffic (engine::rankedWithContention): what the tabs show once one is applied. Empty from
    /// finished() until rankedWithContentionFinished() (and when there is no search or routed fabric).
    const std::vector<engine::TrainingEstimate>& rankedWithContention() const { return m_rankedWithContention; }
    static constexpr std::size_t kContendedRanked = engine::kContendedRankedCount;

Q_SIGNALS:
    void started();
    void progress(double fraction);
    void finished(std::shared_ptr<const engine::ScenarioAnalysis> analysis);
    /// rankedWithContention() now holds the contended ranking of latest() (after finished()).
    void rankedWithContentionFinished();
    void cancelled();

private:
    const engine::Catalog& m_catalog;
    const engine::PriceBook& m_prices;
    std::stop_source m_stop;
    quint64 m_generation = 0;
    int m_running = 0;
    int m_ranking = 0;
    void startRanking(const engine::Scenario& scenario, quint64 generation);
    std::shared_ptr<const engine::ScenarioAnalysis> m_latest;
    std::vector<engine::TrainingEstimate> m_rankedWithContention;
    std::shared_ptr<const engine::CollectiveCalibration> m_calibration;
    std::optional<engine::ProjectComputeCalibration> m_computeCalibration;
    QElapsedTimer m_progressClock;
};

} // namespace clusterscope::app
