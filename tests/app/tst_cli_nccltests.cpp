// clusterscope-cli import-nccl-tests as a user runs it: exit codes, messages naming file and line,
// the text report, the JSON keys, and --save-calibration.

#include "clirunner.h"

#include <cmath>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {
using clitest::Run;
// Every call runs the import-nccl-tests command.
/// Writes `text` to `name` in `dir` and returns its path (empty when it cannot).
QString writeLog(const QTemporaryDir& dir, const QString& name, const QString& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) != text.toUtf8().size())
        return {};
    return f.fileName();
}

Run runCli(const QStringList& args)
{
    return clitest::runCli(QStringList { QStringLiteral("import-nccl-tests") } + args);
}

QString data(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/nccltests/") + QLatin1String(name);
}
QString example(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + QLatin1String(name);
}
} // namespace

class TestCliNcclTests : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::addRow("no log") << QStringList {} << 1 << "expected at least one nccl-tests LOG";
        QTest::addRow("unknown option") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--frob") }
                                        << 1 << "frob";
        QTest::addRow("missing file") << QStringList { data("absent.log") } << 1 << "absent.log: cannot open";
        QTest::addRow("malformed rows: file and line") << QStringList { data("malformed_all_rows.log") } << 1
                                                       << "malformed_all_rows.log:21: cannot read time value";
        QTest::addRow("broken header: file and line") << QStringList { data("malformed_header.log") } << 1
                                                      << "malformed_header.log:18: cannot read the column header";
        QTest::addRow("ambiguous collective")
            << QStringList { data("allgather_2node_tagoutput.log") } << 1 << "name it with --op";
        QTest::addRow("bad --op") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--op"),
            QStringLiteral("allsum") }
                                  << 1 << "--op: unknown collective \"allsum\"";
        QTest::addRow("bad --algo") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--algo"),
            QStringLiteral("magic") }
                                    << 1 << "--algo: unknown algorithm";
        QTest::addRow("GPU not in the catalog")
            << QStringList { data("alltoall_tcp_slow.log") } << 1
            << "alltoall_tcp_slow.log:6: cannot map the GPU \"NVIDIA L40S\" to a catalog GPU";
        QTest::addRow("only hypercube: nothing to calibrate")
            << QStringList { data("hypercube_8gpu.log") } << 1 << "no counterpart for hypercube";
        QTest::addRow("bad scenario") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--scenario"),
            data("not_nccl.log") } << 1
                                      << "not_nccl.log";
        QTest::addRow("allreduce from the log header") << QStringList { data("allreduce_h100_8gpu.log") } << 0 << "";
        QTest::addRow("allgather with --op") << QStringList { data("allgather_2node_tagoutput.log"),
            QStringLiteral("--op"), QStringLiteral("allgather") }
                                             << 0 << "";
        QTest::addRow("L40S log on a scenario") << QStringList { data("alltoall_tcp_slow.log"),
            QStringLiteral("--scenario"), example("llama3-70b-1024-h100.json") }
                                                << 0 << "";
        QTest::addRow("several logs, text and JSON") << QStringList { data("two_runs.log"), data("allreduce_bf16.json"),
            data("reducescatter_v100_old.log"), QStringLiteral("--scenario"), example("gpt3-175b-1024-a100.json") }
                                                     << 0 << "";
        QTest::addRow("pinned algorithm") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--algo"),
            QStringLiteral("ring") } << 0 << "";
        QTest::addRow("hardware on the command line") << QStringList { data("allreduce_h100_8gpu.log"),
            QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nodes"), QStringLiteral("1"),
            QStringLiteral("--gpus-per-node"), QStringLiteral("8"), QStringLiteral("--nic"), QStringLiteral("8x400") }
                                                      << 0 << "";
        QTest::addRow("table-only 2-node excerpt with --gpu") << QStringList { data("robust_srun_label.log"),
            QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nic"), QStringLiteral("4x400") }
                                                              << 0 << "";
        QTest::addRow("bad --nic") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--gpu"),
            QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nic"), QStringLiteral("8y400") }
                                   << 1 << "--nic: expected COUNTxGBPS";
        QTest::addRow("unknown --gpu") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--gpu"),
            QStringLiteral("H900") } << 1
                                       << "--gpu: unknown GPU \"H900\"";
        QTest::addRow("--gpu with --scenario")
            << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"),
                   QStringLiteral("--scenario"), example("llama3-70b-1024-h100.json") }
            << 1 << "pass one";
        QTest::addRow("independent one-rank jobs")
            << QStringList { data("robust_singleton_launches.log") } << 1 << "4 independent one-rank jobs";
        QTest::addRow("logger prefix") << QStringList { data("robust_logger_prefix.log") } << 0 << "";
        QTest::addRow("net transport on the command line") << QStringList {
            data("public/h100_2x8_gcp_a3mega_allreduce.log"), QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"),
            QStringLiteral("--nic"), QStringLiteral("8x200"), QStringLiteral("--transport"), QStringLiteral("tcpxo")
        } << 0 << "";
        QTest::addRow("--no-gdr with --scenario") << QStringList { data("allreduce_h100_8gpu.log"),
            QStringLiteral("--no-gdr"), QStringLiteral("--scenario"), example("llama3-70b-1024-h100.json") }
                                                  << 1 << "cluster.nic.gpudirect_rdma";
        // A single rank: nothing to compare, said first (naming the device line), with or without --gpu.
        QTest::addRow("one rank") << QStringList { data("robust_single_rank.log") } << 1
                                  << "robust_single_rank.log:5: the run has one rank (Rank 0 on node-001, device 0): a "
                                     "single GPU moves no data to other GPUs, so there is nothing to compare";
        QTest::addRow("one rank, --gpu") << QStringList { data("robust_single_rank.log"), QStringLiteral("--gpu"),
            QStringLiteral("H100-SXM-80GB") }
                                         << 1 << "robust_single_rank.log:5: the run has one rank";
        // Only scatter or gather fit (real AWS log): not modelled, said at once.
        QTest::addRow("scatter or gather table") << QStringList { data("aws_scatter_2x8_srun_label.log") } << 1
                                                 << "aws_scatter_2x8_srun_label.log:5: a scatter or gather table";
        // Indented --tag-output (real AWS EKS log) and a markdown block quote.
        QTest::addRow("indented [1,0]<stdout>: tags")
            << QStringList { data("aws_eks_p5_indented_tagoutput_allreduce.log"), QStringLiteral("--gpu"),
                   QStringLiteral("H100-SXM-80GB") }
            << 0 << "";
        QTest::addRow("markdown block quote") << QStringList { data("robust_markdown_quote.log") } << 0 << "";
        QTest::addRow("unknown --transport") << QStringList { data("allreduce_h100_8gpu.log"), QStringLiteral("--gpu"),
            QStringLiteral("H100-SXM-80GB"), QStringLiteral("--transport"), QStringLiteral("tcpz") }
                                             << 1 << "--transport: expected one of infiniband, roce, gib, tcpxo";
    }

    // A log whose NCCL INFO lines name the network ("Using network FasTrak", NCCL src/init.cc) is
    // modelled over that net transport unless the command line names one.
    void netTransportFromTheLog()
    {
        QFile pub(data("public/h100_2x8_gcp_a3mega_allreduce.log"));
        QVERIFY(pub.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(pub.readAll());
        const qsizetype at = text.indexOf(QStringLiteral("#\n#  "), text.indexOf(QStringLiteral("Rank 15")));
        QVERIFY(at > 0);
        text.insert(at, QStringLiteral("ztan-mig-235z:6899:6950 [0] NCCL INFO Using network FasTrak\n"));
        QTemporaryDir dir;
        const QString file = writeLog(dir, QStringLiteral("a3mega.log"), text);
        QVERIFY(!file.isEmpty());
        const QStringList hw { QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nic"),
            QStringLiteral("8x200") };
        const Run fromLog = runCli(QStringList { file, QStringLiteral("--json") } + hw);
        QCOMPARE(fromLog.exitCode, 0);
        QVERIFY2(fromLog.out.contains(QStringLiteral("\"net\": \"tcpxo\"")), qPrintable(fromLog.out));
        QVERIFY2(fromLog.out.contains(QStringLiteral("\"nccl_net\": \"FasTrak\"")), qPrintable(fromLog.out));
        QVERIFY2(fromLog.out.contains(QStringLiteral("the log says \\\"Using network FasTrak\\\"")),
            qPrintable(fromLog.out));
        // The command line wins over the log.
        const Run pinned = runCli(
            QStringList { file, QStringLiteral("--json"), QStringLiteral("--transport"), QStringLiteral("roce") } + hw);
        QCOMPARE(pinned.exitCode, 0);
        QVERIFY2(pinned.out.contains(QStringLiteral("\"net\": \"roce\"")), qPrintable(pinned.out));
    }
    // A log pasted into a page whose markdown ate its '#' header lines, with the command above it and
    // no "Collective test starting" line (nccl-tests before 2.13): the command names the collective, the
    // header lines are read as such (8 ranks, one node), and the JSON says where the collective came from.
    void commandLineAndHeaderWithoutHash()
    {
        QFile pub(data("public/a100_8gpu_1node_allreduce.log"));
        QVERIFY(pub.open(QIODevice::ReadOnly));
        QString text = QStringLiteral("$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8\n");
        for (const QString& line : QString::fromUtf8(pub.readAll()).split(QLatin1Char('\n'))) {
            if (!line.contains(QStringLiteral("Collective test starting")))
                text += QString(line).remove(QRegularExpression(QStringLiteral("^\\s*#"))) + QLatin1Char('\n');
        }
        QVERIFY(!text.contains(QRegularExpression(QStringLiteral("(^|\\n)\\s*#"))));
        QTemporaryDir dir;
        const QString file = writeLog(dir, QStringLiteral("pasted.log"), text);
        QVERIFY(!file.isEmpty());
        const Run r = runCli(QStringList { file, QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject run = QJsonDocument::fromJson(r.out.toUtf8())
                                    .object()[QStringLiteral("logs")][0][QStringLiteral("runs")][0]
                                    .toObject();
        QCOMPARE(run[QStringLiteral("collective")].toString(), QStringLiteral("allreduce"));
        QCOMPARE(run[QStringLiteral("collective_source")].toString(), QStringLiteral("command_line"));
        QCOMPARE(run[QStringLiteral("command_binary")].toString(), QStringLiteral("all_reduce_perf"));
        QCOMPARE(run[QStringLiteral("ranks")].toInt(), 8);
        QCOMPARE(run[QStringLiteral("nodes")].toInt(), 1);
        QCOMPARE(run[QStringLiteral("ngpus")].toInt(), 8);
    }
    // A sendrecv_perf table that cannot tell its ranks (no device lines or command; busbw = algbw at any
    // count): --op names it, --nodes x --gpus-per-node give the ranks, and the output says so.
    void ranksFromTheCluster()
    {
        const QString table = QStringLiteral(
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
            "busbw #wrong\n"
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
            "(GB/s)\n"
            "   134217728      33554432     float     sum      -1   1211.2  110.81  110.81      0   1211.8  110.76  "
            "110.76    N/A\n"
            "   268435456      67108864     float     sum      -1   1423.3  188.60  188.60      0   1420.2  189.01  "
            "189.01    N/A\n");
        QTemporaryDir dir;
        const QString file = writeLog(dir, QStringLiteral("sendrecv.log"), table);
        QVERIFY(!file.isEmpty());
        const QStringList hw { QStringLiteral("--gpu"), QStringLiteral("A100-SXM-80GB"), QStringLiteral("--op"),
            QStringLiteral("sendrecv") };
        const Run unknown = runCli(QStringList { file } + hw);
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains(QStringLiteral("give the cluster it ran on with --nodes N --gpus-per-node G")),
            qPrintable(unknown.err));
        const Run r = runCli(QStringList { file } + hw
            + QStringList { QStringLiteral("--nodes"), QStringLiteral("1"), QStringLiteral("--gpus-per-node"),
                QStringLiteral("8") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("taken as 8 from --nodes x --gpus-per-node")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("sendrecv, 8 ranks on 1 node(s)")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("using the log's")), qPrintable(r.out));
    }

    // --no-gdr: the NIC has no GPUDirect RDMA; the JSON and the text say so and the model is slower
    // across nodes (host-memory staging).
    void noGpuDirectRdma()
    {
        const QStringList base { data("public/h200_2x1_gke_roce_allreduce.log"), QStringLiteral("--gpu"),
            QStringLiteral("H200-SXM-141GB"), QStringLiteral("--nic"), QStringLiteral("1x400"),
            QStringLiteral("--transport"), QStringLiteral("roce"), QStringLiteral("--json") };
        const Run gdr = runCli(base);
        const Run staged = runCli(base + QStringList { QStringLiteral("--no-gdr") });
        QCOMPARE(gdr.exitCode, 0);
        QCOMPARE(staged.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(gdr.out.toUtf8()).object();
        const QJsonObject b = QJsonDocument::fromJson(staged.out.toUtf8()).object();
        QCOMPARE(a["cluster"].toObject()["gpudirect_rdma"].toBool(false), true);
        QCOMPARE(b["cluster"].toObject()["gpudirect_rdma"].toBool(true), false);
        const QJsonArray rowsA = a["sweeps"].toArray().at(0).toObject()["sizes"].toArray();
        const QJsonArray rowsB = b["sweeps"].toArray().at(0).toObject()["sizes"].toArray();
        QVERIFY(!rowsA.isEmpty());
        QCOMPARE(rowsA.size(), rowsB.size());
        const QJsonObject lastA = rowsA.last().toObject(), lastB = rowsB.last().toObject();
        QVERIFY2(
            lastB["before_us"].toDouble() > 1.5 * lastA["before_us"].toDouble(), qPrintable(staged.out.left(4000)));
        const Run text = runCli(QStringList { data("public/h200_2x1_gke_roce_allreduce.log"), QStringLiteral("--gpu"),
            QStringLiteral("H200-SXM-141GB"), QStringLiteral("--nic"), QStringLiteral("1x400"),
            QStringLiteral("--no-gdr") });
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QStringLiteral("no GPUDirect RDMA")), qPrintable(text.out.left(2000)));
    }
    // A node check with one rank per host on 8-NIC servers: each rank uses its own GPU's NIC, so the
    // hosts are taken as 8-GPU servers (stated), and the all_reduce is priced at one NIC's rate, not
    // eight. Measured 48.9 GB/s busbw at 16 GiB; before the inference the model said 382.
    void hostsWithMoreNicsThanRanks()
    {
        const QString log = data("public/xxrjun_h100_10n1g_ib_allreduce.log");
        const QStringList hw { QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nic"),
            QStringLiteral("8x400"), QStringLiteral("--json") };
        const Run inferred = runCli(QStringList { log } + hw);
        QCOMPARE(inferred.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(inferred.out.toUtf8()).object();
        QCOMPARE(a["cluster"].toObject()["gpus_per_node"].toInt(), 8);
        QVERIFY2(a["cluster"].toObject()["assumptions"].toArray().at(0).toString().contains(
                     QStringLiteral("hosts taken as 8-GPU servers")),
            qPrintable(inferred.out.left(1500)));
        const QJsonObject last = a["sweeps"].toArray().at(0).toObject()["sizes"].toArray().last().toObject();
        QVERIFY2(std::abs(last["residual_before"].toDouble()) < 0.05, qPrintable(inferred.out.right(1500)));
        // Stated servers of one GPU with eight NICs: the ranks get them all (the user's word is kept).
        const Run stated = runCli(QStringList { log, QStringLiteral("--gpus-per-node"), QStringLiteral("1") } + hw);
        QCOMPARE(stated.exitCode, 0);
        const QJsonObject b = QJsonDocument::fromJson(stated.out.toUtf8()).object();
        QCOMPARE(b["cluster"].toObject()["gpus_per_node"].toInt(), 1);
        QVERIFY(b["cluster"].toObject()["assumptions"].toArray().isEmpty());
        const QJsonObject lastB = b["sweeps"].toArray().at(0).toObject()["sizes"].toArray().last().toObject();
        QVERIFY(lastB["before_us"].toDouble() < 0.5 * last["before_us"].toDouble());
    }

    // "before" is the uncalibrated model for every run of an import, also for runs after the first,
    // whose calibration starts from what the earlier runs fitted: the second run of a file reads the same
    // before figures as when it is imported alone.
    void laterRunsComparedUncalibrated()
    {
        const QStringList hw { QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nodes"),
            QStringLiteral("10"), QStringLiteral("--gpus-per-node"), QStringLiteral("8"), QStringLiteral("--nic"),
            QStringLiteral("8x400"), QStringLiteral("--json") };
        const Run alone = runCli(QStringList { data("public/xxrjun_h100_10n1g_ib_sendrecv.log") } + hw);
        const Run second = runCli(QStringList { data("public/xxrjun_h100_10n1g_ib_allgather.log"),
                                      data("public/xxrjun_h100_10n1g_ib_sendrecv.log") }
            + hw);
        QCOMPARE(alone.exitCode, 0);
        QCOMPARE(second.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(alone.out.toUtf8()).object()["sweeps"].toArray().at(0).toObject();
        const QJsonArray sweeps = QJsonDocument::fromJson(second.out.toUtf8()).object()["sweeps"].toArray();
        QCOMPARE(sweeps.size(), 2);
        const QJsonObject b = sweeps.at(1).toObject();
        QCOMPARE(b["op"].toString(), QStringLiteral("sendrecv"));
        const QJsonArray rowsA = a["sizes"].toArray(), rowsB = b["sizes"].toArray();
        QCOMPARE(rowsA.size(), rowsB.size());
        for (qsizetype i = 0; i < rowsA.size(); ++i)
            QCOMPARE(rowsB.at(i).toObject()["before_us"].toDouble(), rowsA.at(i).toObject()["before_us"].toDouble());
        QCOMPARE(b["rms_before"].toDouble(), a["rms_before"].toDouble());
    }

    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runCli(args);
        QTEST(r.exitCode, "exitCode");
        if (!message.isEmpty())
            QVERIFY2(r.err.contains(message), qPrintable(r.err));
        else
            QVERIFY2(r.out.contains(QStringLiteral("RMS relative residual: before")), qPrintable(r.out + r.err));
    }

    // An excerpt that keeps only the last device line of a GB200 NVL72 rack (72 ranks, a device name
    // the catalog cannot map): the GPU and the trays come from the command line, the ranks from the log.
    void deviceListExcerpt()
    {
        const QString log = data("public/coreweave_gb200_nvl72_1rack_allreduce.log");
        Run r = runCli({ log });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot map the GPU \"NVIDIA Graphics Device\"")), qPrintable(r.err));
        QVERIFY2(
            r.err.contains(QStringLiteral("pass --gpu ID (with --nodes, --gpus-per-node, --nic)")), qPrintable(r.err));
        r = runCli({ log, QStringLiteral("--gpu"), QStringLiteral("GB200"), QStringLiteral("--nodes"),
            QStringLiteral("18"), QStringLiteral("--gpus-per-node"), QStringLiteral("4"), QStringLiteral("--nic"),
            QStringLiteral("4x400") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("72 ranks (the device lines are an excerpt: nodes from the cluster)")),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("an excerpt; taken as 72 ranks")), qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QStringLiteral("allreduce, 72 ranks on 18 node(s)")), qPrintable(r.out));
    }

    // How the ranks of a log sit on nodes when the log does not say (table-only excerpts, device lists
    // cut to a few ranks): the hosts an excerpt names, else servers of the catalog GPU (said, with how to
    // override it); --nodes N alone splits the ranks over N nodes.
    void layoutOfRuns_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QStringList>("expected"); ///< substrings of the output (stdout, or stderr on failure)
        const QString p4de = data("aws_p4de_2x8_srun_allreduce.log");
        const QString a100 = QStringLiteral("A100-SXM-80GB");
        const QString gpu = QStringLiteral("--gpu");
        QTest::addRow("table only: servers of the catalog GPU")
            << QStringList { p4de, gpu, a100 } << 0
            << QStringList { QStringLiteral("cluster: 16 x A100-SXM-80GB (8 per node)"),
                   QStringLiteral("aws_p4de_2x8_srun_allreduce.log:1: the log does not say on how many nodes "
                                  "the run's 16 ranks ran (no device lines naming its hosts): taken as 2 nodes of 8 "
                                  "GPUs, the catalog's A100-SXM-80GB server (pass --nodes N or --gpus-per-node G"),
                   QStringLiteral("allreduce, 16 ranks on 2 node(s)") };
        QTest::addRow("--nodes 2 splits the ranks")
            << QStringList { p4de, gpu, a100, QStringLiteral("--nodes"), QStringLiteral("2") } << 0
            << QStringList { QStringLiteral("cluster: 16 x A100-SXM-80GB (8 per node)"),
                   QStringLiteral("the run's 16 ranks taken as 8 per node on the 2 nodes of --nodes"),
                   QStringLiteral("allreduce, 16 ranks on 2 node(s)") };
        QTest::addRow("--nodes 3 cannot split 16 ranks")
            << QStringList { p4de, gpu, a100, QStringLiteral("--nodes"), QStringLiteral("3") } << 1
            << QStringList { QStringLiteral("aws_p4de_2x8_srun_allreduce.log:1 has 16 ranks, "
                                            "which 3 nodes cannot hold evenly; pass --gpus-per-node G as well") };
        QTest::addRow("--gpus-per-node 4 alone")
            << QStringList { p4de, gpu, a100, QStringLiteral("--gpus-per-node"), QStringLiteral("4") } << 0
            << QStringList { QStringLiteral("cluster: 16 x A100-SXM-80GB (4 per node)"),
                   QStringLiteral("allreduce, 16 ranks on 4 node(s)") };
        QTest::addRow("GB200 excerpt: trays of 4")
            << QStringList { data("public/coreweave_gb200_nvl72_1rack_allreduce.log"), gpu, QStringLiteral("GB200") }
            << 0
            << QStringList { QStringLiteral("cluster: 72 x GB200 (4 per node)"),
                   QStringLiteral("taken as 18 nodes of 4 GPUs, the catalog's GB200 server"),
                   QStringLiteral("allreduce, 72 ranks on 18 node(s)") };
        QTest::addRow("excerpt naming each host's first and last rank")
            << QStringList { data("robust_device_excerpt_hosts.log") } << 0
            << QStringList { QStringLiteral(
                                 "16 ranks (the device lines are an excerpt naming every host) on 2 node(s), "
                                 "8 per node"),
                   QStringLiteral("on the 2 hosts listed, 8 each"),
                   QStringLiteral("cluster: 16 x H100-SXM-80GB (8 per node)"),
                   QStringLiteral("allreduce, 16 ranks on 2 node(s)") };
        QTest::addRow("headerless runs of 8 to 64 ranks")
            << QStringList { data("robust_headerless_runs.log"), gpu, QStringLiteral("MI300X") } << 0
            << QStringList { QStringLiteral("lines 3-5, 7-9, 11-13 and 15-17 are 4 runs without headers of their own"),
                   QStringLiteral("cluster: 64 x MI300X (8 per node)"),
                   QStringLiteral("allreduce, 8 ranks on 1 node(s)"),
                   QStringLiteral("allreduce, 16 ranks on 2 node(s)"),
                   QStringLiteral("allreduce, 64 ranks on 8 node(s)") };
    }
    void layoutOfRuns()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, expected);
        const Run r = runCli(args);
        QTEST(r.exitCode, "exitCode");
        for (const auto& e : expected)
            QVERIFY2(
                (r.exitCode == 0 ? r.out : r.err).contains(e), qPrintable(e + QStringLiteral("\n") + r.out + r.err));
    }

    // 12 ranks in a table without device lines: no number of 8-GPU servers holds them evenly.
    void unevenTableOnlyRunNeedsNodes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("twelve.log"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // all_reduce at 12 ranks: busbw = algbw x 2 x 11/12.
        f.write("# Collective test starting: all_reduce_perf\n"
                "  1048576  262144  float  sum  -1  50.00  20.97  38.45  0  50.00  20.97  38.45  0\n"
                "  2097152  524288  float  sum  -1  90.00  23.30  42.72  0  90.00  23.30  42.72  0\n");
        f.close();
        Run r = runCli({ path, QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.contains(QStringLiteral("twelve.log:1: the run has 12 ranks and the log does not say on how many "
                                          "nodes (no device lines naming its hosts); 12 is not a multiple of the 8 "
                                          "GPUs of the catalog's H100-SXM-80GB server: pass --nodes N")),
            qPrintable(r.err));
        r = runCli({ path, QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nodes"),
            QStringLiteral("2") });
        QCOMPARE(r.exitCode, 0);
        // 6 ranks per node on 8-NIC hosts: the hosts are taken as 8-GPU servers (serverFromNics), the run on 2 of them.
        QVERIFY2(r.out.contains(QStringLiteral("the run's 12 ranks taken as 6 per node on the 2 nodes of --nodes")),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("allreduce, 12 ranks on 2 node(s)")), qPrintable(r.out));
    }

    // rccl-tests device lines without a GPU name: the message names the first of them.
    void deviceLinesWithoutName()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("noname.log"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("# Collective test starting: all_reduce_perf\n# Using devices\n"
                "#  Rank  0 Group  0 Pid 11 on gpu-23 device  0 [0000:75:00]\n"
                "#  Rank  1 Group  0 Pid 12 on gpu-23 device  1 [0000:05:00]\n"
                "  1048576  262144  float  sum  -1  50.00  20.97  20.97  0  50.00  20.97  20.97  0\n");
        f.close();
        const Run r = runCli({ path });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("noname.log:3: the device lines (from this line on) give no GPU name "
                                               "(rccl-tests prints none on some ROCm versions); pass --gpu ID")),
            qPrintable(r.err));
    }

    // A sweep of one size is not presented as a validated calibration (text and JSON).
    void oneSizeIsNotCrossValidated()
    {
        Run r = runCli({ data("robust_one_size.log") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.out.contains(QStringLiteral("one size: the calibration cannot be cross-validated")), qPrintable(r.out));
        r = runCli({ data("robust_one_size.log"), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        QJsonObject sweep = QJsonDocument::fromJson(r.out.toUtf8())[QStringLiteral("sweeps")][0].toObject();
        QCOMPARE(sweep[QStringLiteral("cross_validated")].toBool(true), false);
        QVERIFY(sweep[QStringLiteral("validation_note")].toString().startsWith(QStringLiteral("one size:")));
        r = runCli({ data("allreduce_h100_8gpu.log"), QStringLiteral("--json") });
        sweep = QJsonDocument::fromJson(r.out.toUtf8())[QStringLiteral("sweeps")][0].toObject();
        QCOMPARE(sweep[QStringLiteral("cross_validated")].toBool(false), true);
        QCOMPARE(sweep[QStringLiteral("validation_note")].toString(), QString());
    }

    void nicsAssumedPerGpu()
    {
        // A GB200 NVL72 tray is 4 GPUs with one 400 Gb/s NIC each, not an 8-NIC HGX board.
        Run r = runCli({ data("public/coreweave_gb200_nvl72_20racks_allreduce.log"), QStringLiteral("--gpu"),
            QStringLiteral("GB200"), QStringLiteral("--nodes"), QStringLiteral("360"),
            QStringLiteral("--gpus-per-node"), QStringLiteral("4") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("cluster: 1440 x GB200 (4 per node), 4 x 400 Gb/s NICs per node")),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("NICs assumed: 4 x 400 Gb/s per node (pass --nic COUNTxGBPS)")),
            qPrintable(r.out));
        // Its sizes are bandwidth-bound in the model but carry a fixed cost per call of ~4.6 ms: the
        // calibration fits an offset with the bandwidth (chosen by leave-one-out) and follows the sweep.
        QVERIFY2(r.out.contains(QStringLiteral("RMS relative residual: before 67.9%, after 0.9%")), qPrintable(r.out));
        QVERIFY2(r.out.contains(
                     QRegularExpression(QStringLiteral("correction nvlstree tier 1: latency x1\\.000 "
                                                       "\\+4[0-9]{3}\\.[0-9]{2} us, bandwidth x0\\.4[0-9]{2} \\(2 "
                                                       "parameters, 6 sizes"))),
            qPrintable(r.out));
        // The catalog's reference server: a GB300 tray's ConnectX-8 run at 800 Gb/s.
        r = runCli({ data("public/coreweave_gb200_nvl72_1rack_allreduce.log"), QStringLiteral("--gpu"),
            QStringLiteral("GB300"), QStringLiteral("--nodes"), QStringLiteral("18"), QStringLiteral("--gpus-per-node"),
            QStringLiteral("4") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("cluster: 72 x GB300 (4 per node), 4 x 800 Gb/s NICs per node")),
            qPrintable(r.out));
        // Nodes of a stated size on an HGX-class GPU: one NIC per GPU of them.
        r = runCli({ data("public/h100_2x4_allreduce.log"), QStringLiteral("--gpus-per-node"), QStringLiteral("4") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("NICs assumed: 4 x 400 Gb/s per node")), qPrintable(r.out));
    }

    void textReport()
    {
        const Run r = runCli({ data("allreduce_h100_8gpu.log") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("all_reduce_perf (allreduce, from the benchmark's name), 8 ranks on 1 "
                                              "node(s), 8 per node, NVIDIA H100 80GB HBM3")));
        QVERIFY(
            r.out.contains(QStringLiteral("31 sizes (8 .. 8589934592 B) of float sum, nThread 1 nGpus 1, 20 iters")));
        QVERIFY(r.out.contains(QStringLiteral("cluster: 8 x H100-SXM-80GB (8 per node)")));
        // The public 8x H100 row: 31356 us, measured busbw 479.41 GB/s at 8 GiB (3 significant digits).
        QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("\\n +8589934592 +31356\\.0 +479 \\|"))),
            qPrintable(r.out));
        // Small sizes keep 3 significant digits instead of "0.00".
        QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("\\n +8 +[0-9.]+ +0\\.0*[1-9][0-9]{2} \\|"))),
            qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("correction nvls tier 0:")));
    }

    // A -d all -o all table: one sweep per data type and reduction, each named in the text and the JSON.
    void dtypeRedopSweeps()
    {
        Run r = runCli({ data("robust_dtype_redop_sweeps.log") });
        QCOMPARE(r.exitCode, 0);
        for (const char* v : { "float sum", "float max", "bfloat16 sum", "bfloat16 max" })
            QVERIFY2(r.out.contains(QStringLiteral("allreduce (%1), 8 ranks on 1 node(s)").arg(QLatin1String(v))),
                qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("the table holds 4 sweeps"))
                || r.err.contains(QStringLiteral("the table holds 4 sweeps")),
            qPrintable(r.out + r.err));
        r = runCli({ data("robust_dtype_redop_sweeps.log"), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        const QJsonArray sweeps
            = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("sweeps")).toArray();
        QCOMPARE(sweeps.size(), 4);
        QCOMPARE(sweeps[3].toObject().value(QStringLiteral("variant")).toString(), QStringLiteral("bfloat16 max"));
        QCOMPARE(sweeps[3].toObject().value(QStringLiteral("sizes")).toArray().size(), 5);
    }

    // nccl-tests -I 1 with -J: the noisy size and the slowest process, in the text and the JSON; the
    // noisy size is left out of the calibration with the log's own reason.
    void perIterationTiming()
    {
        const QStringList hw { QStringLiteral("--gpu"), QStringLiteral("H100-SXM-80GB"), QStringLiteral("--nic"),
            QStringLiteral("8x400") };
        Run r = runCli(QStringList { data("allreduce_per_iter.json") } + hw);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("per-iteration timing (-I): 11 sizes, 1 noisy"))
                && r.out.contains(QStringLiteral("67108864 B (cv 40.")),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("slowest process: 1 (node-b, ranks from 8) at 11 of 11 sizes")),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("outlier 67108864 B: its own iterations vary (nccl-tests -I: cv 40.")),
            qPrintable(r.out));
        r = runCli(QStringList { data("allreduce_per_iter.json"), QStringLiteral("--json") } + hw);
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject it
            = doc[QStringLiteral("logs")][0][QStringLiteral("runs")][0][QStringLiteral("iterations")].toObject();
        QCOMPARE(it[QStringLiteral("noisy_sizes")].toInt(), 1);
        QCOMPARE(it[QStringLiteral("straggler")][QStringLiteral("host")].toString(), QStringLiteral("node-b"));
        QCOMPARE(it[QStringLiteral("sizes")].toArray().size(), 11);
        QVERIFY(it[QStringLiteral("sizes")][6][QStringLiteral("noisy")].toBool());
        QVERIFY(doc[QStringLiteral("sweeps")][0][QStringLiteral("sizes")][6][QStringLiteral("outlier")].toBool());
        // A log without -I has none.
        r = runCli({ data("allreduce_h100_8gpu.log"), QStringLiteral("--json") });
        QVERIFY(QJsonDocument::fromJson(r.out.toUtf8())
                    .object()[QStringLiteral("logs")][0][QStringLiteral("runs")][0][QStringLiteral("iterations")]
                    .isNull());
    }

    void jsonKeys()
    {
        const Run r = runCli({ data("allreduce_h100_8gpu.log"), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        for (const char* key : { "logs", "cluster", "sweeps", "skipped", "calibration" })
            QVERIFY2(doc.contains(QLatin1String(key)), key);
        const QJsonObject run = doc[QStringLiteral("logs")][0][QStringLiteral("runs")][0].toObject();
        for (const char* key :
            { "binary", "command_binary", "collective", "collective_source", "ranks", "nodes", "ranks_per_node", "gpu",
                "nthreads", "ngpus", "min_bytes", "max_bytes", "iters", "warmup_iters", "avg_busbw_gbps", "rows" })
            QVERIFY2(run.contains(QLatin1String(key)), key);
        QCOMPARE(run[QStringLiteral("ranks")].toInt(), 8);
        QCOMPARE(run[QStringLiteral("nodes")].toInt(), 1);
        QCOMPARE(run[QStringLiteral("gpu")].toString(), QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(doc[QStringLiteral("cluster")][QStringLiteral("gpu")].toString(), QStringLiteral("H100-SXM-80GB"));
        QCOMPARE(doc[QStringLiteral("cluster")][QStringLiteral("source")].toString(), QStringLiteral("log"));
        const QJsonObject sweep = doc[QStringLiteral("sweeps")][0].toObject();
        for (const char* key :
            { "op", "ranks", "nodes", "algorithm", "rms_before", "rms_after", "sizes", "corrections" })
            QVERIFY2(sweep.contains(QLatin1String(key)), key);
        QVERIFY(sweep[QStringLiteral("rms_after")].toDouble() < sweep[QStringLiteral("rms_before")].toDouble());
        const QJsonArray sizes = sweep[QStringLiteral("sizes")].toArray();
        QCOMPARE(sizes.size(), 31);
        const QJsonObject last = sizes.last().toObject();
        for (const char* key : { "bytes", "measured_us", "measured_busbw_gbps", "before_us", "before_busbw_gbps",
                 "after_us", "after_busbw_gbps", "residual_before", "residual_after", "algorithm_before",
                 "protocol_before", "algorithm_after", "protocol_after" })
            QVERIFY2(last.contains(QLatin1String(key)), key);
        QCOMPARE(last[QStringLiteral("bytes")].toDouble(), 8589934592.0);
        QVERIFY(std::abs(last[QStringLiteral("measured_busbw_gbps")].toDouble() - 479.41) < 0.01);
        QCOMPARE(doc[QStringLiteral("calibration")][QStringLiteral("format")].toString(),
            QStringLiteral("clusterscope-calibration"));
    }

    void saveCalibration()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("cal.json"));
        const Run r = runCli(
            { data("allreduce_bf16.json"), QStringLiteral("--save-calibration"), out, QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject saved = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(saved[QStringLiteral("format")].toString(), QStringLiteral("clusterscope-calibration"));
        QCOMPARE(saved[QStringLiteral("version")].toInt(), 1);
        QVERIFY(!saved[QStringLiteral("calibration")].toArray().isEmpty());
        const QJsonObject printed
            = QJsonDocument::fromJson(r.out.toUtf8()).object()[QStringLiteral("calibration")].toObject();
        QCOMPARE(saved, printed);
        // An unwritable destination is an error naming it.
        const Run bad = runCli({ data("allreduce_bf16.json"), QStringLiteral("--save-calibration"),
            QStringLiteral("/nonexistent/dir/cal.json") });
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QStringLiteral("/nonexistent/dir/cal.json")), qPrintable(bad.err));
    }
};

QTEST_GUILESS_MAIN(TestCliNcclTests)
#include "tst_cli_nccltests.moc"
