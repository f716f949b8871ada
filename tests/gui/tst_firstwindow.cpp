// The first window a new user meets, checked as geometry: it fits a 1366x768 laptop and a
// 1920x1080 screen, the editor and the scenario list are wide enough to read, and no label of any
// tab is cut (a wrapped label is as tall as its text needs at the width it got; a one-line label is
// as wide as its text). The Runs tab showing a 4,096-rank run at 1366x768, 1920x1080 and 2560x1440:
// the per-rank chart's title, legend and axis titles and the heatmap's title are whole (screenshots
// gui-runs-tab-<w>x<h>.png in tests/common/screenshots.h's folder).

#include "app/gui/analysisrunner.h"
#include "app/gui/fabricimportcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "app/gui/runscontroller.h"
#include "app/gui/windowlayout.h"
#include "importers/ibnetdiscover/importedfabric.h"
#include "tests/common/generatedrun.h"
#include "tests/common/screenshots.h"
#include "views/editor/scenarioeditor.h"
#include "views/fabric/fabricview.h"
#include "views/heatmap/trafficheatmapcanvas.h"
#include "views/heatmap/trafficheatmapwidget.h"
#include "views/runs/nicoverlay.h"
#include "views/runs/runbreakdownchart.h"
#include "views/runs/runsview.h"
#include "views/runs/timelinewidget.h"

#include <QAbstractAxis>
#include <QChart>
#include <QDockWidget>
#include <QLabel>
#include <QListView>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QToolButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QtTest>

using namespace clusterscope;

namespace {

// Whether `w` and all its ancestors up to `top` are visible (hidden stacked pages are skipped).
bool shownWithin(const QWidget* w, const QWidget* top)
{
    for (; w && w != top; w = w->parentWidget())
        if (!w->isVisible())
            return false;
    return w == top;
}

// Labels of `top` that are cut: "objectName/text: why".
QStringList clippedLabels(const QWidget* top)
{
    QStringList out;
    for (const QLabel* label : top->findChildren<QLabel*>()) {
        if (!shownWithin(label, top) || label->text().isEmpty() || label->pixmap().cacheKey() != 0)
            continue;
        // Labels inside a scroll area may be cut by design (the user scrolls).
        bool scrolled = false;
        for (const QWidget* p = label->parentWidget(); p && p != top; p = p->parentWidget())
            scrolled = scrolled || qobject_cast<const QScrollArea*>(p);
        if (scrolled)
            continue;
        const QString name = label->text().left(60);
        if (label->wordWrap()) {
            const int needed = label->heightForWidth(label->width());
            if (label->height() + 1 < needed)
                out << QStringLiteral("%1: %2 px tall, needs %3 at %4 px wide")
                           .arg(name)
                           .arg(label->height())
                           .arg(needed)
                           .arg(label->width());
        } else if (label->width() + 1 < label->minimumSizeHint().width()) {
            out << QStringLiteral("%1: %2 px wide, needs %3")
                       .arg(name)
                       .arg(label->width())
                       .arg(label->minimumSizeHint().width());
        }
    }
    return out;
}

void settle(app::MainWindow& w)
{
    w.analysisRunner()->waitUntilIdle();
    for (int i = 0; i < 5; ++i)
        QCoreApplication::processEvents();
}

} // namespace

class TestFirstWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void firstLayout_data()
    {
        QTest::addColumn<QSize>("screen");
        QTest::addRow("laptop 1366x768") << QSize(1366, 768);
        QTest::addRow("full HD 1920x1080") << QSize(1920, 1080);
        QTest::addRow("QHD 2560x1440") << QSize(2560, 1440);
        QTest::addRow("4K 3840x2160") << QSize(3840, 2160);
    }
    void firstLayout()
    {
        QFETCH(QSize, screen);
        const app::FirstLayout l = app::firstLayoutFor(screen);
        QVERIFY(l.window.width() <= screen.width() && l.window.height() <= screen.height());
        QVERIFY(l.window.width() >= std::min(screen.width(), 1024));
        QVERIFY(l.editorWidth >= 320);
        QVERIFY(l.scenariosWidth >= 170);
        // The tabs keep more than half of the window.
        QVERIFY(l.window.width() - l.editorWidth - l.scenariosWidth > l.window.width() / 2);
    }

    void fitsTheScreen_data()
    {
        QTest::addColumn<QSize>("screen");
        QTest::addRow("laptop 1366x768") << QSize(1366, 768);
        QTest::addRow("full HD 1920x1080") << QSize(1920, 1080);
    }
    void fitsTheScreen()
    {
        QFETCH(QSize, screen);
        QSettings().clear(); // a first start: no remembered layout
        app::MainWindow w;
        // The window can be made as small as the screen (less the desktop's panels).
        const QSize minimum = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(minimum.width() <= 1280 && minimum.height() <= 728, // 768 less a 40 px panel
            qPrintable(QStringLiteral("minimum %1x%2").arg(minimum.width()).arg(minimum.height())));
        const app::FirstLayout first = app::firstLayoutFor(screen);
        w.resize(first.window);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle(w);
        QVERIFY2(w.width() <= screen.width() && w.height() <= screen.height(),
            qPrintable(QStringLiteral("%1x%2").arg(w.width()).arg(w.height())));
        QVERIFY2(w.editorDock()->width() >= 300, qPrintable(QString::number(w.editorDock()->width())));
        QVERIFY2(w.scenarioList()->width() >= 150, qPrintable(QString::number(w.scenarioList()->width())));
        QVERIFY(w.tabs()->width() >= w.width() / 2);
        // The editor's fields are visible beside their labels.
        QWidget* gpus = w.editor()->fieldFor(QStringLiteral("/cluster/gpus"));
        QVERIFY(gpus && gpus->width() >= 80);
        // Every field lies inside the editor's view (no field cut at its right edge, no sideways
        // scrolling): a choice with long items (the NCCL net transports) elides instead of widening it.
        auto* editorScroll = w.editor()->findChild<QScrollArea*>();
        QVERIFY(editorScroll);
        QVERIFY2(!editorScroll->horizontalScrollBar()->isVisible(),
            qPrintable(QStringLiteral("editor content %1 px in a %2 px view")
                           .arg(editorScroll->widget()->width())
                           .arg(editorScroll->viewport()->width())));
        for (const char* pointer : { "/cluster/gpu", "/cluster/nic/net", "/cluster/fabric/type" })
            if (QWidget* field = w.editor()->fieldFor(QString::fromLatin1(pointer))) {
                const QRect inView(field->mapTo(editorScroll->viewport(), QPoint(0, 0)), field->size());
                QVERIFY2(inView.right() < editorScroll->viewport()->width(),
                    qPrintable(QStringLiteral("%1 ends at %2 px, view %3 px")
                                   .arg(QString::fromLatin1(pointer))
                                   .arg(inView.right())
                                   .arg(editorScroll->viewport()->width())));
            }

        for (int i = 0; i < w.tabs()->count(); ++i) {
            w.tabs()->setCurrentIndex(i);
            settle(w);
            const QStringList cut = clippedLabels(w.tabs()->currentWidget());
            QVERIFY2(cut.isEmpty(),
                qPrintable(w.tabs()->tabText(i) + QStringLiteral(": ") + cut.join(QStringLiteral("; "))));
        }
    }

    // Empty states and errors (a scenario whose strategy does not fit) wrap instead of being cut.
    void errorTextsAreNotCut()
    {
        QSettings().clear();
        app::MainWindow w;
        w.resize(1280, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle(w);
        auto* gpus = qobject_cast<QSpinBox*>(w.editor()->fieldFor(QStringLiteral("/cluster/gpus")));
        QVERIFY(gpus);
        gpus->setValue(2048); // the example's TP x PP x DP no longer covers the GPUs
        settle(w);
        for (int i = 0; i < w.tabs()->count(); ++i) {
            w.tabs()->setCurrentIndex(i);
            settle(w);
            const QStringList cut = clippedLabels(w.tabs()->currentWidget());
            QVERIFY2(cut.isEmpty(),
                qPrintable(w.tabs()->tabText(i) + QStringLiteral(": ") + cut.join(QStringLiteral("; "))));
        }
    }

    void runsTabIsNotCut_data()
    {
        QTest::addColumn<QSize>("screen");
        QTest::addColumn<bool>("fabricFlags");
        QTest::addRow("laptop 1366x768") << QSize(1366, 768) << false;
        // On first start the example project's imported fabric opens the "Fabric flags" dock.
        QTest::addRow("laptop 1366x768, fabric flags") << QSize(1366, 768) << true;
        QTest::addRow("1600x1000") << QSize(1600, 1000) << false;
        QTest::addRow("full HD 1920x1080") << QSize(1920, 1080) << false;
        QTest::addRow("full HD 1920x1080, fabric flags") << QSize(1920, 1080) << true;
        QTest::addRow("QHD 2560x1440") << QSize(2560, 1440) << false;
    }
    void runsTabIsNotCut()
    {
        QFETCH(QSize, screen);
        QFETCH(bool, fabricFlags);
        QSettings().clear();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.csproj"));
        constexpr int kRanks = 4096;
        const std::string error = testsupport::writeGeneratedRunProject(path.toStdString(), kRanks);
        QVERIFY2(error.empty(), error.c_str());
        app::MainWindow w;
        w.resize(app::firstLayoutFor(screen).window);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.openPath(path, true).has_value());
        if (fabricFlags) {
            QVERIFY(w.showExampleFabric());
            w.fabricImport()->waitUntilIdle();
            QTRY_VERIFY_WITH_TIMEOUT(w.fabricImport()->shownFabric() != nullptr, 20000);
            auto* flags = w.findChild<QDockWidget*>(QStringLiteral("fabricFlagsDock"));
            QVERIFY(flags);
            QTRY_VERIFY(flags->isVisible());
            // Under the tabs on a tall window; beside the imported-fabrics list on a short one.
            QCOMPARE(w.dockWidgetArea(flags), w.height() < 900 ? Qt::LeftDockWidgetArea : Qt::BottomDockWidgetArea);
        }
        w.tabs()->setCurrentWidget(w.runsView());
        settle(w);
        w.grab().save(testsupport::screenshotPath(QStringLiteral("gui-runs-tab-%1x%2%3.png")
                                                      .arg(screen.width())
                                                      .arg(screen.height())
                                                      .arg(fabricFlags ? QStringLiteral("-flags") : QString())));
        views::RunsView* runs = w.runsView();
        QVERIFY(runs->isShowingRun());
        const QStringList cut = clippedLabels(runs);
        QVERIFY2(cut.isEmpty(), qPrintable(cut.join(QStringLiteral("; "))));

        // The chart: blocks of ranks, said in the title and on the axis; the legend names every part.
        views::RunBreakdownChart* chart = runs->breakdownChart();
        QCOMPARE(chart->ranksPerBar(), 16);
        QVERIFY(chart->titleLabel()->isVisible() && chart->titleText().contains(QStringLiteral("bars of 16 ranks")));
        QVERIFY(chart->legendLabel()->isVisible());
        // Every entry of the legend is there and shown whole: the label is as tall as its wrapped
        // text needs at its width (clippedLabels checks that too; this names the entries).
        const QString legendText = QString(chart->legendLabel()->text())
                                       .replace(QStringLiteral("&nbsp;"), QStringLiteral(" "))
                                       .replace(QStringLiteral("&#8288;"), QString())
                                       .replace(QStringLiteral("<br>"), QStringLiteral(" "));
        for (const QString& part : chart->legendEntries())
            QVERIFY2(legendText.contains(part.toHtmlEscaped()), qPrintable(part));
        QCOMPARE(chart->legendEntries().size(), 7); // five components, the compute max and min lines
        const int legendNeeds = chart->legendLabel()->heightForWidth(chart->legendLabel()->width());
        QVERIFY2(chart->legendLabel()->height() >= legendNeeds,
            qPrintable(
                QStringLiteral("legend %1 px tall, needs %2").arg(chart->legendLabel()->height()).arg(legendNeeds)));
        const QRectF plot = chart->chart()->plotArea();
        QVERIFY2(plot.width() >= 200 && plot.height() >= 120,
            qPrintable(QStringLiteral("plot %1x%2").arg(plot.width()).arg(plot.height())));
        for (QAbstractAxis* axis : chart->chart()->axes()) {
            const QFontMetrics fm(axis->titleFont());
            const qreal room = axis->orientation() == Qt::Horizontal ? plot.width() : plot.height();
            QVERIFY2(fm.horizontalAdvance(axis->titleText()) <= room,
                qPrintable(QStringLiteral("axis title \"%1\" needs %2 px, has %3")
                               .arg(axis->titleText())
                               .arg(fm.horizontalAdvance(axis->titleText()))
                               .arg(room)));
        }
        // The heatmap: its title wraps above the plot, the plot is big enough to read.
        auto* heatmap = qobject_cast<views::TrafficHeatmapWidget*>(runs->heatmapWidget());
        QVERIFY(heatmap);
        views::TrafficHeatmapCanvas* canvas = heatmap->canvas();
        QVERIFY(canvas->isVisible());
        QFont bold = canvas->font();
        bold.setBold(true);
        const QFontMetrics fm(bold);
        const QRect title = fm.boundingRect(
            QRect(0, 0, canvas->width() - 20, 100 * fm.height()), Qt::TextWordWrap, canvas->titleText());
        QVERIFY2(title.height() <= 3 * fm.height() && title.height() + 4 <= canvas->plotRect().top(),
            qPrintable(QStringLiteral("heatmap title %1 px tall, plot at y %2")
                           .arg(title.height())
                           .arg(canvas->plotRect().top())));
        // At least a pixel per rack of 32 GPUs (the heatmap then shows racks, not one pod cell).
        QVERIFY2(canvas->plotRect().width() >= kRanks / 32,
            qPrintable(QStringLiteral("heatmap plot %1 px").arg(canvas->plotRect().width())));
        // From 1600x1000 on, a plot of 256 px and more: a 16,384-rank run's 64 pods get 4 px each.
        if (screen.height() >= 1000)
            QVERIFY2(canvas->plotRect().width() >= 256 && canvas->plotRect().height() >= 256,
                qPrintable(QStringLiteral("heatmap plot %1x%2 px")
                               .arg(canvas->plotRect().width())
                               .arg(canvas->plotRect().height())));
    }

    // The real first start (main.cpp with empty settings): the example project, its DLRM run with
    // the GPU timeline and its imported fabric, whose flags open the "Fabric flags" dock. The Runs
    // tab shows the run; its per-rank chart fits its pane with the whole legend, and the NIC
    // throughput strip under the timeline keeps its room.
    void firstStartRunsTab_data()
    {
        QTest::addColumn<QSize>("screen");
        QTest::addRow("laptop 1366x768") << QSize(1366, 768);
        QTest::addRow("1600x1000") << QSize(1600, 1000);
        QTest::addRow("full HD 1920x1080") << QSize(1920, 1080);
    }
    void firstStartRunsTab()
    {
        QFETCH(QSize, screen);
        QSettings().clear();
        app::MainWindow w;
        w.resize(app::firstLayoutFor(screen).window);
        QVERIFY(w.showExampleRun());
        QVERIFY(w.showExampleFabric());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.runsController()->waitUntilIdle();
        w.fabricImport()->waitUntilIdle();
        QTRY_VERIFY_WITH_TIMEOUT(w.fabricImport()->shownFabric() != nullptr, 20000);
        views::RunsView* runs = w.runsView();
        QTRY_VERIFY_WITH_TIMEOUT(runs->isShowingRun(), 20000);
        QCOMPARE(w.tabs()->currentWidget(), runs);
        settle(w);
        w.grab().save(testsupport::screenshotPath(
            QStringLiteral("gui-first-start-%1x%2.png").arg(screen.width()).arg(screen.height())));

        // The window fits the screen, and its minimum the screen less a 40 px desktop panel.
        QVERIFY2(w.width() <= screen.width() && w.height() <= screen.height(),
            qPrintable(QStringLiteral("window %1x%2").arg(w.width()).arg(w.height())));
        const QSize minimum = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(minimum.width() <= screen.width() - 86 && minimum.height() <= screen.height() - 40,
            qPrintable(QStringLiteral("minimum %1x%2").arg(minimum.width()).arg(minimum.height())));

        // The docks' tab titles are whole (a tab bar elides what does not fit: "Imported f…").
        for (QTabBar* bar : w.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
            if (!bar->isVisible())
                continue;
            for (int t = 0; t < bar->count(); ++t) {
                const int needs = bar->fontMetrics().horizontalAdvance(bar->tabText(t));
                QVERIFY2(bar->tabRect(t).width() >= needs + 8,
                    qPrintable(QStringLiteral("dock tab \"%1\" %2 px wide, its text %3 px")
                                   .arg(bar->tabText(t))
                                   .arg(bar->tabRect(t).width())
                                   .arg(needs)));
            }
        }
        // The scenario names are whole: long ones wrap inside the list's width, none scrolls sideways.
        QListView* list = w.scenarioList();
        QVERIFY(!list->horizontalScrollBar()->isVisible());
        for (int r = 0; r < list->model()->rowCount(); ++r) {
            const QModelIndex index = list->model()->index(r, 0);
            const QRect rect = list->visualRect(index);
            const QString name = index.data().toString();
            QVERIFY2(rect.right() < list->viewport()->width(), qPrintable(name));
            const QRect needs = list->fontMetrics().boundingRect(
                QRect(0, 0, rect.width() - 6, 1000), Qt::TextWordWrap, name); // less the item margins
            QVERIFY2(rect.height() >= needs.height(),
                qPrintable(QStringLiteral("%1: row %2 px tall, its text %3 px at %4 px")
                               .arg(name)
                               .arg(rect.height())
                               .arg(needs.height())
                               .arg(rect.width())));
        }

        // The example run is not stored (the project has no file yet): no empty stored-runs list
        // takes the run's width.
        QVERIFY(!runs->isStoredRunsPaneShown());

        // The chart lies inside its pane (the upper part of the Runs tab's splitter), the legend
        // inside the chart, whole.
        views::RunBreakdownChart* chart = runs->breakdownChart();
        auto* pane = qobject_cast<QSplitter*>(chart->parentWidget());
        QVERIFY(pane);
        const QRect chartInPane(chart->mapTo(pane, QPoint(0, 0)), chart->size());
        QVERIFY2(pane->rect().contains(chartInPane),
            qPrintable(QStringLiteral("chart %1 px tall at y %2 in a pane of %3 px (chart minimum %4)")
                           .arg(chartInPane.height())
                           .arg(chartInPane.top())
                           .arg(pane->height())
                           .arg(chart->minimumHeight())));
        // At least 9/20 of the row beside the heatmap, also after the stored-runs pane went away.
        QVERIFY2(chart->width() * 20 >= (pane->width() - pane->handleWidth()) * 9 - 20,
            qPrintable(QStringLiteral("chart %1 px of a row of %2").arg(chart->width()).arg(pane->width())));
        QLabel* legend = chart->legendLabel();
        QVERIFY(legend->isVisible());
        const QRect legendInChart(legend->mapTo(chart, QPoint(0, 0)), legend->size());
        QVERIFY2(chart->rect().contains(legendInChart),
            qPrintable(QStringLiteral("legend at y %1 to %2 in a chart of %3 px")
                           .arg(legendInChart.top())
                           .arg(legendInChart.bottom())
                           .arg(chart->height())));
        if (legend->wordWrap())
            QVERIFY2(legend->height() >= legend->heightForWidth(legend->width()),
                qPrintable(QStringLiteral("legend %1 px tall, needs %2")
                               .arg(legend->height())
                               .arg(legend->heightForWidth(legend->width()))));
        QVERIFY2(legend->width() >= legend->minimumSizeHint().width(),
            qPrintable(QStringLiteral("legend %1 px wide, needs %2")
                           .arg(legend->width())
                           .arg(legend->minimumSizeHint().width())));
        const QString legendText = QString(legend->text())
                                       .replace(QStringLiteral("&nbsp;"), QStringLiteral(" "))
                                       .replace(QStringLiteral("&#8288;"), QString())
                                       .replace(QStringLiteral("<br>"), QStringLiteral(" "));
        for (const QString& part : chart->legendEntries())
            QVERIFY2(legendText.contains(part.toHtmlEscaped()), qPrintable(part));
        // No entry breaks inside, not even after the slash of "Memcpy/memset": every line of the
        // wrapped legend, laid out at the label's width, ends between entries.
        if (legend->wordWrap()) {
            QTextDocument doc;
            doc.setDefaultFont(legend->font());
            doc.setDocumentMargin(0);
            doc.setHtml(legend->text());
            doc.setTextWidth(legend->contentsRect().width());
            for (QTextBlock block = doc.begin(); block.isValid(); block = block.next())
                for (int l = 0; block.layout() && l < block.layout()->lineCount(); ++l) {
                    const QTextLine line = block.layout()->lineAt(l);
                    const QString text = block.text().mid(line.textStart(), line.textLength()).trimmed();
                    QVERIFY2(!text.endsWith(QLatin1Char('/')), qPrintable(text));
                }
        }
        const QRectF plot = chart->chart()->plotArea();
        QVERIFY2(plot.width() >= 160 && plot.height() >= 80,
            qPrintable(QStringLiteral("plot %1x%2").arg(plot.width()).arg(plot.height())));
        // The measured heatmap beside it lies inside the pane too, its plot whole inside its canvas.
        auto* heatmap = qobject_cast<views::TrafficHeatmapWidget*>(runs->heatmapWidget());
        QVERIFY(heatmap);
        const QRect heatmapInPane(heatmap->mapTo(pane, QPoint(0, 0)), heatmap->size());
        QVERIFY2(pane->rect().contains(heatmapInPane),
            qPrintable(QStringLiteral("heatmap %1 px tall at y %2 in a pane of %3 px")
                           .arg(heatmapInPane.height())
                           .arg(heatmapInPane.top())
                           .arg(pane->height())));
        views::TrafficHeatmapCanvas* canvas = heatmap->canvas();
        QVERIFY2(canvas->rect().contains(canvas->plotRect()) && canvas->plotRect().height() >= 40,
            qPrintable(QStringLiteral("heatmap plot %1x%2 at y %3 in a canvas of %4 px")
                           .arg(canvas->plotRect().width())
                           .arg(canvas->plotRect().height())
                           .arg(canvas->plotRect().top())
                           .arg(canvas->height())));
        QVERIFY(!canvas->titleText().contains(QStringLiteral("DLRM"))); // the tab's header names the run

        // The heatmap's axis titles are whole (on a laptop they were "Sour…" and "Desti…" beside a
        // 44 px plot), and its plot is big enough to read a cell per GPU of the 8-rank run.
        for (int axis = 0; axis < 2; ++axis)
            QVERIFY2(!canvas->axisTitle(axis).isEmpty() && !canvas->axisTitle(axis).contains(QChar(0x2026)),
                qPrintable(QStringLiteral("axis title \"%1\" beside a plot of %2 px")
                               .arg(canvas->axisTitle(axis))
                               .arg(canvas->plotRect().height())));
        QVERIFY2(canvas->plotRect().height() >= 120,
            qPrintable(QStringLiteral("heatmap plot %1 px").arg(canvas->plotRect().height())));

        // A short tab (a laptop's, or 1600x1000 with the flags dock under the tabs) shows the run's
        // panes as tabs, each with the whole height; a tall one stacks them.
        QCOMPARE(runs->isPaneTabbed(), runs->height() < views::RunsView::kShortHeightPx);
        if (screen.height() <= 768)
            QVERIFY(runs->isPaneTabbed());
        if (screen.height() >= 1080)
            QVERIFY(!runs->isPaneTabbed());
        // The straggler and collective tables show at least four whole rows (1.5 before).
        runs->revealPane(runs->tablesPane());
        settle(w);
        for (QTableView* table : { runs->stragglerTable(), runs->collectiveTable() }) {
            QVERIFY(table->isVisible());
            int whole = 0;
            for (int row = 0; row < table->model()->rowCount(); ++row)
                whole += table->viewport()->rect().contains(table->visualRect(table->model()->index(row, 0)));
            QVERIFY2(whole >= std::min(4, table->model()->rowCount()),
                qPrintable(QStringLiteral("%1 whole rows of %2 in %3 px")
                               .arg(whole)
                               .arg(table->model()->rowCount())
                               .arg(table->viewport()->height())));
        }
        runs->revealPane(runs->timelinePane());
        settle(w);

        // The "Fabric flags" dock's rows are whole: each row as tall as its text wrapped at the
        // column's width needs (the group rows were one line: "miss…", "degr…"), each with a tooltip.
        auto* flagDock = w.findChild<QDockWidget*>(QStringLiteral("fabricFlagsDock"));
        QVERIFY(flagDock && flagDock->isVisible());
        auto* flags = qobject_cast<QTreeWidget*>(flagDock->widget());
        QVERIFY(flags);
        int groups = 0;
        for (QTreeWidgetItemIterator it(flags); *it; ++it) {
            QTreeWidgetItem* item = *it;
            if (item->parent() && !item->parent()->isExpanded())
                continue;
            groups += item->parent() == nullptr;
            const QRect rect = flags->visualItemRect(item);
            const int needs = flags->fontMetrics()
                                  .boundingRect(QRect(0, 0, rect.width() - 6, 10000),
                                      Qt::TextWordWrap | Qt::TextWrapAnywhere, item->text(0))
                                  .height();
            QVERIFY2(rect.height() >= needs && rect.width() >= 60,
                qPrintable(QStringLiteral("\"%1\": row %2x%3 px, the text needs %4 px")
                               .arg(item->text(0))
                               .arg(rect.width())
                               .arg(rect.height())
                               .arg(needs)));
            QVERIFY2(!item->toolTip(0).isEmpty(), qPrintable(item->text(0)));
        }
        QCOMPARE(groups, 2);

        // The pane itself lies inside the splitter that holds it (nothing pushed out at the bottom).
        auto* vertical = runs->isPaneTabbed() ? nullptr : qobject_cast<QSplitter*>(pane->parentWidget());
        QVERIFY(runs->isPaneTabbed() || vertical);
        for (int i = 0; vertical && i < vertical->count(); ++i) {
            QWidget* part = vertical->widget(i);
            // What QSplitter keeps as the part's minimum: its minimum size if set, else its hint.
            const int needs = part->minimumHeight() > 0 ? part->minimumHeight() : part->minimumSizeHint().height();
            if (part->isVisible())
                QVERIFY2(part->height() >= needs,
                    qPrintable(
                        QStringLiteral("splitter part %1: %2 px, minimum %3").arg(i).arg(part->height()).arg(needs)));
        }

        // The timeline shows every lane of the 8-rank run's first rows and the NIC strip its message.
        views::TimelineWidget* timeline = runs->timeline();
        QVERIFY(timeline->isVisible());
        QVERIFY2(timeline->lanesRect().height() >= 60, qPrintable(QString::number(timeline->lanesRect().height())));
        views::NicOverlay* overlay = runs->nicOverlay();
        QVERIFY(overlay->isVisible() && runs->nicOverlayToggle()->isVisible());
        // Without telemetry the strip says why; on a laptop that message gives way first.
        if (screen.height() >= 1000)
            QVERIFY2(overlay->height() >= overlay->fontMetrics().lineSpacing(),
                qPrintable(QStringLiteral("NIC strip %1 px: \"%2\"").arg(overlay->height()).arg(overlay->message())));
        // With throughput lines (a telemetry source connected) the strip gets its minimum, the
        // timeline keeps its lanes and the chart stays inside its pane.
        overlay->setThroughput(1.7e9, 1.0,
            { views::NicOverlayHost { QStringLiteral("node001"), std::vector<double>(20, 2e10) },
                views::NicOverlayHost { QStringLiteral("node002"), std::vector<double>(20, 1e10) } });
        settle(w);
        QVERIFY(overlay->hasLines());
        QVERIFY2(overlay->height() >= views::NicOverlay::kMinimumLinesHeight,
            qPrintable(QStringLiteral("NIC lines %1 px").arg(overlay->height())));
        QVERIFY2(timeline->lanesRect().height() >= 60, qPrintable(QString::number(timeline->lanesRect().height())));
        QVERIFY2(pane->rect().contains(QRect(chart->mapTo(pane, QPoint(0, 0)), chart->size())),
            qPrintable(QStringLiteral("chart %1 px tall in a pane of %2 px").arg(chart->height()).arg(pane->height())));
        QVERIFY(chart->rect().contains(
            QRect(chart->legendLabel()->mapTo(chart, QPoint(0, 0)), chart->legendLabel()->size())));
        QVERIFY2(w.height() <= screen.height(), qPrintable(QString::number(w.height())));
        const QStringList cut = clippedLabels(runs);
        QVERIFY2(cut.isEmpty(), qPrintable(cut.join(QStringLiteral("; "))));

        // Whichever of the two imports and the example scenario's analysis ended last, Fabric 3D
        // shows the imported fabric whose flags the dock lists (not the scenario's own fabric). The
        // analysis ending after the fabric import, while the Runs tab is in front, is forced here.
        w.analysisRunner()->request(w.document()->scenarios()[0]);
        settle(w);
        QCOMPARE(w.tabs()->currentWidget(), runs);
        w.tabs()->setCurrentWidget(w.fabricView());
        settle(w);
        const QString fabricTitle = QString::fromStdString(w.fabricView()->sceneData().title);
        QVERIFY2(fabricTitle.contains(QStringLiteral("imported")), qPrintable(fabricTitle));
        // A scenario pick shows the scenario's fabric again.
        w.selectScenario(0);
        settle(w);
        QVERIFY2(!QString::fromStdString(w.fabricView()->sceneData().title).contains(QStringLiteral("imported")),
            qPrintable(QString::fromStdString(w.fabricView()->sceneData().title)));
    }

    // The example project's imported fabric (compiled in): the Llama example's fabric with a
    // degraded and a missing leaf-spine link, so Fabric 3D has flags on first start.
    void exampleFabricHasFlags()
    {
        QSettings().clear();
        app::MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.showExampleFabric());
        w.fabricImport()->waitUntilIdle();
        QTRY_VERIFY_WITH_TIMEOUT(w.fabricImport()->shownFabric() != nullptr, 20000);
        const importers::ImportedFabric* fabric = w.fabricImport()->shownFabric();
        QCOMPARE(int(fabric->flags.size()), 2);
        QStringList kinds;
        for (const auto& f : fabric->flags)
            kinds << QString::fromLatin1(importers::toString(f.kind));
        QVERIFY2(kinds.join(QLatin1Char('|')).contains(QStringLiteral("degraded"))
                && kinds.join(QLatin1Char('|')).contains(QStringLiteral("missing")),
            qPrintable(kinds.join(QLatin1Char('|'))));
        settle(w);
        // The Fabric 3D title (drawn in 18 px bold) fits a laptop's tab (~750 px) line by line.
        const QString title = QString::fromStdString(w.fabricView()->sceneData().title);
        QVERIFY(title.contains(QStringLiteral("imported")));
        QFont bold;
        bold.setPixelSize(18);
        bold.setBold(true);
        const QFontMetrics fm(bold);
        for (const QString& line : title.split(QLatin1Char('\n')))
            QVERIFY2(fm.horizontalAdvance(line) <= 700,
                qPrintable(QStringLiteral("\"%1\": %2 px").arg(line).arg(fm.horizontalAdvance(line))));
    }

    // The layout and the project open at exit come back at the next start.
    void restoresLayoutAndProject()
    {
        QSettings().clear();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("mine.csproj"));
        {
            app::MainWindow w;
            w.resize(1300, 720);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(!w.document()->saveAs(path).has_value());
            w.resizeDocks({ w.editorDock() }, { 420 }, Qt::Horizontal);
            QCoreApplication::processEvents();
            QVERIFY(w.close());
        }
        app::MainWindow again;
        QVERIFY(again.reopenLastProject());
        QCOMPARE(again.document()->path(), QFileInfo(path).absoluteFilePath());
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCoreApplication::processEvents();
        QCOMPARE(again.size(), QSize(1300, 720));
        QVERIFY2(
            std::abs(again.editorDock()->width() - 420) <= 8, qPrintable(QString::number(again.editorDock()->width())));
        again.close();
    }
};

QTEST_MAIN(TestFirstWindow)
#include "tst_firstwindow.moc"
