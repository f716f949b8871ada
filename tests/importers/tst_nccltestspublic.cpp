// Real public nccl-tests logs (tests/data/nccltests/public, origins in its README): each imports
// without edits, its header facts are what the source states, and the collective model is compared
// with it before and after calibration. The per-log figures are printed (qInfo) for the notes.

#include "engine/calibration/collectivecalibrator.h"
#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/scenario/scenario.h"
#include "importers/nccltests/nccltestsimporter.h"
#include "importers/nccltests/nccltestssweep.h"

#include <QtTest>

#include <cmath>

using namespace clusterscope;
using namespace clusterscope::importers;

namespace {

std::string publicFile(const QString& name)
{
    return std::string(CLUSTERSCOPE_TEST_DATA_DIR) + "/nccltests/public/" + name.toStdString();
}

struct Errors {
    double meanAbs = 0; ///< mean |relative time error| over sizes >= 1 MiB
    double maxAbs = 0;
    int sizes = 0;
};

Errors errorsFrom1MiB(const std::vector<engine::ResidualRow>& rows, bool after)
{
    Errors e;
    for (const auto& r : rows) {
        if (r.bytes < 1024.0 * 1024.0)
            continue;
        const double x = std::abs(after ? r.residualAfter() : r.residualBefore());
        e.meanAbs += x;
        e.maxAbs = std::max(e.maxAbs, x);
        ++e.sizes;
    }
    if (e.sizes > 0)
        e.meanAbs /= e.sizes;
    return e;
}

} // namespace

class TestNcclTestsPublic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void publicLogs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op"); ///< the collective (from the log, or --op for header-less binaries)
        QTest::addColumn<QString>("gpu"); ///< catalog id of the stated GPU
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("sizes");
        QTest::addColumn<int>("nicsPerNode");
        QTest::addColumn<double>("nicGbps");
        // The net transport (catalog net_transports): "ib", "roce", "gib" (Google's RoCE verbs plugin),
        // "tcpxo" (GPUDirect-TCPXO); all but "ib" run on an Ethernet (RoCE) fabric.
        QTest::addColumn<QString>("net");
        // Uncalibrated |error| over sizes >= 1 MiB: the limits the model meets today (README table),
        // so that a change of the model that makes a log worse fails here. Every limit of a row (these
        // two, the calibrated RMS over the sizes kept and the held-out RMS) is the figure reached, as
        // printed to 0.1 point, plus 0.1 point.
        QTest::addColumn<double>("meanLimit");
        QTest::addColumn<double>("maxLimit");
        // Since the calibrated model keeps NCCL's (uncalibrated) choice of algorithm and protocol and the
        // calibration refines each protocol of an algorithm (collectivecalibrator.h), some limits rose
        // to what is reached, because a calibration can no longer move a protocol switch to where a log
        // shows it: the kept RMS of alpha (4.3 -> 5.6%), 4x8 (4.5 -> 5.2%), B200 1x8 (3.6 -> 4.0%),
        // A100 thanos (3.5 -> 4.0%, 5.0 -> 5.3%), and the held-out RMS of the three A100 logs (5.4 ->
        // 6.6%, 3.9 -> 6.7%, 6.0 -> 8.6%: the 3-4 Ring LL128 sizes at 4-16 MiB), B200 2x8 (8.1 -> 8.7%)
        // and 2x4 (12.1 -> 12.7%); the summed held-out RMS of the 18 logs fell 125.2 -> 120.2 points.
        // NCCL's NVLSTree cap per NVLS head (ncclpipeline.cpp) lowered the uncalibrated limits of every
        // NVLSTree log (mean |error|: OCI 5.4 -> 0.8%, alpha 59.8 -> 42.9%, 2x4 43.5 -> 25.7%, 10x8 17.1 ->
        // 14.1%, ...) and raised three: XE9680's max 25.7 -> 26.8% (at 4 MiB, where the model is already slow), the
        // held-out RMS of 2x4 (12.7 -> 12.9%) and 10x4 (4.0 -> 5.0%).
        // Calibrated RMS over the sizes kept (outliers left out): what the calibration reaches today.
        // H100 1x8 (6.1%) and GKE H200 2x1 (8.0%) are 0.4-0.9 points above the previous limits: the
        // smoother size correction keeps sizes the old fit rejected as outliers (H100: 3 -> 2, GKE:
        // 2 -> 0), and their held-out RMS fell (9.5 -> 7.6%, 12.3 -> 12.0%).
        QTest::addColumn<double>("keptRmsLimit");
        // GPUDirect RDMA between the GPU and its NIC (cluster.nic.gpudirect_rdma).
        QTest::addColumn<bool>("gdr");
        // Calibrated RMS on held-out sizes (4-fold cross-validation inside the sweep): what the
        // calibration reaches today, so that a change of the fit that generalises worse fails here.
        QTest::addColumn<double>("heldOutRmsLimit");
        // Stated hardware (README); A3 Mega: 8 x 200 Gb/s GPUDirect-TCPXO per VM (Ethernet, no SHARP),
        // NCCL under the TCPXO settings (Ring/Tree, Simple, no NVLS: catalog net_transports "tcpxo").
        QTest::addRow("2x8 H100 GCP A3 Mega") << "h100_2x8_gcp_a3mega_allreduce.log"
                                              << "allreduce"
                                              << "H100-SXM-80GB" << 16 << 2 << 31 << 8 << 200.0 << QString("tcpxo")
                                              << 0.115 << 0.168 << 0.035 << true << 0.037;
        // Dell H200 over RoCE, 8 RDMA interfaces per node (rate not stated: 400 Gb/s assumed).
        QTest::addRow("2x8 H200 RoCE") << "h200_2x8_roce_allreduce.log"
                                       << "allreduce"
                                       << "H200-SXM-141GB" << 16 << 2 << 25 << 8 << 400.0 << QString("roce") << 0.07
                                       << 0.368 << 0.049 << true << 0.061;
        QTest::addRow("1x8 A100 NVSwitch") << "a100_8gpu_1node_allreduce.log"
                                           << "allreduce"
                                           << "A100-SXM-80GB" << 8 << 1 << 25 << 8 << 200.0 << QString("ib") << 0.156
                                           << 0.278 << 0.03 << true << 0.067;
        // OCI BM.GPU.H100.8: 16 x 200 Gb/s RoCE ports per node (the page uses all 16).
        QTest::addRow("2x8 H100 OCI RoCE") << "oci_h100_2x8_roce_allreduce.log"
                                           << "allreduce"
                                           << "H100-SXM-80GB" << 16 << 2 << 5 << 16 << 200.0 << QString("roce") << 0.009
                                           << 0.011 << 0.002 << true << 0.001;
        // GKE, one H200 and one ConnectX-7 RoCE NIC per worker (A3 Ultra: 400 Gb/s per NIC). No GPUDirect
        // RDMA: each worker claims the NIC named gpu2rdma0 while its GPU comes from the device plugin
        // independently (the two workers' GPUs sit on different buses, cc:00 and 97:00), so at least one
        // GPU reaches that NIC through the CPU, beyond NCCL's GDR level (README). The calibrated RMS limit
        // is 0.1 point above the 7.1% of the GDR model: the staged 24 GB/s now follows the measured 8-32 MiB
        // plateau (20.8 GB/s) but the calibration must stretch it to the 32 GB/s measured from 64 MiB on.
        QTest::addRow("2x1 H200 GKE RoCE") << "h200_2x1_gke_roce_allreduce.log"
                                           << "allreduce"
                                           << "H200-SXM-141GB" << 2 << 2 << 24 << 1 << 400.0 << QString("roce") << 0.21
                                           << 0.33 << 0.045 << false << 0.092;
        // Nebius H200 nodes with InfiniBand (8 x 400 Gb/s NDR per node).
        QTest::addRow("2x8 H200 Nebius IB") << "h200_2x8_nebius_ib_allreduce.log"
                                            << "allreduce"
                                            << "H200-SXM-141GB" << 16 << 2 << 5 << 8 << 400.0 << QString("ib") << 0.027
                                            << 0.039 << 0.004 << true << 0.001;
        // GKE A4 (8 x B200, 8 x 400 Gb/s RoCE per node); the log names no binary: all_gather (--op).
        QTest::addRow("2x8 B200 GKE A4 allgather")
            << "b200_2x8_gke_a4_allgather.log"
            << "allgather"
            << "B200" << 16 << 2 << 24 << 8 << 400.0 << QString("gib") << 0.701 << 0.964 << 0.047 << true << 0.139;
        // One DGX H100 (8 x H100, NVSwitch with NVLS; 8 x 400 Gb/s NDR InfiniBand, unused on one node).
        QTest::addRow("1x8 H100 DGX NVLS") << "h100_1x8_dgx_nvls_allreduce.log"
                                           << "allreduce"
                                           << "H100-SXM-80GB" << 8 << 1 << 32 << 8 << 400.0 << QString("ib") << 0.067
                                           << 0.232 << 0.048 << true << 0.065;
        // Vultr HGX B200 nodes, 8 x ConnectX-7 NDR 400 Gb/s InfiniBand each; table-only excerpts
        // (no device lines): the ranks come from busbw/algbw, the nodes and the GPU from the source.
        QTest::addRow("1x8 B200 reducescatter")
            << "b200_1x8_vultr_reducescatter.log"
            << "reducescatter"
            << "B200" << 8 << 1 << 32 << 8 << 400.0 << QString("ib") << 0.103 << 0.319 << 0.041 << true << 0.06;
        QTest::addRow("2x8 B200 IB reducescatter")
            << "b200_2x8_vultr_ib_reducescatter.log"
            << "reducescatter"
            << "B200" << 16 << 2 << 32 << 8 << 400.0 << QString("ib") << 0.321 << 0.501 << 0.039 << true << 0.088;
        // The same two hosts with all 8 H100 each (-g 8); NICs not stated: as for 2x4 below.
        QTest::addRow("2x8 H100 alpha") << "h100_2x8_alpha_allreduce.log"
                                        << "allreduce"
                                        << "H100-SXM-80GB" << 16 << 2 << 31 << 4 << 400.0 << QString("ib") << 0.43
                                        << 0.847 << 0.057 << true << 0.083;
        // 2 nodes x 4 H100 (-g 4), NICs not stated: 4 x 400 Gb/s InfiniBand assumed.
        QTest::addRow("2x4 H100") << "h100_2x4_allreduce.log"
                                  << "allreduce"
                                  << "H100-SXM-80GB" << 8 << 2 << 32 << 4 << 400.0 << QString("ib") << 0.258 << 0.894
                                  << 0.057 << true << 0.13;
        // Held-out logs: collected after the model was built and never used to fit or choose anything in
        // it (README "Held-out logs"); their limits are what the model reaches on them.
        // Dell XE9680 (8 x H100, 8 x ConnectX-7 400 Gb/s InfiniBand), NCCL 2.26.2 (nccl-tests issue 309).
        // Calibrated RMS over the sizes kept 7.3 -> 9.3% (limit raised): NCCL corrects Tree only below 512 MiB
        // (ncclcost.cpp treeCorrection), so at 512 MiB the calibrated model's Auto, which weighs Tree Simple
        // with the Tree fit made on this log's LL/LL128 rows, now picks Tree there (+2.5% -> +23.6%) as it
        // did at 1 GiB before; every uncalibrated figure is unchanged.
        // The log's NCCL 2.26.2 costs NVLSTree with that version's NET latency (14 us, not 2.28.9's 20.9):
        // uncalibrated mean 5.8 -> 5.3%, max 26.8 -> 13.4% (4 MiB), calibrated RMS kept 5.1 -> 5.0%, held-out
        // RMS 7.9 -> 8.2% (limit 0.08 -> 0.083).
        QTest::addRow("held-out 2x8 H100 XE9680 IB") << "h100_2x8_xe9680_ib_allreduce.log"
                                                     << "allreduce"
                                                     << "H100-SXM-80GB" << 16 << 2 << 32 << 8 << 400.0 << QString("ib")
                                                     << 0.054 << 0.135 << 0.050 << true << 0.083;
        // The same issue: 4 HGX H100 VMs, 32 GPU-NIC pairs (8 x 400 Gb/s InfiniBand per node), NCCL 2.26.2.
        // Limits lowered by the tree egress beyond two nodes (ncclcost.cpp treeNodeEgressFactor, the
        // NVLSTree fill stages in ncclpipeline.cpp): uncalibrated mean 23.3 -> 10.2%. NCCL 2.26.2's NVLSTree
        // NET latency (14 us): mean 9.4 -> 7.1%, max 42.7 -> 33.1%, calibrated RMS kept 5.2 -> 4.7%.
        QTest::addRow("held-out 4x8 H100 VM IB") << "h100_4x8_vm_ib_allreduce.log"
                                                 << "allreduce"
                                                 << "H100-SXM-80GB" << 32 << 4 << 32 << 8 << 400.0 << QString("ib")
                                                 << 0.072 << 0.332 << 0.048 << true << 0.074;
        // The same issue, another cluster: 8 nodes x 8 H100 on a 400 Gb/s InfiniBand network ("the 400 GB/s
        // IB limit of our network": 8 x 400 Gb/s per node). The tree egress beyond two nodes took the
        // uncalibrated mean 22.7 -> 21.0%: sizes >= 128 MiB -12..-28% -> -12..-20% (the run stays at 320 GB/s
        // busbw, the model's NICs give 375), but NCCL's tuner now keeps Tree LL128 up to 32 MiB, whose 4-32 MiB
        // rows are 18-30% fast (32 MiB: +10% -> -28%): the calibrated RMS over the sizes kept rose 3.8 ->
        // 6.9%, the held-out RMS 4.6 -> 9.2% (limits raised to that).
        QTest::addRow("held-out 8x8 H100 IB") << "h100_8x8_ib_allreduce.log"
                                              << "allreduce"
                                              << "H100-SXM-80GB" << 64 << 8 << 14 << 8 << 400.0 << QString("ib")
                                              << 0.159 << 0.842 << 0.033 << true << 0.083;
        // One node, 8 x H100 with NVLink SHARP, -g 8 (nccl-tests issue 290; NDR 400 Gb/s ConnectX-7, unused).
        QTest::addRow("held-out 1x8 H100 NVLS -g 8") << "h100_1x8_nvls_g8_allreduce.log"
                                                     << "allreduce"
                                                     << "H100-SXM-80GB" << 8 << 1 << 6 << 8 << 400.0 << QString("ib")
                                                     << 0.029 << 0.057 << 0.024 << true << 0.001;
        // One server, 8 x A100-SXM4-80GB, 12 NVLinks of 25 GB/s each; -g 8 and mpirun -np 8 -g 1 (NICs unused).
        QTest::addRow("held-out 1x8 A100 -g 8") << "a100_1x8_thanos_g8_allreduce.log"
                                                << "allreduce"
                                                << "A100-SXM-80GB" << 8 << 1 << 30 << 8 << 200.0 << QString("ib")
                                                << 0.156 << 0.364 << 0.041 << true << 0.068;
        QTest::addRow("held-out 1x8 A100 mpirun") << "a100_1x8_thanos_mpi_allreduce.log"
                                                  << "allreduce"
                                                  << "A100-SXM-80GB" << 8 << 1 << 30 << 8 << 200.0 << QString("ib")
                                                  << 0.092 << 0.197 << 0.054 << true << 0.087;
        // All-to-all and the two logs around it: one H100 cluster of xxrjun/nccl-tests-cluster (8 x H100
        // per node, NCCL 2.29.2; NICs not stated: one 400 Gb/s NIC per GPU inferred from the 10 x 1
        // all_gather's 48.7 GB/s). The three alltoall logs fitted the per-peer cost and the NVLink
        // send/receive fraction (extracost.cpp); the all_reduce and all_gather logs fitted nothing. Before
        // those two terms the alltoall logs were 13.4% / 27.1% (1 x 8), 2.2% / 2.3% (2 x 8) and 10.2% /
        // 32.9% (10 x 8) uncalibrated (mean / max |error|); the limits are what the model reaches now.
        QTest::addRow("1x8 H100 alltoall") << "xxrjun_h100_1n8g_nvlink_alltoall.log"
                                           << "alltoall"
                                           << "H100-SXM-80GB" << 8 << 1 << 10 << 8 << 400.0 << QString("ib") << 0.033
                                           << 0.053 << 0.031 << true << 0.035;
        QTest::addRow("2x8 H100 IB alltoall") << "xxrjun_h100_2n8g_ib_alltoall.log"
                                              << "alltoall"
                                              << "H100-SXM-80GB" << 16 << 2 << 3 << 8 << 400.0 << QString("ib") << 0.023
                                              << 0.024 << 0.001 << true << 0.001;
        QTest::addRow("10x8 H100 IB alltoall") << "xxrjun_h100_10n8g_ib_alltoall.log"
                                               << "alltoall"
                                               << "H100-SXM-80GB" << 80 << 10 << 10 << 8 << 400.0 << QString("ib")
                                               << 0.03 << 0.043 << 0.016 << true << 0.019;
        QTest::addRow("10x8 H100 IB allreduce") << "xxrjun_h100_10n8g_ib_allreduce.log"
                                                << "allreduce"
                                                << "H100-SXM-80GB" << 80 << 10 << 10 << 8 << 400.0 << QString("ib")
                                                << 0.142 << 0.403 << 0.07 << true << 0.078;
        QTest::addRow("10x1 H100 IB allgather") << "xxrjun_h100_10n1g_ib_allgather.log"
                                                << "allgather"
                                                << "H100-SXM-80GB" << 10 << 10 << 10 << 1 << 400.0 << QString("ib")
                                                << 0.023 << 0.078 << 0.01 << true << 0.017;

        // Send/receive on the same cluster (single-node and multi-node runs of January 2026): the p2p channel
        // rule of extracost.cpp (p2pChannels), with NVLink's per-channel figure from NCCL's tables; the
        // network channel's round trip (42 us) is fitted on the 10 x 1, 10 x 2 and 10 x 4 logs together.
        // Before it: 23.5% / 76.5% (1 x 8), 19.2% / 54.8% (1 x 4), 48.2%, 47.3%, 45.1% and 68.2% mean
        // (10 x 1, 2, 4, 8). 10 x 8 stays 39% fast: its cross-node sends reach 15.2 GB/s, not one channel's
        // 25 (unexplained). The 10 x 1 and 10 x 4 all_reduce logs: each rank on its own GPU's NIC (nics
        // = ranks per node; the CLI infers that from hosts with more NICs than ranks). The 10 x 8
        // all_gather and reduce_scatter stopped at 304-324 GB/s from 2 GiB (the model: 359-368, -10 .. -13%):
        // 16 ring channels of one thread block each (ncclpipeline.cpp capRingByChannels) took those sizes to
        // -3 .. +1% and the means 25.2 -> 19.3% (all_gather), 27.4 -> 21.6% (reduce_scatter); the Ring
        // LL128 band (32-256 MiB) is still 23-55% fast.
        QTest::addRow("1x8 H100 sendrecv") << "xxrjun_h100_1n8g_nvlink_sendrecv.log"
                                           << "sendrecv"
                                           << "H100-SXM-80GB" << 8 << 1 << 10 << 8 << 400.0 << QString("ib") << 0.021
                                           << 0.079 << 0.024 << true << 0.027;
        QTest::addRow("1x4 H100 sendrecv") << "xxrjun_h100_1n4g_nvlink_sendrecv.log"
                                           << "sendrecv"
                                           << "H100-SXM-80GB" << 4 << 1 << 10 << 4 << 400.0 << QString("ib") << 0.025
                                           << 0.079 << 0.024 << true << 0.026;
        QTest::addRow("10x1 H100 IB sendrecv") << "xxrjun_h100_10n1g_ib_sendrecv.log"
                                               << "sendrecv"
                                               << "H100-SXM-80GB" << 10 << 10 << 10 << 1 << 400.0 << QString("ib")
                                               << 0.007 << 0.026 << 0.007 << true << 0.008;
        QTest::addRow("10x2 H100 IB sendrecv") << "xxrjun_h100_10n2g_ib_sendrecv.log"
                                               << "sendrecv"
                                               << "H100-SXM-80GB" << 20 << 10 << 10 << 2 << 400.0 << QString("ib")
                                               << 0.011 << 0.015 << 0.004 << true << 0.004;
        QTest::addRow("10x4 H100 IB sendrecv") << "xxrjun_h100_10n4g_ib_sendrecv.log"
                                               << "sendrecv"
                                               << "H100-SXM-80GB" << 40 << 10 << 10 << 4 << 400.0 << QString("ib")
                                               << 0.053 << 0.057 << 0.002 << true << 0.003;
        QTest::addRow("10x8 H100 IB sendrecv") << "xxrjun_h100_10n8g_ib_sendrecv.log"
                                               << "sendrecv"
                                               << "H100-SXM-80GB" << 80 << 10 << 10 << 8 << 400.0 << QString("ib")
                                               << 0.391 << 0.4 << 0.007 << true << 0.01;
        QTest::addRow("10x1 H100 IB allreduce") << "xxrjun_h100_10n1g_ib_allreduce.log"
                                                << "allreduce"
                                                << "H100-SXM-80GB" << 10 << 10 << 10 << 1 << 400.0 << QString("ib")
                                                << 0.049 << 0.14 << 0.038 << true << 0.044;
        QTest::addRow("10x4 H100 IB allreduce") << "xxrjun_h100_10n4g_ib_allreduce.log"
                                                << "allreduce"
                                                << "H100-SXM-80GB" << 40 << 10 << 10 << 4 << 400.0 << QString("ib")
                                                << 0.049 << 0.162 << 0.022 << true << 0.051;
        QTest::addRow("10x8 H100 IB allgather") << "xxrjun_h100_10n8g_ib_allgather.log"
                                                << "allgather"
                                                << "H100-SXM-80GB" << 80 << 10 << 10 << 8 << 400.0 << QString("ib")
                                                << 0.194 << 0.547 << 0.084 << true << 0.138;
        QTest::addRow("10x8 H100 IB reducescatter") << "xxrjun_h100_10n8g_ib_reducescatter.log"
                                                    << "reducescatter"
                                                    << "H100-SXM-80GB" << 80 << 10 << 10 << 8 << 400.0 << QString("ib")
                                                    << 0.217 << 0.551 << 0.055 << true << 0.085;
        // GB200 NVL72 (CoreWeave; NCCL 2.26.2): excerpts that keep only the last device line, so the ranks
        // are the highest rank listed + 1 and the nodes the source's (18 compute trays of 4 GPUs per
        // rack); NICs not stated: the NVL72 reference design's 4 x 400 Gb/s ConnectX-7 per tray.
        // Their sizes (512 MiB .. 16 GiB) are bandwidth-bound in the model, whose latency is then not
        // identifiable, but the measured times carry a fixed cost per call (0.5, 0.9 and 4.6 ms on 1, 2 and
        // 20 racks) that the model lacks: the offset-and-bandwidth fit, chosen by leave-one-out over the
        // sizes (collectivecalibrator.cpp fitGroup), took the calibrated RMS 7.4 -> 2.0%, 13.2 -> 1.5% and
        // 25.5 -> 0.9% (limits lowered); the same choice lowered five other logs' calibrated or held-out
        // RMS and raised one (10 x 8 sendrecv held-out 0.7 -> 0.9%). Across racks NCCL's NVLS search keeps at
        // most 32 heads of a rack's 72 NIC-owning GPUs (NCCL_MAX_NVLS_ARITY): fewer, longer NVLSTree pipelines,
        // which took the 2- and 20-rack limits up (mean 26.6 -> 27.2%, 66.2 -> 67.5%; max 41.8 -> 42.3%,
        // 76.9 -> 79.6%; calibrated RMS kept 1.5 -> 1.7%).
        QTest::addRow("GB200 NVL72 1 rack")
            << "coreweave_gb200_nvl72_1rack_allreduce.log"
            << "allreduce"
            << "GB200" << 72 << 18 << 5 << 4 << 400.0 << QString("ib") << 0.15 << 0.257 << 0.021 << true << 0.001;
        QTest::addRow("GB200 NVL72 2 racks")
            << "coreweave_gb200_nvl72_2racks_allreduce.log"
            << "allreduce"
            << "GB200" << 144 << 36 << 6 << 4 << 400.0 << QString("ib") << 0.273 << 0.424 << 0.018 << true << 0.001;
        QTest::addRow("GB200 NVL72 20 racks")
            << "coreweave_gb200_nvl72_20racks_allreduce.log"
            << "allreduce"
            << "GB200" << 1440 << 360 << 6 << 4 << 400.0 << QString("ib") << 0.676 << 0.797 << 0.01 << true << 0.001;
        // Collected in the thirteenth round (tests/data/nccltests/public/README.md), held out: the model ran on
        // them as it stood, then once more after the one change they led to (RCCL's channels, ncclpipeline.cpp).
        // The first log of the China-market H800 (8 NVLinks; catalog H800-SXM-80GB), one process with -g 8.
        QTest::addRow("held-out 1x8 H800 broadcast -g 8") << "h800_1x8_g8_broadcast_ncclinfo.log"
                                                          << "broadcast"
                                                          << "H800-SXM-80GB" << 8 << 1 << 30 << 8 << 400.0
                                                          << QString("ib") << 0.21 << 0.793 << 0.046 << true << 0.086;
        // sendrecv_perf -g 8 on one A100 server: the ranks from the quoted command (no device lines).
        QTest::addRow("held-out 1x8 A100 sendrecv -g 8") << "a100_1x8_g8_sendrecv.log"
                                                         << "sendrecv"
                                                         << "A100-SXM-80GB" << 8 << 1 << 4 << 8 << 200.0
                                                         << QString("ib") << 0.221 << 0.299 << 0.033 << true << 0.001;
        // AWS p5.48xlarge (8 x H100, 32 x 100 Gb/s EFA; one instance: the network is not used), a table
        // without device lines behind Open MPI's --tag-output prefix.
        QTest::addRow("held-out 1x8 H100 p5") << "aws_p5_1x8_tagoutput_allreduce.log"
                                              << "allreduce"
                                              << "H100-SXM-80GB" << 8 << 1 << 32 << 32 << 100.0 << QString("ib")
                                              << 0.053 << 0.197 << 0.034 << true << 0.05;
        // OCI BM.GPU.B4.8 (8 x A100-SXM4-40GB), RoCE; NICs not stated (8 x 200 Gb/s assumed, as DGX A100).
        QTest::addRow("held-out 2x8 A100 OCI RoCE") << "oci_a100_40g_2x8_allreduce.log"
                                                    << "allreduce"
                                                    << "A100-SXM-80GB" << 16 << 2 << 4 << 8 << 200.0 << QString("roce")
                                                    << 0.016 << 0.02 << 0.002 << true << 0.001;
        // OCI GB200 NVL72: 32 trays of 4 GPUs over two racks (NICs not stated: 4 x 400 Gb/s per tray assumed).
        QTest::addRow("held-out GB200 32x4 OCI 2 racks")
            << "oci_gb200_32x4_2racks_allreduce.log"
            << "allreduce"
            << "GB200" << 128 << 32 << 33 << 4 << 400.0 << QString("roce") << 0.555 << 0.723 << 0.041 << true << 0.052;
        // AMD MI300X and MI355X rccl-tests logs (RCCL costed with NCCL's tuner; the NICs' rate not stated:
        // 8 x 400 Gb/s RoCE assumed, as the MI300X and MI355X platforms ship).
        QTest::addRow("held-out 1x8 MI300X")
            << "mi300x_1x8_k8s_rccl_allreduce.log"
            << "allreduce"
            << "MI300X" << 8 << 1 << 31 << 8 << 400.0 << QString("roce") << 0.149 << 0.324 << 0.096 << true << 0.12;
        QTest::addRow("held-out 1x8 MI300X VF -g 8")
            << "mi300x_vf_1x8_g8_azure_allreduce.log"
            << "allreduce"
            << "MI300X" << 8 << 1 << 25 << 8 << 400.0 << QString("ib") << 0.159 << 0.391 << 0.05 << true << 0.11;
        QTest::addRow("held-out 2x8 MI300X RoCE")
            << "mi300x_2x8_roce_rccl_allreduce.log"
            << "allreduce"
            << "MI300X" << 16 << 2 << 32 << 8 << 400.0 << QString("roce") << 0.339 << 0.82 << 0.059 << true << 0.082;
        QTest::addRow("held-out 2x8 MI300X OCI RoCE")
            << "oci_mi300x_2x8_noname_allreduce.log"
            << "allreduce"
            << "MI300X" << 16 << 2 << 5 << 8 << 400.0 << QString("roce") << 0.027 << 0.03 << 0.003 << true << 0.001;
        QTest::addRow("held-out 2x8 MI355X Pollara")
            << "mi355x_2x8_pollara_rccl_allreduce.log"
            << "allreduce"
            << "MI355X" << 16 << 2 << 31 << 8 << 400.0 << QString("roce") << 0.115 << 0.25 << 0.043 << true << 0.054;
    }
    void publicLogs()
    {
        QFETCH(QString, file);
        QFETCH(QString, gpu);
        QFETCH(int, ranks);
        QFETCH(int, nicsPerNode);
        QFETCH(double, nicGbps);
        QFETCH(QString, net);
        QFETCH(QString, op);
        QFETCH(double, meanLimit);
        QFETCH(double, maxLimit);
        NcclTestsParseOptions options;
        options.collective = ncclTestsCollectiveFromName(op.toStdString());
        QVERIFY(options.collective);
        auto log = importNcclTestsFile(publicFile(file), options);
        QVERIFY2(log.isOk(), log.message().c_str());
        QCOMPARE(log->runs.size(), std::size_t(1));
        const NcclTestsRun& run = log->runs.front();
        QCOMPARE(*run.collective, *options.collective);
        QTEST(run.ranks(), "ranks");
        QFETCH(int, nodes);
        const bool tableOnly = run.devices.empty() || run.devicesPartial(); // no device lines, or an excerpt
        if (!tableOnly)
            QCOMPARE(run.nodes(), nodes);
        QTEST(int(run.rows.size()), "sizes");
        for (const auto& d : log->diagnostics)
            QVERIFY2(d.id != "busbw-mismatch" && d.id != "row-size" && d.id != "row-columns", d.message.c_str());

        static const engine::Catalog catalog = engine::Catalog::builtin().value();
        if (!tableOnly && !run.gpuName().empty()) // rccl-tests on some ROCm versions names no GPU
            QCOMPARE(catalogGpuIdForDeviceName(catalog, run.gpuName()).value_or(""), gpu.toStdString());
        engine::Scenario s;
        s.name = file.toStdString();
        s.cluster.gpu = gpu.toStdString();
        s.cluster.gpus = ranks;
        s.cluster.gpusPerNode = ranks / nodes;
        s.cluster.nic.perNode = nicsPerNode;
        s.cluster.nic.gbps = nicGbps;
        s.cluster.transport = net == "ib" ? engine::Transport::InfiniBand : engine::Transport::RoCE;
        s.cluster.nic.net = net.toStdString();
        QFETCH(bool, gdr);
        s.cluster.nic.gpuDirectRdma = gdr;
        auto model = engine::CollectiveModel::fromScenario(s, catalog);
        QVERIFY2(model.isOk(), model.message().c_str());
        auto sweep = measuredSweepFromRun(*log, run);
        QVERIFY2(sweep.isOk(), sweep.message().c_str());
        sweep->nodes = nodes; // what the source states (a table-only excerpt does not)
        // The tuner constants of the NCCL the log states, as import-nccl-tests compares it.
        auto cal = engine::calibrateSweep(modelAsRunUsed(*model, run), *sweep);
        QVERIFY2(cal.isOk(), cal.message().c_str());

        const Errors before = errorsFrom1MiB(cal->rows, false);
        const Errors after = errorsFrom1MiB(cal->rows, true);
        qInfo("%s: sizes >= 1 MiB: uncalibrated mean |error| %.1f%% max %.1f%%; calibrated mean %.1f%% max %.1f%%; "
              "RMS all sizes %.1f%% -> %.1f%%; sizes kept %.1f%% -> %.1f%%; held-out RMS %.1f%% -> %.1f%%%s; %d "
              "outlier(s)",
            qPrintable(file), 100 * before.meanAbs, 100 * before.maxAbs, 100 * after.meanAbs, 100 * after.maxAbs,
            100 * cal->rmsBefore, 100 * cal->rmsAfter, 100 * cal->rmsBeforeKept, 100 * cal->rmsAfterKept,
            100 * cal->heldOutRmsBefore, 100 * cal->heldOutRmsAfter,
            cal->rejectedByCrossValidation ? " (calibration rejected)" : "", cal->outliers);
        for (const auto& r : cal->rows)
            qInfo("  %12.0f B  measured %10.1f us  model %10.1f us (%+6.1f%%) %s/%s  calibrated %10.1f us (%+6.1f%%)%s",
                r.bytes, r.measuredSeconds * 1e6, r.beforeSeconds * 1e6, 100 * r.residualBefore(),
                engine::toString(r.algorithmBefore), engine::toString(r.protocolBefore), r.afterSeconds * 1e6,
                100 * r.residualAfter(), r.outlier ? " outlier" : "");

        // The uncalibrated model stays within what it reaches today on this log.
        QVERIFY2(before.meanAbs <= meanLimit && before.maxAbs <= maxLimit,
            qPrintable(QStringLiteral("%1: uncalibrated mean %2 (limit %3), max %4 (limit %5)")
                           .arg(file)
                           .arg(before.meanAbs)
                           .arg(meanLimit)
                           .arg(before.maxAbs)
                           .arg(maxLimit)));
        QFETCH(double, keptRmsLimit);
        QVERIFY2(cal->rmsAfterKept <= keptRmsLimit,
            qPrintable(QStringLiteral("%1: calibrated RMS over the sizes kept %2 (limit %3)")
                           .arg(file)
                           .arg(cal->rmsAfterKept)
                           .arg(keptRmsLimit)));
        QFETCH(double, heldOutRmsLimit);
        QVERIFY2(cal->heldOutRmsAfter <= heldOutRmsLimit,
            qPrintable(QStringLiteral("%1: calibrated RMS on held-out sizes %2 (limit %3)")
                           .arg(file)
                           .arg(cal->heldOutRmsAfter)
                           .arg(heldOutRmsLimit)));
        QVERIFY(cal->rmsAfterKept <= cal->rmsBeforeKept + 1e-12);
        // The calibration never makes held-out sizes worse (else it is rejected) and never raises the RMS.
        QVERIFY(cal->rejectedByCrossValidation || cal->heldOutRmsAfter <= cal->heldOutRmsBefore);
        QVERIFY2(cal->rmsAfter <= cal->rmsBefore + 1e-12,
            qPrintable(QStringLiteral("%1 -> %2").arg(cal->rmsBefore).arg(cal->rmsAfter)));
    }

    // vTrain's measured A100 all-reduce tables (tests/data/nccltests/vtrain_a100, origin and license in
    // the README there): nccl-tests columns without the log around them (size, count, type, then time in
    // ns and busbw for out-of-place and in-place), 1 MiB .. 1 GiB in 1 MiB steps, 2..8 GPUs of one
    // A100 server. Held out: nothing of the model was fitted or chosen on them. The limits are the
    // figures the model reaches (printed to 0.1 point) plus 0.1 point, as for the logs above.
    void vtrainA100Tables_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("meanLimit"); ///< uncalibrated mean |error| over every size (all >= 1 MiB)
        QTest::addColumn<double>("maxLimit");
        QTest::addColumn<double>("keptRmsLimit"); ///< calibrated RMS over the sizes kept
        QTest::addColumn<double>("heldOutRmsLimit"); ///< calibrated RMS on held-out sizes (4-fold)
        QTest::addRow("A100 x2") << 2 << 0.213 << 0.497 << 0.006 << 0.007;
        QTest::addRow("A100 x3") << 3 << 0.144 << 0.564 << 0.008 << 0.009;
        QTest::addRow("A100 x4") << 4 << 0.103 << 0.395 << 0.014 << 0.023;
        QTest::addRow("A100 x5") << 5 << 0.086 << 0.467 << 0.019 << 0.029;
        QTest::addRow("A100 x6") << 6 << 0.077 << 0.514 << 0.017 << 0.028;
        QTest::addRow("A100 x7") << 7 << 0.069 << 0.523 << 0.02 << 0.03;
        QTest::addRow("A100 x8") << 8 << 0.065 << 0.582 << 0.021 << 0.027;
    }

    void vtrainA100Tables()
    {
        QFETCH(int, gpus);
        const std::string path = std::string(CLUSTERSCOPE_TEST_DATA_DIR) + "/nccltests/vtrain_a100/AR_GPU"
            + std::to_string(gpus) + "_1M_1024M_LUT";
        QFile f(QString::fromStdString(path));
        QVERIFY2(f.open(QIODevice::ReadOnly | QIODevice::Text), path.c_str());
        QCOMPARE(f.readLine().trimmed(), QByteArray("size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)"));
        engine::MeasuredSweep sweep;
        sweep.op = engine::CollectiveOp::AllReduce;
        sweep.ranks = gpus;
        sweep.nodes = 1;
        sweep.gpusPerThread = 1; // not stated
        sweep.sources = { path };
        while (!f.atEnd()) {
            const QList<QByteArray> cells = f.readLine().trimmed().split(',');
            QCOMPARE(cells.size(), qsizetype(7));
            bool ok1 = false, ok2 = false, ok3 = false;
            const double bytes = cells[0].toDouble(&ok1);
            const double ns = cells[3].toDouble(&ok2); // out-of-place, as the log importer takes
            const double busbwGBps = cells[4].toDouble(&ok3);
            QVERIFY(ok1 && ok2 && ok3 && bytes > 0 && ns > 0);
            QCOMPARE(cells[2], QByteArray("float"));
            QCOMPARE(cells[1].toDouble(), bytes / 4);
            // The columns are nccl-tests' own: busbw = S / t x 2 (n - 1) / n in GB/s (1e9 B/s).
            const double busbwFromTime = bytes / (ns * 1e-9) * 2.0 * (gpus - 1) / gpus / 1e9;
            QVERIFY2(std::abs(busbwFromTime / busbwGBps - 1) < 0.01, cells[0].constData());
            sweep.points.push_back({ bytes, ns * 1e-9 });
        }
        QCOMPARE(int(sweep.points.size()), 1024);

        static const engine::Catalog catalog = engine::Catalog::builtin().value();
        engine::Scenario s;
        s.name = path;
        s.cluster.gpu = "A100-SXM-80GB";
        s.cluster.gpus = gpus;
        s.cluster.gpusPerNode = gpus;
        s.cluster.nic.perNode = 8;
        s.cluster.nic.gbps = 200.0;
        auto model = engine::CollectiveModel::fromScenario(s, catalog);
        QVERIFY2(model.isOk(), model.message().c_str());
        auto cal = engine::calibrateSweep(*model, sweep);
        QVERIFY2(cal.isOk(), cal.message().c_str());
        const Errors before = errorsFrom1MiB(cal->rows, false);
        qInfo("vTrain A100 x%d: uncalibrated mean |error| %.1f%% max %.1f%%; RMS sizes kept %.1f%% -> %.1f%%; "
              "held-out RMS %.1f%% -> %.1f%%; %d outlier(s)",
            gpus, 100 * before.meanAbs, 100 * before.maxAbs, 100 * cal->rmsBeforeKept, 100 * cal->rmsAfterKept,
            100 * cal->heldOutRmsBefore, 100 * cal->heldOutRmsAfter, cal->outliers);
        for (const auto& r : cal->rows)
            if (int(r.bytes / (1 << 20)) % 32 == 0 || r.bytes <= 16 << 20 || r.outlier)
                qInfo("  %12.0f B  measured %10.1f us  model %10.1f us (%+6.1f%%) %s/%s  calibrated %+6.1f%%%s",
                    r.bytes, r.measuredSeconds * 1e6, r.beforeSeconds * 1e6, 100 * r.residualBefore(),
                    engine::toString(r.algorithmBefore), engine::toString(r.protocolBefore), 100 * r.residualAfter(),
                    r.outlier ? " outlier" : "");
        QFETCH(double, meanLimit);
        QFETCH(double, maxLimit);
        QFETCH(double, keptRmsLimit);
        QFETCH(double, heldOutRmsLimit);
        QVERIFY2(before.meanAbs <= meanLimit && before.maxAbs <= maxLimit,
            qPrintable(QStringLiteral("uncalibrated mean %1 (limit %2), max %3 (limit %4)")
                           .arg(before.meanAbs)
                           .arg(meanLimit)
                           .arg(before.maxAbs)
                           .arg(maxLimit)));
        QVERIFY2(cal->rmsAfterKept <= keptRmsLimit, qPrintable(QString::number(cal->rmsAfterKept)));
        QVERIFY2(cal->heldOutRmsAfter <= heldOutRmsLimit, qPrintable(QString::number(cal->heldOutRmsAfter)));
        QVERIFY(cal->rejectedByCrossValidation || cal->heldOutRmsAfter <= cal->heldOutRmsBefore);
    }
};

QTEST_GUILESS_MAIN(TestNcclTestsPublic)
#include "tst_nccltestspublic.moc"
