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
    struct Outcome {
        engine::ScenarioAnalysis analysis;
        std::vector<engine::TrainingEstimate> rankedWithContention;
    };
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
    for (auto* watcher : findChildren<QFutureWatcher<Outcome>*>()) {
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

    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
        --m_running;
        Outcome result = watcher->result();
        watcher->deleteLater();
        if (generation != m_generation || result.analysis.cancelled) {
            if (generation == m_generation)
                Q_EMIT cancelled();
            return;
        }
        m_latest = std::make_shared<const engine::ScenarioAnalysis>(std::move(result.analysis));
        m_rankedWithContention = std::move(result.rankedWithContention);
        Q_EMIT finished(m_latest);
    });
    const engine::Catalog& catalog = m_catalog;
    const engine::PriceBook& prices = m_prices;
    // The worker keeps the calibration alive even if a new one is set meanwhile.
    const std::shared_ptr<const engine::CollectiveCalibration> calibration = m_calibration;
    watcher->setFuture(QtConcurrent::run([scenario, &catalog, &prices, options, calibration]() mutable {
        options.calibration = calibration.get();
        Outcome out;
        out.analysis = engine::analyseScenario(scenario, catalog, prices, options);
        out.rankedWithContention = engine::rankedWithContention(scenario, out.analysis, kContendedRanked, options.stop);
        if (options.stop.stop_requested())
            out.analysis.cancelled = true;
        return out;
    }));
}

void AnalysisRunner::cancel()
{
    if (m_running == 0)
        return;
    m_stop.request_stop();
    ++m_generation; // whatever is running now is superseded
    Q_EMIT cancelled();
}

void AnalysisRunner::waitUntilIdle()
{
    while (m_running > 0)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

} // namespace clusterscope::app
