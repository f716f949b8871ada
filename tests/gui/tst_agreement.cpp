// One number, one definition: for every example scenario the GUI (the analysis its views show and
// the breakdown chart), the CLI (evaluate --json) and the report (its document and text) state the
// same iteration time, the same busiest link and the same memory per GPU.

#include "app/gui/analysisrunner.h"
#include "app/gui/mainwindow.h"
#include "app/report/reportbuilder.h"
#include "app/report/reportformat.h"
#include "app/report/reporthtml.h"
#include "engine/analysis/contendedranking.h"
#include "engine/analysis/fabriccontention.h"
#include "engine/analysis/linkleveltext.h"
#include "engine/analysis/runcomputecalibration.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "engine/store/projectstore.h"
#include "views/charts/breakdownchart.h"
#include "views/fabric/fabricview.h"
#include "views/models/strategytablemodel.h"
#include "views/strategies/strategiesview.h"

#include <QChart>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTabWidget>
#include <QtTest>

using namespace clusterscope;

namespace {
QString example(const QString& name) { return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + name; }

bool close(double a, double b, double relative = 1e-9)
{
    return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));
}
}

class TestAgreement : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void examples_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f :
            { "llama3-70b-1024-h100.json", "gpt3-175b-1024-a100.json", "mixtral-8x7b-256-h200-roce.json" })
            QTest::addRow("%s", f) << QString::fromLatin1(f);
    }
    void examples()
    {
        QFETCH(QString, file);
        const QString path = example(file);

        // The GUI: the analysis the views present, and the breakdown chart's first bar.
        app::MainWindow w;
        QVERIFY(!w.openPath(path, true).has_value());
        w.tabs()->setCurrentWidget(w.breakdownChart());
        w.analysisRunner()->waitUntilIdle();
        QCoreApplication::processEvents();
        const auto gui = w.analysisRunner()->latest();
        QVERIFY(gui && gui->estimate && gui->fabric);
        const double guiSeconds = gui->estimate->iterationSeconds;
        QVERIFY(!w.breakdownChart()->breakdowns().empty());
        QVERIFY2(close(w.breakdownChart()->breakdowns().front().breakdown.total(), guiSeconds, 1e-6),
            qPrintable(QString::number(w.breakdownChart()->breakdowns().front().breakdown.total())));
        // Every bar includes the fabric contention of its traffic (the ranked ones computed as the
        // current one is), and the title says so.
        if (w.breakdownChart()->breakdowns().size() > 1 && gui->load.routed) {
            QVERIFY2(
                w.breakdownChart()->chart()->title().contains(QStringLiteral("every bar with the fabric contention")),
                qPrintable(w.breakdownChart()->chart()->title()));
            const auto& contended = w.analysisRunner()->rankedWithContention();
            for (std::size_t b = 1; b < w.breakdownChart()->breakdowns().size(); ++b) {
                const double total = w.breakdownChart()->breakdowns()[b].breakdown.total();
                QVERIFY2(std::any_of(contended.begin(), contended.end(),
                             [&](const engine::TrainingEstimate& e) { return close(e.iterationSeconds, total, 1e-9); }),
                    qPrintable(QStringLiteral("bar %1: %2 s").arg(b).arg(total)));
            }
        }
        const auto guiBusiest = engine::busiestLink(gui->fabric->graph, gui->load.linkUtilisation);
        QVERIFY(guiBusiest);
        const double guiMemory = gui->estimate->memory.totalBytes();

        // The search: the CLI ranks as the Strategies tab does and gives its "With contention (s)"
        // column for the same rows (the contended ranking was waited for by waitUntilIdle).
        QVERIFY(!w.analysisRunner()->isBusy() && gui->search);
        const views::StrategyTableModel* strategies = w.strategiesView()->model();
        const std::vector<double>& guiContended = strategies->contendedSeconds();
        QCOMPARE(guiContended.size(), std::min(engine::kContendedRankedCount, gui->search->ranked.size()));
        QCOMPARE(strategies->contendedPending(), 0);
        QProcess search;
        search.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("search"), path, QStringLiteral("--top"), QStringLiteral("8"), QStringLiteral("--json") });
        QVERIFY(search.waitForFinished(300000));
        QCOMPARE(search.exitCode(), 0);
        const QJsonObject searchJson = QJsonDocument::fromJson(search.readAllStandardOutput()).object();
        const QJsonArray cliRanked = searchJson.value(QStringLiteral("ranked")).toArray();
        QVERIFY(cliRanked.size() >= int(guiContended.size()));
        QCOMPARE(searchJson.value(QStringLiteral("fabric_contention"))
                     .toObject()
                     .value(QStringLiteral("ranked_with_contention"))
                     .toInt(),
            int(guiContended.size()));
        for (int i = 0; i < cliRanked.size() && i < strategies->rowCount(); ++i) {
            const QJsonObject row = cliRanked[i].toObject();
            QVERIFY2(close(row.value(QStringLiteral("iteration_seconds")).toDouble(),
                         strategies->estimate(i).iterationSeconds),
                qPrintable(QStringLiteral("row %1").arg(i + 1)));
            const bool contended = std::size_t(i) < guiContended.size();
            QCOMPARE(row.contains(QStringLiteral("iteration_seconds_with_contention")), contended);
            if (contended)
                QVERIFY2(close(row.value(QStringLiteral("iteration_seconds_with_contention")).toDouble(),
                             guiContended[std::size_t(i)]),
                    qPrintable(QStringLiteral("row %1: CLI %2 s, GUI %3 s")
                                   .arg(i + 1)
                                   .arg(row.value(QStringLiteral("iteration_seconds_with_contention")).toDouble())
                                   .arg(guiContended[std::size_t(i)])));
            // The table shows the same figure, to its 3 decimals.
            QCOMPARE(strategies->index(i, views::StrategyTableModel::IterationWithContention).data().toString(),
                contended ? QLocale().toString(guiContended[std::size_t(i)], 'f', 3) : QStringLiteral("–"));
        }

        // The CLI.
        QProcess cli;
        cli.start(
            QStringLiteral(CLUSTERSCOPE_CLI_PATH), { QStringLiteral("evaluate"), path, QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        const double cliSeconds = json.value(QStringLiteral("iteration_seconds")).toDouble();
        QVERIFY2(close(cliSeconds, guiSeconds),
            qPrintable(QStringLiteral("CLI %1 s, GUI %2 s").arg(cliSeconds).arg(guiSeconds)));
        const QJsonObject contention = json.value(QStringLiteral("fabric_contention")).toObject();
        const double cliBusiest = contention.value(QStringLiteral("busiest_link_utilisation")).toDouble(-1);
        QVERIFY2(close(cliBusiest, guiBusiest->utilisation, 1e-6), qPrintable(QString::number(cliBusiest)));
        QCOMPARE(contention.value(QStringLiteral("busiest_link_level")).toString(),
            QString::fromLatin1(engine::toString(guiBusiest->level)));
        // The busiest network link (outside the servers): one figure in the CLI, the report and Fabric 3D.
        const auto guiNetwork = engine::busiestNetworkLink(gui->fabric->graph, gui->load.linkUtilisation);
        QVERIFY(guiNetwork && guiNetwork->level != engine::LinkLevel::Internal);
        QVERIFY2(close(contention.value(QStringLiteral("busiest_network_link_utilisation")).toDouble(-1),
                     guiNetwork->utilisation, 1e-6),
            qPrintable(
                QString::number(contention.value(QStringLiteral("busiest_network_link_utilisation")).toDouble(-1))));
        QCOMPARE(contention.value(QStringLiteral("busiest_network_link_level")).toString(),
            QString::fromLatin1(engine::toString(guiNetwork->level)));
        const QString networkText = QStringLiteral("busiest network link: ")
            + QString::fromStdString(engine::describeUtilisation(guiNetwork->utilisation));
        if (guiBusiest->level == engine::LinkLevel::Internal) {
            w.tabs()->setCurrentWidget(w.fabricView());
            w.analysisRunner()->waitUntilIdle();
            QCoreApplication::processEvents();
            const QString title = QString::fromStdString(w.fabricView()->sceneData().title);
            QVERIFY2(title.contains(networkText), qPrintable(title));
        }
        QCOMPARE(contention.value(QStringLiteral("core_tier")).toBool(),
            engine::hasLinksAt(gui->fabric->graph, engine::LinkLevel::SpineCore));
        QVERIFY(close(json.value(QStringLiteral("memory_bytes_per_gpu")).toDouble(), guiMemory));

        // The report.
        auto catalog = engine::Catalog::builtin();
        auto prices = engine::PriceBook::builtin();
        QVERIFY(catalog && prices);
        auto scenario = engine::loadScenarioFile(path.toStdString());
        QVERIFY(scenario);
        app::ReportInput input;
        input.scenarios = { *scenario };
        input.catalog = &*catalog;
        input.prices = &*prices;
        input.sensitivity = false;
        auto doc = app::buildReport(input);
        QVERIFY2(doc, doc.message().c_str());
        const engine::ScenarioAnalysis& report = doc->scenarios.front().analysis;
        QVERIFY(report.estimate);
        QVERIFY2(close(report.estimate->iterationSeconds, guiSeconds),
            qPrintable(QStringLiteral("report %1 s, GUI %2 s").arg(report.estimate->iterationSeconds).arg(guiSeconds)));
        QVERIFY(close(report.estimate->memory.totalBytes(), guiMemory));
        const QString html = app::reportHtml(*doc, app::ReportImageMode::DataUris);
        const QString busiestText = QStringLiteral("Busiest link: ")
            + QString::fromStdString(engine::describeUtilisation(guiBusiest->utilisation));
        QVERIFY2(html.contains(busiestText), qPrintable(busiestText));
        // The link's level in the same words in the CLI's text, the report and Fabric 3D
        // (engine::linkLevelText); the JSON above keeps the keys.
        const QString levelWords = QStringLiteral("(")
            + QString::fromStdString(engine::linkLevelText(guiBusiest->level)) + QStringLiteral(")");
        QVERIFY2(html.contains(levelWords), qPrintable(levelWords));
        QProcess text;
        text.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH), { QStringLiteral("evaluate"), path });
        QVERIFY(text.waitForFinished(120000));
        const QString cliText = QString::fromUtf8(text.readAllStandardOutput());
        QVERIFY2(cliText.contains(QStringLiteral("over an iteration ") + levelWords), qPrintable(cliText));
        if (guiBusiest->level == engine::LinkLevel::Internal) {
            const QString networkWords = QStringLiteral("(")
                + QString::fromStdString(engine::linkLevelText(guiNetwork->level)) + QStringLiteral(")");
            QVERIFY2(cliText.contains(networkWords), qPrintable(cliText));
            QVERIFY2(html.contains(networkWords), qPrintable(networkWords));
            QVERIFY(QString::fromStdString(w.fabricView()->sceneData().title).contains(networkWords));
        }
        if (guiBusiest->level == engine::LinkLevel::Internal)
            QVERIFY2(html.contains(networkText), qPrintable(networkText));
        QVERIFY2(html.contains(app::formatSeconds(guiSeconds)), qPrintable(app::formatSeconds(guiSeconds)));
        // Tiers are named only when the fabric has them.
        if (!engine::hasLinksAt(gui->fabric->graph, engine::LinkLevel::SpineCore))
            QVERIFY(!html.contains(QStringLiteral("core links x")));
    }

    /// The fastest ranked strategies with fabric contention (the Strategies table's "With
    /// contention" column and the chart's ranked bars) are what the tabs show once one is applied:
    /// one number before and after. On the Mixtral example's 3:1 oversubscribed RoCE leaf-spine the
    /// search's #1 runs over a fifth slower with contention than without.
    void rankedWithContentionIsWhatApplyingGives()
    {
        app::MainWindow w;
        QVERIFY(!w.openPath(example(QStringLiteral("mixtral-8x7b-256-h200-roce.json")), true).has_value());
        w.tabs()->setCurrentWidget(w.strategiesView());
        w.analysisRunner()->waitUntilIdle();
        QCoreApplication::processEvents();
        const auto gui = w.analysisRunner()->latest();
        QVERIFY(gui && gui->search && !gui->search->ranked.empty());
        const std::vector<engine::TrainingEstimate> contended = w.analysisRunner()->rankedWithContention();
        QCOMPARE(contended.size(), std::min(app::AnalysisRunner::kContendedRanked, gui->search->ranked.size()));
        // The table shows them beside the uncontended ranking.
        views::StrategyTableModel* model = w.strategiesView()->model();
        QCOMPARE(model->contendedSeconds().size(), contended.size());
        QCOMPARE(model->index(0, views::StrategyTableModel::IterationWithContention)
                     .data(views::StrategyTableModel::kSortRole)
                     .toDouble(),
            contended[0].iterationSeconds);
        QVERIFY2(contended[0].iterationSeconds > gui->search->ranked[0].iterationSeconds * 1.2,
            qPrintable(QStringLiteral("%1 s with contention, %2 s without")
                           .arg(contended[0].iterationSeconds)
                           .arg(gui->search->ranked[0].iterationSeconds)));
        // The chart's first ranked bar is the same contended estimate.
        w.tabs()->setCurrentWidget(w.breakdownChart());
        QCoreApplication::processEvents();
        const auto& bars = w.breakdownChart()->breakdowns();
        QVERIFY(bars.size() >= 2);
        QVERIFY(close(bars[1].breakdown.total(), contended[0].iterationSeconds, 1e-9));
        // Applying #1 makes it Current at exactly that time.
        w.tabs()->setCurrentWidget(w.strategiesView());
        QCoreApplication::processEvents();
        w.strategiesView()->selectRow(0);
        w.strategiesView()->applySelected();
        w.analysisRunner()->waitUntilIdle();
        QCoreApplication::processEvents();
        const auto applied = w.analysisRunner()->latest();
        QVERIFY(applied && applied->estimate && applied->estimateSource == engine::EstimateSource::Scenario);
        QVERIFY2(close(applied->estimate->iterationSeconds, contended[0].iterationSeconds, 1e-9),
            qPrintable(QStringLiteral("Current %1 s, ranked with contention %2 s")
                           .arg(applied->estimate->iterationSeconds)
                           .arg(contended[0].iterationSeconds)));
    }

    /// A project with a stored compute calibration: the GUI, evaluate --project and the report
    /// apply it the same way and give the same iteration time, each saying it is calibrated.
    void calibratedProject()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString scenarioFile = example(QStringLiteral("llama3-70b-1024-h100.json"));
        auto scenario = engine::loadScenarioFile(scenarioFile.toStdString());
        QVERIFY(scenario);
        const QString project = dir.filePath(QStringLiteral("calibrated.csproj"));
        const std::string from = "run \"llama-run\" (median compute time 3.2 s over 5 steps)";
        {
            auto store = engine::ProjectStore::create(project.toStdString());
            QVERIFY2(store, store.message().c_str());
            QVERIFY(store->saveScenarios({ { 0, *scenario } }));
            engine::ProjectComputeCalibration c;
            c.compute.gemmPeakFraction = 0.5;
            c.compute.flashPeakFraction = 0.45;
            c.compute.calibratedFrom = from;
            c.fittedGpu = scenario->cluster.gpu;
            c.fittedDtype = engine::toString(scenario->training.dtype);
            QVERIFY(engine::storeProjectComputeCalibration(*store, c));
        }

        app::MainWindow w;
        QVERIFY(!w.openPath(project, true).has_value());
        w.tabs()->setCurrentWidget(w.breakdownChart());
        w.analysisRunner()->waitUntilIdle();
        QCoreApplication::processEvents();
        const auto gui = w.analysisRunner()->latest();
        QVERIFY(gui && gui->estimate);
        const double guiSeconds = gui->estimate->iterationSeconds;
        QVERIFY2(w.breakdownChart()
                     ->chart()
                     ->title()
                     .section(QStringLiteral("<br>"), 0, 0)
                     .endsWith(QStringLiteral("compute calibrated from run \"llama-run\"")),
            qPrintable(w.breakdownChart()->chart()->title()));
        QVERIFY(w.breakdownChart()->toolTip().contains(QString::fromStdString(from)));

        QProcess cli;
        cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("evaluate"), scenarioFile, QStringLiteral("--project"), project,
                QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        const double cliSeconds = json.value(QStringLiteral("iteration_seconds")).toDouble();
        QVERIFY2(close(cliSeconds, guiSeconds),
            qPrintable(QStringLiteral("CLI %1 s, GUI %2 s").arg(cliSeconds).arg(guiSeconds)));
        const QJsonObject cal = json.value(QStringLiteral("compute_calibration")).toObject();
        QVERIFY(cal.value(QStringLiteral("calibrated")).toBool());
        QCOMPARE(cal.value(QStringLiteral("source")).toString(), QString::fromStdString(from));

        // The uncalibrated scenario is faster (the fractions above are below the catalog's).
        QProcess plain;
        plain.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("evaluate"), scenarioFile, QStringLiteral("--json") });
        QVERIFY(plain.waitForFinished(120000));
        const double plainSeconds = QJsonDocument::fromJson(plain.readAllStandardOutput())
                                        .object()
                                        .value(QStringLiteral("iteration_seconds"))
                                        .toDouble();
        QVERIFY2(
            guiSeconds > plainSeconds * 1.05, qPrintable(QStringLiteral("%1 vs %2").arg(guiSeconds).arg(plainSeconds)));

        // The report, given the project's calibration as the report tool and the GUI's dialog give it.
        auto catalog = engine::Catalog::builtin();
        auto prices = engine::PriceBook::builtin();
        QVERIFY(catalog && prices);
        auto store = engine::ProjectStore::open(project.toStdString());
        QVERIFY(store);
        auto stored = engine::readProjectComputeCalibration(*store, project.toStdString());
        QVERIFY(stored && *stored);
        app::ReportInput input;
        input.scenarios = { *scenario };
        input.catalog = &*catalog;
        input.prices = &*prices;
        input.sensitivity = false;
        input.computeCalibration = **stored;
        auto doc = app::buildReport(input);
        QVERIFY2(doc, doc.message().c_str());
        const engine::ScenarioAnalysis& report = doc->scenarios.front().analysis;
        QVERIFY(report.estimate);
        QVERIFY2(close(report.estimate->iterationSeconds, guiSeconds),
            qPrintable(QStringLiteral("report %1 s, GUI %2 s").arg(report.estimate->iterationSeconds).arg(guiSeconds)));
        const QString html = app::reportHtml(*doc, app::ReportImageMode::DataUris);
        const QString beside = QString(app::formatSeconds(guiSeconds) + QStringLiteral(" (compute calibrated from ")
            + QString::fromStdString(from))
                                   .toHtmlEscaped();
        QVERIFY2(html.contains(beside), qPrintable(beside));
    }
};

QTEST_MAIN(TestAgreement)
#include "tst_agreement.moc"
