// The NIC throughput overlay of a run's timeline: time maps onto the timeline's axis (the same
// visible window in ns and the same lane x-range), a host's line follows its throughput, breaks
// where there are no samples (a gap, not a zero) and the chosen host is drawn bold; without data the
// widget says why.

#include "views/runs/nicoverlay.h"

#include <QtTest>

#include <cmath>
#include <limits>

using clusterscope::views::NicOverlay;
using clusterscope::views::NicOverlayHost;

class TestNicOverlay : public QObject {
    Q_OBJECT

    // Pixels of the line colours in column x (below the title).
    static int linePixels(const QImage& image, int x, bool bold)
    {
        int n = 0;
        for (int y = 20; y < image.height(); ++y) {
            const QColor c = image.pixelColor(x, y);
            n += bold ? (c.red() > 150 && c.green() < 120 && c.blue() < 100) : (c.blue() > c.red() + 20);
        }
        return n;
    }

private Q_SLOTS:
    void linesOnTheTimelineAxisWithGaps()
    {
        NicOverlay w;
        w.resize(700, 120);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double t0 = 1796170000.0; // seconds since the epoch
        // node001: 10 s at 400 GB/s then 10 s without samples then 10 s at 100 GB/s; node002 flat low.
        std::vector<double> a, b;
        for (int k = 0; k <= 30; ++k) {
            a.push_back(k < 10 ? 400e9 : k < 20 ? nan : 100e9);
            b.push_back(20e9);
        }
        w.setThroughput(t0, 1.0, { { QStringLiteral("node001"), a }, { QStringLiteral("node002"), b } });
        w.setHighlightedHost(QStringLiteral("node001"));
        // The timeline shows [t0 - 5 s, t0 + 35 s] on lanes from x = 100 to x = 500.
        w.setTimeAxis((t0 - 5) * 1e9, (t0 + 35) * 1e9, 100, 500);
        QCOMPARE(w.xOf(t0 - 5), 100.0);
        QCOMPARE(w.xOf(t0 + 35), 500.0);
        QCOMPARE(w.xOf(t0 + 15), 300.0);
        QVERIFY(w.message().isEmpty());
        const QImage image = w.grab().toImage();
        // node001 bold where it has samples, nothing of it inside the gap.
        QVERIFY(linePixels(image, int(w.xOf(t0 + 5)), true) > 0);
        QVERIFY(linePixels(image, int(w.xOf(t0 + 25)), true) > 0);
        QCOMPARE(linePixels(image, int(w.xOf(t0 + 15)), true), 0);
        // node002 continues through node001's gap.
        QVERIFY(linePixels(image, int(w.xOf(t0 + 15)), false) > 0);
        // The bold line's height follows the value: 400 GB/s (the top) above 100 GB/s.
        auto boldY = [&](int x) {
            for (int y = 20; y < image.height(); ++y) {
                const QColor c = image.pixelColor(x, y);
                if (c.red() > 150 && c.green() < 120 && c.blue() < 100)
                    return y;
            }
            return -1;
        };
        const int high = boldY(int(w.xOf(t0 + 5))), low = boldY(int(w.xOf(t0 + 25)));
        QVERIFY2(high >= 0 && low > high + 30, qPrintable(QStringLiteral("%1 %2").arg(high).arg(low)));
        QVERIFY(std::abs(high - w.yOf(400e9)) <= 2);
        // Nothing is drawn left of the lanes (the timeline's label column).
        QCOMPARE(linePixels(image, 50, true) + linePixels(image, 50, false), 0);
    }

    void saysWhyNothingIsDrawn()
    {
        NicOverlay w;
        w.resize(500, 100);
        QVERIFY2(w.message().contains(QStringLiteral("No telemetry source")), qPrintable(w.message()));
        w.setMessage(QStringLiteral("The run's times are relative to the trace, not wall-clock."));
        const QImage image = w.grab().toImage();
        for (int x = 0; x < image.width(); x += 7)
            QCOMPARE(linePixels(image, x, true), 0);
        QVERIFY(w.message().contains(QStringLiteral("wall-clock")));
    }
};

QTEST_MAIN(TestNicOverlay)
#include "tst_nicoverlay.moc"
