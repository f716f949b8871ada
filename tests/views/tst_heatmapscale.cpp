// The heatmap's pure parts: SI byte labels, the decade-rounded log colour scale (monotonic in
// bytes and in luminance), and the viewport (zoom at the cursor, pan, clamping, level by zoom).

#include "views/heatmap/heatmapcolorscale.h"
#include "views/heatmap/heatmapviewport.h"

#include <QtTest>

using namespace clusterscope::views;

Q_DECLARE_METATYPE(clusterscope::views::HeatmapLevel)

namespace {
double luminance(QRgb c) { return 0.2126 * qRed(c) + 0.7152 * qGreen(c) + 0.0722 * qBlue(c); } // ITU-R BT.709
} // namespace

class TestHeatmapScale : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void formatBytes_data()
    {
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("text");
        QTest::addRow("zero") << 0.0 << QStringLiteral("0 B");
        QTest::addRow("bytes") << 512.0 << QStringLiteral("512 B");
        QTest::addRow("kilo") << 1500.0 << QStringLiteral("1.5 kB");
        QTest::addRow("rounds up a prefix") << 999.7e3 << QStringLiteral("1 MB");
        QTest::addRow("dp pair of the llama example") << 8800452608.0 << QStringLiteral("8.8 GB");
        QTest::addRow("three digits") << 601295421440.0 << QStringLiteral("601 GB");
        QTest::addRow("tera") << 6.157e14 << QStringLiteral("616 TB");
        QTest::addRow("decade tick") << 1e7 << QStringLiteral("10 MB");
    }
    void formatBytes()
    {
        QFETCH(double, bytes);
        QFETCH(QString, text);
        QCOMPARE(HeatmapColorScale::formatBytes(bytes), text);
    }

    void decadeRange_data()
    {
        QTest::addColumn<double>("minBytes");
        QTest::addColumn<double>("maxBytes");
        QTest::addColumn<int>("low");
        QTest::addColumn<int>("high");
        QTest::addRow("dp to tp") << 8.8e9 << 6.0e11 << 9 << 12;
        QTest::addRow("one value widens to a decade") << 5e6 << 5e6 << 6 << 7;
        QTest::addRow("exact powers") << 1e3 << 1e9 << 3 << 9;
    }
    void decadeRange()
    {
        QFETCH(double, minBytes);
        QFETCH(double, maxBytes);
        QFETCH(int, low);
        QFETCH(int, high);
        const HeatmapColorScale s = HeatmapColorScale::forRange(minBytes, maxBytes);
        QCOMPARE(s.lowDecade(), low);
        QCOMPARE(s.highDecade(), high);
        QCOMPARE(s.tickDecades().first(), low);
        QCOMPARE(s.tickDecades().last(), high);
    }

    void scaleIsMonotonic()
    {
        const HeatmapColorScale s = HeatmapColorScale::forRange(1e3, 1e12);
        QVERIFY(HeatmapColorScale::forRange(0, 0).isEmpty());
        QCOMPARE(s.index(0), -1);
        QCOMPARE(s.rgb(0), HeatmapColorScale::zeroRgb());
        int previous = -1;
        for (double b = 1e3; b <= 1e12; b *= 3.0) {
            QVERIFY(s.index(b) >= previous);
            previous = s.index(b);
        }
        QCOMPARE(s.index(1e3), 0);
        QCOMPARE(s.index(1e12), 255);
        // Viridis: luminance rises with the index, so "more bytes" always reads "brighter".
        for (int i = 8; i < 256; i += 8)
            QVERIFY2(luminance(HeatmapColorScale::viridisAt(i)) > luminance(HeatmapColorScale::viridisAt(i - 8)),
                qPrintable(QString::number(i)));
        QVERIFY(s.tickDecades().size() <= 10);
        QCOMPARE(HeatmapColorScale::forRange(1e0, 1e18).tickDecades(),
            (QVector<int> { 0, 3, 6, 9, 12, 15, 18 })); // every third
    }

    void zoomKeepsTheGpuUnderTheCursor()
    {
        HeatmapViewport v;
        v.setGpus(1024);
        QVERIFY(v.isReset());
        v.zoomAt(0.25, 0.75, 4.0);
        QCOMPARE(v.span(), 256.0);
        QCOMPARE(v.colStart() + 0.25 * v.span(), 256.0); // GPU 256 stayed under x = 25 %
        QCOMPARE(v.rowStart() + 0.75 * v.span(), 768.0);
        v.panBy(0.5, 0.0); // drag right by half the plot: lower-numbered destinations come in
        QCOMPARE(v.colStart(), 64.0);
        v.panBy(10.0, -10.0); // clamped to the matrix
        QCOMPARE(v.colStart(), 0.0);
        QCOMPARE(v.rowStart(), 768.0);
        v.zoomAt(0.5, 0.5, 1e9);
        QCOMPARE(v.span(), v.minSpan());
        v.zoomAt(0.5, 0.5, 1e-9);
        QVERIFY(v.isReset());
        QCOMPARE(v.colStart(), 0.0);
    }

    void levelByZoom_data()
    {
        QTest::addColumn<long long>("gpus");
        QTest::addColumn<double>("span");
        QTest::addColumn<int>("pixels");
        QTest::addColumn<HeatmapLevel>("level");
        QTest::addRow("1024 on 600 px: nodes") << 1024LL << 1024.0 << 600 << HeatmapLevel::Node;
        QTest::addRow("1024 on 1100 px: GPUs") << 1024LL << 1024.0 << 1100 << HeatmapLevel::Gpu;
        QTest::addRow("zoomed to 256 GPUs") << 1024LL << 256.0 << 600 << HeatmapLevel::Gpu;
        QTest::addRow("16k full view: racks") << 16384LL << 16384.0 << 600 << HeatmapLevel::Rack;
        QTest::addRow("16k on 200 px: pods") << 16384LL << 16384.0 << 200 << HeatmapLevel::Pod;
        QTest::addRow("16k on 4000 px: capped at 2048 cells") << 16384LL << 16384.0 << 4000 << HeatmapLevel::Rack;
        QTest::addRow("16k zoomed x8: nodes") << 16384LL << 2048.0 << 600 << HeatmapLevel::Node;
    }
    void levelByZoom()
    {
        QFETCH(long long, gpus);
        QFETCH(double, span);
        QFETCH(int, pixels);
        QFETCH(HeatmapLevel, level);
        HeatmapViewport v;
        v.setGpus(gpus);
        v.setWindow(0, 0, span);
        const TrafficHeatmapGeometry g { 8, 4, 8 }; // node 8, rack 32, pod 256 GPUs
        QCOMPARE(v.levelFor(g, pixels), level);
    }

    void blockWindowRoundsOut()
    {
        HeatmapViewport v;
        v.setGpus(1000);
        v.setWindow(10.5, 300.2, 100.0);
        const auto w = v.blockWindow(32);
        QCOMPARE(w.rowBegin, 0LL);
        QCOMPARE(w.rowEnd, 128LL);
        QCOMPARE(w.colBegin, 288LL);
        QCOMPARE(w.colEnd, 416LL);
        v.setWindow(900, 900, 100);
        QCOMPARE(v.blockWindow(64).rowEnd, 1000LL); // clipped to the matrix
    }
};

QTEST_GUILESS_MAIN(TestHeatmapScale)
#include "tst_heatmapscale.moc"
