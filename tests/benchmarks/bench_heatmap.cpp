// GPU-pair traffic heatmap speed on 16,384 GPUs: the block query of the full view (rack level) and
// of a zoomed view (GPU level), and, when the views library is linked (GUI builds), the whole
// widget render (query + colour mapping + painting of axes and legend) at 1600 x 1000. Baseline
// in the same run: TrafficMatrix::aggregate at node level (the dense-block path the engine had, a
// 2048 x 2048 grid). Medians of repeated runs; figures are printed, never asserted.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/trafficblocks.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"

#ifdef CLUSTERSCOPE_BENCH_HEATMAP_VIEWS
#include "views/heatmap/trafficheatmapcanvas.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include <QApplication>
#endif

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

using namespace clusterscope::engine;

namespace {

struct Example {
    QString name;
    TrafficMatrix matrix;
    std::shared_ptr<const TrafficSource> source;
    Scenario scenario;
    GroupPlacer placer;
};

/// An example scenario scaled out in data parallelism to 16,384 GPUs.
Example at16k(const char* file, const char* name)
{
    Scenario s = *parseScenarioJson(clusterscope::resources::embeddedFile(file), file);
    const int factor = 16384 / s.cluster.gpus;
    s.parallelism->dp *= factor;
    s.training.globalBatch *= factor;
    s.cluster.gpus = 16384;
    static const Catalog catalog = *Catalog::builtin();
    const TrainingEvaluator evaluator = *TrainingEvaluator::create(s, catalog);
    const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
    if (const char* why = evaluator.invalidReason(strategy))
        qFatal("%s", why);
    const TrafficMatrix matrix = TrafficMatrix::fromEstimate(evaluator.evaluate(strategy), evaluator.placer());
    return { QString::fromLatin1(name), matrix, std::make_shared<ModelTrafficSource>(matrix, evaluator.placer()), s,
        evaluator.placer() };
}

/// Median milliseconds of `runs` calls of `work`.
double medianMs(int runs, const std::function<void()>& work)
{
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
    return ms[std::size_t(runs / 2)];
}

} // namespace

class BenchHeatmap : public QObject {
    Q_OBJECT
    std::vector<Example> m_examples;

private Q_SLOTS:
    void initTestCase()
    {
        m_examples.push_back(at16k("examples/llama3-70b-1024-h100.json", "Llama 3 70B, TP 8 PP 4 DP 512"));
        m_examples.push_back(at16k("examples/mixtral-8x7b-256-h200-roce.json", "Mixtral 8x7B, TP 2 EP 8 DP 8192"));
    }

    void blockQueries()
    {
        for (const Example& e : m_examples) {
            const long long n = e.source->gpus();
            double sink = 0;
            // Baseline: the dense node-level block matrix of the whole cluster.
            const double baseline = medianMs(9, [&] { sink += e.matrix.aggregate(8).bytes[1]; });
            const double full = medianMs(15, [&] { sink += e.source->blocks({ { 0, n, 0, n }, 32, {} })->bytes[0]; });
            const double zoom = medianMs(15, [&] {
                sink += e.source->blocks({ { 7900, 8500, 7900, 8500 }, 1, {} })->bytes[0];
            });
            const double filtered = medianMs(15, [&] {
                sink
                    += e.source->blocks({ { 0, n, 0, n }, 32, { 1u << int(TrafficDimension::DP), 1u << 1 } })->bytes[0];
            });
            qInfo("%s, 16,384 GPUs: full view (512 x 512 racks) %.2f ms, with dp + leaf filter %.2f ms, zoomed "
                  "(600 x 600 GPUs) %.3f ms; baseline TrafficMatrix::aggregate(node, 2048 x 2048) %.1f ms; "
                  "ratios baseline/full %.1fx, baseline/zoomed %.0fx",
                qPrintable(e.name), full, filtered, zoom, baseline, baseline / full, baseline / zoom);
            QVERIFY(sink >= 0);
        }
    }

#ifdef CLUSTERSCOPE_BENCH_HEATMAP_VIEWS
    void widgetRender()
    {
        using namespace clusterscope::views;
        for (const Example& e : m_examples) {
            TrafficHeatmapCanvas canvas;
            canvas.resize(1600, 1000);
            canvas.setSource(e.source, heatmapGeometryFor(e.scenario, e.placer.geometry()));
            QImage target(canvas.size(), QImage::Format_RGB32);
            double sink = 0;
            const double baseline = medianMs(9, [&] { sink += e.matrix.aggregate(8).bytes[1]; });
            const auto frame = [&](double rowStart, double colStart, double span) {
                canvas.setViewWindow(rowStart, colStart, span); // marks the picture stale
                canvas.render(&target);
            };
            const double full = medianMs(15, [&] { frame(0, 0, 16384); });
            const TrafficHeatmapCanvas::RenderStats fullStats = canvas.lastRenderStats();
            const double zoom = medianMs(15, [&] { frame(7900, 7900, 600); });
            const TrafficHeatmapCanvas::RenderStats zoomStats = canvas.lastRenderStats();
            // A drag: 60 successive pans of 2 % of the zoomed window.
            int step = 0;
            const double pan = medianMs(60, [&] { ++step, frame(7900 + 12.0 * step, 7900, 600); });
            qInfo("%s, 16,384 GPUs on a %d px plot: full view (%s level, %lld cells) %.1f ms per frame "
                  "(query %.2f ms, image %.2f ms, rest painting); zoomed 600 GPUs (%s level, %lld cells) %.1f ms "
                  "(query %.3f ms, image %.2f ms); panning %.1f ms per frame (%.0f frames/s); "
                  "baseline TrafficMatrix::aggregate(node) %.1f ms; ratios baseline/full frame %.2fx, "
                  "baseline/zoomed frame %.2fx",
                qPrintable(e.name), canvas.plotRect().width(), qPrintable(levelName(fullStats.level)), fullStats.cells,
                full, fullStats.queryMilliseconds, fullStats.imageMilliseconds, qPrintable(levelName(zoomStats.level)),
                zoomStats.cells, zoom, zoomStats.queryMilliseconds, zoomStats.imageMilliseconds, pan, 1000.0 / pan,
                baseline, baseline / full, baseline / zoom);
            QVERIFY(sink >= 0);
            QCOMPARE(fullStats.level, HeatmapLevel::Rack);
            QCOMPARE(zoomStats.level, HeatmapLevel::Gpu);
        }
    }
#endif
};

#ifdef CLUSTERSCOPE_BENCH_HEATMAP_VIEWS
int main(int argc, char** argv)
{
    // Renders into QImages only: no display needed when none is set.
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    BenchHeatmap bench;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&bench, argc, argv);
}
#else
QTEST_GUILESS_MAIN(BenchHeatmap)
#endif
#include "bench_heatmap.moc"
