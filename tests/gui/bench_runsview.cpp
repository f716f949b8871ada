// Opening a stored 16,384-rank run in the Runs tab. A run shaped like a tensor- plus data-parallel
// job (3 ProfilerSteps, an AllGather per step in each group of 8 consecutive ranks, a world
// AllReduce per step, ring traffic in both, two planted stragglers) is written into a project
// through the engine's RunStore, as an import would. Measured, in the real main window under Xvfb:
// the time from opening the project to the Runs tab fully presented (run loaded from the project,
// per-rank chart, straggler and collective tables, measured traffic heatmap, all painted once).
// Baseline in the same run: the same shape with 512 ranks. Target (the distributed-import work):
// under 2 s for 16,384 ranks. Figures are printed, never asserted.

#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "app/gui/runscontroller.h"
#include "engine/run/ranksummary.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"
#include "tests/common/generatedrun.h"
#include "tests/common/screenshots.h"
#include "views/runs/runbreakdownchart.h"
#include "views/runs/runsview.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QElapsedTimer>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <vector>

using namespace clusterscope;
using namespace clusterscope::engine;
namespace testsupport = clusterscope::testsupport;

using clusterscope::testsupport::kGeneratedSteps;
using clusterscope::testsupport::tpDpRank;

class BenchRunsView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void openRunsTab()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        struct Figure {
            std::int32_t ranks;
            double openMs;
            double loadMs;
        };
        std::vector<Figure> figures;
        for (const std::int32_t world : { 512, 16384 }) {
            const QString path = dir.filePath(QStringLiteral("run%1.csproj").arg(world));
            {
                const std::string error
                    = clusterscope::testsupport::writeGeneratedRunProject(path.toStdString(), world);
                QVERIFY2(error.empty(), error.c_str());
            }
            // The store alone, as a reference for what the GUI adds.
            QElapsedTimer clock;
            clock.start();
            {
                auto store = ProjectStore::open(path.toStdString());
                QVERIFY(store);
                auto runs = RunStore(*store).list();
                QVERIFY(runs && !runs->empty());
                auto loaded = RunStore(*store).load(runs->back().id);
                QVERIFY2(loaded, loaded.message().c_str());
            }
            const double loadMs = double(clock.nsecsElapsed()) / 1e6;

            // Three fresh windows; the median (the first window of the process pays one-off costs).
            std::vector<double> opens;
            int bars = 0;
            for (int rep = 0; rep < 3; ++rep) {
                app::MainWindow w;
                w.resize(1600, 1000);
                w.show();
                QVERIFY(QTest::qWaitForWindowExposed(&w));
                w.tabs()->setCurrentWidget(w.runsView());
                QCoreApplication::processEvents();
                clock.restart();
                const auto error = w.openPath(path, true);
                QVERIFY2(!error, qPrintable(error.value_or(QString())));
                QTRY_VERIFY_WITH_TIMEOUT(w.runsView()->isShowingRun() && w.runsView()->heatmapWidget(), 30000);
                QCoreApplication::processEvents();
                w.runsView()->repaint(); // every child painted once (chart, tables, heatmap)
                opens.push_back(double(clock.nsecsElapsed()) / 1e6);
                QVERIFY2(w.runsView()->headerText().contains(QLocale().toString(world)),
                    qPrintable(w.runsView()->headerText()));
                bars = w.runsView()->breakdownChart()->barCount();
                if (rep == 0)
                    w.grab().save(testsupport::screenshotPath(QStringLiteral("bench-runs-%1.png").arg(world)));
            }
            std::sort(opens.begin(), opens.end());
            const double openMs = opens[1];
            figures.push_back({ world, openMs, loadMs });
            qInfo("%d ranks: project opened -> Runs tab presented %.0f ms median of 3 (RunStore list + load alone %.0f "
                  "ms); "
                  "chart shows %d bars",
                world, openMs, loadMs, bars);
        }
        qInfo("16384 ranks vs 512 ranks: %.2fx the time for 32x the ranks (target: under 2000 ms, measured %.0f ms)",
            figures[1].openMs / figures[0].openMs, figures[1].openMs);
    }
};

int main(int argc, char** argv)
{
    views::VtkOpenGLWidget::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    BenchRunsView bench;
    return QTest::qExec(&bench, argc, argv);
}
#include "bench_runsview.moc"
