// The per-rank reduction and the cross-rank assembly of the distributed import
// (importers/kineto/tracereduction.h) on generated traces with planted stragglers
// (tests/support/kinetotracegenerator.h) and on the real DLRM sample: the assembled run equals
// loadRun + analyseRun bit for bit, whatever the split of the files across processes; the planted
// findings are found; the byte encoding survives a round trip and refuses damage; damaged and
// missing rank files become diagnostics.

#include "engine/run/rundump.h"
#include "importers/kineto/kinetoparser.h"
#include "importers/kineto/runloader.h"
#include "importers/kineto/tracereduction.h"
#include "tests/support/kinetotracegenerator.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clusterscope;
using namespace clusterscope::engine;
using namespace clusterscope::importers;

namespace {

// The canonical dump of a run's analysis and rank files (events left out: the reduction drops them).
std::string dump(const Run& run, const RunAnalysis& analysis)
{
    Run meta;
    meta.diagnostics = run.diagnostics;
    for (const RankTrace& r : run.ranks) {
        RankTrace m;
        m.rank = r.rank;
        m.worldSize = r.worldSize;
        m.sourceFile = r.sourceFile;
        m.gpuName = r.gpuName;
        meta.ranks.push_back(m);
    }
    std::string out = dumpRunCanonical(meta, analysis);
    for (const RankTrafficPair& p : analysis.traffic.pairs)
        out += "pair " + std::to_string(p.src) + " " + std::to_string(p.dst) + " " + std::to_string(p.bytes) + "\n";
    for (std::int64_t o : analysis.clockOffsetNs)
        out += "offset " + std::to_string(o) + "\n";
    return out;
}

// Reduces `files` as `processes` processes would (each its own share, through the byte encoding)
// and assembles the result.
Result<ReducedRun> reduceAsProcesses(const std::vector<std::string>& files, int processes)
{
    std::vector<std::uint64_t> sizes;
    for (const auto& f : files) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(f, ec);
        sizes.push_back(ec ? 0 : size);
    }
    const std::vector<int> owner = partitionFilesBySize(sizes, processes);
    std::vector<TraceFileReduction> byFile(files.size());
    for (int p = 0; p < processes; ++p) {
        KinetoParser parser;
        std::vector<TraceFileReduction> mine;
        std::vector<std::int64_t> indices;
        for (std::size_t i = 0; i < files.size(); ++i)
            if (owner[i] == p) {
                mine.push_back(reduceTraceFile(files[i], parser));
                indices.push_back(std::int64_t(i));
            }
        std::vector<std::pair<std::int64_t, const TraceFileReduction*>> items;
        for (std::size_t k = 0; k < mine.size(); ++k)
            items.push_back({ indices[k], &mine[k] });
        std::vector<std::pair<std::int64_t, TraceFileReduction>> decoded;
        if (auto status = decodeReductions(encodeReductions(items), decoded); !status)
            return status;
        for (auto& [index, r] : decoded)
            byFile[std::size_t(index)] = std::move(r);
    }
    return assembleReducedRun(files, std::move(byFile));
}

testing::TraceGeneratorSpec plantedSpec()
{
    testing::TraceGeneratorSpec spec;
    spec.ranks = 16;
    spec.steps = 3;
    spec.allReducesPerStep = 2;
    spec.tensorParallel = 4;
    spec.stragglers = { { 11, 900 }, { 3, 400 } };
    return spec;
}

} // namespace

class TestTraceReduction : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        std::string error;
        m_files = testing::writeRunTraces(plantedSpec(), m_dir.path().toStdString(), error);
        QVERIFY2(!m_files.empty(), error.c_str());
        std::sort(m_files.begin(), m_files.end()); // expandTracePaths' order
    }

    void sameAsSingleProcess_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("processes");
        for (int p : { 1, 2, 3, 4 })
            QTest::addRow("generated 16 ranks, %d processes", p) << QString() << p;
        for (int p : { 1, 2, 4 })
            QTest::addRow("DLRM sample, %d processes", p)
                << QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/kineto/param_dlrm_8rank") << p;
        QTest::addRow("sampled 2 of 128 ranks, 2 processes")
            << QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/kineto/hta_sampled_2of128rank") << 2;
    }
    void sameAsSingleProcess()
    {
        QFETCH(QString, input);
        QFETCH(int, processes);
        const std::vector<std::string> paths = input.isEmpty() ? std::vector<std::string> { m_dir.path().toStdString() }
                                                               : std::vector<std::string> { input.toStdString() };
        auto run = loadRun(paths, { 1, {}, nullptr });
        QVERIFY2(run, run.message().c_str());
        const RunAnalysis analysis = analyseRun(*run);
        auto files = expandTracePaths(paths);
        QVERIFY(files);
        auto reduced = reduceAsProcesses(*files, processes);
        QVERIFY2(reduced, reduced.message().c_str());
        QCOMPARE(dump(reduced->run, reduced->analysis), dump(*run, analysis));
    }

    void plantedFindingsAreFound()
    {
        const auto spec = plantedSpec();
        const auto truth = testing::generatedTruth(spec);
        auto reduced = reduceAsProcesses(m_files, 2);
        QVERIFY2(reduced, reduced.message().c_str());
        const RunAnalysis& a = reduced->analysis;
        QCOMPARE(int(reduced->run.ranks.size()), spec.ranks);
        QCOMPARE(int(a.collectives.size()), truth.matchedCollectives);
        // Every world AllReduce: the planted straggler arrived last, and the cross-rank waiting
        // it caused is about its lateness.
        int world = 0;
        for (const CollectiveSummary& c : a.collectives) {
            if (c.processGroup != "0")
                continue;
            QCOMPARE(c.ranksSeen, spec.ranks);
            QCOMPARE(c.lastArrivalRank, truth.worldLastArrival[std::size_t(world)]);
            const double late = spec.stragglers[std::size_t(world) % spec.stragglers.size()].lateUs;
            QVERIFY2(c.waitUs > late - 30 && c.waitUs < late + 30, qPrintable(QString::number(c.waitUs)));
            QCOMPARE(c.bytes, spec.allReduceBytes);
            ++world;
        }
        QCOMPARE(world, spec.steps * spec.allReducesPerStep);
        QVERIFY(a.stragglers.size() >= 2);
        QCOMPARE(a.stragglers[0].rank, 11); // 900 us late at half the world collectives
        QCOMPARE(a.stragglers[1].rank, 3);
        // Clock alignment recovers the planted skews (relative to the median rank) within the
        // 3 us of end jitter.
        std::vector<std::int64_t> skews = truth.clockSkewNs;
        std::vector<std::int64_t> deltas;
        for (int r = 0; r < spec.ranks; ++r)
            deltas.push_back(a.clockOffsetNs[std::size_t(r)] - skews[std::size_t(r)]);
        const auto [lo, hi] = std::minmax_element(deltas.begin(), deltas.end());
        QVERIFY2(*hi - *lo < 6000, qPrintable(QString::number(*hi - *lo)));
        // The AllReduce ring: every rank sends 2(n-1)/n S per call to the next rank.
        QCOMPARE(a.traffic.ranks, spec.ranks);
        const double ring = truth.allReduceRingBytesPerRank;
        QVERIFY(std::abs(a.traffic.at(3, 4) - ring) < 1e-6 * ring);
        // Inside a TP group of 4 the AllGather ring adds 3/4 S per step.
        const double tpRing = ring + spec.steps * 0.75 * double(spec.allGatherBytes);
        QVERIFY(std::abs(a.traffic.at(5, 6) - tpRing) < 1e-6 * tpRing);
        QVERIFY(std::abs(a.traffic.at(7, 4) - spec.steps * 0.75 * double(spec.allGatherBytes)) < 1.0);
        QVERIFY(std::abs(a.traffic.at(15, 0) - ring) < 1e-6 * ring);
        QCOMPARE(a.traffic.at(0, 15), 0.0);
    }

    void damagedAndMissingRankFiles()
    {
        // Rank 5 truncated, rank 9 unreadable (a directory named like a trace), rank 12 gone.
        QTemporaryDir dir;
        std::string error;
        auto files = testing::writeRunTraces(plantedSpec(), dir.path().toStdString(), error);
        QVERIFY(!files.empty());
        std::filesystem::resize_file(files[5], std::filesystem::file_size(files[5]) / 2);
        std::filesystem::remove(files[12]);
        std::filesystem::remove(files[9]);
        std::filesystem::create_directory(files[9]);
        files.erase(files.begin() + 12);
        std::sort(files.begin(), files.end());
        for (int processes : { 1, 3 }) {
            auto reduced = reduceAsProcesses(files, processes);
            QVERIFY2(reduced, reduced.message().c_str());
            QCOMPARE(int(reduced->run.ranks.size()), 13);
            int failed = 0;
            for (const Diagnostic& d : reduced->run.diagnostics.items())
                failed += d.id == "import.file_failed";
            QCOMPARE(failed, 2);
            const Diagnostic* missing = reduced->run.diagnostics.find("import.ranks_without_trace");
            QVERIFY(missing);
            QCOMPARE(missing->count, 3);
            QVERIFY2(missing->message.find("5, 9, 12") != std::string::npos, missing->message.c_str());
            // The others' collectives are still matched; the straggler is still found.
            QCOMPARE(reduced->analysis.stragglers.front().rank, 11);
        }
    }

    void renumberedRanksAreReducedAgain()
    {
        // Two files stating the same rank: the second is numbered in file order, and its summary
        // (traffic, labels) follows the new number exactly as in loadRun.
        QTemporaryDir dir;
        testing::TraceGeneratorSpec spec;
        spec.ranks = 4;
        spec.steps = 1;
        std::string error;
        auto files = testing::writeRunTraces(spec, dir.path().toStdString(), error);
        QVERIFY(!files.empty());
        std::filesystem::copy_file(files[1], dir.filePath(QStringLiteral("rank1copy.json")).toStdString());
        std::filesystem::remove(files[3]);
        auto listed = expandTracePaths({ dir.path().toStdString() });
        QVERIFY(listed);
        auto run = loadRun({ dir.path().toStdString() }, { 1, {}, nullptr });
        QVERIFY(run);
        auto reduced = reduceAsProcesses(*listed, 2);
        QVERIFY2(reduced, reduced.message().c_str());
        QVERIFY(reduced->run.diagnostics.find("import.rank_assigned"));
        QCOMPARE(dump(reduced->run, reduced->analysis), dump(*run, analyseRun(*run)));
    }

    void partitionIsBalancedAndDeterministic()
    {
        const std::vector<std::uint64_t> sizes { 100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0, 0 };
        const std::vector<int> owner = partitionFilesBySize(sizes, 3);
        QCOMPARE(owner, partitionFilesBySize(sizes, 3));
        std::vector<std::uint64_t> load(3, 0);
        std::vector<int> count(3, 0);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            load[std::size_t(owner[i])] += sizes[i];
            ++count[std::size_t(owner[i])];
        }
        // 550 bytes over 3: LPT keeps every share within the largest file of the mean.
        for (auto l : load)
            QVERIFY2(l >= 183 - 100 && l <= 183 + 100, qPrintable(QString::number(l)));
        QVERIFY(*std::min_element(count.begin(), count.end()) >= 3);
        QCOMPARE(partitionFilesBySize({ 5, 5 }, 8), (std::vector<int> { 0, 1 }));
    }

    void damagedEncodingIsRefused_data()
    {
        QTest::addColumn<int>("cut");
        QTest::addRow("cut in the header") << 6;
        QTest::addRow("cut in a summary") << 200;
        QTest::addRow("cut before the end") << -3;
    }
    void damagedEncodingIsRefused()
    {
        QFETCH(int, cut);
        KinetoParser parser;
        const TraceFileReduction r = reduceTraceFile(m_files[0], parser);
        QVERIFY(r.error.empty());
        std::string bytes = encodeReductions({ { 0, &r } });
        std::vector<std::pair<std::int64_t, TraceFileReduction>> decoded;
        QVERIFY(decodeReductions(bytes, decoded));
        QCOMPARE(int(decoded.size()), 1);
        QCOMPARE(decoded[0].second.ranks.front().collectives, r.ranks.front().collectives);
        QCOMPARE(decoded[0].second.ranks.front().sends, r.ranks.front().sends);
        bytes.resize(cut >= 0 ? std::size_t(cut) : bytes.size() - std::size_t(-cut));
        decoded.clear();
        const Status status = decodeReductions(bytes, decoded);
        QVERIFY(!status);
        QVERIFY2(status.message().find("byte offset 0") != std::string::npos, status.message().c_str());
    }

private:
    QTemporaryDir m_dir;
    std::vector<std::string> m_files;
};

QTEST_GUILESS_MAIN(TestTraceReduction)
#include "tst_tracereduction.moc"
