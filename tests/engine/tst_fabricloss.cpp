// Loss, buffers and flow control figures (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018;
// balls into bins: Raab and Steger 1998).

#include "engine/fabric/ecmpstats.h"
#include "engine/fabric/lossmodel.h"

#include <QtTest>

using namespace clusterscope::engine;

class TestFabricLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void goBackN_data()
    {
        QTest::addColumn<double>("loss");
        QTest::addColumn<double>("gbps");
        QTest::addColumn<double>("rttUs");
        QTest::addColumn<double>("mtu");
        QTest::addColumn<double>("efficiency");
        // Go-back-N, 1 / (1 + p W): 400G, 10 us RTT, 4 KB MTU -> W ~ 122: 1e-3 -> 0.89, 1e-2 -> 0.45.
        QTest::addRow("1e-3 at 400G 10us 4KB") << 1e-3 << 400.0 << 10.0 << 4096.0 << 0.891;
        QTest::addRow("1e-2 at 400G 10us 4KB") << 1e-2 << 400.0 << 10.0 << 4096.0 << 0.450;
        // The seed's 0.01% at the same link costs ~1.2%, not 10% ...
        QTest::addRow("seed 1e-4 at 10us") << 1e-4 << 400.0 << 10.0 << 4096.0 << 0.988;
        // ... it reaches ~10% at ~91 us RTT (W ~ 1,111 packets).
        QTest::addRow("seed 1e-4 at 91us") << 1e-4 << 400.0 << 91.0 << 4096.0 << 0.900;
        QTest::addRow("no loss") << 0.0 << 400.0 << 10.0 << 4096.0 << 1.0;
    }
    void goBackN()
    {
        QFETCH(double, loss);
        QFETCH(double, gbps);
        QFETCH(double, rttUs);
        QFETCH(double, mtu);
        QFETCH(double, efficiency);
        const double w = windowPackets(gbps, rttUs * 1e-6, mtu);
        QVERIFY2(std::abs(goBackNEfficiency(loss, w) - efficiency) < 0.0015,
            qPrintable(QString::number(goBackNEfficiency(loss, w))));
    }

    void windowAndSeedRtt()
    {
        QVERIFY(std::abs(windowPackets(400, 10e-6, 4096) - 122.07) < 0.01);
        // RTT at which 0.01% loss costs 10%: (1/0.9 - 1) / 1e-4 = 1,111 packets of 4 KB at 50 GB/s.
        QVERIFY(std::abs(rttForEfficiency(1e-4, 0.9, 400, 4096) * 1e6 - 91.0) < 0.1);
        QCOMPARE(rttForEfficiency(0, 0.9, 400, 4096), 0.0);
    }

    void buffers_data()
    {
        QTest::addColumn<double>("gbps");
        QTest::addColumn<double>("us");
        QTest::addColumn<double>("megabytes");
        QTest::addRow("400G x 200us = 10 MB") << 400.0 << 200.0 << 10.0;
        QTest::addRow("400G x 100us = 5 MB") << 400.0 << 100.0 << 5.0;
        QTest::addRow("800G x 200us = 20 MB") << 800.0 << 200.0 << 20.0;
    }
    void buffers()
    {
        QFETCH(double, gbps);
        QFETCH(double, us);
        QFETCH(double, megabytes);
        QCOMPARE(bufferBytes(gbps, us * 1e-6) / 1e6, megabytes);
    }

    void pfcHeadroom_data()
    {
        QTest::addColumn<double>("gbps");
        QTest::addColumn<double>("metres");
        QTest::addColumn<double>("mtu");
        QTest::addColumn<double>("bytes");
        // (301 + 2.16 L) x Gb/s + 2.72 x MTU (mlx5 calculate_xoff).
        QTest::addRow("100G 5m 1500") << 100.0 << 5.0 << 1500.0 << 35260.0;
        QTest::addRow("400G 10m 4096") << 400.0 << 10.0 << 4096.0 << 140181.12;
        QTest::addRow("400G 100m 4096") << 400.0 << 100.0 << 4096.0 << 217941.12;
    }
    void pfcHeadroom()
    {
        QFETCH(double, gbps);
        QFETCH(double, metres);
        QFETCH(double, mtu);
        QFETCH(double, bytes);
        QVERIFY(std::abs(pfcHeadroomBytes(gbps, metres, mtu) - bytes) < 1e-6);
    }

    void congestionControl()
    {
        QCOMPARE(effectiveRateFraction(0.99, 0, 122), 0.99);
        QVERIFY(std::abs(effectiveRateFraction(0.9, 1e-3, 122.07) - 0.9 * 0.8912) < 1e-3);
    }

    void ecmpExpectations_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("q");
        QTest::addColumn<double>("used");
        QTest::addColumn<double>("maxLoad");
        QTest::addColumn<double>("efficiency");
        // Balls into bins: used 1 - (1 - 1/n)^n -> 63%; max load ~2.6/3.5/4.4 (38/28/23%);
        // n = 32 with q = 2, 4, 8 queue pairs -> ~37%, 46%, 56%.
        QTest::addRow("n=8") << 8 << 1 << 0.656 << 2.6 << 0.38;
        QTest::addRow("n=32") << 32 << 1 << 0.638 << 3.5 << 0.28;
        QTest::addRow("n=128") << 128 << 1 << 0.634 << 4.4 << 0.23;
        QTest::addRow("n=32 q=2") << 32 << 2 << 0.638 << 5.4 << 0.37;
        QTest::addRow("n=32 q=4") << 32 << 4 << 0.638 << 8.7 << 0.46;
        QTest::addRow("n=32 q=8") << 32 << 8 << 0.638 << 14.4 << 0.56;
    }
    void ecmpExpectations()
    {
        QFETCH(int, n);
        QFETCH(int, q);
        QFETCH(double, used);
        QFETCH(double, maxLoad);
        QFETCH(double, efficiency);
        QVERIFY(std::abs(ecmpExpectedUsedFraction(n) - used) < 0.001);
        const double e = expectedMaxLoad(n * q, n);
        QVERIFY2(std::abs(e - maxLoad) < 0.06, qPrintable(QString::number(e)));
        QVERIFY(std::abs(ecmpCollectiveEfficiency(n, q) - efficiency) < 0.006);
        // A seeded Monte Carlo agrees with the exact value.
        QVERIFY(std::abs(sampledMaxLoad(n * q, n, 4000, 42) - e) < 0.06);
    }

    void ecmpLimits()
    {
        QCOMPARE(expectedMaxLoad(1, 1), 1.0);
        QCOMPARE(expectedMaxLoad(5, 1), 5.0);
        QVERIFY(std::abs(expectedMaxLoad(2, 2) - 1.5) < 1e-12);
        QCOMPARE(expectedMaxLoad(0, 4), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestFabricLoss)
#include "tst_fabricloss.moc"
