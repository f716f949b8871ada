// The one fold of measured collectives and its busbw definition (engine/run/collectivefold.h), the
// nearest-rank tail statistics (latencystats.h), the step tail, and stragglers ranked by the tail
// of the waits they cause.

#include "engine/collectives/collectivemodel.h"
#include "engine/run/collectivefold.h"
#include "engine/run/collectiveop.h"

#include <QtTest>

using namespace clusterscope::engine;

namespace {
CollectiveSummary call(CollectiveOp op, std::int64_t bytes, int ranks, double durationUs, int lastArrival = -1,
    double waitUs = 0, const char* group = "")
{
    CollectiveSummary c;
    c.op = op;
    c.processGroup = group;
    c.bytes = bytes;
    c.groupSize = ranks;
    c.durationUs = durationUs;
    c.lastArrivalRank = lastArrival;
    c.waitUs = waitUs;
    c.totalWaitUs = waitUs * (ranks - 1);
    return c;
}
}

class TestCollectiveFold : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void latencyStats_data()
    {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("p50");
        QTest::addColumn<double>("p99");
        QTest::addColumn<double>("max");
        QTest::addRow("none") << QList<double> {} << 0.0 << 0.0 << 0.0 << 0.0;
        QTest::addRow("one") << QList<double> { 7.0 } << 7.0 << 7.0 << 7.0 << 7.0;
        // Nearest rank: p50 of 4 values is the 2nd smallest, p99 the 4th.
        QTest::addRow("four, unsorted") << QList<double> { 4.0, 1.0, 3.0, 2.0 } << 2.5 << 2.0 << 4.0 << 4.0;
        // 100 values 1..100: p50 = 50th, p99 = 99th.
        QList<double> hundred;
        for (int i = 100; i >= 1; --i)
            hundred << double(i);
        QTest::addRow("1..100") << hundred << 50.5 << 50.0 << 99.0 << 100.0;
        // One straggling call among 200 moves p99 only when it is more than 1% of the calls.
        QList<double> tail(198, 10.0);
        tail << 500.0 << 500.0 << 500.0;
        QTest::addRow("3 slow of 201") << tail << (198 * 10.0 + 1500.0) / 201 << 10.0 << 500.0 << 500.0;
    }
    void latencyStats()
    {
        QFETCH(QList<double>, values);
        QFETCH(double, mean);
        QFETCH(double, p50);
        QFETCH(double, p99);
        QFETCH(double, max);
        const LatencyStats s = clusterscope::engine::latencyStats(std::vector<double>(values.begin(), values.end()));
        QCOMPARE(s.count, int(values.size()));
        QVERIFY(std::abs(s.mean - mean) < 1e-12 * std::max(1.0, mean));
        QCOMPARE(s.p50, p50);
        QCOMPARE(s.p99, p99);
        QCOMPARE(s.max, max);
    }

    void busbwDefinition_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<double>("factor");
        // NVIDIA/nccl-tests doc/PERFORMANCE.md: 2(n-1)/n, (n-1)/n, 1.
        QTest::addRow("allreduce 8") << int(CollectiveOp::AllReduce) << 8 << 1.75;
        QTest::addRow("allgather 4") << int(CollectiveOp::AllGather) << 4 << 0.75;
        QTest::addRow("reducescatter 2") << int(CollectiveOp::ReduceScatter) << 2 << 0.5;
        QTest::addRow("alltoall 16") << int(CollectiveOp::AllToAll) << 16 << 15.0 / 16;
        QTest::addRow("gather 4 as allgather") << int(CollectiveOp::Gather) << 4 << 0.75;
        QTest::addRow("broadcast") << int(CollectiveOp::Broadcast) << 8 << 1.0;
        QTest::addRow("sendrecv") << int(CollectiveOp::SendRecv) << 2 << 1.0;
        QTest::addRow("no ranks: no bandwidth") << int(CollectiveOp::AllReduce) << 0 << 0.0;
        QTest::addRow("scatter 8 as allgather") << int(CollectiveOp::Scatter) << 8 << 7.0 / 8;
        QTest::addRow("hypercube: busbw = algbw") << int(CollectiveOp::HyperCube) << 8 << 1.0;
        QTest::addRow("barrier: busbw = algbw") << int(CollectiveOp::Barrier) << 8 << 1.0;
        QTest::addRow("no ranks, barrier: no bandwidth") << int(CollectiveOp::Barrier) << 0 << 0.0;
    }
    void busbwDefinition()
    {
        QFETCH(int, op);
        QFETCH(int, ranks);
        QFETCH(double, factor);
        const auto o = CollectiveOp(op);
        QCOMPARE(busBandwidthFactor(o, ranks), factor);
        // A fold of calls of 1 ms and 3 ms: busbw of the mean (2 ms), not the mean of per-call busbw.
        const auto folds
            = foldCollectives({ call(o, 2'000'000'000, ranks, 1000.0), call(o, 2'000'000'000, ranks, 3000.0) });
        QCOMPARE(int(folds.size()), 1);
        QCOMPARE(folds[0].algbwGbps, 1000.0);
        QCOMPARE(folds[0].busbwGbps, 1000.0 * factor);
        const double meanOfPerCall = (2000.0 + 2000.0 / 3) / 2 * factor;
        QVERIFY(factor == 0 || std::abs(folds[0].busbwGbps - meanOfPerCall) > 1.0);
    }

    void oneEnum_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("priced");
        QTest::addColumn<QString>("traceName"); // as PyTorch / Kineto spell it
        QTest::addRow("allreduce") << int(CollectiveOp::AllReduce) << "allreduce" << true << "all_reduce";
        QTest::addRow("reducescatter") << int(CollectiveOp::ReduceScatter) << "reducescatter" << true
                                       << "reduce_scatter_tensor";
        QTest::addRow("allgather") << int(CollectiveOp::AllGather) << "allgather" << true << "_allgather_base";
        QTest::addRow("broadcast") << int(CollectiveOp::Broadcast) << "broadcast" << true << "broadcast";
        QTest::addRow("reduce") << int(CollectiveOp::Reduce) << "reduce" << true << "reduce";
        QTest::addRow("alltoall") << int(CollectiveOp::AllToAll) << "alltoall" << true << "all_to_all";
        QTest::addRow("sendrecv") << int(CollectiveOp::SendRecv) << "sendrecv" << true << "send";
        QTest::addRow("gather") << int(CollectiveOp::Gather) << "gather" << false << "gather";
        QTest::addRow("scatter") << int(CollectiveOp::Scatter) << "scatter" << false << "scatter";
        QTest::addRow("hypercube") << int(CollectiveOp::HyperCube) << "hypercube" << false << "";
        QTest::addRow("barrier") << int(CollectiveOp::Barrier) << "barrier" << false << "barrier";
        QTest::addRow("unknown") << int(CollectiveOp::Unknown) << "unknown" << false << "all_shuffle";
    }
    void oneEnum()
    {
        // One enum for the model, traces and nccl-tests: names, which ones the model prices, and the
        // model refusing the others with a reason instead of pricing them as something else.
        QFETCH(int, op);
        QFETCH(QString, name);
        QFETCH(bool, priced);
        QFETCH(QString, traceName);
        const auto o = CollectiveOp(op);
        QCOMPARE(QString::fromLatin1(toString(o)), name);
        QCOMPARE(isCostModelled(o), priced);
        QCOMPARE(parseCollectiveOp(name.toStdString()).has_value(), priced);
        if (!traceName.isEmpty())
            QCOMPARE(int(parseRunCollectiveOp(traceName.toStdString())), op);
        CollectiveHardware hardware;
        hardware.intraBytesPerSecond = 400e9;
        hardware.nicBytesPerSecond = 50e9;
        hardware.copyBytesPerSecond = 1e12;
        const CollectiveModel model(hardware);
        CollectiveRequest request;
        request.op = o;
        request.bytes = 1 << 20;
        request.group.ranks = 8;
        request.group.ranksPerNode = 8;
        const CollectiveEstimate e = model.estimate(request);
        QCOMPARE(e.valid, priced);
        QCOMPARE(std::isfinite(e.seconds), priced);
        const auto status = model.check(request);
        QCOMPARE(status.isOk(), priced);
        if (!priced)
            QVERIFY2(status.message().find(name.toStdString()) != std::string::npos, status.message().c_str());
    }

    void foldKeepsKindsApart()
    {
        const auto folds = foldCollectives({ call(CollectiveOp::AllReduce, 100, 8, 5.0, -1, 0, "dp"),
            call(CollectiveOp::AllReduce, 100, 8, 7.0, -1, 0, "tp"),
            call(CollectiveOp::AllReduce, 200, 8, 9.0, -1, 0, "dp"),
            call(CollectiveOp::AllReduce, 100, 8, 11.0, -1, 0, "dp"), call(CollectiveOp::AllGather, -1, 8, 4.0) });
        QCOMPARE(int(folds.size()), 4);
        QCOMPARE(folds[0].processGroup, std::string("dp"));
        QCOMPARE(folds[0].calls, 2);
        QCOMPARE(folds[0].durationUs.mean, 8.0);
        QCOMPARE(folds[0].durationUs.max, 11.0);
        QCOMPARE(folds[1].processGroup, std::string("tp"));
        QCOMPARE(folds[2].bytes, 200LL);
        QCOMPARE(folds[3].busbwGbps, 0.0); // unknown size: no bandwidth
    }

    void stragglersRankedByTheTailTheyCause()
    {
        // Rank 3 arrives last often, each time by a little (large sum); rank 5 once, by a lot.
        std::vector<CollectiveSummary> calls;
        for (int i = 0; i < 50; ++i)
            calls.push_back(call(CollectiveOp::AllReduce, 100, 4, 10.0, 3, 20.0));
        calls.push_back(call(CollectiveOp::AllReduce, 100, 4, 10.0, 5, 600.0));
        calls.push_back(call(CollectiveOp::AllReduce, 100, 4, 10.0)); // nobody last (one rank seen)
        const std::vector<Straggler> s = rankStragglers(calls);
        QCOMPARE(int(s.size()), 2);
        QCOMPARE(s[0].rank, 5);
        QCOMPARE(s[0].waitTailUs.p99, 600.0);
        QCOMPARE(s[1].rank, 3);
        QCOMPARE(s[1].lastArrivals, 50);
        QCOMPARE(s[1].waitCausedUs, 50 * 60.0);
        QVERIFY(s[1].waitCausedUs > s[0].waitCausedUs); // by the sum it would have come first
        QCOMPARE(s[1].waitTailUs.p50, 20.0);
    }

    void stepTail()
    {
        RunAnalysis a;
        for (int step = 0; step < 4; ++step) {
            StepBreakdown s;
            s.step = step;
            for (int rank = 0; rank < 2; ++rank) {
                RankStepBreakdown r;
                r.rank = rank;
                r.durationSeconds = 0.1 * (step + 1) + (rank == 1 ? 0.05 : 0.0); // rank 1 is slower
                s.ranks.push_back(r);
            }
            a.steps.push_back(s);
        }
        const LatencyStats t = stepDurationStats(a);
        QCOMPARE(t.count, 4);
        QVERIFY(std::abs(t.max - 0.45) < 1e-12);
        QVERIFY(std::abs(t.p50 - 0.25) < 1e-12);
        QVERIFY(std::abs(t.mean - 0.3) < 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestCollectiveFold)
#include "tst_collectivefold.moc"
