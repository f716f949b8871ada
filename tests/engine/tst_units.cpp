// Units: SI conversions and nccl-tests size suffixes.

#include "engine/core/units.h"

#include <QtTest>

using namespace clusterscope::engine;

class TestUnits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void linkRates()
    {
        // A 400 Gb/s port moves 50 GB/s raw (8 bits per byte, GB = 1e9 B).
        QCOMPARE(toBytesPerSecond(gigabitsPerSecond(400)).value, 50e9);
        QCOMPARE(toBitsPerSecond(gigabytesPerSecond(50)).value, 400e9);
        QCOMPARE(transferTime(gigabytes(100), gigabytesPerSecond(50)).value, 2.0);
        QCOMPARE(rate(Bytes(1e9), Seconds(0.5)).value, 2e9);
        QCOMPARE(computeTime(Flops(989.4e12), teraflopsPerSecond(989.4)).value, 1.0);
        QCOMPARE((Bytes(3) + Bytes(4)).value, 7.0);
        QVERIFY(Seconds(1) < Seconds(2));
    }
    void byteSizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<quint64>("bytes");
        QTest::addRow("plain") << "8" << true << quint64(8);
        QTest::addRow("K") << "128K" << true << quint64(131072);
        QTest::addRow("M") << "1M" << true << quint64(1048576);
        QTest::addRow("G") << "8G" << true << quint64(8589934592ull);
        QTest::addRow("lowercase g") << "2g" << true << quint64(2147483648ull);
        QTest::addRow("empty") << "" << false << quint64(0);
        QTest::addRow("suffix only") << "G" << false << quint64(0);
        QTest::addRow("negative") << "-8" << false << quint64(0);
        QTest::addRow("decimal") << "1.5G" << false << quint64(0);
        QTest::addRow("unknown suffix") << "8X" << false << quint64(0);
        QTest::addRow("overflow") << "99999999999T" << false << quint64(0);
    }
    void byteSizes()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(quint64, bytes);
        const auto parsed = parseByteSize(text.toStdString());
        QCOMPARE(parsed.has_value(), valid);
        if (valid)
            QCOMPARE(quint64(*parsed), bytes);
    }
};

QTEST_GUILESS_MAIN(TestUnits)
#include "tst_units.moc"
