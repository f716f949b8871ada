// The GUI's nccl-tests dialog (File > Import nccl-tests Log): it runs the import-nccl-tests command
// in-process, so its figures are the CLI's; the cluster comes from the log or a scenario; the
// calibration goes into the project file.

#include "app/gui/nccltestsdialog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/store/projectdocuments.h"
#include "engine/store/projectstore.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QXYSeries>
#include <QtTest>

using namespace clusterscope;

namespace {
QString data(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/nccltests/") + QLatin1String(name);
}

engine::Scenario b200Scenario()
{
    auto s = engine::parseScenarioJson(R"({"format": "clusterscope-scenario", "version": 1,
      "name": "one DGX B200",
      "cluster": {"gpu": "B200", "gpus": 8, "gpus_per_node": 8, "nic": {"gbps": 400, "per_node": 8},
                  "transport": "infiniband", "fabric": {"type": "leaf-spine", "switch_radix": 64, "tiers": 1}},
      "model": {"layers": 16, "hidden": 2048, "heads": 16, "kv_heads": 16, "ffn_hidden": 8192, "vocab": 32000,
                "seq_len": 2048, "moe": null},
      "training": {"global_batch": 16, "micro_batch": 1, "dtype": "bf16", "recompute": "none", "tokens": 1e12},
      "parallelism": {"tp": 1, "pp": 1, "dp": 8}})",
        "test");
    return s ? *s : engine::Scenario {};
}

void screenshot(QWidget& widget, const char* name)
{
    const QString dir = qEnvironmentVariable("CLUSTERSCOPE_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        widget.grab().save(dir + QLatin1Char('/') + QLatin1String(name));
}
}

class TestNcclTestsDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The dialog's numbers are the CLI's: the same sweep, size by size, as clusterscope-cli prints in
    // --json, and the report names the noisy size and the slowest process.
    void sameNumbersAsTheCli()
    {
        app::NcclTestsDialog dialog(data("allreduce_per_iter.json"), {}, {});
        dialog.show();
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        QProcess cli;
        cli.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH),
            { QStringLiteral("import-nccl-tests"), data("allreduce_per_iter.json"), QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject fromCli = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        const QJsonArray guiSizes = dialog.result()[QStringLiteral("sweeps")][0][QStringLiteral("sizes")].toArray();
        const QJsonArray cliSizes = fromCli[QStringLiteral("sweeps")][0][QStringLiteral("sizes")].toArray();
        QCOMPARE(guiSizes.size(), 11);
        QCOMPARE(guiSizes, cliSizes);
        const QString text = dialog.reportText();
        QVERIFY2(text.contains(QStringLiteral("Slowest process: 1 (node-b) at 11 of 11 sizes")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("its own iterations vary (nccl-tests -I: cv 40.")), qPrintable(text));
        // The 1 GiB row as the CLI prints it: measured busbw to 3 significant digits.
        const double busbw = cliSizes.last()[QStringLiteral("measured_busbw_gbps")].toDouble();
        QVERIFY2(text.contains(QString::number(busbw, 'f', 0)), qPrintable(text));
        QVERIFY(!dialog.storeButton()->isEnabled()); // no project file
        // The chart: measured (the kept sizes), the left-out size apart, the model before and after.
        QMap<QString, QXYSeries*> series;
        for (QAbstractSeries* s : dialog.chartView()->chart()->series())
            series[s->name()] = static_cast<QXYSeries*>(s);
        QCOMPARE(series.size(), 4);
        QCOMPARE(series[QStringLiteral("measured")]->count(), 10);
        QCOMPARE(series[QStringLiteral("measured, left out of the fit")]->count(), 1);
        QCOMPARE(series[QStringLiteral("measured, left out of the fit")]->at(0).x(), 67108864.0);
        QCOMPARE(series[QStringLiteral("model")]->count(), 11);
        QCOMPARE(series[QStringLiteral("model calibrated to this log")]->count(), 11);
        // The measured points are the CLI's busbw.
        QCOMPARE(series[QStringLiteral("measured")]->at(9).y(),
            cliSizes.last()[QStringLiteral("measured_busbw_gbps")].toDouble());
        QVERIFY(dialog.sweepCombo()->isHidden()); // one sweep
        screenshot(dialog, "clusterscope-nccltests-dialog.png");
    }

    // A file with two runs: one sweep at a time in the chart, chosen in the sweep list.
    void twoSweeps()
    {
        app::NcclTestsDialog dialog(data("two_runs.log"), {}, {});
        dialog.show();
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        QCOMPARE(dialog.sweepCombo()->count(), 2);
        QVERIFY(!dialog.sweepCombo()->isHidden());
        QVERIFY(dialog.chartView()->chart()->title().startsWith(QStringLiteral("allreduce, 4 ranks")));
        dialog.sweepCombo()->setCurrentIndex(1);
        QVERIFY2(dialog.chartView()->chart()->title().startsWith(QStringLiteral("reducescatter, 4 ranks")),
            qPrintable(dialog.chartView()->chart()->title()));
    }

    // A table-only excerpt names no GPU: the log's header cannot tell the cluster, a scenario can.
    void clusterFromAScenario()
    {
        const engine::Scenario b200 = b200Scenario();
        QCOMPARE(b200.cluster.gpu, std::string("B200"));
        app::NcclTestsDialog dialog(data("public/b200_1x8_vultr_reducescatter.log"), {}, { b200 });
        QVERIFY(!dialog.errorText().isEmpty());
        QVERIFY(dialog.result().isEmpty());
        QCOMPARE(dialog.clusterCombo()->count(), 2);
        dialog.setClusterIndex(1);
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        QCOMPARE(dialog.result()[QStringLiteral("cluster")][QStringLiteral("gpu")].toString(), QStringLiteral("B200"));
        QCOMPARE(dialog.result()[QStringLiteral("cluster")][QStringLiteral("source")].toString(),
            QStringLiteral("scenario"));
    }

    // Store: the calibration lands in the project file, as import-nccl-tests --project puts it.
    void storesInTheProject()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString project = dir.filePath(QStringLiteral("p.csproj"));
        {
            auto store = engine::ProjectStore::create(project.toStdString());
            QVERIFY(store);
        }
        app::NcclTestsDialog dialog(data("allreduce_h100_8gpu.log"), project, {});
        QVERIFY(dialog.storeButton()->isEnabled());
        QSignalSpy stored(&dialog, &app::NcclTestsDialog::stored);
        QVERIFY(dialog.store());
        QCOMPARE(stored.count(), 1);
        auto store = engine::ProjectStore::open(project.toStdString());
        QVERIFY(store);
        auto text = store->document(engine::kCalibrationDocumentKind, engine::kCalibrationDocumentName);
        QVERIFY2(text.isOk(), text.message().c_str());
        QVERIFY(text->find("clusterscope-calibration") != std::string::npos);
    }
};

QTEST_MAIN(TestNcclTestsDialog)
#include "tst_nccltestsdialog.moc"
