// Run analyses on hand-made runs: intervals, step breakdown, busbw, alignment, stragglers, traffic.

#include "engine/run/intervals.h"
#include "engine/run/runanalysis.h"

#include <QtTest>

#include <cmath>

using namespace clusterscope::engine;

namespace {
GpuActivity act(std::int64_t s, std::int64_t e, GpuActivityKind k, std::int32_t coll = -1)
{
    GpuActivity a;
    a.startNs = s;
    a.endNs = e;
    a.kind = k;
    a.collectiveIndex = coll;
    return a;
}

CollectiveCall call(CollectiveOp op, std::int64_t s, std::int64_t e, std::int64_t bytes, int group)
{
    CollectiveCall c;
    c.op = op;
    c.startNs = s;
    c.endNs = e;
    c.bytes = bytes;
    c.groupSize = group;
    return c;
}
}

class TestRunAnalysis : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void intervals()
    {
        const Intervals a = Intervals::unionOf({ { 0, 10 }, { 5, 20 }, { 30, 40 }, { 50, 50 } });
        QCOMPARE(a.totalNs(), std::int64_t(30));
        QCOMPARE(int(a.spans().size()), 2);
        const Intervals b = Intervals::unionOf({ { 15, 35 } });
        QCOMPARE(a.overlapNs(b), std::int64_t(10));
        QCOMPARE(a.unite(b).totalNs(), std::int64_t(40));
        QCOMPARE(a.clip(8, 32).totalNs(), std::int64_t(14));
    }

    void busFactor_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<double>("factor");
        // nccl-tests definitions (NVIDIA/nccl-tests doc/PERFORMANCE.md)
        QTest::addRow("allreduce 8") << int(CollectiveOp::AllReduce) << 8 << 1.75;
        QTest::addRow("allreduce 2") << int(CollectiveOp::AllReduce) << 2 << 1.0;
        QTest::addRow("allgather 8") << int(CollectiveOp::AllGather) << 8 << 0.875;
        QTest::addRow("reducescatter 4") << int(CollectiveOp::ReduceScatter) << 4 << 0.75;
        QTest::addRow("alltoall 128") << int(CollectiveOp::AllToAll) << 128 << 127.0 / 128.0;
        QTest::addRow("broadcast 8") << int(CollectiveOp::Broadcast) << 8 << 1.0;
        QTest::addRow("sendrecv 2") << int(CollectiveOp::SendRecv) << 2 << 1.0;
    }
    void busFactor()
    {
        QFETCH(int, op);
        QFETCH(int, ranks);
        QFETCH(double, factor);
        QCOMPARE(busBandwidthFactor(CollectiveOp(op), ranks), factor);
    }

    void opNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("op");
        QTest::addRow("pytorch all_reduce") << "all_reduce" << int(CollectiveOp::AllReduce);
        QTest::addRow("annotation") << "nccl:all_to_all" << int(CollectiveOp::AllToAll);
        QTest::addRow("allgather base") << "_allgather_base" << int(CollectiveOp::AllGather);
        QTest::addRow("coalesced rs") << "reduce_scatter_tensor_coalesced" << int(CollectiveOp::ReduceScatter);
        QTest::addRow("nvtx") << "ncclAllReduce" << int(CollectiveOp::AllReduce);
        QTest::addRow("reduce") << "ncclReduce" << int(CollectiveOp::Reduce);
        QTest::addRow("send") << "send" << int(CollectiveOp::SendRecv);
        QTest::addRow("kernel token") << "SendRecv" << int(CollectiveOp::SendRecv);
        QTest::addRow("generic") << "Generic" << int(CollectiveOp::Unknown);
    }
    void opNames()
    {
        QFETCH(QString, name);
        QFETCH(int, op);
        QCOMPARE(int(parseRunCollectiveOp(name.toStdString())), op);
    }

    void dtypes_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<int>("size");
        QTest::addRow("Float") << "Float" << 4;
        QTest::addRow("c10::BFloat16") << "c10::BFloat16" << 2;
        QTest::addRow("long int") << "long int" << 8;
        QTest::addRow("int8_t") << "int8_t" << 1;
        QTest::addRow("__nv_bfloat16") << "__nv_bfloat16" << 2;
        QTest::addRow("f32") << "f32" << 4;
        QTest::addRow("unknown") << "quaternion" << 0;
    }
    void dtypes()
    {
        QFETCH(QString, dtype);
        QFETCH(int, size);
        QCOMPARE(dtypeSizeBytes(dtype.toStdString()), size);
    }

    void stepBreakdown()
    {
        // Compute [0,100) and [150,200); comm [80,170) (20 under compute at the start, 20 at the
        // end, 50 exposed); memcpy [200,230) exposed, [10,20) hidden; idle = 300 - 200 - 30 = 70.
        Run run;
        RankTrace r;
        r.rank = 0;
        r.steps.push_back({ 1, 0, 300 });
        r.activities = { act(0, 100, GpuActivityKind::Compute), act(10, 20, GpuActivityKind::Memcpy),
            act(80, 170, GpuActivityKind::Communication), act(150, 200, GpuActivityKind::Compute),
            act(200, 230, GpuActivityKind::Memset) };
        run.ranks.push_back(r);
        Diagnostics d;
        const auto steps = computeStepBreakdowns(run, d);
        QCOMPARE(int(steps.size()), 1);
        const auto& b = steps[0].ranks[0];
        QCOMPARE(steps[0].step, std::int64_t(1));
        QCOMPARE(b.durationSeconds, 300e-9);
        QCOMPARE(b.computeSeconds, 150e-9);
        QCOMPARE(b.commOverlappedSeconds, 40e-9);
        QCOMPARE(b.commExposedSeconds, 50e-9);
        QCOMPARE(b.memcpySeconds, 30e-9);
        QCOMPARE(b.idleSeconds, 70e-9);
        QVERIFY(qAbs(b.computeSeconds + b.commExposedSeconds + b.memcpySeconds + b.idleSeconds - b.durationSeconds)
            < 1e-15);
    }

    // Idle split by launch times: a gap where the next kernel was already launched is kernel-wait,
    // a gap where nothing was queued yet is host-wait.
    void idleSplit_data()
    {
        QTest::addColumn<qint64>("secondLaunch"); // launch of the kernel that starts at 100 (first: 0-50)
        QTest::addColumn<qint64>("hostWaitNs");
        QTest::addColumn<qint64>("kernelWaitNs");
        // Step [0, 150): kernels [0, 50) and [100, 150); idle [50, 100) = 50 ns.
        QTest::addRow("launched early: all kernel-wait") << qint64(10) << qint64(0) << qint64(50);
        QTest::addRow("launched at 80: host then kernel") << qint64(80) << qint64(30) << qint64(20);
        QTest::addRow("launched when it starts: all host-wait") << qint64(100) << qint64(50) << qint64(0);
        QTest::addRow("no launch times: not split") << qint64(-1) << qint64(0) << qint64(0);
    }
    void idleSplit()
    {
        QFETCH(qint64, secondLaunch);
        QFETCH(qint64, hostWaitNs);
        QFETCH(qint64, kernelWaitNs);
        Run run;
        RankTrace r;
        r.rank = 0;
        r.steps.push_back({ 1, 0, 150 });
        GpuActivity first = act(0, 50, GpuActivityKind::Compute);
        GpuActivity second = act(100, 150, GpuActivityKind::Compute);
        first.launchNs = secondLaunch < 0 ? -1 : 0;
        second.launchNs = secondLaunch;
        r.activities = { first, second };
        run.ranks.push_back(r);
        Diagnostics d;
        const auto steps = computeStepBreakdowns(run, d);
        const auto& b = steps[0].ranks[0];
        QCOMPARE(b.idleSeconds, 50e-9);
        QCOMPARE(qint64(std::llround(b.idleHostWaitSeconds * 1e9)), hostWaitNs);
        QCOMPARE(qint64(std::llround(b.idleKernelWaitSeconds * 1e9)), kernelWaitNs);
    }

    void alignmentAndStragglers()
    {
        // Three ranks; rank 1's clock runs 1000 ns ahead. Two AllReduces end together (true time);
        // rank 2 arrives last at the first, rank 0 at the second.
        Run run;
        const std::int64_t skew[3] = { 0, 1000, 0 };
        const std::int64_t start1[3] = { 100, 150, 400 }, start2[3] = { 2000, 1200, 1300 };
        for (int i = 0; i < 3; ++i) {
            RankTrace r;
            r.rank = i;
            r.worldSize = 3;
            r.collectives.push_back(call(CollectiveOp::AllReduce, start1[i] + skew[i], 500 + skew[i], 3000000, 3));
            r.collectives.push_back(call(CollectiveOp::AllReduce, start2[i] + skew[i], 2500 + skew[i], 3000000, 3));
            run.ranks.push_back(r);
        }
        const RunAnalysis a = analyseRun(run);
        QCOMPARE(a.clockOffsetNs[1], std::int64_t(1000));
        QCOMPARE(a.clockOffsetNs[0], std::int64_t(0));
        QCOMPARE(int(a.collectives.size()), 2);
        QCOMPARE(a.collectives[0].lastArrivalRank, 2);
        QCOMPARE(a.collectives[0].waitUs, 0.3); // 400 - 100 ns
        QCOMPARE(a.collectives[0].totalWaitUs, (300 + 250) / 1e3);
        QCOMPARE(a.collectives[0].durationUs, 0.1); // rank 2's kernel 400..500
        // algbw = 3 MB / 100 ns = 30000 GB/s; busbw = x 2(3-1)/3
        QCOMPARE(a.collectives[0].algbwGbps, 30000.0);
        QCOMPARE(a.collectives[0].busbwGbps, 30000.0 * 4.0 / 3.0);
        QCOMPARE(a.collectives[1].lastArrivalRank, 0);
        QCOMPARE(int(a.stragglers.size()), 2);
        QCOMPARE(a.stragglers[0].rank, 0); // 800 + 700 ns of waiting caused beats 550
        QCOMPARE(a.stragglers[0].waitCausedUs, 1.5);
    }

    void trafficMatrix()
    {
        // 4 ranks: an AllReduce of 4000 B (ring: 2*3/4*4000 = 6000 to the next rank), an all-to-all
        // with explicit splits from rank 0, and a send 1 -> 3 of 500 B.
        Run run;
        for (int i = 0; i < 4; ++i) {
            RankTrace r;
            r.rank = i;
            r.worldSize = 4;
            r.collectives.push_back(call(CollectiveOp::AllReduce, 0, 10, 4000, 4));
            auto a2a = call(CollectiveOp::AllToAll, 20, 30, 400, 4);
            if (i == 0)
                a2a.splitBytes = { 100, 200, 0, 100 };
            r.collectives.push_back(a2a);
            if (i == 1 || i == 3) {
                auto p2p = call(CollectiveOp::SendRecv, 40, 50, 500, 2);
                p2p.peerRank = i == 1 ? 3 : 1;
                p2p.p2pDirection = i == 1 ? 1 : -1;
                r.collectives.push_back(p2p);
            }
            run.ranks.push_back(r);
        }
        Diagnostics d;
        const MeasuredTraffic m = computeMeasuredTraffic(run, d);
        QCOMPARE(m.ranks, 4);
        QCOMPARE(m.at(0, 1), 6000.0 + 200.0);
        QCOMPARE(m.at(0, 2), 0.0);
        QCOMPARE(m.at(0, 3), 100.0);
        QCOMPARE(m.at(3, 0), 6000.0 + 100.0); // ring wraps; even split 400/4
        QCOMPARE(m.at(1, 3), 500.0 + 100.0);
        QCOMPARE(m.at(3, 1), 100.0); // the receive is not counted twice
        QCOMPARE(m.at(2, 2), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestRunAnalysis)
#include "tst_runanalysis.moc"
