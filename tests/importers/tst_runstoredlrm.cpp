// The real DLRM sample (8 ranks, tests/data/kineto/param_dlrm_8rank) imported, analysed, stored in
// a project and read back after reopening: the canonical dump of the stored analysis equals the
// analysis, the stragglers stay 7, 4, 5 (by the tail they cause), and a cancelled store leaves the project as it was.
// Lives with the importer tests because engine tests do not link the importers.

#include "engine/run/rundump.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"
#include "importers/kineto/runloader.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using namespace clusterscope;
using namespace clusterscope::engine;

class TestRunStoreDlrm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        auto run = importers::loadRun({ std::string(CLUSTERSCOPE_TEST_DATA_DIR) + "/kineto/param_dlrm_8rank" });
        QVERIFY2(run, run.message().c_str());
        m_run = std::move(*run);
        m_analysis = analyseRun(m_run);
        QVERIFY(m_analysis.stragglers.size() >= 3);
    }

    void roundTripAfterReopening()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("dlrm.cscp")).toStdString();
        std::int64_t id = 0;
        QElapsedTimer timer;
        timer.start();
        {
            auto store = ProjectStore::create(path);
            QVERIFY(store);
            auto added = RunStore(*store).add("param_dlrm_8rank", { "param_dlrm_8rank" }, m_run, m_analysis);
            QVERIFY2(added, added.message().c_str());
            id = *added;
        }
        const qint64 storeUs = timer.nsecsElapsed() / 1000;
        timer.restart();
        auto store = ProjectStore::open(path);
        QVERIFY(store);
        auto loaded = RunStore(*store).load(id);
        QVERIFY2(loaded, loaded.message().c_str());
        const qint64 loadUs = timer.nsecsElapsed() / 1000;
        qInfo("DLRM 8 ranks, %d collectives: create+store %lld us, open+load %lld us",
            int(m_analysis.collectives.size()), storeUs, loadUs);

        QCOMPARE(dumpRunCanonical(Run {}, loaded->analysis), dumpRunCanonical(Run {}, m_analysis));
        QCOMPARE(loaded->analysis.clockOffsetNs, m_analysis.clockOffsetNs);
        QVERIFY(loaded->analysis.traffic == m_analysis.traffic);
        QCOMPARE(loaded->analysis.stragglers[0].rank, 7);
        QCOMPARE(loaded->analysis.stragglers[1].rank, 4);
        QCOMPARE(loaded->analysis.stragglers[2].rank, 5);
        QCOMPARE(loaded->analysis.stragglers[1].waitTailUs.max, m_analysis.stragglers[1].waitTailUs.max);
        QCOMPARE(int(loaded->ranks.size()), 8);
        for (std::size_t i = 0; i < 8; ++i) {
            QCOMPARE(loaded->ranks[i].rank, m_run.ranks[i].rank);
            QCOMPARE(loaded->ranks[i].sourceFile, m_run.ranks[i].sourceFile);
            QCOMPARE(loaded->ranks[i].gpuName, m_run.ranks[i].gpuName);
        }
        QCOMPARE(loaded->summary.rankCount, 8);
        QCOMPARE(loaded->summary.gpuName, m_run.ranks.front().gpuName);
        QCOMPARE(loaded->summary.collectiveCount, int(m_analysis.collectives.size()));
    }

    void cancelledStoreLeavesProjectAsItWas()
    {
        QTemporaryDir dir;
        auto store = ProjectStore::create(dir.filePath(QStringLiteral("dlrm.cscp")).toStdString());
        QVERIFY(store);
        RunStore runs(*store);
        std::atomic<bool> stop { false };
        RunStoreOptions options;
        options.stop = &stop;
        options.progress = [&stop](double fraction) {
            if (fraction >= 0.7)
                stop = true;
        };
        auto added = runs.add("dlrm", {}, m_run, m_analysis, options);
        QVERIFY(!added);
        QVERIFY2(added.message().find("cancelled") != std::string::npos, added.message().c_str());
        QCOMPARE(int(runs.list()->size()), 0);
    }

private:
    Run m_run;
    RunAnalysis m_analysis;
};

QTEST_GUILESS_MAIN(TestRunStoreDlrm)
#include "tst_runstoredlrm.moc"
