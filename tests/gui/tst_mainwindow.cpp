// The main window as a user meets it: the example project, tabs, undoable edits, save and reopen,
// scenario import (good and broken), and the 3D fabric of the example drawn under Xvfb.

#include "app/gui/analysisrunner.h"
#include "app/gui/comparedialog.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "app/gui/reportdialog.h"
#include "app/gui/runscontroller.h"
#include "engine/calibration/calibrationjson.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "engine/store/projectdocuments.h"
#include "engine/store/projectstore.h"
#include "engine/training/trainingestimate.h"
#include "views/bom/bomview.h"
#include "views/editor/scenarioeditor.h"
#include "views/fabric/fabricscene.h"
#include "views/fabric/fabricview.h"
#include "views/models/bomtablemodel.h"
#include "views/models/scenariolistmodel.h"
#include "views/runs/runlistmodel.h"
#include "views/runs/runsview.h"
#include "views/runs/stragglertablemodel.h"
#include "views/widgets/vtkopenglwidget.h"
#include <QTableWidget>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QListView>
#include <QProgressBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QtTest>

#include <sqlite3.h>

using namespace clusterscope;

namespace {
bool glAvailable()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}
// Views update when the background analysis delivers: wait for it.
void settle(app::MainWindow& w) { w.analysisRunner()->waitUntilIdle(); }
QString example(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + QLatin1String(name);
}
}

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void exampleProjectAndTabs()
    {
        app::MainWindow w;
        QAbstractItemModelTester tester(
            w.scenarioList()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(w.document()->scenarios().size() >= 3);
        QCOMPARE(
            QString::fromStdString(w.document()->scenarios().front().name), QStringLiteral("Llama-3-70B on 1024 H100"));
        QCOMPARE(w.currentScenario(), 0);
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("Example project")));
        QStringList tabs;
        for (int i = 0; i < w.tabs()->count(); ++i)
            tabs << w.tabs()->tabText(i);
        QCOMPARE(tabs,
            (QStringList { QStringLiteral("Fabric 3D"), QStringLiteral("Traffic"),
                QStringLiteral("Iteration breakdown"), QStringLiteral("Strategies"),
                QStringLiteral("Bill of materials"), QStringLiteral("Runs"), QStringLiteral("Live") }));
    }

    // The status line's "Evaluating" bar is for the analysis only: once everything is done (the
    // contended ranking that follows it included) and its 200 ms delay has passed, it is hidden.
    void busyBarHiddenWhenIdle()
    {
        app::MainWindow w;
        // Before any event is processed: the example's analysis is delivered through the event loop.
        QSignalSpy ranked(w.analysisRunner(), &app::AnalysisRunner::rankedWithContentionFinished);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle(w);
        QVERIFY(!w.analysisRunner()->isBusy());
        QVERIFY(ranked.count() >= 1);
        QTest::qWait(400); // past the bar's 200 ms delay timer
        QProgressBar* bar = nullptr;
        for (QProgressBar* b : w.statusBar()->findChildren<QProgressBar*>())
            if (b->format().startsWith(QStringLiteral("Evaluating")))
                bar = b;
        QVERIFY(bar);
        QVERIFY(!bar->isVisible());
    }

    void undoableEdits()
    {
        app::MainWindow w;
        QAbstractItemModelTester tester(
            w.scenarioList()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const std::size_t before = w.document()->scenarios().size();
        QVERIFY(!w.document()->isModified());
        w.selectScenario(1);
        const std::string second = w.document()->scenarios()[1].name;
        w.deleteScenario();
        QCOMPARE(w.document()->scenarios().size(), before - 1);
        QVERIFY(w.document()->isModified());
        QVERIFY(w.isWindowModified());
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->scenarios().size(), before);
        QCOMPARE(w.document()->scenarios()[1].name, second);
        QVERIFY(!w.document()->isModified());
        w.document()->undoStack()->redo();
        QCOMPARE(w.document()->scenarios().size(), before - 1);
        w.document()->undoStack()->undo();

        // Rename through the list model, as an in-place edit would.
        QAbstractItemModel* model = w.scenarioList()->model();
        QVERIFY(model->setData(model->index(0, 0), QStringLiteral("Renamed"), Qt::EditRole));
        QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("Renamed"));
        w.document()->undoStack()->undo();
        QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("Llama-3-70B on 1024 H100"));

        w.selectScenario(0);
        w.duplicateScenario();
        QCOMPARE(w.document()->scenarios().size(), before + 1);
        QCOMPARE(w.document()->scenarios()[1].name, std::string("Llama-3-70B on 1024 H100 (copy)"));
        QCOMPARE(w.currentScenario(), 1);
    }

    void saveAndReopen()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("example.csproj"));
        {
            app::MainWindow w;
            w.selectScenario(2);
            w.deleteScenario();
            QVERIFY(!w.document()->saveAs(path).has_value());
            QVERIFY(!w.document()->isModified());
            QVERIFY(w.windowTitle().startsWith(QStringLiteral("example.csproj")));
        }
        app::MainWindow reopened;
        QVERIFY(!reopened.openPath(path, true).has_value());
        QCOMPARE(reopened.document()->scenarios().size(), std::size_t(2));
        QCOMPARE(reopened.document()->path(), QFileInfo(path).absoluteFilePath());
        reopened.document()->renameScenario(0, QStringLiteral("edited"));
        QVERIFY(!reopened.document()->save().has_value());
        app::ProjectDocument third;
        QVERIFY(!third.open(path).has_value());
        QCOMPARE(third.scenarios().front().name, std::string("edited"));
    }

    void importScenarios()
    {
        app::MainWindow w;
        const std::size_t before = w.document()->scenarios().size();
        QVERIFY(!w.openPath(example("gpt3-175b-1024-a100.json"), true).has_value());
        QCOMPARE(w.document()->scenarios().size(), before + 1);
        QCOMPARE(w.currentScenario(), int(before));

        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken.json"));
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"clusterscope-scenario\", \"version\": 1, \"name\": 3}");
        f.close();
        const auto error = w.openPath(broken, true);
        QVERIFY(error.has_value());
        QVERIFY2(error->startsWith(broken + QStringLiteral(": /name: expected a string")), qPrintable(*error));
        QCOMPARE(w.document()->scenarios().size(), before + 1);

        const auto notProject = w.openPath(broken.left(broken.size() - 5) + QStringLiteral(".csproj"), true);
        QVERIFY(notProject.has_value());
        QVERIFY(notProject->contains(QStringLiteral("no such project file")));
    }

    // A damaged file opened in the window (File > Open, Import and drag-and-drop all go through
    // openPath) gives one message naming the file and the place and leaves the project as it was,
    // unsaved edits included (a number literal beyond the double range used to abort the whole
    // application, losing them).
    void damagedFilesLeaveTheProjectUntouched_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QFile f(example("llama3-70b-1024-h100.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray llama = f.readAll();
        QByteArray overflow = llama;
        overflow.replace("\"global_batch\": 1024", "\"global_batch\": 1e99999");
        QVERIFY(overflow != llama);
        QByteArray wrongType = llama;
        wrongType.replace("\"global_batch\": 1024", "\"global_batch\": {\"a\": [1e308]}");
        QTest::addRow("scenario: number overflow") << "s.json" << overflow << "s.json: byte ";
        QTest::addRow("scenario: wrong type")
            << "s.json" << wrongType << "s.json: /training/global_batch: expected a positive integer";
        QTest::addRow("scenario: truncated") << "s.json" << llama.left(300) << "s.json: byte ";
        QTest::addRow("project: not a database")
            << "p.csproj" << QByteArray(4096, 'x') << "p.csproj: not a ClusterScope project";
        QTest::addRow("project: damaged scenario row")
            << "p.csproj" << QByteArray("<damaged row>") << "(scenario 1): byte ";
    }
    void damagedFilesLeaveTheProjectUntouched()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        if (bytes == "<damaged row>") {
            // A real project whose stored scenario JSON was damaged on disk.
            auto store = engine::ProjectStore::create(path.toStdString());
            QVERIFY2(store.isOk(), store.message().c_str());
            auto scenario = engine::loadScenarioFile(example("llama3-70b-1024-h100.json").toStdString());
            QVERIFY(scenario.isOk());
            QVERIFY(store->saveScenarios({ { 0, *scenario } }).isOk());
            QCOMPARE(sqlite3_exec(store->handle(), "UPDATE scenarios SET json = '{\"format\": 1e99999}'", nullptr,
                         nullptr, nullptr),
                SQLITE_OK);
        } else {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        }

        app::MainWindow w;
        w.selectScenario(1);
        w.deleteScenario(); // unsaved work that a crash would lose
        const auto names = [&w] {
            QStringList out;
            for (const auto& s : w.document()->scenarios())
                out << QString::fromStdString(s.name);
            return out;
        };
        const QStringList before = names();
        const int undoSteps = w.document()->undoStack()->count();
        const auto untouched = [&] {
            QCOMPARE(names(), before);
            QVERIFY(w.document()->isModified());
            QCOMPARE(w.document()->undoStack()->count(), undoSteps);
            QVERIFY(w.document()->path().isEmpty());
        };

        const auto error = w.openPath(path, true);
        QVERIFY(error.has_value());
        QVERIFY2(error->startsWith(path) && error->contains(expected), qPrintable(*error));
        untouched();

        untouched();
    }

    // An edit in the editor changes the scenario and the 3D fabric; undo restores both; a value
    // that breaks a rule is shown inline with the field highlighted.
    void editorEditsFollowAndUndo()
    {
        app::MainWindow w;
        w.selectScenario(0);
        settle(w);
        auto* gpus = qobject_cast<QSpinBox*>(w.editor()->fieldFor(QStringLiteral("/cluster/gpus")));
        auto* dp = qobject_cast<QSpinBox*>(w.editor()->fieldFor(QStringLiteral("/parallelism/dp")));
        QVERIFY(gpus && dp);
        QCOMPARE(gpus->value(), 1024);
        const int serversBefore = w.fabricView()->scene().glyphCounts()[int(views::SceneNodeKind::Node)];
        QCOMPARE(serversBefore, 128);

        gpus->setValue(512);
        settle(w);
        QCOMPARE(w.document()->scenarios()[0].cluster.gpus, 512);
        QCOMPARE(w.fabricView()->scene().glyphCounts()[int(views::SceneNodeKind::Node)], 64);
        // 512 GPUs with tp 8 x pp 4 x dp 32 = 1024: the editor says so beside the field.
        QVERIFY2(w.editor()->problemsText().contains(QStringLiteral("does not equal cluster.gpus = 512")),
            qPrintable(w.editor()->problemsText()));
        dp->setValue(16);
        QVERIFY2(w.editor()->problemsText().isEmpty(), qPrintable(w.editor()->problemsText()));
        QCOMPARE(w.document()->undoStack()->count(), 2);

        w.document()->undoStack()->undo();
        w.document()->undoStack()->undo();
        settle(w);
        QCOMPARE(w.document()->scenarios()[0].cluster.gpus, 1024);
        QCOMPARE(gpus->value(), 1024);
        QCOMPARE(dp->value(), 32);
        QCOMPARE(w.fabricView()->scene().glyphCounts()[int(views::SceneNodeKind::Node)], 128);

        // Spin-box steps on one field merge into one undo entry.
        auto* oversub
            = qobject_cast<QDoubleSpinBox*>(w.editor()->fieldFor(QStringLiteral("/cluster/fabric/oversubscription")));
        QVERIFY(oversub);
        oversub->setValue(2.0);
        oversub->setValue(3.0);
        QCOMPARE(w.document()->undoStack()->count(), 1);
        QCOMPARE(w.document()->scenarios()[0].cluster.fabric.oversubscription, 3.0);
    }

    // An edit in the editor keeps the MoE keys it has no field for (they were dropped: any edit of a
    // DeepSeek-style scenario lost its shared experts, dense layers, capacity factor and imbalance).
    void editorKeepsMoeKeysWithoutFields()
    {
        app::MainWindow w;
        int index = -1;
        for (int i = 0; i < int(w.document()->scenarios().size()); ++i)
            if (w.document()->scenarios()[std::size_t(i)].model.moe)
                index = i;
        QVERIFY(index >= 0);
        engine::Scenario s = w.document()->scenarios()[std::size_t(index)];
        s.model.moe->sharedExperts = 2;
        s.model.moe->sharedExpertFfnHidden = 1024;
        s.model.moe->denseLayers = 1;
        s.model.moe->capacityFactor = 1.25;
        s.model.moe->loadImbalance = 1.3;
        w.document()->replaceScenario(index, s, QStringLiteral("moe keys"));
        w.selectScenario(index);
        settle(w);
        auto* topK = qobject_cast<QSpinBox*>(w.editor()->fieldFor(QStringLiteral("/model/moe/top_k")));
        QVERIFY(topK);
        topK->setValue(topK->value() == 1 ? 2 : 1);
        settle(w);
        const engine::MoeSpec& moe = *w.document()->scenarios()[std::size_t(index)].model.moe;
        QCOMPARE(moe.topK, topK->value());
        QCOMPARE(moe.sharedExperts, 2);
        QCOMPARE(moe.sharedExpertFfnHidden, 1024);
        QCOMPARE(moe.denseLayers, 1);
        QCOMPARE(moe.capacityFactor, 1.25);
        QCOMPARE(moe.loadImbalance, 1.3);
    }

    // The NCCL net transport is a field of the editor: the catalog's transports are offered, a choice
    // reaches the scenario, one that does not run on the fabric is named beside the field, undo
    // restores NCCL's default.
    void editorNetTransport()
    {
        app::MainWindow w;
        w.selectScenario(0);
        settle(w);
        auto* net = qobject_cast<QComboBox*>(w.editor()->fieldFor(QStringLiteral("/cluster/nic/net")));
        QVERIFY(net);
        QCOMPARE(w.document()->scenarios()[0].cluster.nic.net, std::string());
        QCOMPARE(net->currentData().toString(), QString());
        QVERIFY(net->findData(QStringLiteral("tcpxo")) > 0);
        QCOMPARE(w.document()->scenarios()[0].cluster.transport, engine::Transport::InfiniBand);

        net->setCurrentIndex(net->findData(QStringLiteral("ib")));
        settle(w);
        QCOMPARE(w.document()->scenarios()[0].cluster.nic.net, std::string("ib"));
        QVERIFY2(w.editor()->problemsText().isEmpty(), qPrintable(w.editor()->problemsText()));

        net->setCurrentIndex(net->findData(QStringLiteral("tcpxo")));
        settle(w);
        QCOMPARE(w.document()->scenarios()[0].cluster.nic.net, std::string("tcpxo"));
        QVERIFY2(w.editor()->problemsText().contains(QStringLiteral("tcpxo runs on roce fabrics")),
            qPrintable(w.editor()->problemsText()));

        w.document()->undoStack()->undo();
        w.document()->undoStack()->undo();
        settle(w);
        QCOMPARE(w.document()->scenarios()[0].cluster.nic.net, std::string());
        QCOMPARE(net->currentData().toString(), QString());
    }

    // The BOM tab lists the example's switches, NICs, cables and optics, sums them consistently and
    // exports the engine's CSV.
    void billOfMaterials()
    {
        app::MainWindow w;
        w.selectScenario(0);
        settle(w);
        views::BomTableModel* model = w.bomView()->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model->rowCount() > 3);
        QStringList categories;
        double total = 0;
        long long switches = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            categories << model->index(r, views::BomTableModel::Category).data().toString();
            const auto& line = model->bom().lines[std::size_t(r)];
            if (line.network)
                total += line.totalUsd();
            if (line.category == "switch")
                switches += line.quantity;
        }
        QVERIFY(categories.contains(QStringLiteral("switch")));
        QVERIFY(categories.contains(QStringLiteral("nic")));
        QVERIFY(categories.contains(QStringLiteral("cable")));
        QCOMPARE(switches, 72LL); // 40 leaf + 32 spine, as drawn in the 3D view
        QVERIFY(std::abs(total - model->bom().networkCostUsd) < 1.0);
        QVERIFY(w.bomView()->totalsText().startsWith(QStringLiteral("Network: $")));

        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("bom.csv"));
        QVERIFY(!w.bomView()->exportCsv(csv).has_value());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray header = f.readLine();
        QVERIFY(header.startsWith("category,item,description,length_m,quantity"));
        int lines = 0;
        while (!f.atEnd()) {
            f.readLine();
            ++lines;
        }
        QCOMPARE(lines, model->rowCount());

        // The 256-GPU Mixtral example on a 3:1 leaf-spine needs far less network than 1,024 GPUs at 1:1.
        const double before = model->bom().networkCostUsd;
        w.selectScenario(2); // Mixtral on leaf-spine 3:1
        settle(w);
        const double leafSpine31 = model->bom().networkCostUsd;
        QVERIFY(leafSpine31 > 0 && leafSpine31 < before);
    }

    // Importing the real DLRM traces stores the run in the project; reopening shows it without
    // re-parsing, with the stragglers 7, 4, 5 on top (by the tail they cause).
    void importTracesIntoTheProject()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("runs.csproj"));
        {
            app::MainWindow w;
            QVERIFY(!w.document()->saveAs(project).has_value());
            QSignalSpy finished(w.runsController(), &app::RunsController::importFinished);
            w.runsController()->importPaths({ QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/kineto/param_dlrm_8rank") });
            w.runsController()->waitUntilIdle();
            QCOMPARE(finished.count(), 1);
            QVERIFY2(finished.front().at(0).toBool(), qPrintable(finished.front().at(1).toString()));
            QCOMPARE(w.runsView()->runListModel()->rowCount(), 1);
        }
        app::MainWindow reopened;
        QVERIFY(!reopened.openPath(project, true).has_value());
        QCOMPARE(reopened.runsView()->runListModel()->rowCount(), 1);
        QSignalSpy selected(reopened.runsView(), &views::RunsView::runSelected);
        reopened.runsView()->setCurrentRunId(1);
        // Selecting programmatically emits nothing: show it as a user's click would.
        Q_EMIT reopened.runsView()->runSelected(1);
        const auto* stragglers = reopened.runsView()->stragglerModel();
        QVERIFY(stragglers->rowCount() >= 3);
        QCOMPARE(stragglers->index(0, views::StragglerTableModel::Rank).data().toString(), QStringLiteral("7"));
        QCOMPARE(stragglers->index(1, views::StragglerTableModel::Rank).data().toString(), QStringLiteral("4"));
        QCOMPARE(stragglers->index(2, views::StragglerTableModel::Rank).data().toString(), QStringLiteral("5"));
    }

    // A calibration stored in the project (as import-nccl-tests --project leaves it) changes the
    // GUI's estimates: here every collective runs at half the modelled bandwidth.
    void projectCalibrationIsUsed()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("cal.csproj"));
        double uncalibrated = 0;
        {
            app::MainWindow w;
            QVERIFY(!w.document()->saveAs(project).has_value());
            settle(w);
            uncalibrated = w.analysisRunner()->latest()->estimate->iterationSeconds;
        }
        {
            auto store = engine::ProjectStore::open(project.toStdString());
            QVERIFY(store.isOk());
            engine::CalibrationSet set;
            for (auto& row : set.calibration.corrections)
                for (auto& c : row)
                    c.bandwidthScale = 0.5;
            QVERIFY(store
                        ->putDocument(engine::kCalibrationDocumentKind, engine::kCalibrationDocumentName,
                            engine::calibrationToJson(set))
                        .isOk());
        }
        app::MainWindow w;
        QVERIFY(!w.openPath(project, true).has_value());
        auto stored = w.document()->calibration();
        QVERIFY2(stored.isOk(), stored.message().c_str());
        QVERIFY(stored->has_value());
        settle(w);
        const double calibrated = w.analysisRunner()->latest()->estimate->iterationSeconds;
        QVERIFY2(
            calibrated > uncalibrated * 1.05, qPrintable(QStringLiteral("%1 vs %2").arg(calibrated).arg(uncalibrated)));
    }

    // File > Export Report builds the report in the background, previews it and writes the PDF.
    void exportReport()
    {
        auto catalog = engine::Catalog::builtin();
        auto prices = engine::PriceBook::builtin();
        app::MainWindow w;
        app::ReportDialog dialog(
            w.document()->scenarios()[2], { w.document()->scenarios()[0] }, *catalog, *prices, std::nullopt, QImage());
        dialog.waitUntilBuilt();
        QVERIFY(dialog.document());
        QVERIFY(dialog.previewText().contains(QStringLiteral("Mixtral 8x7B")));
        QVERIFY(dialog.previewText().contains(QStringLiteral("Bill of materials")));
        QTemporaryDir dir;
        const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
        QVERIFY(!dialog.savePdf(pdf).has_value());
        QVERIFY(QFileInfo(pdf).size() > 20000);
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
    }

    // The Compare view: the same cluster at 1:1 and 3:1 oversubscription side by side.
    void compareScenarios()
    {
        auto catalog = engine::Catalog::builtin();
        auto prices = engine::PriceBook::builtin();
        app::MainWindow w;
        engine::Scenario oversubscribed = w.document()->scenarios()[0];
        oversubscribed.name = "Llama 3:1";
        oversubscribed.cluster.fabric.type = engine::FabricType::LeafSpine;
        oversubscribed.cluster.fabric.oversubscription = 3.0;
        engine::Scenario full = w.document()->scenarios()[0];
        full.cluster.fabric.type = engine::FabricType::LeafSpine;
        app::CompareDialog dialog({ full, oversubscribed }, 0, 1, *catalog, *prices);
        dialog.resize(1200, 800);
        dialog.show();
        dialog.waitUntilDone();
        QTableWidget* t = dialog.table();
        QVERIFY(t->rowCount() >= 10);
        int costRow = -1;
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 0)->text().startsWith(QStringLiteral("Network cost per GPU")))
                costRow = r;
        QVERIFY(costRow >= 0);
        const double a = QLocale().toDouble(t->item(costRow, 1)->text());
        const double b = QLocale().toDouble(t->item(costRow, 2)->text());
        QVERIFY2(b < a, qPrintable(QStringLiteral("%1 vs %2").arg(a).arg(b))); // 3:1 needs fewer spines and optics
        QVERIFY(t->item(costRow, 3)->text().startsWith(QLatin1Char('-')));
        dialog.grab().save(QDir::temp().filePath(QStringLiteral("clusterscope-compare.png")));
    }

    void exportViewsWritesEveryTab()
    {
        app::MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.selectScenarioByName(QStringLiteral("GPT-3 175B on 1024 A100")));
        QCOMPARE(w.currentScenario(), 1);
        QVERIFY(w.selectScenarioByName(QStringLiteral("3")));
        QCOMPARE(w.currentScenario(), 2);
        QVERIFY(!w.selectScenarioByName(QStringLiteral("nope")));
        QTemporaryDir dir;
        const auto files = w.exportViews(dir.filePath(QStringLiteral("views")));
        QVERIFY(files.has_value());
        QCOMPARE(files->size(), w.tabs()->count());
        QVERIFY(files->front().endsWith(QStringLiteral("01-fabric-3d.png")));
        for (const QString& f : *files) {
            QImage image(f);
            QVERIFY2(!image.isNull() && image.width() > 300, qPrintable(f));
        }
    }

    void fabricOfExampleIsDrawn()
    {
        if (!glAvailable())
            QSKIP("needs an X server with GL (run under xvfb-run)");
        app::MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle(w);
        QVERIFY(w.fabricView()->hasScene());
        // Llama-3-70B example: 1,024 H100 = 128 servers, rail-optimized 2-tier of 64-port switches.
        const auto& counts = w.fabricView()->scene().glyphCounts();
        QCOMPARE(counts[int(views::SceneNodeKind::Node)], 128);
        QVERIFY(counts[int(views::SceneNodeKind::Leaf)] > 0);
        QVERIFY(counts[int(views::SceneNodeKind::Spine)] > 0);
        QSignalSpy frames(w.fabricView()->vtkWidget(), &views::VtkOpenGLWidget::frameRendered);
        w.fabricView()->vtkWidget()->update();
        QVERIFY(frames.wait(10000) || frames.count() > 0);
        const QImage picture = w.fabricView()->grabPicture();
        picture.save(QDir::temp().filePath(QStringLiteral("clusterscope-tst_mainwindow-fabric.png")));
        int green = 0;
        const QColor node = QColor::fromRgbF(0.30f, 0.69f, 0.31f);
        for (int y = 0; y < picture.height(); y += 2)
            for (int x = 0; x < picture.width(); x += 2) {
                const QColor c = picture.pixelColor(x, y);
                if (c.saturationF() > 0.35f && std::abs(c.hueF() - node.hueF()) < 0.03f)
                    ++green;
            }
        QVERIFY2(green > 500, qPrintable(QString::number(green)));

        // Clicking a leaf-spine cable shows its rate, medium, length, utilisation and cost.
        const views::FabricSceneData& scene = w.fabricView()->sceneData();
        int cable = -1;
        for (std::size_t i = 0; i < scene.links.size() && cable < 0; ++i) {
            const auto& l = scene.links[i];
            if (scene.nodes[std::size_t(l.from)].kind == views::SceneNodeKind::Leaf
                && scene.nodes[std::size_t(l.to)].kind == views::SceneNodeKind::Spine)
                cable = int(i);
        }
        QVERIFY(cable >= 0);
        const views::ScenePick pick { true, cable };
        QSignalSpy picked(w.fabricView(), &views::FabricView::picked);
        const QPointF a = w.fabricView()->screenPositionOf(scene.links[std::size_t(cable)].from);
        const QPointF b = w.fabricView()->screenPositionOf(scene.links[std::size_t(cable)].to);
        // Many lines cross in the middle of the picture: find a point of this line that picks it.
        bool found = false;
        for (double t = 0.1; t < 0.95 && !found; t += 0.05) {
            const QPoint p = (a + t * (b - a)).toPoint();
            const auto hit = w.fabricView()->pickAt(p);
            if (hit && hit->isLink && hit->index == pick.index) {
                QTest::mouseClick(w.fabricView()->vtkWidget(), Qt::LeftButton, {}, p);
                found = true;
            }
        }
        if (found) {
            const QString details = w.fabricView()->detailsText();
            QVERIFY2(details.contains(QStringLiteral("<b>Leaf to spine</b> link")), qPrintable(details));
            QVERIFY2(details.contains(QStringLiteral("400 Gb/s")), qPrintable(details));
            QVERIFY2(details.contains(QStringLiteral("utilisation")), qPrintable(details));
            QVERIFY2(details.contains(QStringLiteral("cost $")), qPrintable(details));
        } else {
            QWARN("every point of the chosen cable is nearer another line; picking is covered by tst_fabricscene");
        }

        // The floor plan puts the same glyphs where the physical layout places their racks.
        const auto tiersFirst = w.fabricView()->sceneData().nodes.front();
        w.fabricView()->setLayout(views::SceneLayout::Floor);
        QCOMPARE(w.fabricView()->scene().glyphCounts()[int(views::SceneNodeKind::Node)], 128);
        const auto floorFirst = w.fabricView()->sceneData().nodes.front();
        QVERIFY(tiersFirst.x != floorFirst.x || tiersFirst.y != floorFirst.y || tiersFirst.z != floorFirst.z);
        w.fabricView()->grabPicture().save(QDir::temp().filePath(QStringLiteral("clusterscope-floor.png")));
        w.fabricView()->setLayout(views::SceneLayout::Tiers);

        // Selecting another scenario redraws: the GPT-3 example has 128 A100 servers on 40-port switches.
        w.selectScenario(1);
        settle(w);
        QCOMPARE(w.fabricView()->scene().glyphCounts()[int(views::SceneNodeKind::Node)], 128);
    }
};

int main(int argc, char** argv)
{
    views::VtkOpenGLWidget::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    TestMainWindow test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_mainwindow.moc"
