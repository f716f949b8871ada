// Telemetry analyses on synthetic counters: counter resets, gaps and saturation with exact
// increases, the iteration period (and the refusal of aliased periods), utilisation average / p99 /
// peak and sustained peaks, errors compared at both ends, uplink imbalance, gaps never zeros.

#include "engine/telemetry/counterintervals.h"
#include "engine/telemetry/iterationperiod.h"
#include "engine/telemetry/telemetryanalysis.h"

#include <QtTest>

#include <cmath>

using namespace clusterscope::engine;

namespace {

RawSeries counter(const std::vector<double>& values, double t0 = 1000.0, double step = 1.0)
{
    RawSeries s;
    for (std::size_t i = 0; i < values.size(); ++i) {
        s.timesS.push_back(t0 + double(i) * step);
        s.values.push_back(values[i]);
    }
    return s;
}

// Counter values from per-second rates.
RawSeries fromRates(const std::vector<double>& rates, double t0 = 1000.0)
{
    std::vector<double> v { 5e9 };
    for (double r : rates)
        v.push_back(v.back() + r);
    return counter(v, t0);
}

// 4 NICs (hosts 0..3) on one leaf, the leaf on two spines; 400 Gb/s links (50e9 B/s).
FabricGraph smallFabric()
{
    FabricGraph g;
    std::vector<NodeId> nics;
    for (int h = 0; h < 4; ++h) {
        FabricNode n;
        n.kind = NodeKind::Nic;
        n.host = h;
        nics.push_back(g.addNode(n));
        g.setLabel(nics.back(), "node00" + std::to_string(h + 1) + " mlx5_0");
    }
    FabricNode leaf;
    leaf.kind = NodeKind::Switch;
    leaf.tier = kTierLeaf;
    const NodeId l = g.addNode(leaf);
    g.setLabel(l, "leaf-0");
    for (int s = 0; s < 2; ++s) {
        FabricNode spine;
        spine.kind = NodeKind::Switch;
        spine.tier = kTierSpine;
        g.setLabel(g.addNode(spine), "spine-" + std::to_string(s));
    }
    for (int h = 0; h < 4; ++h)
        g.addLink({ nics[h], l, 1, std::uint16_t(h + 1), 400.0f });
    for (int s = 0; s < 2; ++s)
        g.addLink({ l, NodeId(5 + s), std::uint16_t(5 + s), 1, 400.0f });
    return g;
}

} // namespace

class TestTelemetryAnalysis : public QObject {
    Q_OBJECT
private slots:
    void counterSemantics()
    {
        // +3 errors over the window is 3 exactly (PromQL's increase() would extrapolate).
        CounterIntervals a = counterIntervals(counter({ 0, 1, 1, 3 }), 2.5);
        QCOMPARE(a.total, 3.0);
        QCOMPARE(a.resets, 0);
        // A reset counts the new value (the counter restarted from zero).
        CounterIntervals b = counterIntervals(counter({ 100, 200, 10, 30 }), 2.5);
        QCOMPARE(b.resets, 1);
        QCOMPARE(b.total, 100.0 + 10.0 + 20.0);
        // A missed scrape is a gap: no interval, no invented rate.
        RawSeries gap = counter({ 0, 10, 20 });
        gap.timesS[2] = gap.timesS[1] + 10.0;
        CounterIntervals c = counterIntervals(gap, 2.5);
        QCOMPARE(c.gaps, 1);
        QCOMPARE(c.intervals.size(), std::size_t(1));
        QCOMPARE(c.coveredS, 1.0);
        // A 16-bit IB SymbolErrorCounter pegged at all ones.
        QVERIFY(counterIntervals(counter({ 65000, 65535, 65535 }), 2.5).saturated);
        QVERIFY(!counterIntervals(counter({ 65000, 65534, 65535 }), 2.5).saturated);
        // Gauges are rates already (DCGM NVLink B/s).
        RawSeries g = counter({ 5, 7, 9 });
        g.gauge = true;
        CounterIntervals d = counterIntervals(g, 2.5);
        QCOMPARE(d.intervals[1].rate, 7.0);
        QCOMPARE(d.total, 12.0);
    }

    void period_data()
    {
        QTest::addColumn<int>("periodSamples");
        QTest::addColumn<int>("busySamples");
        QTest::addColumn<bool>("found");
        QTest::addColumn<QString>("message");
        QTest::addRow("6 s with 2 s busy") << 6 << 2 << true << "iteration period 6 s";
        QTest::addRow("11 s with 3 s busy") << 11 << 3 << true << "iteration period 11 s";
        QTest::addRow("3 samples: aliased") << 3 << 1 << false << "under 4 samples and may be an alias";
        QTest::addRow("2 samples: aliased") << 2 << 1 << false << "under 4 samples and may be an alias";
        QTest::addRow("constant") << 1 << 0 << false << "constant";
    }
    void period()
    {
        QFETCH(int, periodSamples);
        QFETCH(int, busySamples);
        QFETCH(bool, found);
        QFETCH(QString, message);
        std::vector<double> s;
        for (int i = 0; i < 120; ++i)
            s.push_back(i % periodSamples >= periodSamples - busySamples ? 40e9 : 2e9);
        IterationPeriod p = findIterationPeriod(s, 1.0);
        QCOMPARE(p.found, found);
        QVERIFY2(p.message.find(message.toStdString()) != std::string::npos, p.message.c_str());
        if (found)
            QCOMPARE(p.periodS, double(periodSamples));
    }

    void periodRejectsNoise()
    {
        std::vector<double> s;
        std::uint32_t x = 12345;
        for (int i = 0; i < 200; ++i) {
            x = x * 1664525u + 1013904223u;
            s.push_back(double(x >> 8));
        }
        QVERIFY(!findIterationPeriod(s, 1.0).found);
    }

    // PFC planted on the small fabric (pause durations in microseconds, one sample a second):
    // link 0: node001 receives pauses 80 % of each second for 8 s (a storm, the leaf's end unmeasured);
    // link 1: 1 % background pausing (listed, no alert); link 2: node003 SENDS pauses 60 % of each
    // second for 6 s (direction leaf -> node003 stalled, the leaf's received pauses unmeasured);
    // link 3: 90 % for only 3 s (under the rule's 5 s: no alert).
    void pfcStorm()
    {
        const FabricGraph g = smallFabric();
        TelemetryData d;
        d.startS = 1000;
        d.endS = 1030;
        auto pauses = [](double fraction, int from, int seconds) {
            std::vector<double> r(30, 0.0);
            for (int t = from; t < from + seconds; ++t)
                r[std::size_t(t)] = fraction * 1e6;
            return r;
        };
        d.add(0, 0, TelemetryMetric::PfcPauseRxUs, fromRates(pauses(0.8, 10, 8)));
        d.add(1, 0, TelemetryMetric::PfcPauseRxUs, fromRates(std::vector<double>(30, 0.01 * 1e6)));
        d.add(2, 0, TelemetryMetric::PfcPauseTxUs, fromRates(pauses(0.6, 5, 6)));
        d.add(2, 0, TelemetryMetric::PfcPauseRxUs, fromRates(std::vector<double>(30, 0.0)));
        d.add(3, 0, TelemetryMetric::PfcPauseRxUs, fromRates(pauses(0.9, 20, 3)));
        const TelemetryReport r = analyseTelemetry(g, d, AlertRules::defaults());

        QCOMPARE(r.pfc.size(), std::size_t(4));
        const LinkPfc& storm = r.pfc[0];
        QCOMPARE(storm.link, LinkId(0));
        QCOMPARE(storm.direction, 0);
        QVERIFY(storm.receivedMeasured && !storm.sentMeasured);
        QVERIFY(std::abs(storm.receivedFraction - 0.8 * 8 / 30) < 1e-9);
        QCOMPARE(storm.peakFraction, 0.8);
        QCOMPARE(storm.longestAboveS, 8.0);
        QVERIFY(std::abs(r.pfc[1].receivedFraction - 0.01) < 1e-9);
        const LinkPfc& sent = r.pfc[2];
        QCOMPARE(sent.link, LinkId(2));
        QCOMPARE(sent.direction, 1); // leaf -> node003: node003 paused its sender
        QVERIFY(sent.sentMeasured && !sent.receivedMeasured);
        QVERIFY(std::abs(sent.sentFraction - 0.6 * 6 / 30) < 1e-9);

        QStringList alerts;
        for (const auto& a : r.alerts)
            alerts << QString::fromStdString(a.rule + " " + std::to_string(a.link) + " " + std::to_string(a.direction));
        QCOMPARE(alerts, (QStringList { QStringLiteral("PfcStorm 0 0"), QStringLiteral("PfcStorm 2 1") }));
        QVERIFY2(r.alerts[0].message.find("node001 mlx5_0 received pauses 21.3 %") != std::string::npos,
            r.alerts[0].message.c_str());
        QVERIFY2(r.alerts[0].message.find("leaf-0's sent pauses are not measured") != std::string::npos,
            r.alerts[0].message.c_str());
        QVERIFY2(r.alerts[1].message.find("node003 mlx5_0 sent pauses 12.0 %") != std::string::npos,
            r.alerts[1].message.c_str());
        QCOMPARE(r.alerts[0].severity, AlertSeverity::Critical);
    }

    void linkAnalyses()
    {
        const FabricGraph g = smallFabric();
        TelemetryData d;
        d.startS = 1000;
        d.endS = 1030;
        const double cap = 50e9;
        for (LinkId nic = 0; nic < 4; ++nic) {
            std::vector<double> rates;
            for (int t = 0; t < 30; ++t)
                rates.push_back((nic == 3 && t >= 10 && t < 13) ? 0.99 * cap : 0.5 * cap);
            d.add(nic, 0, TelemetryMetric::TxBytes, fromRates(rates));
        }
        // Uplinks within the imbalance threshold (0.5 / 0.4 = 1.25x).
        d.add(4, 0, TelemetryMetric::TxBytes, fromRates(std::vector<double>(30, 0.5 * cap)));
        d.add(5, 0, TelemetryMetric::TxBytes, fromRates(std::vector<double>(30, 0.3 * cap)));
        // Symbol errors: link 0 at both ends, link 1 at the NIC only (leaf measured zero), link 2 at
        // the NIC with the leaf unmeasured.
        for (LinkId l = 0; l < 3; ++l)
            d.add(l, 0, TelemetryMetric::SymbolErrors, counter({ 0, 0, 4, 4, 7 }, 1000, 7));
        d.add(0, 1, TelemetryMetric::SymbolErrors, counter({ 0, 2, 2, 2, 2 }, 1000, 7));
        d.add(1, 1, TelemetryMetric::SymbolErrors, counter({ 0, 0, 0, 0, 0 }, 1000, 7));

        const TelemetryReport r = analyseTelemetry(g, d, AlertRules::defaults());
        QCOMPARE(r.sampleIntervalS, 1.0);
        QCOMPARE(r.linksMeasured, std::size_t(6));
        QCOMPARE(r.linksWithoutData, std::size_t(0));
        const auto& hot = r.utilisation[3][0];
        QVERIFY(hot.hasData);
        QCOMPARE(hot.peak, 0.99);
        QCOMPARE(hot.longestAboveS, 3.0);
        QVERIFY(std::abs(hot.average - (27 * 0.5 + 3 * 0.99) / 30) < 1e-12);
        QCOMPARE(hot.p99, 0.99);
        QCOMPARE(hot.source, std::string("tx at node004 mlx5_0"));
        // Direction 1 (leaf -> NIC) is not measured: no data, never zero.
        QVERIFY(!r.utilisation[3][1].hasData);

        QStringList alerts;
        for (const auto& a : r.alerts)
            alerts << QString::fromStdString(a.rule + " " + std::to_string(a.link) + ": " + a.message);
        auto find = [&](const QString& needle) {
            for (const auto& a : alerts)
                if (a.contains(needle))
                    return true;
            return false;
        };
        QVERIFY2(
            find(QStringLiteral(
                "LinkPeakUtilisation 3: node004 mlx5_0 -> leaf-0: utilisation at or above 95.0 % for 3 s in a row")),
            qPrintable(alerts.join(QLatin1Char('\n'))));
        QVERIFY2(find(QStringLiteral("LinkErrors 0: node001 mlx5_0 port 1 <-> leaf-0 port 1: symbol_errors +9 in the "
                                     "window, seen at both ends (7 at node001 mlx5_0, 2 at leaf-0)")),
            qPrintable(alerts.join(QLatin1Char('\n'))));
        QVERIFY(find(QStringLiteral("7 at node002 mlx5_0 only: one-ended errors point at the cable or optic")));
        QVERIFY(find(QStringLiteral("7 at node003 mlx5_0 only (the other end is not measured)")));
        QCOMPARE(r.imbalance.size(), std::size_t(0));

        // 0.6 against 0.1: 1.71x the mean, above the threshold.
        TelemetryData d3;
        d3.startS = 1000;
        d3.endS = 1030;
        d3.add(4, 0, TelemetryMetric::TxBytes, fromRates(std::vector<double>(30, 0.6 * cap)));
        d3.add(5, 0, TelemetryMetric::TxBytes, fromRates(std::vector<double>(30, 0.1 * cap)));
        const TelemetryReport r3 = analyseTelemetry(g, d3, AlertRules::defaults());
        QCOMPARE(r3.imbalance.size(), std::size_t(1));
        QCOMPARE(r3.imbalance[0].hottest, LinkId(4));
        QVERIFY(std::abs(r3.imbalance[0].maxOverMean - 0.6 / 0.35) < 1e-9);
        // Only the two uplinks measured: the NIC links are gaps.
        QCOMPARE(r3.linksWithoutData, std::size_t(4));
        QCOMPARE(r3.gaps, (std::vector<LinkId> { 0, 1, 2, 3 }));
    }
};

QTEST_GUILESS_MAIN(TestTelemetryAnalysis)
#include "tst_telemetryanalysis.moc"
