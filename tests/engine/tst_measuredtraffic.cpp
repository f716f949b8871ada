// The sparse measured-traffic type (engine/run/measuredtraffic.h) and a 16,384-rank run built from
// rank summaries, analysed, stored in a project and read back without any dense rank x rank
// structure. Store and load times are printed, not asserted.

#include "engine/run/ranksummary.h"
#include "engine/run/rundump.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using namespace clusterscope::engine;

namespace {

// A data-parallel rank of `world`: two steps, one world AllReduce of 256 MB per step (ring traffic
// to the next rank), rank 4242 arriving 700 us late.
RankSummary dataParallelRank(std::int32_t rank, std::int32_t world)
{
    RankSummary s;
    s.info.rank = rank;
    s.info.worldSize = world;
    s.info.sourceFile = "/traces/rank" + std::to_string(rank) + ".json";
    s.info.gpuName = "NVIDIA H100 80GB HBM3";
    const std::int64_t bytes = 256LL << 20;
    for (int step = 0; step < 2; ++step) {
        RankStepBreakdown b;
        b.rank = rank;
        b.durationSeconds = 1.0;
        b.computeSeconds = 0.8;
        b.commExposedSeconds = 0.2;
        s.steps.push_back({ step, b });
        const std::int64_t t0 = std::int64_t(step) * 1'000'000'000 + (rank == 4242 ? 700'000 : 0);
        s.collectives.push_back({ CollectiveOp::AllReduce, "0", step, t0,
            std::int64_t(step) * 1'000'000'000 + 5'000'000, bytes, world, step });
    }
    s.sends.push_back({ rank, (rank + 1) % world, 2.0 * 2.0 * (world - 1) / world * double(bytes) });
    s.trafficRanks = world;
    return s;
}

} // namespace

class TestMeasuredTraffic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void invariantAndQueries()
    {
        const MeasuredTraffic m = makeMeasuredTraffic(4,
            { { 2, 1, 5 }, { 0, 3, 1 }, { 2, 1, 7 }, { 1, 1, 9 }, { 0, 1, 0 }, { 3, 4, 2 }, { -1, 0, 2 },
                { 0, 2, 4 } });
        QCOMPARE(m.ranks, 4);
        QCOMPARE(int(m.pairs.size()), 3); // self, zero and out-of-range pairs dropped; duplicates summed
        QCOMPARE(m.at(2, 1), 12.0);
        QCOMPARE(m.at(0, 3), 1.0);
        QCOMPARE(m.at(0, 2), 4.0);
        QCOMPARE(m.at(1, 2), 0.0);
        QCOMPARE(int(m.sentBy(0).size()), 2);
        QCOMPARE(m.sentBy(0)[0].dst, 2);
        QCOMPARE(int(m.sentBy(1).size()), 0);
        QCOMPARE(m.totalBytes(), 17.0);
    }

    void sixteenThousandRanksStoredAndReopened()
    {
        constexpr std::int32_t kWorld = 16384;
        std::vector<RankSummary> ranks;
        ranks.reserve(kWorld);
        for (std::int32_t r = 0; r < kWorld; ++r)
            ranks.push_back(dataParallelRank(r, kWorld));
        QElapsedTimer timer;
        timer.start();
        const RunAnalysis analysis = analyseRankSummaries(ranks);
        const double analyseMs = double(timer.nsecsElapsed()) / 1e6;
        QCOMPARE(analysis.traffic.ranks, kWorld);
        QCOMPARE(int(analysis.traffic.pairs.size()), kWorld); // the ring: one pair per rank, no dense matrix
        QCOMPARE(int(analysis.collectives.size()), 2);
        QCOMPARE(analysis.collectives[0].lastArrivalRank, 4242);
        QCOMPARE(analysis.stragglers.front().rank, 4242);
        QCOMPARE(int(analysis.steps.size()), 2);
        QCOMPARE(int(analysis.steps[0].ranks.size()), kWorld);

        Run run;
        for (const RankSummary& s : ranks)
            run.ranks.push_back(s.info);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("16k.csproj")).toStdString();
        std::int64_t id = 0;
        timer.restart();
        {
            auto store = ProjectStore::create(path);
            QVERIFY(store);
            auto added = RunStore(*store).add("16k", { "/traces" }, run, analysis);
            QVERIFY2(added, added.message().c_str());
            id = *added;
        }
        const double storeMs = double(timer.nsecsElapsed()) / 1e6;
        timer.restart();
        auto store = ProjectStore::open(path);
        QVERIFY(store);
        auto loaded = RunStore(*store).load(id);
        const double loadMs = double(timer.nsecsElapsed()) / 1e6;
        QVERIFY2(loaded, loaded.message().c_str());
        QVERIFY(loaded->analysis.traffic == analysis.traffic);
        QCOMPARE(dumpRunCanonical(Run {}, loaded->analysis), dumpRunCanonical(Run {}, analysis));
        QCOMPARE(int(loaded->ranks.size()), kWorld);
        // Paged reads: one screenful of the per-rank tables, by an index seek.
        timer.restart();
        auto page = RunStore(*store).stepRanks(id, 1, 8000, 100);
        std::vector<std::int64_t> offsets;
        auto files = RunStore(*store).rankFiles(id, 8000, 100, &offsets);
        const double pageMs = double(timer.nsecsElapsed()) / 1e6;
        QVERIFY(page && files);
        QCOMPARE(int(page->size()), 100);
        QCOMPARE(page->front().rank, 8000);
        QCOMPARE(page->back().rank, 8099);
        QCOMPARE(page->front().computeSeconds, analysis.steps[1].ranks[8000].computeSeconds);
        QCOMPARE(int(files->size()), 100);
        QCOMPARE(files->front().sourceFile, std::string("/traces/rank8000.json"));
        QCOMPARE(offsets.size(), std::size_t(100));
        QCOMPARE(int(RunStore(*store).stepRanks(id, 1, 16300, 100)->size()), 84);
        qInfo("16384 ranks: analyse %.0f ms, store %.0f ms, open+load %.0f ms, one 100-rank page %.1f ms", analyseMs,
            storeMs, loadMs, pageMs);
    }
};

QTEST_GUILESS_MAIN(TestMeasuredTraffic)
#include "tst_measuredtraffic.moc"
