// The Runs tab's item models under QAbstractItemModelTester: stragglers in the analysis' order,
// collectives grouped per (op, group, bytes, ranks) with nccl-tests algbw/busbw of the mean
// duration, sorting through the proxy by raw numbers, the stored-run list; the run palette.

#include "views/presentation/breakdownpalette.h"
#include "views/runs/collectivetablemodel.h"
#include "views/runs/runlistmodel.h"
#include "views/runs/runpalette.h"
#include "views/runs/stragglertablemodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <set>

using namespace clusterscope::views;
using clusterscope::engine::CollectiveFold;
using clusterscope::engine::foldCollectives;
using namespace clusterscope::engine;

namespace {
CollectiveSummary coll(
    CollectiveOp op, const char* group, std::int64_t bytes, int ranks, double durationUs, double totalWaitUs = 0)
{
    CollectiveSummary c;
    c.op = op;
    c.processGroup = group;
    c.bytes = bytes;
    c.groupSize = ranks;
    c.durationUs = durationUs;
    c.totalWaitUs = totalWaitUs;
    return c;
}
}

class TestRunsModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stragglerModel()
    {
        StragglerTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setStragglers({ { 7, 1, 1500.0 }, { 5, 1, 700.0 }, { 4, 1, 250.0 } });
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(StragglerTableModel::ColumnCount));
        QCOMPARE(model.index(0, StragglerTableModel::Rank).data().toInt(), 7);
        QCOMPARE(model.index(2, StragglerTableModel::Rank).data().toInt(), 4);
        QCOMPARE(
            model.index(0, StragglerTableModel::WaitCaused).data(StragglerTableModel::kSortRole).toDouble(), 1500.0);
        QCOMPARE(model.index(0, StragglerTableModel::WaitCaused).data().toString(), QLocale().toString(1.5, 'f', 3));
        QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("61.2%")));
        model.setStragglers({});
        QCOMPARE(model.rowCount(), 0);
    }

    void collectiveRows_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<qlonglong>("bytes");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<double>("durationA");
        QTest::addColumn<double>("durationB");
        QTest::addColumn<double>("algbw");
        QTest::addColumn<double>("busbw");
        // nccl-tests: algbw = S / t (t = mean of the two calls), busbw = algbw x 2(n-1)/n for
        // all-reduce, (n-1)/n for all-gather, 1 for send/recv (NVIDIA/nccl-tests doc/PERFORMANCE.md).
        QTest::addRow("allreduce 8 ranks, 1 GB in 10 ms mean")
            << int(CollectiveOp::AllReduce) << 1'000'000'000LL << 8 << 8000.0 << 12000.0 << 100.0 << 175.0;
        QTest::addRow("allgather 4 ranks, 64 MB in 1 ms")
            << int(CollectiveOp::AllGather) << 64'000'000LL << 4 << 1000.0 << 1000.0 << 64.0 << 48.0;
        QTest::addRow("sendrecv, 4 MB in 200 us mean")
            << int(CollectiveOp::SendRecv) << 4'000'000LL << 2 << 100.0 << 300.0 << 20.0 << 20.0;
        QTest::addRow("unknown bytes") << int(CollectiveOp::AllReduce) << -1LL << 8 << 10.0 << 30.0 << 0.0 << 0.0;
    }
    void collectiveRows()
    {
        QFETCH(int, op);
        QFETCH(qlonglong, bytes);
        QFETCH(int, ranks);
        QFETCH(double, durationA);
        QFETCH(double, durationB);
        QFETCH(double, algbw);
        QFETCH(double, busbw);
        const auto rows = foldCollectives({ coll(CollectiveOp(op), "", bytes, ranks, durationA, 5),
            coll(CollectiveOp::Broadcast, "pp", 100, 2, 1.0), coll(CollectiveOp(op), "", bytes, ranks, durationB, 7) });
        QCOMPARE(int(rows.size()), 2);
        const CollectiveFold& r = rows[0];
        QCOMPARE(r.calls, 2);
        QCOMPARE(r.durationUs.mean, (durationA + durationB) / 2);
        // Nearest rank of two calls: p50 the shorter, p99 and max the longer.
        QCOMPARE(r.durationUs.p50, std::min(durationA, durationB));
        QCOMPARE(r.durationUs.p99, std::max(durationA, durationB));
        QCOMPARE(r.durationUs.max, std::max(durationA, durationB));
        QVERIFY2(
            std::abs(r.algbwGbps - algbw) <= 1e-9 * std::max(1.0, algbw), qPrintable(QString::number(r.algbwGbps)));
        QVERIFY2(
            std::abs(r.busbwGbps - busbw) <= 1e-9 * std::max(1.0, busbw), qPrintable(QString::number(r.busbwGbps)));
        QCOMPARE(r.totalWaitUs, 12.0);
        QCOMPARE(rows[1].processGroup, std::string("pp"));
    }

    void collectiveModelSortsByNumbers()
    {
        CollectiveTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(CollectiveTableModel::kSortRole);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setCollectives({ coll(CollectiveOp::AllReduce, "", 9'000'000, 8, 900.0),
            coll(CollectiveOp::AllGather, "tp", 10'000'000, 8, 100.0),
            coll(CollectiveOp::SendRecv, "pp", 200'000'000, 2, 2000.0),
            coll(CollectiveOp::AllToAll, "ep", -1, 8, 50.0) });
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.index(0, CollectiveTableModel::Operation).data().toString(), QStringLiteral("allreduce"));
        QCOMPARE(model.index(0, CollectiveTableModel::Group).data().toString(), QStringLiteral("default"));
        QCOMPARE(model.index(3, CollectiveTableModel::Bytes).data().toString(), QStringLiteral("?"));
        // By bytes: numerically (10 MB > 9 MB, which a text sort would get wrong), unknown first.
        proxy.sort(CollectiveTableModel::Bytes, Qt::AscendingOrder);
        QStringList order;
        for (int r = 0; r < proxy.rowCount(); ++r)
            order << proxy.index(r, CollectiveTableModel::Operation).data().toString();
        QCOMPARE(order,
            (QStringList { QStringLiteral("alltoall"), QStringLiteral("allreduce"), QStringLiteral("allgather"),
                QStringLiteral("sendrecv") }));
        proxy.sort(CollectiveTableModel::BusBw, Qt::DescendingOrder);
        QCOMPARE(
            proxy.index(0, CollectiveTableModel::Operation).data().toString(), QStringLiteral("sendrecv")); // 100 GB/s
        QCOMPARE(proxy.index(1, CollectiveTableModel::Operation).data().toString(),
            QStringLiteral("allgather")); // 87.5 GB/s
        model.setCollectives({});
        QCOMPARE(proxy.rowCount(), 0);
    }

    void runListModel()
    {
        RunListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        StoredRunSummary a;
        a.id = 4;
        a.name = "dlrm";
        a.rankCount = 8;
        a.gpuName = "Tesla V100-SXM2-16GB";
        a.sources = { "/data/dlrm" };
        a.importedUtc = "2026-11-30 02:00:00";
        StoredRunSummary b = a;
        b.id = 9;
        b.name = "llama";
        b.gpuName.clear();
        model.setRuns({ a, b });
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowOf(9), 1);
        QCOMPARE(model.rowOf(5), -1);
        QCOMPARE(model.index(1, RunListModel::Name).data(RunListModel::kRunIdRole).toLongLong(), 9LL);
        QCOMPARE(model.index(0, RunListModel::Ranks).data().toInt(), 8);
        QCOMPARE(model.index(1, RunListModel::Gpu).data().toString(), QStringLiteral("unknown"));
        QVERIFY(
            model.index(0, RunListModel::Name).data(Qt::ToolTipRole).toString().contains(QStringLiteral("/data/dlrm")));
        model.setRuns({ b });
        QCOMPARE(model.rowCount(), 1);
    }

    void paletteFollowsBreakdownPalette()
    {
        QCOMPARE(RunPalette::color(RunComponent::Compute), BreakdownPalette::color(BreakdownComponent::Compute));
        std::set<QRgb> colors;
        std::set<QString> names;
        for (RunComponent c : RunPalette::components()) {
            colors.insert(RunPalette::color(c).rgb());
            names.insert(RunPalette::name(c));
        }
        QCOMPARE(int(colors.size()), kRunComponentCount);
        QCOMPARE(int(names.size()), kRunComponentCount);
        RankStepBreakdown b { 0, 10, 4, 3, 2, 1, 2 };
        double sum = 0;
        for (RunComponent c : RunPalette::components())
            if (RunPalette::addsToDuration(c))
                sum += RunPalette::seconds(b, c);
        QCOMPARE(sum, b.durationSeconds);
        QCOMPARE(RunPalette::seconds(b, RunComponent::CommOverlapped), 2.0);
        QCOMPARE(
            RunPalette::activityColor(GpuActivityKind::Communication), RunPalette::color(RunComponent::CommExposed));
    }
};

QTEST_MAIN(TestRunsModels)
#include "tst_runsmodels.moc"
