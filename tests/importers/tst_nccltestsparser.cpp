// nccl-tests logs: every layout variant (fixtures in tests/data/nccltests, see its README), header
// facts, the public 8x H100 row, malformed input with line numbers, per-row diagnostics, -J JSON.

#include "importers/nccltests/nccltestsimporter.h"
#include "importers/nccltests/nccltestsiterations.h"
#include "importers/nccltests/nccltestsruncheck.h"
#include "importers/nccltests/nccltestssweep.h"
#include "importers/nccltests/ncclteststokenizer.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace clusterscope::importers;

namespace {
std::string dataFile(const char* name) { return std::string(CLUSTERSCOPE_TEST_DATA_DIR) + "/nccltests/" + name; }

NcclTestsParseOptions withOp(const QString& op)
{
    NcclTestsParseOptions options;
    if (!op.isEmpty())
        options.collective = ncclTestsCollectiveFromName(op.toStdString());
    return options;
}

bool hasDiagnostic(const NcclTestsLog& log, const std::string& id, const std::string& where)
{
    for (const auto& d : log.diagnostics) {
        if (d.id == id && d.message.find(where) != std::string::npos)
            return true;
    }
    return false;
}
} // namespace

class TestNcclTestsParser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Found by fuzz_nccltests: a damaged #wrong count far beyond any integer type was converted to
    // long long (undefined behaviour). It must become a diagnostic with the number as printed.
    void absurdWrongCount()
    {
        const std::string log = "# Collective test starting: all_reduce_perf\n"
                                "#  Rank  0 Group  0 Pid 1 on node-001 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
                                "#  Rank  1 Group  0 Pid 2 on node-001 device  1 [0000:2a:00] NVIDIA H100 80GB HBM3\n"
                                "#       size         count      type   redop    root     time   algbw   busbw #wrong  "
                                "   time   algbw   busbw #wrong\n"
                                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)         "
                                "   (us)  (GB/s)  (GB/s)\n"
                                "     1048576        262144     float     sum      -1    20.00   52.43   52.43  "
                                "1.1e126    20.00   52.43   52.43      0\n";
        auto parsed = parseNcclTestsText(log, "wrong.log");
        QVERIFY2(parsed.isOk(), parsed.message().c_str());
        QVERIFY(hasDiagnostic(*parsed, "wrong-elements", "elements came back wrong"));
    }

    void fixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("collective");
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<bool>("hasRoot");
        QTest::addColumn<bool>("wrongIsCount");
        QTest::addColumn<int>("extraColumns");
        QTest::addColumn<qulonglong>("lastBytes");

        QTest::addRow("modern all_reduce, 8x H100")
            << "allreduce_h100_8gpu.log"
            << ""
            << "allreduce"
            << "binary_name" << 31 << 8 << 1 << "NVIDIA H100 80GB HBM3" << true << true << 0 << 8589934592ULL;
        QTest::addRow("tag-output all_gather, 2 nodes, N/A, needs --op")
            << "allgather_2node_tagoutput.log"
            << "allgather"
            << "allgather"
            << "option" << 21 << 16 << 2 << "NVIDIA H100 80GB HBM3" << true << true << 0 << 1073741824ULL;
        QTest::addRow("old layout reduce_scatter: no root, error column")
            << "reducescatter_v100_old.log"
            << ""
            << "reducescatter"
            << "column_layout" << 22 << 8 << 1 << "Tesla V100-SXM2-32GB" << false << false << 0 << 134217728ULL;
        QTest::addRow("broadcast with root, srun --label")
            << "broadcast_srun_label.log"
            << ""
            << "broadcast"
            << "binary_name" << 26 << 8 << 1 << "NVIDIA A100-SXM4-80GB" << true << true << 0 << 268435456ULL;
        QTest::addRow("sendrecv with -I statistics")
            << "sendrecv_istats.log"
            << ""
            << "sendrecv"
            << "binary_name" << 28 << 2 << 2 << "NVIDIA H100 80GB HBM3" << true << true << 4 << 1073741824ULL;
        QTest::newRow("alltoall %e times, cputime, timestamps")
            << "alltoall_tcp_slow.log"
            << ""
            << "alltoall"
            << "binary_name" << 14 << 4 << 4 << "NVIDIA L40S" << true << true << 0 << 8589934592ULL;
        QTest::addRow("hypercube with empty redop")
            << "hypercube_8gpu.log"
            << ""
            << "hypercube"
            << "binary_name" << 18 << 8 << 1 << "NVIDIA H100 80GB HBM3" << true << true << 0 << 134217728ULL;
        QTest::addRow("-J JSON all_reduce bfloat16")
            << "allreduce_bf16.json"
            << ""
            << "allreduce"
            << "binary_name" << 21 << 8 << 1 << "NVIDIA H100 80GB HBM3" << true << true << 0 << 1073741824ULL;
        QTest::addRow("--op agreeing with the log")
            << "allreduce_h100_8gpu.log"
            << "allreduce"
            << "allreduce"
            << "binary_name" << 31 << 8 << 1 << "NVIDIA H100 80GB HBM3" << true << true << 0 << 8589934592ULL;
    }
    void fixtures()
    {
        QFETCH(QString, file);
        QFETCH(QString, op);
        auto log = importNcclTestsFile(dataFile(file.toUtf8().constData()), withOp(op));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(int(log->runs.size()), 1);
        const NcclTestsRun& run = log->runs.front();
        QVERIFY(run.collective.has_value());
        QTEST(QString::fromUtf8(toString(*run.collective)), "collective");
        QTEST(QString::fromUtf8(toString(run.collectiveSource)), "source");
        QTEST(int(run.rows.size()), "rows");
        QTEST(run.ranks(), "ranks");
        QTEST(run.nodes(), "nodes");
        QTEST(QString::fromStdString(run.gpuName()), "gpu");
        QTEST(run.rows.front().root.has_value(), "hasRoot");
        QTEST(run.errorColumnIsCount, "wrongIsCount");
        QTEST(int(run.rows.front().inPlace.extra.size()), "extraColumns");
        QTEST(qulonglong(run.rows.back().bytes), "lastBytes");
        // Every row has both halves with time, algbw and busbw, and none disagree with nccl-tests' formulas.
        for (const auto& row : run.rows) {
            QVERIFY(row.outOfPlace.has_value());
            QVERIFY(row.outOfPlace->timeUs && row.outOfPlace->algbwGBps && row.outOfPlace->busbwGBps);
            QVERIFY(row.inPlace.timeUs && row.inPlace.algbwGBps && row.inPlace.busbwGBps);
        }
        for (const auto& d : log->diagnostics)
            QVERIFY2(
                d.id != "busbw-mismatch" && d.id != "algbw-mismatch" && d.id != "row-size" && d.id != "row-columns",
                d.message.c_str());
    }

    void headerFacts()
    {
        auto log = importNcclTestsFile(dataFile("allreduce_h100_8gpu.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        const NcclTestsRun& run = log->runs.front();
        QCOMPARE(run.binary, std::string("all_reduce_perf"));
        QCOMPARE(run.ncclTestsVersion, std::string("2.13.11"));
        QCOMPARE(run.ncclVersionCode.value_or(0), 21903);
        QCOMPARE(run.threads.value_or(0), 1);
        QCOMPARE(run.gpusPerThread.value_or(0), 1);
        QCOMPARE(run.minBytes.value_or(0), std::uint64_t(8));
        QCOMPARE(run.maxBytes.value_or(0), std::uint64_t(8589934592ULL));
        QCOMPARE(run.stepFactor.value_or(0), std::uint64_t(2));
        QVERIFY(!run.stepBytes);
        QCOMPARE(run.warmupIters.value_or(0), 5);
        QCOMPARE(run.iters.value_or(0), 20);
        QCOMPARE(run.aggIters.value_or(0), 1);
        QCOMPARE(run.validation.value_or(-1), 1);
        QCOMPARE(run.graph.value_or(-1), 0);
        QCOMPARE(run.devices.size(), std::size_t(8));
        QCOMPARE(run.devices[3].rank, 3);
        QCOMPARE(run.devices[3].host, std::string("node-001"));
        QCOMPARE(run.devices[3].device, 3);
        QCOMPARE(run.devices[3].busId, std::string("0000:5d:00"));
        QCOMPARE(run.devices[3].line, 10);
        QCOMPARE(run.ranksPerNode(), 8);
        QVERIFY(run.avgBusBwGBps.has_value());
        QCOMPARE(run.outOfBounds.value_or(-1), 0);
        QCOMPARE(run.columns.size(), std::size_t(13));
    }

    void publicH100Row()
    {
        // notes/collectives.md: 8x H100, 8 GiB AllReduce: 31356 us, algbw 273.95, busbw 479.41 GB/s.
        auto log = importNcclTestsFile(dataFile("allreduce_h100_8gpu.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        const NcclTestsRow& row = log->runs.front().rows.back();
        QCOMPARE(row.bytes, std::uint64_t(8589934592ULL));
        QCOMPARE(row.count, std::uint64_t(2147483648ULL));
        QCOMPARE(row.type, std::string("float"));
        QCOMPARE(row.redop, std::string("sum"));
        QCOMPARE(row.root.value_or(0), -1);
        QCOMPARE(*row.outOfPlace->timeUs, 31356.0);
        QCOMPARE(*row.outOfPlace->algbwGBps, 273.95);
        QCOMPARE(*row.outOfPlace->busbwGBps, 479.41);
        QCOMPARE(*row.outOfPlace->wrong, 0.0);
        QCOMPARE(*row.inPlace.busbwGBps, 480.14);
        // algbw = S / t and busbw = algbw x 2(n-1)/n for n = 8 (nccl-tests all_reduce.cu).
        QVERIFY(std::abs(8589934592.0 / 31356e-6 / 1e9 - 273.95) < 0.01);
        QVERIFY(
            std::abs(273.95 * busBandwidthFactor(clusterscope::engine::CollectiveOp::AllReduce, 8) - 479.41) < 0.01);
        QCOMPARE(row.line, 49);
    }

    void busbwFactors_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<double>("factor");
        QTest::addColumn<int>("sizeRatio");
        QTest::addRow("allreduce 8") << "allreduce" << 8 << 1.75 << 1;
        QTest::addRow("allreduce 2") << "all_reduce_perf" << 2 << 1.0 << 1;
        QTest::addRow("allgather 16") << "allgather" << 16 << 15.0 / 16 << 16;
        QTest::addRow("reducescatter 8") << "reduce_scatter_perf" << 8 << 7.0 / 8 << 8;
        QTest::addRow("alltoall 4") << "alltoall" << 4 << 0.75 << 4;
        QTest::addRow("broadcast 8") << "broadcast" << 8 << 1.0 << 1;
        QTest::addRow("reduce 8") << "./build/reduce_perf" << 8 << 1.0 << 1;
        QTest::addRow("sendrecv 2") << "sendrecv" << 2 << 1.0 << 1;
        QTest::addRow("scatter 8") << "scatter_perf" << 8 << 7.0 / 8 << 8;
        QTest::addRow("gather 8") << "gather" << 8 << 7.0 / 8 << 8;
        QTest::addRow("hypercube 8") << "hypercube_perf_mpi" << 8 << 1.0 << 8;
    }
    void busbwFactors()
    {
        QFETCH(QString, op);
        QFETCH(int, ranks);
        const auto c = ncclTestsCollectiveFromName(op.toStdString());
        QVERIFY(c.has_value());
        QTEST(busBandwidthFactor(*c, ranks), "factor");
        QTEST(sizeToCountRatio(*c, ranks), "sizeRatio");
    }

    void fixtureRowsFollowFactors_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op");
        for (const char* f : { "allreduce_h100_8gpu.log", "reducescatter_v100_old.log", "broadcast_srun_label.log",
                 "sendrecv_istats.log", "alltoall_tcp_slow.log", "hypercube_8gpu.log", "allreduce_bf16.json",
                 "two_runs.log" })
            QTest::addRow("%s", f) << f << "";
        QTest::addRow("allgather_2node_tagoutput.log") << "allgather_2node_tagoutput.log"
                                                       << "allgather";
    }
    void fixtureRowsFollowFactors()
    {
        // busbw = algbw x factor(n) and algbw = share x size / time on every row, within print precision.
        QFETCH(QString, file);
        QFETCH(QString, op);
        auto log = importNcclTestsFile(dataFile(file.toUtf8().constData()), withOp(op));
        QVERIFY2(log.isOk(), log.message().c_str());
        for (const auto& run : log->runs) {
            const double f = busBandwidthFactor(*run.collective, run.ranks());
            const double share = algorithmBandwidthShare(*run.collective, run.ranks());
            for (const auto& row : run.rows) {
                for (const NcclTestsMeasurement* m : { &*row.outOfPlace, &row.inPlace }) {
                    QVERIFY2(std::abs(*m->busbwGBps - *m->algbwGBps * f) <= 0.011 * (1 + f) + 0.015 * *m->busbwGBps,
                        qPrintable(QStringLiteral("line %1").arg(row.line)));
                    const double alg = share * double(row.bytes) / (*m->timeUs * 1e3);
                    QVERIFY2(std::abs(*m->algbwGBps - alg) <= 0.011 + 0.06 * alg,
                        qPrintable(QStringLiteral("line %1").arg(row.line)));
                }
            }
        }
    }

    void twoRuns_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("plain") << "two_runs.log";
        QTest::addRow("gzip") << "two_runs.log.gz";
    }
    void twoRuns()
    {
        QFETCH(QString, file);
        auto log = importNcclTestsFile(dataFile(file.toUtf8().constData()));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(2));
        QCOMPARE(*log->runs[0].collective, clusterscope::engine::CollectiveOp::AllReduce);
        QCOMPARE(*log->runs[1].collective, clusterscope::engine::CollectiveOp::ReduceScatter);
        QCOMPARE(log->runs[0].ranks(), 4);
        QCOMPARE(log->runs[1].ranks(), 4);
        QCOMPARE(log->runs[0].rows.size(), std::size_t(15));
        QCOMPARE(log->runs[1].rows.size(), std::size_t(15));
    }

    // The ways real logs reach users (robust_*.log, generate_robustness_fixtures.py): each imports
    // with the right runs, collectives, ranks and rows.
    void robustness_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("collectives"); ///< one per run, comma-separated
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("rows"); ///< rows of the first run
        QTest::addColumn<QString>("diagnostic"); ///< a diagnostic id the log must produce ("" none)
        QTest::addRow("run(), common.cu:NNN, logger prefix") << "robust_logger_prefix.log"
                                                             << "allreduce" << 8 << 1 << 8 << "";
        QTest::addRow("two runs, NCCL INFO and Open MPI warnings interleaved")
            << "robust_two_runs_interleaved.log"
            << "allgather,allreduce" << 4 << 1 << 7 << "";
        QTest::addRow("literal ... line, size-0 rows, trailing whitespace")
            << "robust_excerpt_elided.log"
            << "allreduce" << 8 << 1 << 2 + 4 + 7 << "elided-rows";
        QTest::addRow("srun --label 0: prefixes") << "robust_srun_label.log"
                                                  << "allreduce" << 8 << 2 << 9 << "";
        QTest::addRow("mpirun [1,0]<stdout>: prefixes") << "robust_tag_output.log"
                                                        << "allreduce" << 8 << 2 << 9 << "";
        QTest::addRow("kubectl --timestamps before [1,0]<stdout>:") << "robust_kubectl_timestamps.log"
                                                                    << "allreduce" << 8 << 2 << 9 << "";
        QTest::addRow("docker compose service | prefixes") << "robust_compose_service.log"
                                                           << "allreduce" << 8 << 2 << 9 << "";
        QTest::addRow("markdown block quote > on every line (modelled on nccl-tests issue 287)")
            << "robust_markdown_quote.log"
            << "allreduce" << 4 << 1 << 25 << "";
        QTest::addRow("-d all -o all: one run per data type and reduction")
            << "robust_dtype_redop_sweeps.log"
            << "allreduce,allreduce,allreduce,allreduce" << 8 << 1 << 5 << "run-split";
    }
    void robustness()
    {
        QFETCH(QString, file);
        QFETCH(QString, collectives);
        QFETCH(QString, diagnostic);
        auto log = importNcclTestsFile(dataFile(file.toUtf8().constData()));
        QVERIFY2(log.isOk(), log.message().c_str());
        const QStringList expected = collectives.split(QLatin1Char(','));
        QCOMPARE(int(log->runs.size()), int(expected.size()));
        for (int i = 0; i < expected.size(); ++i) {
            QVERIFY(log->runs[std::size_t(i)].collective.has_value());
            QCOMPARE(QString::fromUtf8(toString(*log->runs[std::size_t(i)].collective)), expected[i]);
        }
        const NcclTestsRun& run = log->runs.front();
        QTEST(run.ranks(), "ranks");
        QTEST(run.nodes(), "nodes");
        QTEST(int(run.rows.size()), "rows");
        QCOMPARE(run.gpuName(), std::string("NVIDIA H100 80GB HBM3"));
        QVERIFY(run.threads.has_value());
        for (const auto& d : log->diagnostics) {
            QVERIFY2(d.id != "busbw-mismatch" && d.id != "algbw-mismatch" && d.id != "row-size" && d.id != "row-columns"
                    && d.id != "device-line" && d.id != "header-line",
                d.message.c_str());
        }
        if (!diagnostic.isEmpty())
            QVERIFY(hasDiagnostic(*log, diagnostic.toStdString(), file.toStdString()));
    }

    // A real log inside a markdown list item (AWS awsome-distributed-training, MIT-0): every line is
    // "   [1,0]<stdout>:", the tag after three blanks; no device lines, a "..." line.
    void indentedTagOutput()
    {
        auto log = importNcclTestsFile(dataFile("aws_eks_p5_indented_tagoutput_allreduce.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(1));
        const NcclTestsRun& run = log->runs.front();
        QCOMPARE(*run.collective, clusterscope::engine::CollectiveOp::AllReduce);
        QCOMPARE(run.ranks(), 16); // busbw/algbw
        QCOMPARE(int(run.rows.size()), 7);
        QVERIFY(run.elidedRows);
        QVERIFY(run.avgBusBwGBps.has_value());
        for (const auto& d : log->diagnostics)
            QVERIFY2(d.id != "busbw-mismatch" && d.id != "row-columns", d.message.c_str());
    }

    // alltoallv_perf (nccl-tests 2.19 on) times an irregular all-to-all; only its uniform pattern
    // (NCCL_TESTS_ALLTOALLV_SPREAD=0) is the all-to-all the model knows.
    void alltoallvNeedsItsUniformPattern()
    {
        QVERIFY(ncclTestsIsAlltoallv("./build/alltoallv_perf_mpi"));
        QVERIFY(!ncclTestsIsAlltoallv("alltoall_perf"));
        QVERIFY(!ncclTestsCollectiveFromName("alltoallv_perf"));

        // A text log cannot say its pattern: refused unless --op alltoall states it was uniform.
        auto plain = importNcclTestsFile(dataFile("alltoallv_2_19.log"));
        QVERIFY(!plain.isOk());
        QVERIFY2(plain.message().find("alltoallv_2_19.log:18: alltoallv_perf times an irregular all-to-all")
                != std::string::npos,
            plain.message().c_str());
        QVERIFY2(plain.message().find("NCCL_TESTS_ALLTOALLV_SPREAD=0 is one, read it with --op alltoall")
                != std::string::npos,
            plain.message().c_str());
        auto stated = importNcclTestsFile(dataFile("alltoallv_2_19.log"), withOp("alltoall"));
        QVERIFY2(stated.isOk(), stated.message().c_str());
        QCOMPARE(*stated->runs.front().collective, clusterscope::engine::CollectiveOp::AllToAll);
        QCOMPARE(stated->runs.front().collectiveSource, NcclTestsCollectiveSource::Option);
        QVERIFY(hasDiagnostic(*stated, "alltoallv-as-alltoall", "right for a run with NCCL_TESTS_ALLTOALLV_SPREAD=0"));
        QCOMPARE(stated->runs.front().rows.size(), std::size_t(11));

        // -J output carries the environment: SPREAD=0.0 is uniform without --op.
        auto uniform = importNcclTestsFile(dataFile("alltoallv_uniform.json"));
        QVERIFY2(uniform.isOk(), uniform.message().c_str());
        QCOMPARE(uniform->runs.front().alltoallvSpread.value_or(-1), 0.0);
        QCOMPARE(*uniform->runs.front().collective, clusterscope::engine::CollectiveOp::AllToAll);
        QVERIFY(hasDiagnostic(*uniform, "alltoallv-uniform", "every rank sends each peer the same bytes"));

        // A stated non-uniform spread cannot be read as a uniform all-to-all, --op or not.
        QFile f(QString::fromStdString(dataFile("alltoallv_uniform.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string skewed = f.readAll().toStdString();
        std::string weighted = skewed;
        const auto at = weighted.find("SPREAD=0.0");
        QVERIFY(at != std::string::npos);
        weighted.replace(at, 10, "SPREAD=0.5");
        auto refused = parseNcclTestsText(weighted, "a2av.json", withOp("alltoall"));
        QVERIFY(!refused.isOk());
        QVERIFY2(refused.message().find("NCCL_TESTS_ALLTOALLV_SPREAD=0.5 in the log's environment") != std::string::npos
                && refused.message().find("this run cannot be compared") != std::string::npos,
            refused.message().c_str());
    }

    // nccl-tests -I 1 (2.19 on): the text columns i_min i_max i_p99 i_cv% and the -J *_per_iter objects
    // with one row of iteration times per process.
    void perIterationTiming()
    {
        auto text = importNcclTestsFile(dataFile("sendrecv_istats.log"));
        QVERIFY2(text.isOk(), text.message().c_str());
        for (const auto& row : text->runs.front().rows) {
            QVERIFY(row.outOfPlace && row.outOfPlace->iterations && row.inPlace.iterations);
            const auto& it = *row.outOfPlace->iterations;
            // The fixture's i_min is 0.97 and i_max 1.08 of the time, cv 0.3..2.5% (printed %.2f, %7s).
            QVERIFY(it.minUs < *row.outOfPlace->timeUs && *row.outOfPlace->timeUs < it.maxUs);
            QVERIFY(it.cvPercent >= 0.3 && it.cvPercent <= 2.5);
            QVERIFY(!it.avgUs && it.perProcessUs.empty());
        }
        const NcclTestsIterationReport textReport = ncclTestsIterationReport(text->runs.front());
        QCOMPARE(textReport.sizes.size(), std::size_t(28));
        QCOMPARE(textReport.noisySizes, 0);
        QCOMPARE(textReport.straggler, -1);

        auto json = importNcclTestsFile(dataFile("allreduce_per_iter.json"));
        QVERIFY2(json.isOk(), json.message().c_str());
        const NcclTestsRun& run = json->runs.front();
        const auto& first = *run.rows.front().outOfPlace->iterations;
        QCOMPARE(first.perProcessUs.size(), std::size_t(2));
        QCOMPARE(first.perProcessUs[1].size(), std::size_t(20));
        QVERIFY(first.avgUs && std::abs(*first.avgUs - *run.rows.front().outOfPlace->timeUs) < 1e-3);
        // Process 1 (node-b) is 4% slower everywhere; one 64 MiB iteration spikes to 3x.
        const NcclTestsIterationReport report = ncclTestsIterationReport(run);
        QCOMPARE(report.sizes.size(), std::size_t(11));
        QCOMPARE(report.noisySizes, 1);
        QCOMPARE(report.sizes[6].bytes, std::uint64_t(67108864));
        QVERIFY(report.sizes[6].noisy && report.sizes[6].spike > 2.5 && report.sizes[6].stats.cvPercent > 30);
        QCOMPARE(report.processes, 2);
        QCOMPARE(report.straggler, 1);
        QCOMPARE(report.stragglerSizes, 11);
        QCOMPARE(report.sizesWithProcesses, 11);
        QCOMPARE(report.stragglerHost, std::string("node-b"));
        QCOMPARE(report.stragglerFirstRank, 8);
        QVERIFY2(report.stragglerExcess > 0.035 && report.stragglerExcess < 0.07,
            qPrintable(QString::number(report.stragglerExcess)));

        // A per-iteration object of the wrong shape is an error naming its JSON pointer.
        QFile f(QString::fromStdString(dataFile("allreduce_per_iter.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        std::string broken = f.readAll().toStdString();
        const auto at = broken.find("\"cv_pct\":");
        QVERIFY(at != std::string::npos);
        broken.replace(at, 9, "\"cv_pct\":\"x\",\"z\":");
        auto bad = parseNcclTestsText(broken, "ar.json");
        QVERIFY(!bad.isOk());
        QVERIFY2(bad.message().find("ar.json: /results/0/out_of_place_per_iter/cv_pct: expected a number")
                != std::string::npos,
            bad.message().c_str());
    }

    void loggerPrefixSummary()
    {
        auto log = importNcclTestsFile(dataFile("robust_logger_prefix.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        // "run(), common.cu:1127, Avg bus bandwidth : 120.5" lost its '#' and is still the summary.
        QCOMPARE(log->runs.front().avgBusBwGBps.value_or(0), 120.5);
        QCOMPARE(log->runs.front().minBytes.value_or(0), std::uint64_t(1048576));
    }

    void interleavedRunsNameTheirOperation()
    {
        auto log = importNcclTestsFile(dataFile("robust_two_runs_interleaved.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        // Without the NCCL INFO lines the columns fit allgather and alltoall alike.
        QCOMPARE(log->runs[0].ncclInfoOps, std::vector<std::string> { "AllGather" });
        QCOMPARE(log->runs[0].collectiveSource, NcclTestsCollectiveSource::ColumnLayout);
        QCOMPARE(log->runs[1].rows.size(), std::size_t(7));
        QCOMPARE(log->runs[1].ranks(), 4);
    }

    // A page whose markdown ate the '#' of every header line ("# ..." outside a code block renders as
    // a heading; NVIDIA/nccl issue 583 and nccl-tests issue 249 quote logs so): the log reads as the
    // original, devices, header facts and summary included.
    void headerWithoutHash_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("A100 1 node") << "public/a100_8gpu_1node_allreduce.log";
        QTest::addRow("H100 1 node NVLS") << "public/h100_1x8_dgx_nvls_allreduce.log";
        QTest::addRow("10 x 8 H100 alltoall") << "public/xxrjun_h100_10n8g_ib_alltoall.log";
        QTest::addRow("two runs") << "two_runs.log";
    }
    void headerWithoutHash()
    {
        QFETCH(QString, file);
        const std::string path = dataFile(file.toUtf8().constData());
        auto original = importNcclTestsFile(path);
        QVERIFY2(original.isOk(), original.message().c_str());
        QFile in(QString::fromStdString(path));
        QVERIFY(in.open(QIODevice::ReadOnly));
        std::string stripped;
        int hashes = 0;
        for (const QByteArray& line : in.readAll().split('\n')) {
            std::string text = line.toStdString();
            const std::size_t first = text.find_first_not_of(" \t");
            if (first != std::string::npos && text[first] == '#') {
                text.erase(first, 1);
                ++hashes;
            }
            stripped += text + "\n";
        }
        QVERIFY(hashes > 5);
        auto log = parseNcclTestsText(stripped, "stripped.log", {});
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), original->runs.size());
        for (std::size_t i = 0; i < log->runs.size(); ++i) {
            const NcclTestsRun& a = original->runs[i];
            const NcclTestsRun& b = log->runs[i];
            QCOMPARE(b.collective, a.collective);
            QCOMPARE(b.collectiveSource, a.collectiveSource);
            QCOMPARE(b.ranks(), a.ranks());
            QCOMPARE(b.nodes(), a.nodes());
            QCOMPARE(b.devices.size(), a.devices.size());
            QCOMPARE(b.threads, a.threads);
            QCOMPARE(b.gpusPerThread, a.gpusPerThread);
            QCOMPARE(b.columns, a.columns);
            QCOMPARE(b.avgBusBwGBps, a.avgBusBwGBps);
            QCOMPARE(b.rows.size(), a.rows.size());
            QVERIFY(!b.devices.empty());
        }
        // Prose stays prose: only the words nccl-tests prints make a header line.
        QVERIFY(!isHeaderWithoutHash(NcclTestsTokenizer::split("Rank 0 was slow on the second node")));
        QVERIFY(!isHeaderWithoutHash(NcclTestsTokenizer::split("size of the message matters")));
        QVERIFY(isHeaderWithoutHash(NcclTestsTokenizer::split(
            "  Rank  0 Pid 1821213 on AI-A100-Beethoven01 device  0 [0x00] NVIDIA A100-SXM4-40GB")));
    }

    // The command a page quotes above the output names the benchmark when the output does not
    // (nccl-tests before 2.13 prints no "Collective test starting" line): "mpirun -np 8 all_reduce_perf
    // -b 32 -f 2 -e 8G" (NVIDIA/nccl issue 583). After a table, the next command starts the next run.
    void commandLineNamesTheCollective()
    {
        // all_reduce_perf's columns (no root column, as that issue's log).
        const std::string devices
            = "#  Rank  0 Pid 1 on h device  0 [0x04] G\n"
              "#  Rank  1 Pid 2 on h device  1 [0x05] G\n"
              "#  size  count  type  redop  time  algbw  busbw  error  time  algbw  busbw  error\n";
        const std::string row
            = "  1048576  262144  float  sum  16.75  62.61  62.61  0e+00  16.61  63.12  63.12  0e+00\n";
        // Without the command the titles tell: a redop column and no root column is all_reduce_perf's
        // layout (reduce_perf titles a root column in every nccl-tests version, src/reduce.cu since 2017).
        auto bare = parseNcclTestsText(devices + row, "mem.log", {});
        QVERIFY2(bare.isOk(), bare.message().c_str());
        QCOMPARE(*bare->runs[0].collective, clusterscope::engine::CollectiveOp::AllReduce);
        QCOMPARE(bare->runs[0].collectiveSource, NcclTestsCollectiveSource::ColumnLayout);
        const std::string text = "$ mpirun -np 2 ./build/all_reduce_perf -b 1M -e 1M\n" + devices + row
            + "user@host:~$ mpirun -np 2 /opt/nccl-tests/build/reduce_perf_mpi -b 1M -e 1M\n" + devices + row;
        auto log = parseNcclTestsText(text, "mem.log", {});
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(2));
        QCOMPARE(*log->runs[0].collective, clusterscope::engine::CollectiveOp::AllReduce);
        QCOMPARE(log->runs[0].collectiveSource, NcclTestsCollectiveSource::CommandLine);
        QCOMPARE(*log->runs[1].collective, clusterscope::engine::CollectiveOp::Reduce);
        QCOMPARE(log->runs[1].ranks(), 2);
        // The binary the output names wins over the quoted command.
        auto named = parseNcclTestsText(
            "mpirun -np 2 all_gather_perf\n# Collective test starting: all_reduce_perf\n" + devices + row, "mem.log",
            {});
        QVERIFY2(named.isOk(), named.message().c_str());
        QCOMPARE(named->runs.size(), std::size_t(1));
        QCOMPARE(*named->runs[0].collective, clusterscope::engine::CollectiveOp::AllReduce);
        QCOMPARE(named->runs[0].collectiveSource, NcclTestsCollectiveSource::BinaryName);
        // The environment the command sets: NCCL_ALGO pins the algorithm (nccl-tests issue 82 runs
        // "mpirun ... -x NCCL_ALGO=Ring -x NCCL_PROTO=Simple ... ./build/broadcast_perf ...").
        auto pinned = parseNcclTestsText(
            "export NCCL_ALGO='Tree'; mpirun -x NCCL_PROTO=Simple -np 2 ./build/all_reduce_perf -b 1M\n" + devices + row
                + "mpirun -x NCCL_ALGO=Ring -np 2 ./build/all_reduce_perf -b 1M\n" + devices + row,
            "mem.log", {});
        QVERIFY2(pinned.isOk(), pinned.message().c_str());
        QCOMPARE(pinned->runs.size(), std::size_t(2));
        QCOMPARE(pinned->runs[0].ncclAlgo, std::string("Tree"));
        QCOMPARE(pinned->runs[1].ncclAlgo, std::string("Ring"));
        QCOMPARE(log->runs[0].ncclAlgo, std::string());
    }

    // alltoallv_perf's pattern from the environment the quoted command sets, as from the -J "env": with
    // NCCL_TESTS_ALLTOALLV_SPREAD=0 a text log is the uniform all-to-all the model knows; the command alone
    // names the benchmark of a table whose "Collective test starting" line was left out.
    void alltoallvPatternFromTheCommand()
    {
        QFile in(QString::fromStdString(dataFile("alltoallv_2_19.log")));
        QVERIFY(in.open(QIODevice::ReadOnly));
        const std::string log = in.readAll().toStdString();
        const std::string starting = "# Collective test starting: alltoallv_perf\n";
        QVERIFY(log.find(starting) != std::string::npos);
        std::string withoutStarting = log;
        withoutStarting.erase(withoutStarting.find(starting), starting.size());
        const std::string uniform
            = "mpirun -np 8 -x NCCL_TESTS_ALLTOALLV_SPREAD=0 ./build/alltoallv_perf -b 1M -e 1G\n";
        auto named = parseNcclTestsText(uniform + log, "mem.log", {});
        QVERIFY2(named.isOk(), named.message().c_str());
        QCOMPARE(*named->runs.front().collective, clusterscope::engine::CollectiveOp::AllToAll);
        QCOMPARE(named->runs.front().collectiveSource, NcclTestsCollectiveSource::BinaryName);
        QVERIFY(hasDiagnostic(*named, "alltoallv-uniform", "mem.log:"));
        auto fromCommand = parseNcclTestsText(uniform + withoutStarting, "mem.log", {});
        QVERIFY2(fromCommand.isOk(), fromCommand.message().c_str());
        QCOMPARE(*fromCommand->runs.front().collective, clusterscope::engine::CollectiveOp::AllToAll);
        QCOMPARE(fromCommand->runs.front().collectiveSource, NcclTestsCollectiveSource::CommandLine);
        QCOMPARE(fromCommand->runs.front().alltoallvSpread.value_or(-1), 0.0);
        // Without the variable the pattern is the default, distance-weighted one: refused with the reason.
        auto irregular
            = parseNcclTestsText("mpirun -np 8 ./build/alltoallv_perf -b 1M -e 1G\n" + withoutStarting, "mem.log", {});
        QVERIFY(!irregular.isOk());
        QVERIFY2(irregular.message().find("alltoallv_perf times an irregular all-to-all") != std::string::npos,
            irregular.message().c_str());
        auto matrix = parseNcclTestsText(
            "NCCL_TESTS_ALLTOALLV_MATRIX_FILE=m.csv mpirun -np 8 ./build/alltoallv_perf\n" + log, "mem.log", {});
        QVERIFY(!matrix.isOk());
        QVERIFY2(matrix.message().find("a traffic matrix file") != std::string::npos, matrix.message().c_str());
    }

    void sizeZeroRowsAreKeptAndSkippedByTheSweep()
    {
        auto log = importNcclTestsFile(dataFile("robust_excerpt_elided.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        const NcclTestsRun& run = log->runs.front();
        QCOMPARE(run.rows.front().bytes, std::uint64_t(0));
        QVERIFY(run.elidedRows);
        QCOMPARE(run.devices.back().name, std::string("NVIDIA H100 80GB HBM3")); // trailing blanks trimmed
    }

    // A page that quotes only the last device line of a 72-rank run ("#  Rank 71 ... device 3"): the
    // ranks are the highest rank listed + 1 (which busbw/algbw agrees with), the nodes unknown (they
    // come from the cluster), and the importer says so. Before, the one line made it a 1-rank run.
    void deviceListExcerpt_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("ranks");
        QTest::addRow("1 rack") << "coreweave_gb200_nvl72_1rack_allreduce.log" << 72;
        QTest::addRow("20 racks") << "coreweave_gb200_nvl72_20racks_allreduce.log" << 1440; // ratio alone: 1450
    }
    void deviceListExcerpt()
    {
        QFETCH(QString, file);
        QFETCH(int, ranks);
        auto log = importNcclTestsFile(dataFile(("public/" + file.toStdString()).c_str()));
        QVERIFY2(log.isOk(), log.message().c_str());
        const NcclTestsRun& run = log->runs.front();
        QCOMPARE(*run.collective, clusterscope::engine::CollectiveOp::AllReduce);
        QVERIFY(run.devicesPartial());
        QCOMPARE(run.ranks(), ranks);
        QCOMPARE(run.nodes(), 0);
        QCOMPARE(run.ranksPerNode(), 0);
        const auto it = std::find_if(log->diagnostics.begin(), log->diagnostics.end(),
            [](const NcclTestsDiagnostic& d) { return d.id == "partial-devices"; });
        QVERIFY(it != log->diagnostics.end());
        QVERIFY2(it->message.find("an excerpt; taken as " + std::to_string(ranks) + " ranks") != std::string::npos,
            it->message.c_str());
        auto sweep = measuredSweepFromRun(*log, run);
        QVERIFY2(sweep.isOk(), sweep.message().c_str());
        QCOMPARE(sweep->ranks, ranks);
        // A complete device list is not an excerpt.
        auto full = importNcclTestsFile(dataFile("allreduce_h100_8gpu.log"));
        QVERIFY2(full.isOk(), full.message().c_str());
        QVERIFY(!full->runs.front().devicesPartial());
    }

    // A device list cut to each host's first and last rank (robust_device_excerpt_hosts.log: 0 and 7 on
    // node-001, 8 and 15 on node-002) names the nodes; one that does not show every block does not.
    void deviceExcerptNamingHosts_data()
    {
        QTest::addColumn<QString>("ranksListed"); ///< the device lines kept, as "rank@host" words
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("perNode");
        QTest::addRow("first and last of each host") << "0@a 7@a 8@b 15@b" << 2 << 8;
        QTest::addRow("only the first of each host") << "0@a 8@b 15@b" << 0 << 0;
        QTest::addRow("a third host not shown") << "0@a 4@a 5@b 9@b 15@c" << 0 << 0;
        QTest::addRow("one host, first and last") << "0@a 15@a" << 1 << 16;
        QTest::addRow("only the last rank") << "15@a" << 0 << 0;
    }
    void deviceExcerptNamingHosts()
    {
        QFETCH(QString, ranksListed);
        NcclTestsRun run;
        run.bandwidthRanks = 16;
        for (const auto& w : ranksListed.split(QLatin1Char(' '))) {
            NcclTestsDevice d;
            d.rank = w.section(QLatin1Char('@'), 0, 0).toInt();
            d.host = w.section(QLatin1Char('@'), 1).toStdString();
            run.devices.push_back(d);
        }
        QCOMPARE(run.ranks(), 16);
        QVERIFY(run.devicesPartial());
        QTEST(run.nodes(), "nodes");
        QTEST(run.ranksPerNode(), "perNode");

        auto log = importNcclTestsFile(dataFile("robust_device_excerpt_hosts.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.front().ranks(), 16);
        QCOMPARE(log->runs.front().nodes(), 2);
        QCOMPARE(log->runs.front().ranksPerNode(), 8);
    }

    void singletonLaunchesAreFlagged()
    {
        auto log = importNcclTestsFile(dataFile("robust_singleton_launches.log"));
        QVERIFY(!log.isOk());
        const std::string& m = log.message();
        QVERIFY2(m.find("robust_singleton_launches.log:4: 4 independent one-rank jobs, not one 4-rank run")
                != std::string::npos,
            m.c_str());
        QVERIFY2(m.find("MPI=1") != std::string::npos, m.c_str());
    }

    void unresolvedRunIsLeftOutOfASeveralRunFile()
    {
        // The all_gather run without its NCCL INFO lines cannot be told from alltoall: it is left out
        // with an error diagnostic, the all_reduce run is kept.
        std::string text;
        {
            QFile f(QString::fromStdString(dataFile("robust_two_runs_interleaved.log")));
            QVERIFY(f.open(QIODevice::ReadOnly));
            for (const QByteArray& line : f.readAll().split('\n'))
                if (!line.contains("AllGather: opCount"))
                    text += line.toStdString() + "\n";
        }
        auto log = parseNcclTestsText(text, "no_info.log");
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(1));
        QCOMPARE(*log->runs[0].collective, clusterscope::engine::CollectiveOp::AllReduce);
        QCOMPARE(log->unresolvedRuns, 1);
        QVERIFY(hasDiagnostic(*log, "run-unresolved", "fit allgather or alltoall"));
    }

    void loggerPrefixes_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("length");
        QTest::addRow("run(), common.cu") << "run(), common.cu:868, # nThread 1" << 22;
        QTest::addRow("namespaced function") << "ns::run(), src/common.cu:12, #" << 29;
        QTest::addRow("no file") << "run(), # nThread" << 0;
        QTest::addRow("no line number") << "run(), common.cu:, #" << 0;
        QTest::addRow("NCCL INFO line") << "node:1:1 [0] NCCL INFO x" << 0;
    }
    void loggerPrefixes()
    {
        QFETCH(QString, line);
        const std::string l = line.toStdString();
        QTEST(int(NcclTestsTokenizer::loggerPrefixLength(l)), "length");
    }

    // The column titles of nccl-tests before 2.13 (src/alltoall.cu, all_gather.cu @ v2.11.0): alltoall_perf
    // titles a redop column it leaves empty, all_gather_perf has neither redop nor root; both move 1/8 of the
    // buffer per peer (busbw = algbw x 7/8 on 8 ranks), so only the titles tell them apart. Rows in that
    // layout with made-up timings (the format of microsoft/superbenchmark tests/data/nccl_alltoall.log).
    void oldLayoutAlltoallAndAllgather_data()
    {
        QTest::addColumn<QString>("titles");
        QTest::addColumn<QString>("row");
        QTest::addColumn<int>("op");
        QTest::addRow("alltoall: redop titled, left empty") << "#       size         count    type   redop     time   "
                                                               "algbw   busbw  error     time   algbw   busbw  error"
                                                            << "  1073741824      33554432   float           4400.0  "
                                                               "244.03  213.53    N/A   4300.0  249.71  218.49    N/A"
                                                            << int(clusterscope::engine::CollectiveOp::AllToAll);
        QTest::addRow("allgather: no redop, no root")
            << "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error"
            << "  1073741824      33554432   float   4400.0  244.03  213.53    N/A   4300.0  249.71  218.49    N/A"
            << int(clusterscope::engine::CollectiveOp::AllGather);
    }
    void oldLayoutAlltoallAndAllgather()
    {
        QFETCH(QString, titles);
        QFETCH(QString, row);
        QFETCH(int, op);
        std::string text
            = "# nThread 1 nGpus 8 minBytes 1 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 "
              "validation: 0\n#\n# Using devices\n";
        for (int r = 0; r < 8; ++r)
            text += "#   Rank  " + std::to_string(r) + " Pid 1000 on localhost device  " + std::to_string(r)
                + " [0x00] A100-SXM4-40GB\n";
        text += "#\n" + titles.toStdString() + "\n" + row.toStdString() + "\n";
        auto log = parseNcclTestsText(text, "old.log");
        QVERIFY2(log.isOk(), log.message().c_str());
        const NcclTestsRun& run = log->runs.front();
        QVERIFY(run.collective.has_value());
        QCOMPARE(int(*run.collective), op);
        QCOMPARE(run.collectiveSource, NcclTestsCollectiveSource::ColumnLayout);
    }

    // NCCL's own version banner ("NCCL version 2.26.2+cuda12.8", alone or after "NCCL INFO") names the
    // library when the nccl-tests header does not (nccl-library=, from nccl-tests 2.13); RCCL's is not NCCL's.
    void ncclVersionBanner_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("code");
        QTest::addRow("banner") << "NCCL version 2.26.2+cuda12.8" << 22602;
        QTest::addRow("info") << "node-1:2041:2041 [0] NCCL INFO NCCL version 2.21.5+cuda12.4" << 22105;
        QTest::addRow("hashed") << "# NCCL version 2.18.3" << 21803;
        QTest::addRow("rccl") << "RCCL version : 2.22.3-develop:5272cd1" << 0;
        QTest::addRow("no patch") << "NCCL version 2.26" << 0;
    }
    void ncclVersionBanner()
    {
        QFETCH(QString, line);
        QFETCH(int, code);
        const std::string text = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 "
                                 "agg iters: 1 validation: 1 graph: 0\n"
                                 "#\n# Using devices\n"
                                 "#  Rank  0 Group  0 Pid   1 on node-1 device  0 [0x19] NVIDIA H100 80GB HBM3\n"
                                 "#  Rank  1 Group  0 Pid   2 on node-1 device  1 [0x3b] NVIDIA H100 80GB HBM3\n"
            + line.toStdString()
            + "\n#\n"
              "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
              "  busbw #wrong\n"
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
              "(GB/s)\n"
              "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0    20.00   52.43  "
              " 52.43      0\n";
        // rccl-tests starts its output with "rccl-tests: Version ..." where nccl-tests prints its own version.
        const bool rccl = line.startsWith(QStringLiteral("RCCL"));
        auto log = parseNcclTestsText((rccl ? "rccl-tests: Version develop:448c4c7\n" : "") + text, "v.log");
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(1));
        QCOMPARE(log->runs.front().ncclVersionCode.value_or(0), code);
        QCOMPARE(log->runs.front().rcclVersion, std::string(rccl ? "2.22.3" : ""));
        if (rccl)
            QCOMPARE(log->runs.front().ncclTestsVersion, std::string("rccl-tests develop:448c4c7"));
    }

    void jsonFacts()
    {
        auto log = importNcclTestsFile(dataFile("allreduce_bf16.json"));
        QVERIFY2(log.isOk(), log.message().c_str());
        QVERIFY(log->json);
        const NcclTestsRun& run = log->runs.front();
        QCOMPARE(run.binary, std::string("all_reduce_perf"));
        QCOMPARE(run.ncclVersionCode.value_or(0), 22105);
        QCOMPARE(run.gpusPerThread.value_or(0), 8);
        QCOMPARE(run.rows.front().type, std::string("bfloat16"));
        QCOMPARE(run.rows.front().root.value_or(0), -1);
        QCOMPARE(run.rows.front().pointer, std::string("/results/0"));
        QCOMPARE(run.devices[7].busId, std::string("0000:1f:00"));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("message");
        QTest::addRow("every row malformed") << "malformed_all_rows.log"
                                             << ""
                                             << "malformed_all_rows.log:21: cannot read time value \"11.2x\"";
        QTest::addRow("broken column header") << "malformed_header.log"
                                              << ""
                                              << "malformed_header.log:18: cannot read the column header";
        QTest::addRow("NCCL failure before any row")
            << "nccl_failure.log"
            << ""
            << "nccl_failure.log:17: node-001: Test NCCL failure common.cu:1005";
        // Modelled on NVIDIA/nccl-tests issue 355 (2 x 8 H800, device-API alltoall): the first size's call
        // fails and nccl-tests prints its failure after that size's first columns (src/common.h), then
        // " .. HOST pid PID: Test failure FILE:LINE" lines. The run failed; its columns are not malformed.
        QTest::addRow("run aborted in its first size")
            << "run_aborted_cuda_failure.log"
            << ""
            << "run_aborted_cuda_failure.log:27: the run aborted at 2097152 B: gpu-a: Test CUDA failure common.cu:389 "
               "'an illegal memory access was encountered' (no result rows before the failure)";
        QTest::addRow("run stopped after its header (real log)")
            << "stopped_after_header.log"
            << ""
            << "stopped_after_header.log:1: the benchmark starting here (alltoall_perf, 16 ranks on 2 nodes) "
               "printed its header but no result row: the log ends before its first size";
        QTest::addRow("empty file") << "empty.log"
                                    << ""
                                    << "empty.log: the file is empty";
        QTest::addRow("not an nccl-tests log") << "not_nccl.log"
                                               << ""
                                               << "not_nccl.log: no nccl-tests result rows found";
        QTest::addRow("ambiguous collective without --op")
            << "allgather_2node_tagoutput.log"
            << ""
            << "allgather_2node_tagoutput.log:27: cannot tell which collective this log measures (the log does not "
               "name its binary and the columns fit allgather or alltoall); name it with --op";
        // A real scatter_perf table (AWS awsome-distributed-training, MIT-0) that does not name its binary:
        // scatter and gather fit, and --op could name neither for the model.
        QTest::addRow("only unmodelled collectives fit (real log)")
            << "aws_scatter_2x8_srun_label.log"
            << ""
            << "aws_scatter_2x8_srun_label.log:5: a scatter or gather table (root 0, no reduction, busbw = algbw x "
               "15/16): the collective model has no counterpart for either";
        QTest::addRow("columns fit no collective") << "no_collective_fits.log"
                                                   << ""
                                                   << "no_collective_fits.log:18: cannot tell which collective";
        QTest::addRow("truncated JSON") << "malformed_truncated.json"
                                        << ""
                                        << "malformed_truncated.json:";
        QTest::addRow("missing file") << "absent.log"
                                      << ""
                                      << "absent.log: cannot open";
    }
    // sendrecv_perf prints the reduction's name ("sum", src/sendrecv.cu runs TimeTest per reduction) and
    // busbw = algbw at any rank count: its table is a sendrecv's or a 2-rank all_reduce's. Modelled on the
    // A100 `sendrecv_perf -g 8` block of github.com/li-plus/playground cuda/nccl.md (its timings).
    void sendRecvTables_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("assumedRanks"); ///< NcclTestsParseOptions::ranks (--nodes x --gpus-per-node)
        QTest::addColumn<QString>("collective"); ///< what the run is read as
        QTest::addColumn<int>("ranks");
        QTest::addRow("table alone: read as the usual all_reduce, said") << ""
                                                                         << "" << 0 << "allreduce" << 2;
        QTest::addRow("table alone, --op, no ranks") << ""
                                                     << "sendrecv" << 0 << "sendrecv" << 0;
        QTest::addRow("table alone, --op and the cluster's ranks") << ""
                                                                   << "sendrecv" << 8 << "sendrecv" << 8;
        QTest::addRow("quoted command, -g 8") << "./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8"
                                              << "" << 0 << "sendrecv" << 8;
        QTest::addRow("the command's ranks win over the cluster's") << "./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8"
                                                                    << "" << 16 << "sendrecv" << 8;
        QTest::addRow("mpirun -np 4 x -g 2") << "mpirun -np 4 --host a:2,b:2 ./build/sendrecv_perf -b 128M -e 1G -g 2"
                                             << "" << 0 << "sendrecv" << 8;
        QTest::addRow("srun --ntasks=16, -t 2 (srun's -n is not the benchmark's)")
            << "srun -N 2 --ntasks=16 ./build/sendrecv_perf -b 128M -e 1G -n 50 -t 2"
            << "" << 0 << "sendrecv" << 32;
        QTest::addRow("srun -N alone: processes unknown") << "srun -N 2 ./build/sendrecv_perf -b 128M -e 1G"
                                                          << "" << 0 << "sendrecv" << 0;
    }
    void sendRecvTables()
    {
        QFETCH(QString, command);
        QFETCH(QString, op);
        QFETCH(int, assumedRanks);
        QFETCH(QString, collective);
        std::string text = command.isEmpty() ? std::string() : command.toStdString() + "\n";
        text
            += "#\n"
               "#                                                              out-of-place                       "
               "in-place          \n"
               "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw  "
               " "
               "busbw #wrong\n"
               "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
               "(GB/s)  \n"
               "   134217728      33554432     float     sum      -1   1211.2  110.81  110.81      0   1211.8  110.76  "
               "110.76    N/A\n"
               "   268435456      67108864     float     sum      -1   1423.3  188.60  188.60      0   1420.2  189.01  "
               "189.01    N/A\n";
        NcclTestsParseOptions options = withOp(op);
        options.ranks = assumedRanks;
        auto log = parseNcclTestsText(text, "sendrecv.log", options);
        QVERIFY2(log.isOk(), log.message().c_str());
        const NcclTestsRun& run = log->runs.front();
        QCOMPARE(QString::fromUtf8(toString(*run.collective)), collective);
        QTEST(run.ranks(), "ranks");
        QVERIFY(!hasDiagnostic(*log, "op-conflict", ""));
        QCOMPARE(hasDiagnostic(*log, "op-ambiguous", "if the log is sendrecv_perf's, pass --op sendrecv"),
            command.isEmpty() && op.isEmpty());
        QCOMPARE(hasDiagnostic(*log, "ranks-assumed", ""), command.isEmpty() && assumedRanks > 0);
    }

    // A run that aborts after some sizes keeps them and says where and why it stopped.
    void runAbortedAfterSomeSizes()
    {
        const std::string path = dataFile("run_aborted_cuda_failure.log");
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        std::string text = f.readAll().toStdString();
        const std::string failed = "     2097152         32768     float    none      -1 gpu-a: Test CUDA failure";
        const std::size_t at = text.find(failed);
        QVERIFY(at != std::string::npos);
        text.insert(at,
            "     1048576         16384     float    none      -1    130.2    8.05    7.55       0    "
            "129.8    8.08    7.57       0\n");
        auto log = parseNcclTestsText(text, "aborted.log", withOp(""));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(1));
        QCOMPARE(log->runs.front().rows.size(), std::size_t(1));
        QCOMPARE(log->runs.front().rows.front().bytes, std::uint64_t(1048576));
        bool said = false;
        for (const auto& d : log->diagnostics)
            said = said
                || (d.id == std::string("run-aborted") && d.line == 28
                    && d.message.find("the run aborted at 2097152 B: gpu-a: Test CUDA failure common.cu:389")
                        != std::string::npos);
        QVERIFY(said);
    }

    void errors()
    {
        QFETCH(QString, file);
        QFETCH(QString, op);
        QFETCH(QString, message);
        auto log = importNcclTestsFile(dataFile(file.toUtf8().constData()), withOp(op));
        QVERIFY(!log.isOk());
        QVERIFY2(QString::fromStdString(log.message()).contains(message), log.message().c_str());
    }

    void truncatedJsonNamesLineAndColumn()
    {
        auto log = importNcclTestsFile(dataFile("malformed_truncated.json"));
        QVERIFY(!log.isOk());
        const QString m = QString::fromStdString(log.message());
        QVERIFY2(m.contains(QRegularExpression(QStringLiteral(
                     "malformed_truncated\\.json: byte \\d+: not valid JSON \\(line \\d+, column \\d+: "))),
            log.message().c_str());
    }

    // Damaged -J files: each one an error naming the file and the place, never an exception
    // (a number literal beyond the double range used to abort the process with out_of_range.406).
    void damagedJson_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        QTest::addRow("number overflow")
            << QByteArray(R"({"version":1,"results":[{"size":1e99999}]})")
            << "d.json: byte 39: not valid JSON (line 1, column 39: number overflow parsing '1e99999')";
        QTest::addRow("negative overflow")
            << QByteArray("{\"results\": [{\"size\": 1, \"count\": 1,\n \"in_place\": {\"time\": -1e400}}]}")
            << "d.json: byte 65: not valid JSON (line 2, column 28: number overflow parsing '-1e400')";
        QTest::addRow("hostname not a string")
            << QByteArray(R"({"config": {"devices": [{"rank": 0, "hostname": 7}]}, "results": []})")
            << "d.json: /config/devices/0/hostname: expected a string, got 7";
        QTest::addRow("group not an integer")
            << QByteArray(R"({"config": {"devices": [{"rank": 0, "group": "a"}]}, "results": []})")
            << "d.json: /config/devices/0/group: expected an integer, got \"a\"";
        QTest::addRow("device out of range")
            << QByteArray(R"({"config": {"devices": [{"rank": 0, "device": 99999999999}]}, "results": []})")
            << "d.json: /config/devices/0/device: integer out of range: 99999999999";
        QTest::addRow("type not a string") << QByteArray(R"({"results": [{"size": 8, "count": 2, "type": 5}]})")
                                           << "d.json: /results/0/type: expected a string, got 5";
    }
    void damagedJson()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        auto log = parseNcclTestsText(std::string_view(text.constData(), std::size_t(text.size())), "d.json");
        QVERIFY(!log.isOk());
        QCOMPARE(QString::fromStdString(log.message()).left(message.size()), message);
    }

    void rowDiagnostics()
    {
        auto log = importNcclTestsFile(dataFile("malformed_rows.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.front().rows.size(), std::size_t(6));
        QVERIFY(hasDiagnostic(*log, "row-columns",
            "malformed_rows.log:23: expected 8 values after the root column (per the column header at line 17), found "
            "6"));
        QVERIFY(hasDiagnostic(*log, "row-number", "malformed_rows.log:25: cannot read busbw value \"zero\""));
    }

    // Several runs pasted as one table without their headers (an egrep excerpt of runs on 1, 2, 4 and 8
    // nodes, robust_headerless_runs.log): one run each, its ranks from its own busbw/algbw, so that no
    // row is compared with a rank count it contradicts.
    void headerlessRunsAreSplit()
    {
        auto log = importNcclTestsFile(dataFile("robust_headerless_runs.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(4));
        const int ranks[] = { 8, 16, 32, 64 };
        const int firstLines[] = { 1, 6, 10, 14 };
        for (std::size_t i = 0; i < 4; ++i) {
            const NcclTestsRun& run = log->runs[i];
            QCOMPARE(*run.collective, clusterscope::engine::CollectiveOp::AllReduce);
            QCOMPARE(run.ranks(), ranks[i]);
            QCOMPARE(run.rows.size(), std::size_t(3));
            QCOMPARE(run.rows.front().bytes, std::uint64_t(1) << 32);
            QCOMPARE(run.firstLine, firstLines[i]);
        }
        QVERIFY(hasDiagnostic(*log, "run-split",
            "robust_headerless_runs.log:3: lines 3-5, 7-9, 11-13 and 15-17 are 4 runs without headers of their own "
            "(the sizes start again, or a banner line stands between them) with 8, 16, 32 and 64 ranks by "
            "busbw/algbw: each is read as a run of its own"));
        for (const auto& d : log->diagnostics)
            QVERIFY2(d.id != "busbw-mismatch" && d.id != "row-size", d.message.c_str());
    }

    void headerlessRunsInMemory_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("runs"); ///< 0: refused
        QTest::addColumn<QString>("message"); ///< a diagnostic (or the error) that must appear
        // all_reduce rows: busbw/algbw 1.75 (8 ranks) and 1.875 (16 ranks).
        const QString r8a
            = QStringLiteral("  1048576  262144  float  sum  -1  50.00  20.97  36.70  0  50.00  20.97  36.70  0\n");
        const QString r8b
            = QStringLiteral("  2097152  524288  float  sum  -1  90.00  23.30  40.78  0  90.00  23.30  40.78  0\n");
        const QString r16a
            = QStringLiteral("  1048576  262144  float  sum  -1  60.00  17.48  32.77  0  60.00  17.48  32.77  0\n");
        const QString r16b
            = QStringLiteral("  2097152  524288  float  sum  -1  99.00  21.18  39.72  0  99.00  21.18  39.72  0\n");
        const QString binary = QStringLiteral("# Collective test starting: all_reduce_perf\n");
        QTest::addRow("sizes start again, no banner: two runs")
            << binary + r8a + r8b + r16a + r16b << 2 << "mem.log:2: lines 2-3 and 4-5 are 2 runs";
        QTest::addRow("banner inside one sweep: one run")
            << binary + r8a + QStringLiteral("--------------------------------------------------------------\n") + r8b
            << 1 << "";
        QTest::addRow("banner between runs of other ranks: two runs")
            << binary + r8a + QStringLiteral("==== 2 nodes ====\n") + r16b << 2 << "with 8 and 16 ranks by busbw/algbw";
        QTest::addRow("the same sweep twice: two runs") << binary + r8a + r8b + r8a + r8b << 2 << "are 2 runs";
        QString devices;
        for (int r = 0; r < 16; ++r)
            devices += QStringLiteral(
                "#  Rank %1 Group  0 Pid %2 on node-%3 device %4 [0000:04:00] NVIDIA H100 80GB HBM3\n")
                           .arg(r)
                           .arg(100 + r)
                           .arg(r / 8)
                           .arg(r % 8);
        QTest::addRow("device lines cannot say which run they describe: refused")
            << binary + devices + r8a + r8b + r16a + r16b << 0
            << "mem.log:18: lines 18-19 and 20-21 are 2 runs without headers of their own (the sizes start again) "
               "with 8 and 16 ranks by busbw/algbw, but the device lines (line 2 on) list 16 ranks for all of them";
    }
    void headerlessRunsInMemory()
    {
        QFETCH(QString, text);
        QFETCH(int, runs);
        QFETCH(QString, message);
        const std::string utf8 = text.toStdString();
        auto log = parseNcclTestsText(utf8, "mem.log", {});
        if (runs == 0) {
            QVERIFY(!log.isOk());
            QVERIFY2(QString::fromStdString(log.message()).contains(message), log.message().c_str());
            return;
        }
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(int(log->runs.size()), runs);
        if (!message.isEmpty())
            QVERIFY2(hasDiagnostic(*log, "run-split", message.toStdString()),
                log->diagnostics.empty() ? "none" : log->diagnostics.back().message.c_str());
        for (const auto& d : log->diagnostics)
            QVERIFY2(d.id != "busbw-mismatch", d.message.c_str());
    }

    void inMemoryVariants_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("rows");
        QTest::addColumn<QString>("diagnostic");
        const QString row
            = QStringLiteral("  1048576  262144  float  sum  -1  16.75  62.61  109.56  0  16.61  63.12  110.46  0\n");
        QTest::addRow("table without header: guessed layout") << row + row << "allreduce" << 2 << "no-column-header";
        QTest::addRow("wrong elements are reported")
            << QStringLiteral("  1048576  262144  float  sum  -1  16.75  62.61  109.56  12  16.61  63.12  110.46  0\n")
            << "allreduce" << 1 << "wrong-elements";
        QTest::addRow("busbw inconsistent with algbw")
            << QStringLiteral("# Collective test starting: all_reduce_perf\n#  Rank  0 Group  0 Pid 1 on h device  0 "
                              "[0000:04:00] G\n#  Rank  1 Group  0 Pid 2 on h device  1 [0000:05:00] G\n"
                              "  1048576  262144  float  sum  -1  16.75  62.61  109.56  0  16.61  63.12  110.46  0\n")
            << "" << 1 << "busbw-mismatch";
        // Two MPI ranks on one GPU (faked NCCL_HOSTIDs, as a public RTX 5090 log did): flagged.
        QTest::addRow("two ranks on one device")
            << QStringLiteral("# Collective test starting: all_reduce_perf\n#  Rank  0 Group  0 Pid 1 on lab device  0 "
                              "[0000:02:00] G\n#  Rank  1 Group  0 Pid 2 on lab device  0 [0000:02:00] G\n"
                              "  1048576  262144  float  sum  -1  16.75  62.61  62.61  0  16.61  63.12  63.12  0\n")
            << "" << 1 << "shared-device";
        QTest::addRow("trace-replay row: in-place only")
            << QStringLiteral("# Collective test starting: all_reduce_perf\n"
                              "  1048576  262144  float  sum  -1  16.61  63.12  110.46  0\n")
            << "" << 1 << "";
        QTest::addRow("CRLF and BOM") << QStringLiteral("\xEF\xBB\xBF# Collective test starting: all_reduce_perf\r\n  "
                                                        "1048576  262144  float  sum  -1  16.61  63.12  110.46  0\r\n")
                                      << "" << 1 << "";
        QTest::addRow("log names another op than --op")
            << QStringLiteral("# Collective test starting: all_reduce_perf\n") + row << "broadcast" << 1
            << "op-conflict";
        // Open MPI's aggregated help message inside the table, without its [host:pid] prefix (as quoted on
        // the page of a100_1x8_thanos_mpi_allreduce.log): not a row, no diagnostic.
        QTest::addRow("help-message line inside the table")
            << QStringLiteral("# Collective test starting: all_reduce_perf\n") + row
                + QStringLiteral("8 more processes have sent help message help-mtl-ofi.txt / OFI call fail\n"
                                 "1 more process has sent help message help-mtl-ofi.txt / OFI call fail\n")
                + row
            << "" << 2 << "";
        QTest::addRow("device line garbled")
            << QStringLiteral("# Collective test starting: all_reduce_perf\n#  Rank  0 Group  0 Pid 1 device\n") + row
            << "" << 1 << "device-line";
    }
    void inMemoryVariants()
    {
        QFETCH(QString, text);
        QFETCH(QString, op);
        QFETCH(QString, diagnostic);
        const std::string utf8 = text.toStdString();
        auto log = parseNcclTestsText(utf8, "mem.log", withOp(op));
        QVERIFY2(log.isOk(), log.message().c_str());
        QTEST(int(log->runs.front().rows.size()), "rows");
        if (!diagnostic.isEmpty())
            QVERIFY2(hasDiagnostic(*log, diagnostic.toStdString(), "mem.log:"),
                log->diagnostics.empty() ? "none" : log->diagnostics.front().message.c_str());
        for (const auto& d : log->diagnostics)
            QVERIFY2(d.id.rfind("row-", 0) != 0 || diagnostic.startsWith("row-"), d.message.c_str());
    }

    // "NCCL INFO Using network X" (NCCL src/init.cc) names the run's net transport; a plugin's name
    // may hold spaces (aws-ofi-nccl: "AWS Libfabric"); a run without the line names none.
    void ncclNetFromInfoLines_data()
    {
        QTest::addColumn<QString>("info");
        QTest::addColumn<QString>("net");
        QTest::addRow("TCPXO plugin") << "a3mega-0:6899:6950 [0] NCCL INFO Using network FasTrak\n"
                                      << "FasTrak";
        QTest::addRow("built-in IB verbs") << "node1:422771:422791 [5] NCCL INFO Using network IB\n"
                                           << "IB";
        QTest::addRow("plugin name with a space") << "p5-0:101:140 [3] NCCL INFO Using network AWS Libfabric\n"
                                                  << "AWS Libfabric";
        QTest::addRow("srun-labelled socket fallback") << "0: vm-0:606:642 [ 6 ] NCCL INFO Using network Socket\n"
                                                       << "Socket";
        QTest::addRow("not logged") << "vm-0:606:642 [6] NCCL INFO NET/gIB : Initializing gIB v1.0.5\n"
                                    << "";
    }
    void ncclNetFromInfoLines()
    {
        QFETCH(QString, info);
        const std::string text = "# Collective test starting: all_reduce_perf\n"
                                 "#  Rank  0 Group  0 Pid 1 on h0 device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
                                 "#  Rank  1 Group  0 Pid 2 on h1 device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
            + info.toStdString()
            + "  1048576  262144  float  sum  -1  16.75  62.61  62.61  0  16.61  63.12  63.12  0\n";
        auto log = parseNcclTestsText(text, "mem.log", {});
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(1));
        QTEST(QString::fromStdString(log->runs.front().ncclNet), "net");
        QCOMPARE(log->runs.front().rows.size(), std::size_t(1));
    }

    void numbers_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("isNumber");
        QTest::addColumn<bool>("hasValue");
        QTest::addColumn<double>("value");
        QTest::newRow("%.2f") << "273.95" << true << true << 273.95;
        QTest::newRow("%.1f") << "15828.7" << true << true << 15828.7;
        QTest::newRow("%.0f") << "31356" << true << true << 31356.0;
        QTest::newRow("%.1e") << "1.1e+07" << true << true << 1.1e7;
        QTest::newRow("old error %.0e") << "2e-07" << true << true << 2e-7;
        QTest::addRow("N/A") << "N/A" << true << false << 0.0;
        QTest::addRow("nan") << "-nan" << true << false << 0.0;
        QTest::addRow("word") << "zero" << false << false << 0.0;
        QTest::addRow("trailing junk") << "11.2x" << false << false << 0.0;
        QTest::addRow("empty") << "" << false << false << 0.0;
    }
    void numbers()
    {
        QFETCH(QString, text);
        QFETCH(bool, isNumber);
        QFETCH(bool, hasValue);
        QFETCH(double, value);
        const std::string t = text.toStdString();
        const auto n = parseNcclTestsNumber(t);
        QCOMPARE(n.has_value(), isNumber);
        if (n) {
            QCOMPARE(n->has_value(), hasValue);
            if (hasValue)
                QCOMPARE(**n, value);
        }
    }

    // The four sweeps of a -d all -o all table keep their type and reduction, in the order printed.
    void dtypeRedopSweeps()
    {
        auto log = importNcclTestsFile(dataFile("robust_dtype_redop_sweeps.log"));
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(int(log->runs.size()), 4);
        const char* expected[] = { "float sum", "float max", "bfloat16 sum", "bfloat16 max" };
        for (int i = 0; i < 4; ++i) {
            const auto& run = log->runs[std::size_t(i)];
            QCOMPARE(QString::fromStdString(run.variant), QString::fromLatin1(expected[i]));
            QCOMPARE(int(run.rows.size()), 5);
            for (const auto& row : run.rows)
                QCOMPARE(QString::fromStdString(row.type + " " + row.redop), QString::fromLatin1(expected[i]));
        }
        // A table of one type and reduction is one run with no variant.
        auto plain = importNcclTestsFile(dataFile("robust_srun_label.log"));
        QVERIFY(plain.isOk());
        QCOMPARE(int(plain->runs.size()), 1);
        QVERIFY(plain->runs.front().variant.empty());
    }

    // A damaged header (nThread 10 nGpus 589934592, found by fuzz_nccltests; regressions/nccltests/) gives
    // no rank count instead of overflowing nThread x nGpus (UBSan fails this before the fix).
    void threadsTimesGpusBeyondRange()
    {
        NcclTestsRun run;
        run.threads = 10;
        run.gpusPerThread = 589934592;
        QCOMPARE(run.ranks(), 0);
        run.gpusPerThread = 8;
        QCOMPARE(run.ranks(), 80);
        run.threads = -1;
        QCOMPARE(run.ranks(), 0);
    }

    void prefixes_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("length");
        QTest::addRow("open mpi stdout") << "[1,0]<stdout>:# nThread 1" << 14;
        QTest::addRow("open mpi stderr") << "[12,15]<stderr>:host:1:1 [0] NCCL INFO x" << 16;
        QTest::addRow("srun label") << "12: # nThread 1" << 4;
        QTest::addRow("data row is not a label") << "        8192          2048     float" << 0;
        QTest::addRow("kubectl timestamp") << "2025-06-01T10:00:00.123456789Z # nThread 1" << 31;
        QTest::addRow("kubectl timestamp, open mpi") << "2025-06-01T10:00:00.123456789Z [1,0]<stdout>:#" << 45;
        QTest::addRow("bracketed local time, srun label") << "[2025-06-01 10:00:00,123] 0: # nThread" << 29;
        QTest::addRow("offset timestamp") << "2025-06-01T10:00:00+02:00 #" << 26;
        QTest::addRow("compose service") << "nccl-worker-1  | # nThread 1" << 17;
        QTest::addRow("a date without a time is not a timestamp") << "2025-06-01 # nThread 1" << 0;
        QTest::addRow("a device line is not a compose service") << "#  Rank  0 Group  0 Pid 1 on h | x" << 0;
        QTest::addRow("comment") << "# Avg bus bandwidth    : 1.5" << 0;
        // A log in a markdown list item (indented) or quoted in a GitHub reply ("> ", "> > ", ">").
        QTest::addRow("indented open mpi stdout") << "   [1,0]<stdout>:#  size" << 17;
        QTest::addRow("indented srun label") << "   12: # nThread 1" << 7;
        QTest::addRow("indented kubectl timestamp") << "  2025-06-01T10:00:00Z [1,0]<stdout>:#" << 37;
        QTest::addRow("indented data row is not prefixed") << "   [1]   8192   2048" << 0;
        QTest::addRow("block quote") << "> #  Rank  0 Group  0" << 1;
        QTest::addRow("nested block quote") << "> > # nThread 1" << 3;
        QTest::addRow("block quote without a space") << ">#  Rank  0" << 1;
        QTest::addRow("empty quoted line") << ">" << 1;
        QTest::addRow("quoted srun label") << "> 0: # nThread 1" << 5;
        QTest::addRow("quoted data row") << ">            8             2     float" << 1;
    }
    void prefixes()
    {
        QFETCH(QString, line);
        const std::string l = line.toStdString();
        QTEST(int(NcclTestsTokenizer::prefixLength(l)), "length");
    }
};

QTEST_GUILESS_MAIN(TestNcclTestsParser)
#include "tst_nccltestsparser.moc"
