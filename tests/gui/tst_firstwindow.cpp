// The first window a new user meets, checked as geometry: it fits a 1366x768 laptop and a
// 1920x1080 screen, the editor and the scenario list are wide enough to read, and no label of any
// tab is cut (a wrapped label is as tall as its text needs at the width it got; a one-line label is
// as wide as its text).

#include "app/gui/analysisrunner.h"
#include "app/gui/mainwindow.h"
#include "app/gui/projectdocument.h"
#include "app/gui/windowlayout.h"
#include "views/editor/scenarioeditor.h"

#include <QDockWidget>
#include <QLabel>
#include <QListView>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
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
