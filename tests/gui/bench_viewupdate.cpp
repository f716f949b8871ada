// Issue 6 target: views updated within 50 ms of an edit for 1,024 GPUs and within 250 ms for
// 16,384 GPUs. Measures, in the real main window under Xvfb, the time from an edit in the scenario
// editor to the visible views showing the new analysis (background analysis, then the Fabric 3D
// tab and the BOM; hidden tabs are redrawn when shown). Baseline in the same run: the engine
// analysis alone.
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
        // The Llama example resized: DP grows with the GPUs; three tiers of k=64 for 16k GPUs.
        engine::Scenario base = w.document()->scenarios()[0];
        base.cluster.gpus = gpus;
        base.parallelism->dp = gpus / (base.parallelism->tp * base.parallelism->pp);
        base.training.globalBatch = std::max(base.training.globalBatch, base.parallelism->dp);
        if (gpus > 2048) {
            base.cluster.fabric.type = engine::FabricType::FatTree;
            base.cluster.fabric.tiers = 3;
        }
        w.document()->replaceScenario(0, base, QStringLiteral("resize"));
        w.analysisRunner()->waitUntilIdle();

        std::vector<double> viewsMs, engineMs;
        const auto catalog = engine::Catalog::builtin();
        const auto prices = engine::PriceBook::builtin();
        for (int i = 0; i < 5; ++i) {
            // An edit: oversubscription alternates, so every edit really changes the fabric.
            engine::Scenario edited = w.document()->scenarios()[0];
            edited.cluster.fabric.oversubscription = (i % 2) ? 1.0 : 2.0;
            QSignalSpy finished(w.analysisRunner(), &app::AnalysisRunner::finished);
            QElapsedTimer clock;
            clock.start();
            w.document()->replaceScenario(0, edited, QStringLiteral("edit"));
            QVERIFY(finished.wait(30000));
            QCoreApplication::processEvents(); // the views present in the finished handler
            viewsMs.push_back(double(clock.nsecsElapsed()) / 1e6);

            engine::AnalysisOptions options;
            options.timeContention = false; // as the GUI runs it
            clock.restart();
            const auto a = engine::analyseScenario(edited, *catalog, *prices, options);
            engineMs.push_back(double(clock.nsecsElapsed()) / 1e6);
            QVERIFY(a.estimate.has_value());
        }
        std::sort(viewsMs.begin(), viewsMs.end());
        std::sort(engineMs.begin(), engineMs.end());
        const double views = viewsMs[viewsMs.size() / 2], engineOnly = engineMs[engineMs.size() / 2];
        qInfo("%d GPUs: edit -> visible view (Fabric 3D + BOM) updated %.1f ms median (target %.0f ms); engine "
              "analysis alone %.1f ms; "
              "ratio %.2fx",
            gpus, views, targetMs, engineOnly, views / engineOnly);
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
