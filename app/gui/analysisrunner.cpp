#include "app/gui/analysisrunner.h"

#include "engine/analysis/contendedranking.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace clusterscope::app {

namespace {
    using Ranked = std::vector<engine::TrainingEstimate>;
}

AnalysisRunner::AnalysisRunner(const engine::Catalog& catalog, const engine::PriceBook& prices, QObject* parent)
    : QObject(parent)
    , m_catalog(catalog)
    , m_prices(prices)
{
    m_progressClock.start();
}

AnalysisRunner::~AnalysisRunner()
{
    // Workers capture the catalog and price book by reference: stop them and block until they
    // are done, without running the event loop (we may be inside a widget's destructor).
    m_stop.request_stop();
    for (auto* watcher : findChildren<QFutureWatcher<engine::ScenarioAnalysis>*>()) {
        watcher->disconnect(this);
        watcher->future().waitForFinished();
    }
    for (auto* watcher : findChildren<QFutureWatcher<Ranked>*>()) {
        watcher->disconnect(this);
        watcher->future().waitForFinished();
    }
}

void AnalysisRunner::setCalibration(std::optional<engine::CollectiveCalibration> calibration)
{
    m_calibration
        = calibration ? std::make_shared<const engine::CollectiveCalibration>(std::move(*calibration)) : nullptr;
}

void AnalysisRunner::setComputeCalibration(std::optional<engine::ProjectComputeCalibration> calibration)
{
    m_computeCalibration = std::move(calibration);
}

void AnalysisRunner::request(
    const engine::Scenario& requested, std::optional<std::vector<engine::ValidationIssue>> issues)
{
    engine::Scenario scenario = requested;
    if (m_computeCalibration)
        (void)engine::applyProjectComputeCalibration(*m_computeCalibration, scenario); // other GPUs: as given
    m_stop.request_stop();
    m_stop = std::stop_source();
    const quint64 generation = ++m_generation;
    ++m_running;
    Q_EMIT started();

    engine::AnalysisOptions options;
    options.stop = m_stop.get_token();
    options.knownIssues = std::move(issues);
    options.timeContention = false; // the views colour links by load; max-min timing is for reports
    QPointer<AnalysisRunner> self(this);
    options.progress = [self, generation](double fraction) {
        // Called on the worker: hop to the GUI thread; drop if superseded or too frequent.
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, fraction] {
                if (!self || generation != self->m_generation)
                    return;
                if (fraction < 1.0 && self->m_progressClock.elapsed() < 50)
                    return;
                self->m_progressClock.restart();
                Q_EMIT self->progress(fraction);
            },
            Qt::QueuedConnection);
    };

    auto* watcher = new QFutureWatcher<engine::ScenarioAnalysis>(this);
    connect(watcher, &QFutureWatcher<engine::ScenarioAnalysis>::finished, this, [this, watcher, generation, scenario] {
        --m_running;
        engine::ScenarioAnalysis result = watcher->result();
        watcher->deleteLater();
        if (generation != m_generation || result.cancelled) {
            if (generation == m_generation)
                Q_EMIT cancelled();
            return;
        }
        m_latest = std::make_shared<const engine::ScenarioAnalysis>(std::move(result));
        m_rankedWithContention.clear();
        // Counted before finished() so that its handlers already see the ranking as pending.
        const bool rank = m_latest->search && !m_latest->search->ranked.empty() && m_latest->load.routed;
        if (rank)
            ++m_ranking;
        Q_EMIT finished(m_latest);
        if (rank)
            startRanking(scenario, generation);
    });
    const engine::Catalog& catalog = m_catalog;
    const engine::PriceBook& prices = m_prices;
    // The worker keeps the calibration alive even if a new one is set meanwhile.
    const std::shared_ptr<const engine::CollectiveCalibration> calibration = m_calibration;
    watcher->setFuture(QtConcurrent::run([scenario, &catalog, &prices, options, calibration]() mutable {
        options.calibration = calibration.get();
        return engine::analyseScenario(scenario, catalog, prices, options);
    }));
}

void AnalysisRunner::startRanking(const engine::Scenario& scenario, quint64 generation)
{
    // m_ranking was counted by the caller. The worker shares the delivered analysis (immutable) and
    // the stop token of its request: a newer request cancels it.
    auto* watcher = new QFutureWatcher<Ranked>(this);
    connect(watcher, &QFutureWatcher<Ranked>::finished, this, [this, watcher, generation] {
        --m_ranking;
        Ranked ranked = watcher->result();
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        m_rankedWithContention = std::move(ranked);
        Q_EMIT rankedWithContentionFinished();
    });
    const std::shared_ptr<const engine::ScenarioAnalysis> analysis = m_latest;
    const std::stop_token stop = m_stop.get_token();
    watcher->setFuture(QtConcurrent::run([scenario, analysis, stop] {
        return engine::rankedWithContention(scenario, *analysis, kContendedRanked, stop);
    }));
}

void AnalysisRunner::cancel()
{
    if (!isBusy())
        return;
    m_stop.request_stop();
    ++m_generation; // whatever is running now is superseded
    Q_EMIT cancelled();
}

void AnalysisRunner::waitUntilIdle()
{
    while (isBusy())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

} // namespace clusterscope::app
