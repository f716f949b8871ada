// "Calibrate Compute from This Run" in the Runs tab: a generated 8-rank H100 run whose compute
// kernels take 1.25x what the model predicts is stored in a project; the action shows the fit
// (the quantity, residuals, the iteration before and after), warns and refuses to store with a
// scenario of another GPU, stores it on confirmation, and every view recomputes with it; undo
// puts the project back. Screenshots at 1366x768 go to $CLUSTERSCOPE_SCREENSHOT_DIR when set.

#include "app/gui/analysisrunner.h"
#include "app/gui/computecalibrationcontroller.h"
#include "app/gui/computecalibrationdialog.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/store/projectstore.h"
#include "engine/training/trainingevaluator.h"
#include "tests/support/kinetotracegenerator.h"
#include "views/charts/breakdownchart.h"
#include "views/runs/runsview.h"

#include <QAction>
#include <QChart>
#include <QComboBox>
#include <QProcess>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QUndoStack>
#include <QtTest>

using namespace clusterscope;

namespace {
engine::Scenario jobScenario(const char* name, const char* gpu)
{
    auto s = engine::parseScenarioJson(QStringLiteral(R"({"format": "clusterscope-scenario", "version": 1,
      "name": "%1",
      "cluster": {"gpu": "%2", "gpus": 8, "gpus_per_node": 8, "nic": {"gbps": 400, "per_node": 8},
                  "transport": "infiniband", "fabric": {"type": "leaf-spine", "switch_radix": 64, "tiers": 1}},
      "model": {"layers": 16, "hidden": 2048, "heads": 16, "kv_heads": 16, "ffn_hidden": 8192, "vocab": 32000,
                "seq_len": 2048, "moe": null},
      "training": {"global_batch": 16, "micro_batch": 1, "dtype": "bf16", "recompute": "none", "tokens": 1e12},
      "parallelism": {"tp": 1, "pp": 1, "dp": 8}})")
                                           .arg(QLatin1String(name), QLatin1String(gpu))
                                           .toStdString(),
        "test");
    return s ? *s : engine::Scenario {};
}

double modelledCompute(const engine::Scenario& s, const engine::Catalog& catalog)
{
    auto evaluator = engine::TrainingEvaluator::create(s, catalog);
    if (!evaluator)
        return 0;
    return engine::modelledComputeSeconds(evaluator->evaluate(engine::TrainingStrategy::fromScenario(s)).breakdown);
}

void screenshot(QWidget& widget, const char* name)
{
    const QString dir = qEnvironmentVariable("CLUSTERSCOPE_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        widget.grab().save(dir + QLatin1Char('/') + QLatin1String(name));
}
}

class TestCalibrateFromRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void calibratesStoresAndUndoes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto catalog = engine::Catalog::builtin();
        QVERIFY(catalog);
        const engine::Scenario h100 = jobScenario("GPT 1B on 8 H100", "H100-SXM-80GB");
        const engine::Scenario a100 = jobScenario("GPT 1B on 8 A100", "A100-SXM-80GB");
        QVERIFY(h100.cluster.gpus == 8 && a100.cluster.gpus == 8);
        const double model = modelledCompute(h100, *catalog);
        QVERIFY(model > 1e-3);
        const double measured = 1.25 * model;

        // The project: two scenarios and the run, imported by the CLI as a user would.
        const QString project = dir.filePath(QStringLiteral("job.csproj"));
        {
            auto store = engine::ProjectStore::create(project.toStdString());
            QVERIFY(store);
            QVERIFY(store->saveScenarios({ { 0, h100 }, { 0, a100 } }));
        }
        testing::TraceGeneratorSpec spec;
        spec.ranks = 8;
        spec.steps = 3;
        spec.computeKernelsPerCollective = 4;
        spec.allReducesPerStep = 2;
        spec.computeKernelUs = measured / 8.0 * 1e6;
        const QString traces = dir.filePath(QStringLiteral("gpt-run"));
        QVERIFY(QDir().mkpath(traces));
        std::string error;
        QVERIFY2(!testing::writeRunTraces(spec, traces.toStdString(), error).empty(), error.c_str());
        QProcess cli;
        cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("import-trace"), traces, QStringLiteral("--project"), project });
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());

        app::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(!w.openPath(project, true).has_value());
        w.analysisRunner()->waitUntilIdle();
        const double before = w.analysisRunner()->latest()->estimate->iterationSeconds;
        w.tabs()->setCurrentWidget(w.runsView());
        QTRY_VERIFY(w.runsView()->runTable()->model()->rowCount() == 1);
        w.runsView()->runTable()->selectRow(0);
        QTRY_VERIFY(w.runsView()->currentRunId() != 0);

        QAction* action = nullptr;
        for (QAction* a : w.runsView()->runTable()->actions())
            if (a->text().startsWith(QStringLiteral("Calibrate Compute from This Run")))
                action = a;
        QVERIFY(action);

        bool shown = false;
        w.computeCalibrationController()->setConfirmation([&](app::ComputeCalibrationDialog& dialog) {
            shown = true;
            // Another GPU: warned, nothing to store.
            dialog.setScenarioIndex(1);
            [&] {
                QVERIFY2(
                    dialog.warningText().contains(QStringLiteral("A100-SXM-80GB")), qPrintable(dialog.warningText()));
                QVERIFY(!dialog.storeButton()->isEnabled());
                QVERIFY(!dialog.fit());
            }();
            dialog.setScenarioIndex(0);
            dialog.show();
            screenshot(dialog, "calibrate-from-run-dialog.png");
            [&] {
                QVERIFY(dialog.warningText().isEmpty());
                QVERIFY(dialog.storeButton()->isEnabled());
                QVERIFY(dialog.fit());
                QCOMPARE(dialog.fit()->quantity, engine::MeasuredQuantity::ComputeTime);
                QVERIFY(qAbs(dialog.fit()->fit.residuals.front().before / measured - 0.8) < 1e-3);
                QVERIFY(qAbs(dialog.fit()->fit.residuals.front().after / measured - 1) < 0.01);
                QVERIFY2(dialog.summaryText().contains(QStringLiteral("Fitted to the compute time")),
                    qPrintable(dialog.summaryText()));
            }();
            return !QTest::currentTestFailed();
        });
        action->trigger();
        QVERIFY(shown);
        QVERIFY(w.document()->undoStack()->canUndo());

        // Every view recomputes with the calibration.
        w.analysisRunner()->waitUntilIdle();
        w.tabs()->setCurrentWidget(w.breakdownChart());
        QCoreApplication::processEvents();
        auto after = w.analysisRunner()->latest();
        QVERIFY(after && after->estimate && after->evaluator);
        QVERIFY(qAbs(engine::modelledComputeSeconds(after->estimate->breakdown) / measured - 1) < 0.01);
        QVERIFY(after->estimate->iterationSeconds > before);
        QVERIFY2(
            w.breakdownChart()->chart()->title().contains(QStringLiteral("compute calibrated from run \"gpt-run\"")),
            qPrintable(w.breakdownChart()->chart()->title()));
        screenshot(w, "calibrated-breakdown-1366x768.png");
        // The A100 scenario of the same project is not calibrated by an H100 run.
        w.selectScenario(1);
        w.analysisRunner()->waitUntilIdle();
        QVERIFY(w.analysisRunner()->latest()->evaluator->scenario().computeCalibration
            == engine::ComputeCalibrationSpec {});

        // Undo: the project holds no compute calibration again.
        w.selectScenario(0);
        w.document()->undoStack()->undo();
        w.analysisRunner()->waitUntilIdle();
        QCOMPARE(w.analysisRunner()->latest()->estimate->iterationSeconds, before);
        auto store = engine::ProjectStore::open(project.toStdString());
        QVERIFY(store);
        auto names = store->documentNames(engine::kComputeCalibrationDocumentKind);
        QVERIFY(names && names->empty());
        w.document()->undoStack()->redo();
        w.analysisRunner()->waitUntilIdle();
        QCOMPARE(w.analysisRunner()->latest()->estimate->iterationSeconds, after->estimate->iterationSeconds);
    }
};

QTEST_MAIN(TestCalibrateFromRun)
#include "tst_calibratefromrun.moc"
