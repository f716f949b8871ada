// TrafficHeatmapWidget under Xvfb: the grabbed picture has the expected intensity order (TP pairs
// inside a node brighter than DP pairs across nodes in the Llama example; three known measured
// values give three ordered colours), a legend, hover text for a known cell, filters that change
// the picture, zoom that switches the aggregation level, and bounded memory for 16,384 GPUs.
// Screenshots go to gui-heatmap-*.png in tests/common/screenshots.h's folder.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/trafficblocks.h"
#include "engine/training/trainingevaluator.h"
#include "resources/embeddedresources.h"
#include "tests/common/screenshots.h"
#include "views/heatmap/trafficheatmapcanvas.h"
#include "views/heatmap/trafficheatmapwidget.h"

#include <QComboBox>
#include <QScreen>
#include <QToolTip>
#include <QtTest>

#include <cstdio>
#include <set>
#include <sys/resource.h>

using namespace clusterscope::views;
using namespace clusterscope::engine;

namespace {

bool pixelsAvailable()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

double luminance(QRgb c) { return 0.2126 * qRed(c) + 0.7152 * qGreen(c) + 0.0722 * qBlue(c); } // ITU-R BT.709

struct Example {
    std::shared_ptr<const TrafficSource> source;
    TrafficHeatmapGeometry geometry;
    TrafficMatrix matrix;
};

Example example(const char* file, long long gpus = 0)
{
    Scenario s = *parseScenarioJson(clusterscope::resources::embeddedFile(file), file);
    if (gpus > 0) { // the same job scaled out in data parallelism
        s.parallelism->dp = static_cast<int>(s.parallelism->dp * gpus / s.cluster.gpus);
        s.training.globalBatch = static_cast<int>(s.training.globalBatch * gpus / s.cluster.gpus);
        s.cluster.gpus = static_cast<int>(gpus);
    }
    static const Catalog catalog = *Catalog::builtin();
    const TrainingEvaluator evaluator = *TrainingEvaluator::create(s, catalog);
    const TrainingStrategy strategy = TrainingStrategy::fromScenario(s);
    if (const char* why = evaluator.invalidReason(strategy))
        qFatal("%s", why);
    const TrafficMatrix matrix = TrafficMatrix::fromEstimate(evaluator.evaluate(strategy), evaluator.placer());
    return { std::make_shared<ModelTrafficSource>(matrix, evaluator.placer()),
        heatmapGeometryFor(s, evaluator.placer().geometry()), matrix };
}

Example llama(long long gpus = 0) { return example("examples/llama3-70b-1024-h100.json", gpus); }

QRgb pixelAt(TrafficHeatmapWidget& w, long long src, long long dst)
{
    TrafficHeatmapCanvas* c = w.canvas();
    c->ensureRendered();
    const QPoint at = c->cellCenter(src, dst);
    if (at.x() < 0)
        qFatal("cell %lld,%lld not visible", src, dst);
    return c->grab().toImage().pixel(at);
}

/// Peak resident set size in KiB: VmHWM of /proc/self/status, which clear_refs "5" resets
/// (getrusage's ru_maxrss also keeps the peak of exited threads, so it cannot be reset).
long long peakRssKiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (status.open(QIODevice::ReadOnly))
        for (const QByteArray& line : status.readAll().split('\n'))
            if (line.startsWith("VmHWM:"))
                return line.mid(6).trimmed().split(' ').first().toLongLong();
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

void save(QWidget& w, const char* name)
{
    const QString path = clusterscope::testsupport::screenshotPath(
        QStringLiteral("gui-heatmap-") + QLatin1String(name) + QStringLiteral(".png"));
    if (!w.grab().save(path))
        qWarning("could not save %s", qPrintable(path));
}

} // namespace

class TestHeatmapWidget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tpInsideNodesBrighterThanDpAcrossNodes()
    {
        if (!pixelsAvailable())
            QSKIP("pixel checks need a real platform (run under xvfb-run)");
        const Example e = llama();
        TrafficHeatmapWidget w;
        w.resize(1100, 820);
        w.setTitle(QStringLiteral("Llama 3 70B on 1,024 H100: model traffic"));
        w.setSource(e.source, e.geometry);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        save(w, "llama-full");
        w.canvas()->setViewWindow(0, 0, 64); // GPUs 0-63: TP rings in nodes, DP ring neighbours 8 apart
        w.canvas()->ensureRendered();
        QCOMPARE(w.canvas()->level(), HeatmapLevel::Gpu);
        const QRgb tp = pixelAt(w, 0, 1), dp = pixelAt(w, 0, 8), none = pixelAt(w, 0, 2);
        QCOMPARE(tp, w.canvas()->colorScale().rgb(e.matrix.pairTotalBytes(0, 1)));
        QCOMPARE(dp, w.canvas()->colorScale().rgb(e.matrix.pairTotalBytes(0, 8)));
        QCOMPARE(none, HeatmapColorScale::zeroRgb());
        QVERIFY2(luminance(tp) > luminance(dp) + 40,
            qPrintable(QStringLiteral("%1 vs %2").arg(luminance(tp)).arg(luminance(dp))));
        save(w, "llama-gpu-zoom");
    }

    void threeKnownValuesGiveThreeOrderedColours()
    {
        if (!pixelsAvailable())
            QSKIP("pixel checks need a real platform (run under xvfb-run)");
        ClusterGeometry g;
        g.gpus = 16;
        g.gpusPerNode = 4;
        g.scaleUpDomainGpus = 4;
        auto measured = MeasuredTrafficSource::create(
            16, { { 0, 5, 1e3, kTrafficUnknownDimension }, { 9, 2, 1e6, 2 }, { 15, 12, 1e9, 0 } }, GroupPlacer(g));
        QVERIFY(measured.isOk());
        TrafficHeatmapWidget w;
        w.resize(900, 700);
        w.setTitle(QStringLiteral("Measured traffic: three known pairs"));
        w.setSource(std::make_shared<MeasuredTrafficSource>(*measured), { 4, 2, 2 });
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.canvas()->ensureRendered();
        QCOMPARE(w.canvas()->level(), HeatmapLevel::Gpu);
        const QRgb low = pixelAt(w, 0, 5), mid = pixelAt(w, 9, 2), high = pixelAt(w, 15, 12);
        QVERIFY(low != mid && mid != high && low != high);
        QVERIFY(luminance(low) < luminance(mid) && luminance(mid) < luminance(high));
        QCOMPARE(low, HeatmapColorScale::viridisAt(0)); // 1 kB: bottom of the 3..9 decade scale
        QCOMPARE(high, HeatmapColorScale::viridisAt(255)); // 1 GB: top
        QCOMPARE(pixelAt(w, 5, 0), HeatmapColorScale::zeroRgb()); // direction matters: 5 -> 0 sent nothing
        save(w, "measured-three");
    }

    void legendShowsTheScale()
    {
        if (!pixelsAvailable())
            QSKIP("pixel checks need a real platform (run under xvfb-run)");
        const Example e = llama();
        TrafficHeatmapWidget w;
        w.resize(1000, 800);
        w.setSource(e.source, e.geometry);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrafficHeatmapCanvas* c = w.canvas();
        const QImage shot = c->grab().toImage();
        const QRect legend = c->legendRect(), bar = c->legendBarRect();
        QVERIFY(legend.contains(bar) && bar.height() > 100);
        QVERIFY(!c->plotRect().intersects(legend));
        // The bar holds the gradient: many distinct colours, yellow at the top, purple at the bottom.
        std::set<QRgb> colours;
        for (int y = bar.top() + 1; y < bar.bottom(); ++y)
            colours.insert(shot.pixel(bar.center().x(), y));
        QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
        QCOMPARE(shot.pixel(bar.center().x(), bar.top() + 1), HeatmapColorScale::viridisAt(255));
        QVERIFY(luminance(shot.pixel(bar.center().x(), bar.bottom() - 1)) < 60);
        // Decade ticks cover the cells and are labelled in SI bytes.
        const HeatmapColorScale& s = c->colorScale();
        QVERIFY(s.tickDecades().size() >= 3);
        QCOMPARE(HeatmapColorScale::formatBytes(std::pow(10.0, s.highDecade())),
            QStringLiteral("10 TB")); // node pairs of TP: 8 x 601 GB
    }

    void hoverNamesThePairAndBytes()
    {
        const Example e = llama();
        TrafficHeatmapWidget w;
        w.resize(1000, 800);
        w.setSource(e.source, e.geometry);
        w.show(); // lays the canvas out (offscreen too)
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrafficHeatmapCanvas* c = w.canvas();
        c->ensureRendered();
        QCOMPARE(c->level(), HeatmapLevel::Node);
        // Node 0 -> node 1: the DP ring neighbours (8 GPUs x 8.8 GB), all under one leaf.
        const QString nodes = c->hoverText(c->cellCenter(0, 8));
        QVERIFY2(nodes.contains(QStringLiteral("Source: node 0 (GPUs 0\u20137)")), qPrintable(nodes));
        QVERIFY2(nodes.contains(QStringLiteral("Destination: node 1 (GPUs 8\u201315)")), qPrintable(nodes));
        QVERIFY2(nodes.contains(QStringLiteral("Bytes per iteration: 70.4 GB")), qPrintable(nodes));
        QVERIFY2(nodes.contains(QStringLiteral("By dimension: DP 70.4 GB")), qPrintable(nodes));
        QVERIFY2(nodes.contains(QStringLiteral("By link class: leaf 70.4 GB")), qPrintable(nodes));
        c->setViewWindow(0, 0, 32);
        c->ensureRendered();
        const QString gpus = c->hoverText(c->cellCenter(3, 4));
        QVERIFY2(gpus.contains(QStringLiteral("Source: GPU 3 (node 0)")), qPrintable(gpus));
        QVERIFY2(gpus.contains(QStringLiteral("Destination: GPU 4 (node 0)")), qPrintable(gpus));
        QVERIFY2(gpus.contains(QStringLiteral("TP 601 GB")) && gpus.contains(QStringLiteral("scale-up 601 GB")),
            qPrintable(gpus));
        QVERIFY(c->hoverText(QPoint(2, 2)).isEmpty()); // outside the plot
        w.setDimensionFilter(1u << int(TrafficDimension::DP));
        c->ensureRendered();
        QVERIFY2(c->hoverText(c->cellCenter(3, 4)).contains(QStringLiteral("0 B (601 GB more hidden by the filters)")),
            qPrintable(c->hoverText(c->cellCenter(3, 4))));
    }

    void hoverNamesThePairDrawnUnderTheCursor()
    {
        // At a fractional number of pixels per GPU (about 2.5), every pixel near the diagonal must
        // be coloured by the bytes of the pair its hover text names.
        const Example e = llama();
        TrafficHeatmapWidget w;
        w.resize(1200, 900);
        w.setSource(e.source, e.geometry);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrafficHeatmapCanvas* c = w.canvas();
        c->setViewWindow(100, 100, 300);
        c->ensureRendered();
        QCOMPARE(c->level(), HeatmapLevel::Gpu);
        const QRect plot = c->plotRect();
        QVERIFY(std::abs(plot.width() / 300.0 - std::round(plot.width() / 300.0)) > 0.1);
        const QRegularExpression pair(QStringLiteral("Source: GPU (\\d+).*\nDestination: GPU (\\d+)"));
        const auto darken = [](QRgb v) { return qRgb(qRed(v) * 82 / 100, qGreen(v) * 82 / 100, qBlue(v) * 82 / 100); };
        int checked = 0, withTraffic = 0;
        for (int x = 0; x < plot.width(); ++x)
            for (int y = std::max(0, x - 30); y < std::min(plot.height(), x + 30); y += 3) {
                const QRegularExpressionMatch m = pair.match(c->hoverText(plot.topLeft() + QPoint(x, y)));
                QVERIFY(m.hasMatch());
                const double bytes = e.matrix.pairTotalBytes(m.captured(1).toLongLong(), m.captured(2).toLongLong());
                const QRgb expected = c->colorScale().rgb(bytes), drawn = c->heatmapImage().pixel(x, y);
                QVERIFY2(drawn == expected || drawn == darken(expected),
                    qPrintable(QStringLiteral("pixel %1,%2 (%3)").arg(x).arg(y).arg(m.captured(0))));
                ++checked;
                withTraffic += bytes > 0;
            }
        QVERIFY(checked > 10000 && withTraffic > 500);
    }

    void filtersChangeThePicture()
    {
        if (!pixelsAvailable())
            QSKIP("pixel checks need a real platform (run under xvfb-run)");
        const Example e = llama();
        TrafficHeatmapWidget w;
        w.resize(1100, 820);
        w.setSource(e.source, e.geometry);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.canvas()->setViewWindow(0, 0, 64);
        const QImage all = w.canvas()->grab().toImage();
        QVERIFY(pixelAt(w, 0, 1) != HeatmapColorScale::zeroRgb());
        // Through the combo box, as a user would: DP only removes the TP cells and keeps DP's.
        w.dimensionCombo()->setCurrentIndex(w.dimensionCombo()->findData(1u << int(TrafficDimension::DP)));
        QCOMPARE(w.dimensionFilter(), 1u << int(TrafficDimension::DP));
        QCOMPARE(pixelAt(w, 0, 1), HeatmapColorScale::zeroRgb());
        QVERIFY(pixelAt(w, 0, 8) != HeatmapColorScale::zeroRgb());
        QVERIFY(w.canvas()->grab().toImage() != all);
        save(w, "llama-dp-filter");
        // Scale-up only: DP (leaf) disappears, TP comes back.
        w.setDimensionFilter(kAllTrafficDimensionsMask);
        w.linkClassCombo()->setCurrentIndex(w.linkClassCombo()->findData(1u << 0));
        QCOMPARE(pixelAt(w, 0, 8), HeatmapColorScale::zeroRgb());
        QVERIFY(pixelAt(w, 0, 1) != HeatmapColorScale::zeroRgb());
        // A filter that matches nothing says so instead of drawing a blank square.
        w.setLinkClassFilter(1u << 3);
        w.canvas()->ensureRendered();
        QVERIFY(w.canvas()->colorScale().isEmpty());
    }

    void zoomSwitchesTheLevel()
    {
        const Example e = llama(16384);
        TrafficHeatmapWidget w;
        w.resize(1000, 800);
        w.setSource(e.source, e.geometry);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrafficHeatmapCanvas* c = w.canvas();
        c->ensureRendered();
        // 16,384 GPUs on a plot of 512 to 2047 pixels: 2,048 nodes do not fit, 512 racks of 32 GPUs do.
        QVERIFY(c->plotRect().width() >= 512 && c->plotRect().width() < 2048);
        QCOMPARE(c->level(), HeatmapLevel::Rack);
        const QPointF centre = QRectF(c->plotRect()).center();
        const HeatmapLevel expected[] = { HeatmapLevel::Node, HeatmapLevel::Gpu };
        for (HeatmapLevel level : expected) {
            int steps = 0;
            while (c->level() != level && steps++ < 60) {
                // A real wheel notch at the centre, as the user zooms in.
                QWheelEvent wheel(centre, c->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
                QCoreApplication::sendEvent(c, &wheel);
                c->ensureRendered();
            }
            QCOMPARE(c->level(), level);
            QVERIFY(c->statusText().startsWith(levelName(level) + QStringLiteral(" level")));
        }
        QVERIFY(!c->viewport().isReset());
        QVERIFY(c->viewport().span() < c->plotRect().width());
        // Dragging pans: the picture follows the mouse (right shows lower destinations).
        const double colStart = c->viewport().colStart();
        QMouseEvent press(
            QEvent::MouseButtonPress, centre, c->mapToGlobal(centre), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(c, &press);
        const QPointF moved = centre + QPointF(100, 0);
        QMouseEvent move(QEvent::MouseMove, moved, c->mapToGlobal(moved), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(c, &move);
        QMouseEvent release(
            QEvent::MouseButtonRelease, moved, c->mapToGlobal(moved), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(c, &release);
        QVERIFY(c->viewport().colStart() < colStart);
        w.resetView();
        c->ensureRendered();
        QVERIFY(c->viewport().isReset());
        QCOMPARE(c->level(), HeatmapLevel::Rack);
    }

    void emptyState()
    {
        TrafficHeatmapWidget w;
        QVERIFY(w.isShowingEmptyState());
        w.setEmptyState(QStringLiteral("Import a run to see its measured traffic."));
        const Example e = llama();
        w.setSource(e.source, e.geometry);
        QVERIFY(!w.isShowingEmptyState());
        w.setSource(nullptr, e.geometry);
        QVERIFY(w.isShowingEmptyState());
        QVERIFY(!w.dimensionCombo()->isEnabled());
    }

    void sixteenThousandGpusRenderWithBoundedMemory()
    {
        // Peak RSS (VmHWM, KiB) must start fresh, and fork() is unsafe in a process
        // with Qt's threads: run this executable again with only renderSixteenThousandGpus.
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CLUSTERSCOPE_HEATMAP_MEMORY_CHILD"), QStringLiteral("1"));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(),
            { QStringLiteral("-platform"), QStringLiteral("offscreen"), QStringLiteral("renderSixteenThousandGpus") });
        QVERIFY(child.waitForFinished(120000));
        const QString out = QString::fromLocal8Bit(child.readAllStandardOutput());
        QCOMPARE(child.exitCode(), 0);
        const QRegularExpressionMatch m
            = QRegularExpression(QStringLiteral("peak RSS grew by (\\d+) KiB; control (\\d+) KiB")).match(out);
        QVERIFY2(m.hasMatch(), qPrintable(out));
        const long long grownKiB = m.captured(1).toLongLong(), controlKiB = m.captured(2).toLongLong();
        qInfo("16,384 GPUs, four views at 1600 x 1000: peak RSS grew by %lld KiB (a touched 32 MiB buffer: %lld KiB)",
            grownKiB, controlKiB);
        QVERIFY2(controlKiB >= 24 * 1024, qPrintable(out)); // the measurement sees allocations of this size
        // The dense matrix would be 2 GiB of doubles (1 GiB even as floats).
        QVERIFY2(grownKiB < 64 * 1024, qPrintable(out));
    }

    void renderSixteenThousandGpus()
    {
        if (qEnvironmentVariableIsEmpty("CLUSTERSCOPE_HEATMAP_MEMORY_CHILD"))
            QSKIP("runs as the child process of sixteenThousandGpusRenderWithBoundedMemory");
        const Example e = llama(16384);
        QCOMPARE(e.source->gpus(), 16384LL);
        TrafficHeatmapCanvas c;
        c.resize(1600, 1000);
        c.setSource(e.source, e.geometry);
        QImage target(c.size(), QImage::Format_RGB32);
        target.fill(Qt::white);
        // Reset the peak to the current RSS (Linux clear_refs "5", proc(5)) so that what was
        // allocated and freed before does not hide the growth.
        const auto resetPeak = [] {
            if (FILE* clear = std::fopen("/proc/self/clear_refs", "w")) {
                std::fputs("5", clear);
                std::fclose(clear);
            }
        };
        resetPeak();
        const long long before = peakRssKiB();
        int rendered = 0;
        for (double span : { 16384.0, 4096.0, 1024.0, 300.0 }) {
            c.setViewWindow(8192 - span / 2, 8192 - span / 2, span);
            c.render(&target);
            rendered += c.lastRenderStats().cells > 0 && !c.heatmapImage().isNull();
        }
        const long long after = peakRssKiB();
        QCOMPARE(rendered, 4);
        // Control: the same measurement around 32 MiB that are really touched.
        resetPeak();
        const long long controlBefore = peakRssKiB();
        std::vector<char> control(32u << 20, 1);
        const long long controlAfter = peakRssKiB();
        printf("peak RSS grew by %lld KiB; control %lld KiB (checksum %d)\n", after - before,
            controlAfter - controlBefore, int(control[12345]));
        fflush(stdout);
    }

    void screenshots()
    {
        if (!pixelsAvailable())
            QSKIP("screenshots need a real platform (run under xvfb-run)");
        const Example big = llama(16384);
        TrafficHeatmapWidget w;
        w.resize(1200, 900);
        w.setTitle(QStringLiteral("Llama 3 70B scaled to 16,384 H100 (DP 512): model traffic"));
        w.setSource(big.source, big.geometry);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        save(w, "16k-full");
        w.canvas()->setViewWindow(3800, 3800, 600);
        save(w, "16k-zoom");
        // Hover: a real mouse move over the cell of GPUs 4000 -> 4001 (TP), screen grabbed with the tooltip.
        TrafficHeatmapCanvas* c = w.canvas();
        c->ensureRendered();
        const QPoint cell = c->cellCenter(4000, 4001);
        QMouseEvent hover(QEvent::MouseMove, cell, c->mapToGlobal(cell), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(c, &hover);
        QTest::qWait(300);
        QVERIFY(QToolTip::isVisible());
        QVERIFY2(
            QToolTip::text().contains(QStringLiteral("Source: GPU 4000 (node 500)\nDestination: GPU 4001 (node 500)")),
            qPrintable(QToolTip::text()));
        QGuiApplication::primaryScreen()
            ->grabWindow(0)
            .copy(w.geometry())
            .save(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-heatmap-hover.png")));
        QToolTip::hideText();
        const Example moe = example("examples/mixtral-8x7b-256-h200-roce.json");
        w.setTitle(QStringLiteral("Mixtral 8x7B on 256 H200 (TP 2, EP 8, DP 128): model traffic"));
        w.setSource(moe.source, moe.geometry);
        w.canvas()->setViewWindow(0, 0, 64);
        save(w, "mixtral-zoom");
        QVERIFY(
            QFile::exists(clusterscope::testsupport::screenshotPath(QStringLiteral("gui-heatmap-mixtral-zoom.png"))));
    }
};

QTEST_MAIN(TestHeatmapWidget)
#include "tst_heatmapwidget.moc"
