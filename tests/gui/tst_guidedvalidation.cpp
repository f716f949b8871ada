// Validation that guides: an invalid strategy keeps the search (and the tabs) usable and offers
// the best valid strategy; findings only the analysis reveals are shown beside the editor's fields;
// rejected input is explained in the status line; tooltips state the ranges.

#include "app/gui/analysisrunner.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "views/charts/breakdownchart.h"
#include "views/editor/rangespinbox.h"
#include "views/editor/scenarioeditor.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include "views/strategies/strategiesview.h"

#include <QComboBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QtTest>

using namespace clusterscope;

namespace {
void settle(app::MainWindow& w)
{
    w.analysisRunner()->waitUntilIdle();
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
}
QSpinBox* spin(app::MainWindow& w, const char* pointer)
{
    return qobject_cast<QSpinBox*>(w.editor()->fieldFor(QString::fromLatin1(pointer)));
}
}

class TestGuidedValidation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // 2,048 GPUs under the example's TP 8 x PP 4 x DP 32 strategy: the tabs show the best valid
    // strategy, and one click makes it the scenario's.
    void invalidStrategyOffersTheBest()
    {
        app::MainWindow w;
        w.selectScenario(0);
        settle(w);
        spin(w, "/cluster/gpus")->setValue(2048);
        settle(w);
        QVERIFY(w.editor()->problemsText().contains(QStringLiteral("does not equal cluster.gpus = 2048")));
        // The offending field is highlighted.
        QVERIFY(!w.editor()->fieldFor(QStringLiteral("/parallelism/tp"))->styleSheet().isEmpty()
            || !w.editor()->fieldFor(QStringLiteral("/parallelism/dp"))->styleSheet().isEmpty()
            || w.editor()->problemsText().contains(QStringLiteral("Parallelism")));
        for (QWidget* tab : { static_cast<QWidget*>(w.breakdownChart()), static_cast<QWidget*>(w.strategiesView()),
                 static_cast<QWidget*>(w.trafficView()) }) {
            w.tabs()->setCurrentWidget(tab);
            QCoreApplication::processEvents();
        }
        QVERIFY(!w.breakdownChart()->isShowingEmptyState());
        QVERIFY(!w.trafficView()->isShowingEmptyState());
        QVERIFY(!w.strategiesView()->isShowingEmptyState());
        QVERIFY2(w.strategiesView()->noticeText().contains(QStringLiteral("cannot run")),
            qPrintable(w.strategiesView()->noticeText()));
        QPushButton* best = w.strategiesView()->applyBestButton();
        QVERIFY(best->isVisibleTo(w.strategiesView()));
        best->click();
        settle(w);
        const engine::Scenario& s = w.document()->scenarios()[0];
        QVERIFY(s.parallelism);
        QCOMPARE(1LL * s.parallelism->tp * s.parallelism->pp * s.parallelism->dp * s.parallelism->cp, 2048LL);
        QVERIFY2(w.editor()->problemsText().isEmpty(), qPrintable(w.editor()->problemsText()));
        // Undo brings the invalid strategy back (one undoable edit).
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->scenarios()[0].parallelism->dp, 32);
    }

    // Findings only building the fabric or searching reveal are said in the editor.
    void analysisFindingsInTheEditor()
    {
        app::MainWindow w;
        w.selectScenario(0);
        settle(w);
        spin(w, "/cluster/fabric/tiers")->setValue(1); // 128 servers do not fit under one switch tier
        settle(w);
        const QString notes = w.editor()->notesText();
        QVERIFY2(notes.contains(QStringLiteral("tier")), qPrintable(notes));
        QVERIFY(!w.editor()->fieldFor(QStringLiteral("/cluster/fabric/tiers"))->styleSheet().isEmpty());

        w.document()->undoStack()->undo();
        settle(w);
        // Two tiers of radix-32 switches cannot hold 1,024 NIC ports: built with three, and said.
        auto* type = qobject_cast<QComboBox*>(w.editor()->fieldFor(QStringLiteral("/cluster/fabric/type")));
        QVERIFY(type);
        type->setCurrentIndex(int(engine::FabricType::LeafSpine));
        spin(w, "/cluster/fabric/switch_radix")->setValue(32);
        settle(w);
        QVERIFY2(w.editor()->notesText().contains(QStringLiteral("tiers raised from 2 to 3")),
            qPrintable(w.editor()->notesText()));
        for (int i = 0; i < 2; ++i)
            w.document()->undoStack()->undo();
        settle(w);
        spin(w, "/cluster/gpus")->setValue(1000000);
        settle(w);
        QVERIFY2(!w.editor()->notesText().isEmpty() || !w.editor()->problemsText().isEmpty(),
            "1,000,000 GPUs: the editor says what is wrong");
        QVERIFY2(w.editor()->notesText().contains(QStringLiteral("cannot be built"))
                || w.editor()->notesText().contains(QStringLiteral("no strategy"))
                || w.editor()->problemsText().contains(QStringLiteral("GPUs")),
            qPrintable(w.editor()->notesText() + QLatin1Char('|') + w.editor()->problemsText()));
    }

    void rejectedInputIsExplained_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("said");
        QTest::addColumn<int>("kept");
        QTest::addColumn<int>("finishKey");
        QTest::addRow("minus") << QStringLiteral("-") << QStringLiteral("cannot be negative") << 1024
                               << int(Qt::Key_Tab);
        // The keystroke that would exceed the maximum is refused: 1,000,000 (valid) is what the box holds.
        QTest::addRow("too large") << QStringLiteral("10000000") << QStringLiteral("above the maximum") << 1000000
                                   << int(Qt::Key_Return);
        // Below the minimum: QSpinBox puts the old value back when editing ends (Tab or Return).
        QTest::addRow("zero, Tab") << QStringLiteral("0") << QStringLiteral("below the minimum 1") << 1024
                                   << int(Qt::Key_Tab);
        QTest::addRow("zero, Return") << QStringLiteral("0") << QStringLiteral("below the minimum 1") << 1024
                                      << int(Qt::Key_Return);
    }
    void rejectedInputIsExplained()
    {
        QFETCH(QString, typed);
        QFETCH(QString, said);
        QFETCH(int, kept);
        QFETCH(int, finishKey);
        app::MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Focus changes (Tab) reach the box only in the active window.
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        settle(w);
        auto* gpus = qobject_cast<views::RangeSpinBox*>(spin(w, "/cluster/gpus"));
        QVERIFY(gpus);
        QVERIFY(gpus->toolTip().contains(QStringLiteral("Range 1 to")));
        QVERIFY(!gpus->isShowingRejection());
        gpus->setFocus();
        gpus->selectAll();
        QTest::keyClicks(gpus, typed);
        QTest::keyClick(gpus, Qt::Key(finishKey)); // editing finished
        QVERIFY2(w.statusBar()->currentMessage().contains(said), qPrintable(w.statusBar()->currentMessage()));
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("kept")) || kept != 1024,
            qPrintable(w.statusBar()->currentMessage()));
        // The field that refused the input is tinted until a valid edit (1,000,000 was one) or a
        // few seconds.
        QCOMPARE(gpus->isShowingRejection(), kept == 1024);
        if (kept == 1024)
            QCOMPARE(gpus->palette().color(QPalette::Base), QColor(0xff, 0xd8, 0xd8));
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("GPUs")));
        QCOMPARE(w.document()->scenarios()[0].cluster.gpus, kept);
        settle(w);
    }

    // Decimal fields explain refused input the same way: out of range, negative, not a number,
    // too many decimals; the value is kept and the field tinted; the tooltip states the range.
    void rejectedDecimalIsExplained_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("said");
        QTest::addColumn<int>("finishKey");
        QTest::addColumn<double>("after"); // the value the field holds afterwards (-1: unchanged)
        QTest::addRow("loss above the maximum")
            << QStringLiteral("/communication/loss_rate") << QStringLiteral("0.7")
            << QStringLiteral("Packet loss: 0.7 is above the maximum 0.5") << int(Qt::Key_Return) << -1.0;
        QTest::addRow("loss negative") << QStringLiteral("/communication/loss_rate") << QStringLiteral("-0.1")
                                       << QStringLiteral("Packet loss cannot be negative (range 0 to 0.5)")
                                       << int(Qt::Key_Tab) << -1.0;
        QTest::addRow("tokens not a number")
            << QStringLiteral("/training/tokens") << QStringLiteral("abc")
            << QStringLiteral("is not a number (range 0 to 1") << int(Qt::Key_Return) << -1.0;
        // The third decimal is refused (and said so); the two typed before it are taken.
        QTest::addRow("overlap decimals")
            << QStringLiteral("/communication/tp_overlap_fraction") << QStringLiteral("0.125")
            << QStringLiteral("at most 2 decimal places") << int(Qt::Key_Return) << 0.12;
    }
    void rejectedDecimalIsExplained()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, typed);
        QFETCH(QString, said);
        QFETCH(int, finishKey);
        QFETCH(double, after);
        app::MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        settle(w);
        auto* box = qobject_cast<views::RangeDoubleSpinBox*>(w.editor()->fieldFor(pointer));
        QVERIFY(box);
        QVERIFY2(box->toolTip().contains(QStringLiteral("Range ") + box->rangeText()), qPrintable(box->toolTip()));
        const double before = box->value();
        box->setEnabled(true);
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, typed);
        QTest::keyClick(box, Qt::Key(finishKey));
        QVERIFY2(w.statusBar()->currentMessage().contains(said), qPrintable(w.statusBar()->currentMessage()));
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("kept")),
            qPrintable(w.statusBar()->currentMessage()));
        if (after < 0) {
            QVERIFY(box->isShowingRejection());
            QCOMPARE(box->palette().color(QPalette::Base), QColor(0xff, 0xd8, 0xd8));
            QCOMPARE(box->value(), before);
        } else {
            QCOMPARE(box->value(), after); // a valid value now: the tint is gone with the edit
        }
        settle(w);
    }

    void decimalRangeMessages()
    {
        views::RangeDoubleSpinBox box(QStringLiteral("Oversubscription"));
        box.setDecimals(2);
        box.setRange(1.0, 64.0);
        box.setValue(3.0);
        QVERIFY(box.rejectionFor(QStringLiteral("2.5")).isEmpty());
        QVERIFY(box.rejectionFor(QStringLiteral("64")).isEmpty());
        QVERIFY2(box.rejectionFor(QStringLiteral("0.5")).contains(QStringLiteral("0.5 is below the minimum 1; kept 3")),
            qPrintable(box.rejectionFor(QStringLiteral("0.5"))));
        QVERIFY(box.rejectionFor(QStringLiteral("65")).contains(QStringLiteral("above the maximum 64")));
        QVERIFY(box.rejectionFor(QStringLiteral("-2")).contains(QStringLiteral("cannot be negative")));
        QVERIFY(box.rejectionFor(QStringLiteral("2:1")).contains(QStringLiteral("not a number")));
        QVERIFY(box.rejectionFor(QStringLiteral("1e3")).contains(QStringLiteral("not a number")));
        QVERIFY(box.rejectionFor(QStringLiteral("1.234")).contains(QStringLiteral("at most 2 decimal places")));
        // A failed keystroke in the box itself emits the message and tints the field.
        QSignalSpy rejected(&box, &views::RangeDoubleSpinBox::inputRejected);
        box.show();
        QVERIFY(QTest::qWaitForWindowExposed(&box));
        box.selectAll();
        QTest::keyClicks(&box, QStringLiteral("x"));
        QCOMPARE(rejected.count(), 1);
        QVERIFY(box.isShowingRejection());
        box.setValue(4.0); // a valid edit clears the tint
        QVERIFY(!box.isShowingRejection());
    }

    void rangeMessages()
    {
        views::RangeSpinBox box(QStringLiteral("Tiers"));
        box.setRange(1, 3);
        box.setValue(2);
        QVERIFY(box.rejectionFor(QStringLiteral("2")).isEmpty());
        QVERIFY(box.rejectionFor(QStringLiteral("7")).contains(QStringLiteral("above the maximum 3; kept 2")));
        QVERIFY(box.rejectionFor(QStringLiteral("0")).contains(QStringLiteral("below the minimum 1")));
        QVERIFY(box.rejectionFor(QStringLiteral("-1")).contains(QStringLiteral("cannot be negative")));
        QVERIFY(box.rejectionFor(QStringLiteral("x")).contains(QStringLiteral("not a whole number")));
    }
};

QTEST_MAIN(TestGuidedValidation)
#include "tst_guidedvalidation.moc"
