// Issue 6 target: views updated within 50 ms of an edit for 1,024 GPUs and within 250 ms for
// 16,384 GPUs. Measures, in the real main window under Xvfb, the time from an edit in the scenario
// editor to the visible views showing the new analysis (background analysis, then the Fabric 3D
// tab and the BOM; hidden tabs are redrawn when shown). Baselines in the same run: the engine
// analysis alone, and the time until the search's fastest strategies are also timed with contention
// (engine::rankedWithContention, which runs after the views are shown and fills the Strategies
// column when ready; before, the views waited for it).
// Figures are printed, never asserted.

#include "app/gui/analysisrunner.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <vector>

using namespace clusterscope;

class BenchViewUpdate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void editToViews_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("targetMs");
        QTest::addRow("1024 GPUs") << 1024 << 50.0;
        QTest::addRow("16384 GPUs") << 16384 << 250.0;
    }
    void editToViews()
    {
        QFETCH(int, gpus);
        QFETCH(double, targetMs);
        app::MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.analysisRunner()->waitUntilIdle();
        // The Llama example resized: DP grows with the GPUs; three tiers of k=64 for 16k GPUs, as a
        // leaf-spine (a fat-tree is non-blocking only: the 2:1 edits below would be refused and the
        // views would show that error half the time).
        engine::Scenario base = w.document()->scenarios()[0];
        base.cluster.gpus = gpus;
        base.parallelism->dp = gpus / (base.parallelism->tp * base.parallelism->pp);
        base.training.globalBatch = std::max(base.training.globalBatch, base.parallelism->dp);
        if (gpus > 2048) {
            base.cluster.fabric.type = engine::FabricType::LeafSpine;
            base.cluster.fabric.tiers = 3;
        }
        w.document()->replaceScenario(0, base, QStringLiteral("resize"));
        w.analysisRunner()->waitUntilIdle();

        std::vector<double> viewsMs, rankedMs, engineMs;
        // Where the time goes: the edit's synchronous part (validation, editor, list), the analysis
        // on the worker, the finished handlers (presenting the visible tab) and painting after them.
        std::vector<double> editMs, workerMs, handlersMs, paintMs;
        const auto catalog = engine::Catalog::builtin();
        const auto prices = engine::PriceBook::builtin();
        for (int i = 0; i < 5; ++i) {
            // An edit: oversubscription alternates, so every edit really changes the fabric.
            engine::Scenario edited = w.document()->scenarios()[0];
            edited.cluster.fabric.oversubscription = (i % 2) ? 1.0 : 2.0;
            QSignalSpy finished(w.analysisRunner(), &app::AnalysisRunner::finished);
            QSignalSpy ranked(w.analysisRunner(), &app::AnalysisRunner::rankedWithContentionFinished);
            QElapsedTimer clock;
            double handled = 0;
            // Connected after the main window's own handler: runs once the visible tab is presented.
            const auto probe = connect(w.analysisRunner(), &app::AnalysisRunner::finished, &w,
                [&] { handled = double(clock.nsecsElapsed()) / 1e6; });
            clock.start();
            w.document()->replaceScenario(0, edited, QStringLiteral("edit"));
            editMs.push_back(double(clock.nsecsElapsed()) / 1e6);
            QVERIFY(finished.wait(30000));
            QCoreApplication::processEvents(); // the views present in the finished handler
            viewsMs.push_back(double(clock.nsecsElapsed()) / 1e6);
            disconnect(probe);
            workerMs.push_back(w.analysisRunner()->latest()->elapsedSeconds * 1e3);
            handlersMs.push_back(handled);
            paintMs.push_back(viewsMs.back() - handled);
            // Then the contended ranking (what the views used to wait for), when there is one: it
            // needs the scenario's traffic routed on the fabric.
            const auto latest = w.analysisRunner()->latest();
            if (ranked.count() > 0 || w.analysisRunner()->isRankingWithContention()) {
                QVERIFY(ranked.count() > 0 || ranked.wait(30000));
                QCoreApplication::processEvents();
                QVERIFY(!w.analysisRunner()->rankedWithContention().empty());
            } else if (i == 0) {
                qInfo("%d GPUs: no contended ranking (traffic not routed: %s; fabric: %s; training: %s)", gpus,
                    latest->load.error.c_str(), latest->fabric ? "built" : latest->fabricError.c_str(),
                    latest->trainingError.c_str());
            }
            rankedMs.push_back(double(clock.nsecsElapsed()) / 1e6);
            w.analysisRunner()->waitUntilIdle();

            engine::AnalysisOptions options;
            options.timeContention = false; // as the GUI runs it
            clock.restart();
            const auto a = engine::analyseScenario(edited, *catalog, *prices, options);
            engineMs.push_back(double(clock.nsecsElapsed()) / 1e6);
            QVERIFY(a.estimate.has_value());
            QVERIFY2(a.fabric, a.fabricError.c_str()); // every edit is a fabric the views draw
        }
        std::sort(viewsMs.begin(), viewsMs.end());
        std::sort(rankedMs.begin(), rankedMs.end());
        std::sort(engineMs.begin(), engineMs.end());
        const double views = viewsMs[viewsMs.size() / 2], withRanking = rankedMs[rankedMs.size() / 2],
                     engineOnly = engineMs[engineMs.size() / 2];
        const auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        qInfo("%d GPUs: edit returns after %.1f ms; analysis on the worker %.1f ms; finished handlers done %.1f ms "
              "after the edit; painting after them %.1f ms (medians)",
            gpus, median(editMs), median(workerMs), median(handlersMs), median(paintMs));
        qInfo("%d GPUs: edit -> visible view (Fabric 3D + BOM) updated %.1f ms median (target %.0f ms); engine "
              "analysis alone %.1f ms (ratio %.2fx); contended ranking ready %.1f ms after the edit (views "
              "waiting for it, as before: %.2fx slower)",
            gpus, views, targetMs, engineOnly, views / engineOnly, withRanking, withRanking / views);
    }
};

int main(int argc, char** argv)
{
    views::VtkOpenGLWidget::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    BenchViewUpdate bench;
    return QTest::qExec(&bench, argc, argv);
}
#include "bench_viewupdate.moc"
