// Every cost formula of the collective model against values worked out by hand from
// NCCL's src/graph/tuning.cc constants on a fixed H100-like machine: 370.8 GB/s of
// NVLink per GPU (18 x 20.6), 18 channels, 48 GB/s per NIC (400 Gb/s x 12/12.5).

#include "engine/collectives/collectivemodel.h"

#include <QtTest>

#include <cmath>

using namespace clusterscope::engine;

namespace {

CollectiveHardware h100Like()
{
    CollectiveHardware hw;
    hw.archIndex = 2;
    hw.nvlink = true;
    hw.nvlsCapable = true;
    hw.infiniband = true;
    hw.intraBytesPerSecond = 370.8e9;
    hw.intraChannels = 18;
    hw.nicBytesPerSecond = 48e9;
    hw.copyBytesPerSecond = 1675e9;
    hw.nicsPerNode = 8;
    hw.gpusPerNode = 8;
    hw.domainGpus = 8;
    hw.totalGpus = 1024;
    hw.nodesPerLeaf = 1000;
    hw.nodesPerPod = 1000;
    return hw;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

class TestCollectiveFormulas : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void terms_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("ranksPerNode");
        QTest::addColumn<int>("nics");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<int>("protocol");
        QTest::addColumn<double>("latencyUs");
        QTest::addColumn<double>("algbwGBps"); // bytes / bandwidth term
        const int ll = 0, ll128 = 1, simple = 2;
        // Ring: base + (nsteps - nInter) x max(intraLat, netOverhead) + nInter x interLat; busBw x n/nsteps.
        QTest::addRow("ring simple allreduce 1 node")
            << "allreduce" << 8 << 8 << 8 << kGiB << "ring" << simple << 8.4 + 14 * 3.4 << 370.8 * 8 / 14;
        QTest::addRow("ring LL allreduce 1 node: min(llMaxBw, busBw/2)")
            << "allreduce" << 8 << 8 << 8 << kGiB << "ring" << ll << 6.6 + 14 * 0.6 << 141.0 * 8 / 14;
        QTest::addRow("ring LL128 allreduce 1 node: 0.92 busBw")
            << "allreduce" << 8 << 8 << 8 << kGiB << "ring" << ll128 << 14 + 14 * 1.9 << 370.8 * 0.92 * 8 / 14;
        QTest::addRow("ring simple allreduce 2 nodes: plateau x1.4")
            << "allreduce" << 16 << 8 << 8 << kGiB << "ring" << simple << (8.4 + 28 * 3.4 + 2 * 14) * 1.4
            << 370.8 * 16 / 30;
        QTest::addRow("ring simple allreduce 2 nodes, small: no plateau")
            << "allreduce" << 16 << 8 << 8 << 8192.0 << "ring" << simple << 8.4 + 28 * 3.4 + 2 * 14 << 370.8 * 16 / 30;
        // Across nodes llMaxBw is the host CPU's row (Intel: 39 GB/s on 2 nodes, 20.4 from 4), not the GPU's.
        QTest::addRow("ring LL allreduce 2 nodes: intraLat x1.8, Intel llMaxBw")
            << "allreduce" << 16 << 8 << 8 << kGiB << "ring" << ll << 6.6 + 28 * 1.08 + 2 * 2.7 << 39.0 * 16 / 30;
        QTest::addRow("ring simple allreduce 2 nodes 1 NIC") << "allreduce" << 16 << 8 << 1 << kGiB << "ring" << simple
                                                             << (8.4 + 28 * 3.4 + 2 * 14) * 1.4 << 48.0 * 16 / 30;
        // One rank per node: every step crosses the network at the Tree's network latency (8.5 us for
        // LL128), and the ring LL128 factor is 0.92 as for any ppn (NCCL 2.23.4 on).
        QTest::addRow("ring LL128 1 rank per node: tree net latency, 0.92")
            << "allreduce" << 4 << 1 << 1 << kGiB << "ring" << ll128 << 14 + 6 * 8.5 << 48.0 * 0.92 * 4 / 6;
        // The tuner's per-channel caps count the search graph's channels (graphs[a]->nChannels), before
        // ncclTopoPostset doubles the channels that run: 8 x 400 Gb/s Hopper NICs keep 8 channels at 48
        // GB/s (ncclTopoDupChannels: ccMin > 80, below 50 GB/s and more than 4 channels), so Tree LL128
        // beyond two nodes is 8 x 29 GB/s busbw, not 16 x 29.
        QTest::addRow("tree LL128 allreduce 4 nodes 8 NICs: 8 search channels x 29")
            << "allreduce" << 32 << 8 << 8 << kGiB << "tree" << ll128 << 14 + 2 * (7 * 1.25 + 2 * 8.5) << 8 * 29.0 / 2;
        // 4 NICs: 4 search channels are doubled to 8 (at 24 GB/s): 8 x 36.7 on two nodes.
        QTest::addRow("tree LL128 allreduce 2 nodes 4 NICs: 4 search channels doubled")
            << "allreduce" << 16 << 8 << 4 << kGiB << "tree" << ll128 << 14 + 2 * (7 * 1.25 + 8.5) << 8 * 36.7 / 2;
        QTest::addRow("ring simple allgather 1 node")
            << "allgather" << 8 << 8 << 8 << kGiB << "ring" << simple << 8.4 + 7 * 3.4 << 370.8 * 8 / 7;
        QTest::addRow("ring simple reducescatter 2 nodes")
            << "reducescatter" << 16 << 8 << 8 << kGiB << "ring" << simple << 8.4 + 14 * 3.4 + 14 << 370.8 * 16 / 15;
        QTest::addRow("ring simple broadcast 1 node")
            << "broadcast" << 8 << 8 << 8 << kGiB << "ring" << simple << 8.4 + 8 * 3.4 << 370.8;
        QTest::addRow("ring simple reduce 2 nodes")
            << "reduce" << 16 << 8 << 8 << kGiB << "ring" << simple << 8.4 + 15 * 3.4 + 14 << 370.8;
        // Tree: min(0.92 busBw, nCh perChMaxTree) x 0.5 x correction; 2((ppn-1) intraLat + log2(nNodes) interLat).
        QTest::addRow("tree simple 1 node, 1 GiB (no correction)")
            << "allreduce" << 8 << 8 << 8 << kGiB << "tree" << simple << 8.4 + 2 * 7 * 4.0 << 370.8 * 0.92 * 0.5;
        QTest::addRow("tree simple 1 node, 64 KiB (correction .6)")
            << "allreduce" << 8 << 8 << 8 << 65536.0 << "tree" << simple << 8.4 + 2 * 7 * 4.0
            << 370.8 * 0.92 * 0.5 * 0.6;
        // ncclTopoGetAlgoTime corrects Tree only below logSize 23 (512 MiB): the table's last column is not read.
        QTest::addRow("tree simple 1 node, 512 MiB (no correction from 2^23 x 64 B)")
            << "allreduce" << 8 << 8 << 8 << 512.0 * 1024 * 1024 << "tree" << simple << 8.4 + 2 * 7 * 4.0
            << 370.8 * 0.92 * 0.5;
        QTest::addRow("tree simple 1 node, 256 MiB (correction .9)")
            << "allreduce" << 8 << 8 << 8 << 256.0 * 1024 * 1024 << "tree" << simple << 8.4 + 2 * 7 * 4.0
            << 370.8 * 0.92 * 0.5 * 0.9;
        // One GPU per node: the tree graph's pattern is NCCL_TOPO_PATTERN_TREE (search.cc), Tree busBw x 0.85
        // (tuning.cc, 2.26.2 on). 4 nodes: NIC relief 2(n-1)/n / 2 = 0.75, 1 NIC doubled to 2 search channels
        // (cap 2 x 36 GB/s, not binding); latency 2 x log2(4) x the Tree network latency (ppn = 1).
        QTest::addRow("tree simple 4 nodes x 1 rank: pattern TREE x 0.85")
            << "allreduce" << 4 << 1 << 1 << kGiB << "tree" << simple << 8.4 + 2 * 2 * 14.0
            << 48.0 * 0.75 * 0.92 * 0.85 * 0.5;
        QTest::addRow("tree LL 2 nodes x 1 rank: pattern TREE x 0.85 after llMaxBw")
            << "allreduce" << 2 << 1 << 1 << kGiB << "tree" << ll << 6.8 + 2 * 5.0 << 48.0 * 0.92 / 3.8 * 0.85 * 0.5;
        QTest::addRow("tree LL 4 nodes, 4 KiB: Intel llMaxBw, correction .7")
            << "allreduce" << 32 << 8 << 8 << 4096.0 << "tree" << ll << 6.8 + 2 * (7 * 1.08 + 2 * 5.0)
            << 20.4 * 0.5 * 0.7;
        QTest::addRow("tree LL128 2 nodes 1 NIC: perChMaxTreeLL128 cap")
            << "allreduce" << 16 << 8 << 1 << kGiB << "tree" << ll128 << 14 + 2 * (7 * 1.25 + 1 * 8.5)
            << 2 * 36.7 * 0.5;
        QTest::addRow("tree LL128 1 node: 7/9")
            << "allreduce" << 8 << 8 << 8 << kGiB << "tree" << ll128 << 14 + 2 * 7 * 1.25 << 370.8 * 0.92 * 7 / 9 * 0.5;
        // Beyond two nodes a double binary tree node sends 2 S, as a ring does (tuning.cc: bwInter, not
        // bwIntra, from three nodes on): the NIC relief over the ring is 2(n-1)/n / 2.
        QTest::addRow("tree simple 4 nodes 1 NIC: NIC relief (n-1)/n")
            << "allreduce" << 32 << 8 << 1 << kGiB << "tree" << simple << 8.4 + 2 * (7 * 4.0 + 2 * 14)
            << 48.0 * (31.0 / 32) * 0.92 * 0.5;
        // NVLS: bwIntra x 0.85 x 15/16 over S(1 + 1/ppn); multi-node bounded by the NICs over 2(m-1)/m.
        QTest::addRow("nvls allreduce 1 node")
            << "allreduce" << 8 << 8 << 8 << kGiB << "nvls" << simple << 25.0 << 370.8 * 0.85 * 15 / 16 / 1.125;
        QTest::addRow("nvls allreduce 4 nodes (SHARP: intra-bound)")
            << "allreduce" << 32 << 8 << 8 << kGiB << "nvls" << simple << 25.0 + 18 << 370.8 * 0.85 * 15 / 16 / 1.125;
        QTest::addRow("nvls allreduce 4 nodes 1 NIC (SHARP 0.9)")
            << "allreduce" << 32 << 8 << 1 << kGiB << "nvls" << simple << 25.0 + 18 << 0.9 * 48;
        QTest::addRow("nvls allgather 1 node")
            << "allgather" << 8 << 8 << 8 << kGiB << "nvls" << simple << 25.0 << 370.8 * 0.85 * 15 / 16;
        // Beyond two nodes the NICs carry 2 S. The tuner term, which chooses, keeps it; the time of a chosen
        // NVLSTree is capped further per NVLS head (pipeline below).
        QTest::addRow("nvlstree allreduce 4 nodes")
            << "allreduce" << 32 << 8 << 8 << kGiB << "nvlstree" << simple << 25.0 + 2 * 2 * 20.9 << 384.0 / 2;
        // tuning.cc: NVLSTree takes bwInter/2 beyond two nodes (2.26; 2.30: bwInter x 2 up to two nodes).
        QTest::addRow("nvlstree allreduce 8 nodes 1 NIC: NIC over 2 S")
            << "allreduce" << 64 << 8 << 1 << kGiB << "nvlstree" << simple << 25.0 + 2 * 3 * 20.9 << 48.0 / 2;
        // CollNet: SHARP halves node egress; NCCL's 0.9.
        QTest::addRow("collnet direct 4 nodes") << "allreduce" << 32 << 8 << 8 << kGiB << "collnet_direct" << simple
                                                << 2 * (3.7 + 0.4 * 7) + 31 << 370.8 / 1.75;
        QTest::addRow("collnet direct 4 nodes 1 NIC") << "allreduce" << 32 << 8 << 1 << kGiB << "collnet_direct"
                                                      << simple << 2 * (3.7 + 0.4 * 7) + 31 << 0.9 * 48;
        QTest::addRow("collnet chain 4 nodes")
            << "allreduce" << 32 << 8 << 8 << kGiB << "collnet_chain" << simple << 2 * 7 * 2.8 + 30 << 370.8 / 2;
        // PAT: log2(nNodes) interLat / 3.5 + 2.8 nRanks; ring bw x 0.75.
        QTest::addRow("pat allgather 8 nodes x 1")
            << "allgather" << 8 << 1 << 1 << kGiB << "pat" << simple << 8 + 3 * 14 / 3.5 + 2.8 * 8 << 48 * 0.75 * 8 / 7;
        // Textbook algorithms with NCCL's Ring/Simple step latencies (8.4 base, 3.4 NVLink, 14 net).
        QTest::addRow("halving-doubling allreduce 2 nodes")
            << "allreduce" << 16 << 8 << 8 << kGiB << "halving_doubling" << simple << 8.4 + 2 * (3 * 3.4 + 14)
            << 1.0 / (1.75 / 370.8 + 1.0 / 384);
        QTest::addRow("halving-doubling allgather 1 node")
            << "allgather" << 8 << 8 << 8 << kGiB << "halving_doubling" << simple << 8.4 + 3 * 3.4 << 370.8 / (7.0 / 8);
        QTest::addRow("direct one-shot allreduce 1 node")
            << "allreduce" << 8 << 8 << 8 << kGiB << "direct" << simple << 8.4 + 3.4 << 370.8 / 7;
        QTest::addRow("direct alltoall 2 nodes")
            << "alltoall" << 16 << 8 << 8 << kGiB << "direct" << simple << 8.4 + 14 + 15 * 4.5 << 384.0 / (0.5 * 8);
        // One node: the per-peer cost over 7 peers, and NVLink send/receive at 0.9 of the scale-up rate
        // (extracost.cpp kP2pPerPeerUs, kP2pNvlinkBandwidthFraction).
        QTest::addRow("direct alltoall 1 node") << "alltoall" << 8 << 8 << 8 << kGiB << "direct" << simple
                                                << 8.4 + 3.4 + 7 * 4.5 << 0.9 * 370.8 / (7.0 / 8);
        QTest::addRow("direct sendrecv 2 nodes")
            << "sendrecv" << 16 << 8 << 8 << kGiB << "direct" << simple << 8.4 + 14 << 48.0;
        // A send runs on NCCL's p2p channels (extracost.cpp p2pChannels): one node of 8, p2pnChannels 32 (18
        // channels rounded up), nChannelsMin 32 -> 4 (x 8 ranks <= 32); doubled while a part exceeds 16 MiB
        // (32 x the 512 KiB NVLink chunk); each channel one NVLink's 20.6 GB/s.
        const double kMiB = 1024.0 * 1024.0;
        QTest::addRow("direct sendrecv 1 node 64 MiB: 4 channels")
            << "sendrecv" << 8 << 8 << 8 << 64 * kMiB << "direct" << simple << 8.4 + 3.4 << 4 * 20.6;
        QTest::addRow("direct sendrecv 1 node 128 MiB: 8 channels")
            << "sendrecv" << 8 << 8 << 8 << 128 * kMiB << "direct" << simple << 8.4 + 3.4 << 8 * 20.6;
        QTest::addRow("direct sendrecv 1 node 1 GiB: the links")
            << "sendrecv" << 8 << 8 << 8 << kGiB << "direct" << simple << 8.4 + 3.4 << 370.8;
        // 4 ranks: nChannelsMin 8, so 8 channels up to 128 MiB.
        QTest::addRow("direct sendrecv 4 ranks 1 node 32 MiB: 8 channels")
            << "sendrecv" << 4 << 4 << 4 << 32 * kMiB << "direct" << simple << 8.4 + 3.4 << 8 * 20.6;
        // 10 nodes of 1 rank and 1 NIC: the communicator's 2 channels leave 1 per peer; a network channel
        // moves NCCL_STEPS x 128 KiB per 42 us round trip.
        QTest::addRow("direct sendrecv 10 nodes x 1: one network channel")
            << "sendrecv" << 10 << 1 << 1 << kGiB << "direct" << simple << 8.4 + 14 << 8 * 131072 / 42e-6 / 1e9;
        // 2 nodes of 1: 2 channels, the NIC's rate.
        QTest::addRow("direct sendrecv 2 nodes x 1: the NIC")
            << "sendrecv" << 2 << 1 << 1 << kGiB << "direct" << simple << 8.4 + 14 << 48.0;
        QTest::addRow("direct broadcast 1 node")
            << "broadcast" << 8 << 8 << 8 << kGiB << "direct" << simple << 8.4 + 3.4 << 370.8 / 7;
        QTest::addRow("hierarchical allreduce 4 nodes")
            << "allreduce" << 32 << 8 << 8 << kGiB << "hierarchical" << simple << 8.4 + 2 * 7 * 3.4 + 2 * 3 * 14
            << 1.0 / (1.75 / 370.8 + 0.1875 / 48);
        QTest::addRow("parameter server 4 nodes (2 N S through the hub)")
            << "allreduce" << 32 << 8 << 8 << kGiB << "parameter_server" << simple << 2 * (8.4 + 14)
            << 384.0 / (2 * 32);
    }
    void terms()
    {
        QFETCH(QString, op);
        QFETCH(int, ranks);
        QFETCH(int, ranksPerNode);
        QFETCH(int, nics);
        QFETCH(double, bytes);
        QFETCH(QString, algorithm);
        QFETCH(int, protocol);
        QFETCH(double, latencyUs);
        QFETCH(double, algbwGBps);
        const CollectiveModel m(h100Like());
        CollectiveRequest r;
        r.op = *parseCollectiveOp(op.toStdString());
        r.bytes = bytes;
        r.group = GroupPlacement { ranks, ranksPerNode, nics, ranks > ranksPerNode ? 1 : 0, 0 };
        const auto a = *parseCollectiveAlgorithm(algorithm.toStdString());
        const CollectiveTerms t = m.terms(r, a, static_cast<CollectiveProtocol>(protocol));
        QVERIFY(t.supported);
        QVERIFY2(std::abs(t.latencySeconds * 1e6 / latencyUs - 1) < 1e-9,
            qPrintable(QStringLiteral("latency %1 us, expected %2").arg(t.latencySeconds * 1e6).arg(latencyUs)));
        const double algbw = bytes / t.bandwidthSeconds / 1e9;
        QVERIFY2(std::abs(algbw / algbwGBps - 1) < 1e-9,
            qPrintable(QStringLiteral("algbw %1, expected %2").arg(algbw).arg(algbwGBps)));
        QCOMPARE(t.tier, ranks > ranksPerNode ? 1 : 0);
    }

    void ringChannelCap_data()
    {
        QTest::addColumn<int>("arch");
        QTest::addColumn<int>("ranksPerNode");
        QTest::addColumn<int>("nics");
        QTest::addColumn<double>("busbwGBps"); // achieved busbw of a 1 GiB ring Simple reduce_scatter
        // Across nodes a ring runs twice its search graph's channels (ncclTopoPostset), each one thread
        // block moving at most one NVLink's worth (20.6 GB/s on Hopper, 40.1 on Blackwell): 8 x 400 Gb/s
        // Hopper NICs keep 8 search channels -> 16 running -> 329.6 GB/s, below the NICs' 384.
        QTest::addRow("hopper 8 NICs: 16 channels bind") << 2 << 8 << 8 << 16 * 20.6;
        // 4 NICs: 4 search channels duplicated to 8, 16 running (329.6): the NICs' 192 GB/s bind first.
        QTest::addRow("hopper 4 NICs: NIC-bound") << 2 << 8 << 4 << 4 * 48.0;
        QTest::addRow("hopper 1 NIC: NIC-bound") << 2 << 8 << 1 << 48.0;
        // Blackwell: 16 x 40.1 = 641.6 GB/s, the NICs' 384 bind.
        QTest::addRow("blackwell 8 NICs: NIC-bound") << 3 << 8 << 8 << 8 * 48.0;
        // One rank per node: no NVLink hop, the NIC's rate.
        QTest::addRow("hopper 1 rank per node: NIC-bound") << 2 << 1 << 1 << 48.0;
    }
    void ringChannelCap()
    {
        QFETCH(int, arch);
        QFETCH(int, ranksPerNode);
        QFETCH(int, nics);
        QFETCH(double, busbwGBps);
        CollectiveHardware hw = h100Like();
        hw.archIndex = arch;
        if (arch == 3)
            hw.intraBytesPerSecond = 18 * 40.1e9;
        const CollectiveModel m(hw);
        CollectiveRequest r;
        r.op = CollectiveOp::ReduceScatter;
        r.bytes = kGiB;
        const int ranks = 2 * ranksPerNode;
        r.group = GroupPlacement { ranks, ranksPerNode, nics, 1, 0 };
        const CollectiveTerms t = m.terms(r, CollectiveAlgorithm::Ring, CollectiveProtocol::Simple);
        QVERIFY(t.supported);
        const double busbw = r.bytes / t.achievedBandwidthSeconds * (ranks - 1) / ranks / 1e9;
        QVERIFY2(std::abs(busbw / busbwGBps - 1) < 1e-9,
            qPrintable(QStringLiteral("busbw %1 GB/s, expected %2").arg(busbw).arg(busbwGBps)));
        // The tuner's term, which chooses the algorithm, is not capped.
        QVERIFY(t.bandwidthSeconds <= t.achievedBandwidthSeconds);
    }

    // NCCL's NVLS search keeps at most NCCL_MAX_NVLS_ARITY = 32 heads (src/graph/search.cc: maxChannels =
    // min(NCCL_MAX_NVLS_ARITY, GPUs)), however many GPUs own a NIC: a 64-GPU domain with 64 NICs across two
    // domains runs NVLSTree through 16 channels x 32 heads, not x 64. At 1 GiB the 128 KiB chunks give q =
    // 1 GiB / (512 x 128 KiB) = 16 per pipeline (8 with 64 heads) through 3 stages; the in-switch stage sets
    // the period (algbw 370.8 x 0.85 x 15/16 / (1 + 1/64)) and a fill stage crosses the network at the
    // domain's 64 x 48 GB/s.
    void nvlsHeadsAtMostThirtyTwo()
    {
        CollectiveHardware hw = h100Like();
        hw.gpusPerNode = 64;
        hw.domainGpus = 64;
        hw.nicsPerNode = 64;
        const CollectiveModel m(hw);
        CollectiveRequest r;
        r.bytes = kGiB;
        r.group = GroupPlacement { 128, 64, 64, 1, 0, 1 };
        const CollectiveTerms t = m.terms(r, CollectiveAlgorithm::NvlsTree, CollectiveProtocol::Simple);
        QVERIFY(t.supported);
        const double algbw = 370.8 * 0.85 * 15 / 16 / (1 + 1.0 / 64);
        QVERIFY2(std::abs(r.bytes / t.bandwidthSeconds / 1e9 / algbw - 1) < 1e-9,
            qPrintable(QString::number(r.bytes / t.bandwidthSeconds / 1e9)));
        const double s = algbw / (64 * 48);
        const double factor = t.achievedBandwidthSeconds / t.bandwidthSeconds;
        QVERIFY2(std::abs(factor / ((16 + 2 * s) / 16) - 1) < 1e-12, qPrintable(QString::number(factor, 'g', 12)));
    }

    void pipeline_data()
    {
        // The time NCCL takes once it has chosen (ncclpipeline.cpp): the per-call overhead on the
        // latency, and q chunks through D stages on the bandwidth, W x (q + D - 1) / q, with the
        // chunk src/enqueue.cc calcCollChunking picks. H100-like, 2 nodes x 8 ranks, 8 NICs: NVLSTree
        // runs 16 channels x 8 heads = 128 pipelines through D = 1 + 2 log2(2) = 3 stages.
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<double>("overheadUs");
        QTest::addColumn<double>("bandwidthFactor");
        QTest::addColumn<int>("gpusPerThread"); ///< GPUs one host thread launches per call (nccl-tests -g)
        const double kMiB = 1024.0 * 1024.0;
        // On two nodes the tuner's NVLSTree runs at the in-switch stage's algbw (NVLS 370.8 x 0.85 x 15/16 /
        // (1 + 1/8) = 262.7 GB/s), but a chosen NVLSTree streams at NCCL's cap of 57.7 GB/s of bus bandwidth
        // per head (8 heads: algbw 461.6 x 16 / 30 = 246.2 GB/s), and a fill stage crosses the network at
        // the node's 384 GB/s: s = 246.2 / 384 of a period, so q chunks take 262.7 / 246.2 x (q + 2 s) / q
        // of the tuner's time.
        const double capAlg2 = 8 * 57.7 * 16 / 30;
        const double stream2 = 370.8 * 0.85 * 15 / 16 / 1.125 / capAlg2;
        const double s = capAlg2 / 384;
        // 4 MiB: below 8 MiB (1 x 128 x 64 KiB) the chunk is 32 KiB: q = 1.
        QTest::addRow("nvlstree 4 MiB: one 32 KiB chunk")
            << "nvlstree" << 16 << 4 * kMiB << 14.0 << stream2 * (1 + 2 * s) << 1;
        // 16 MiB: below 64 MiB (4 x 128 x 128 KiB) the chunk is 64 KiB: q = 2.
        QTest::addRow("nvlstree 16 MiB: two 64 KiB chunks")
            << "nvlstree" << 16 << 16 * kMiB << 14.0 << stream2 * (2 + 2 * s) / 2 << 1;
        // 64 MiB: 128 KiB chunks, q = 4.
        QTest::addRow("nvlstree 64 MiB: four 128 KiB chunks")
            << "nvlstree" << 16 << 64 * kMiB << 14.0 << stream2 * (4 + 2 * s) / 4 << 1;
        // 1 GiB: q = 64.
        QTest::addRow("nvlstree 1 GiB: 64 chunks")
            << "nvlstree" << 16 << 1024 * kMiB << 14.0 << stream2 * (64 + 2 * s) / 64 << 1;
        // 4 nodes: 64 KiB chunks (NVLS_TREE's cap from 4 nodes), q = 64 MiB / (128 x 64 KiB) = 8, D = 1 + 2 x 2
        // = 5. The tuner's algbw is the NICs' 384 / 2 (interior tree nodes send each chunk twice); the chosen
        // NVLSTree streams at the cap of 45.5 GB/s per head (algbw 8 x 45.5 x 32 / 62 = 187.9 GB/s), and a
        // filling chunk crosses each hop once at the NIC's rate: s = 187.9 / 384, 192 / 187.9 x (8 + 4 s) / 8.
        const double capAlg4 = 8 * 45.5 * 32 / 62;
        QTest::addRow("nvlstree 4 nodes 64 MiB: fill stages at most half a period")
            << "nvlstree" << 32 << 64 * kMiB << 14.0 << 192.0 / capAlg4 * (8 + 4 * capAlg4 / 384) / 8 << 1;
        // One node, NVLS: three stages (scatter, in-switch reduce and multicast, gather; all_reduce.h);
        // 16 channels x 8 heads, 16 MiB below 64 MiB (8 x 128 x 64 KiB): 32 KiB chunks, q = 4: 6 / 4.
        // The per-call overhead on one node is one kernel launch per GPU of the calling thread (3.0 us).
        QTest::addRow("nvls one node 16 MiB: four chunks, three stages") << "nvls" << 8 << 16 * kMiB << 3.0 << 1.5 << 1;
        // nccl-tests -g 8: one thread launches the 8 GPUs' kernels in turn: 8 launches per call.
        QTest::addRow("nvls one node 16 MiB, -g 8") << "nvls" << 8 << 16 * kMiB << 8 * 3.0 << 1.5 << 8;
        // Tree Simple across nodes stores and forwards 512 KiB chunks (one step) through 2 x 7 NVLink
        // hops and 2 network hops, 16 channels. A hop moves one channel's share: 384 / 16 = 24 GB/s of
        // network against 370.8 / 18 = 20.6 GB/s of NVLink, so an NVLink hop is a full stage: D = 16.
        // 1 GiB: 64 MiB per channel, q = 128: factor 143 / 128 (the tree correction ends at 256 MB).
        QTest::addRow("tree simple 2 nodes 1 GiB: 16 stages")
            << "tree" << 16 << 1024 * kMiB << 14.0 << 143.0 / 128 << 1;
        // 8 MiB: one 512 KiB chunk per channel, q = 1: factor 16, times the tree correction the tuner
        // applied at log2(8 MiB / 64) = 17 (0.8), which the pipeline replaces.
        QTest::addRow("tree simple 2 nodes 8 MiB: one chunk") << "tree" << 16 << 8 * kMiB << 14.0 << 16 * 0.8 << 1;
        // Ring has no chunk pipeline (its steps are the tuner's latency term). On one node it keeps the
        // tuner's bandwidth (18 channels x 20.6 GB/s = the links' 370.8). Across nodes it runs 16 channels
        // (8 search channels for 8 x 400 Gb/s NICs, doubled by ncclTopoPostset), each one thread block
        // moving at most one NVLink's 20.6 GB/s: 329.6 GB/s busbw where the tuner counts 370.8.
        constexpr double kRunningRingFactor = 370.8 / (16 * 20.6);
        QTest::addRow("ring 2 nodes 16 MiB") << "ring" << 16 << 16 * kMiB << 14.0 << kRunningRingFactor << 1;
        QTest::addRow("ring one node 16 MiB") << "ring" << 8 << 16 * kMiB << 3.0 << 1.0 << 1;
        // Across nodes the proxy's network progress, whatever the launches (14 us).
        QTest::addRow("ring 2 nodes 16 MiB, -g 8") << "ring" << 16 << 16 * kMiB << 14.0 << kRunningRingFactor << 8;
    }
    void pipeline()
    {
        QFETCH(QString, algorithm);
        QFETCH(int, ranks);
        QFETCH(double, bytes);
        QFETCH(double, overheadUs);
        QFETCH(double, bandwidthFactor);
        QFETCH(int, gpusPerThread);
        const CollectiveModel m(h100Like());
        CollectiveRequest r;
        r.bytes = bytes;
        r.group = GroupPlacement { ranks, 8, 8, ranks > 8 ? 1 : 0, 0, gpusPerThread };
        const auto a = *parseCollectiveAlgorithm(algorithm.toStdString());
        const CollectiveTerms t = m.terms(r, a, CollectiveProtocol::Simple);
        QVERIFY(t.supported);
        QVERIFY2(std::abs((t.achievedLatencySeconds - t.latencySeconds) * 1e6 - overheadUs) < 1e-9,
            qPrintable(QString::number((t.achievedLatencySeconds - t.latencySeconds) * 1e6)));
        QVERIFY2(std::abs(t.achievedBandwidthSeconds / t.bandwidthSeconds / bandwidthFactor - 1) < 1e-12,
            qPrintable(QString::number(t.achievedBandwidthSeconds / t.bandwidthSeconds)));
        // The estimate of a pinned algorithm is the achieved time (no calibration).
        r.algorithm = a;
        const CollectiveEstimate e = m.estimate(r);
        const CollectiveTerms chosen = m.terms(r, a, e.protocol);
        QVERIFY(std::abs(e.seconds / (chosen.achievedLatencySeconds + chosen.achievedBandwidthSeconds) - 1) < 1e-12);
    }

    void busbwFactors_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<double>("factor");
        // NVIDIA/nccl-tests doc/PERFORMANCE.md (busbw factors).
        QTest::addRow("allreduce 8") << "allreduce" << 8 << 2.0 * 7 / 8;
        QTest::addRow("allreduce 2") << "allreduce" << 2 << 1.0;
        QTest::addRow("reducescatter 8") << "reducescatter" << 8 << 7.0 / 8;
        QTest::addRow("allgather 16") << "allgather" << 16 << 15.0 / 16;
        QTest::addRow("alltoall 4") << "alltoall" << 4 << 3.0 / 4;
        QTest::addRow("broadcast 8") << "broadcast" << 8 << 1.0;
        QTest::addRow("reduce 8") << "reduce" << 8 << 1.0;
        QTest::addRow("sendrecv 8") << "sendrecv" << 8 << 1.0;
        QTest::addRow("allreduce 1") << "allreduce" << 1 << 0.0;
    }
    void busbwFactors()
    {
        QFETCH(QString, op);
        QFETCH(int, ranks);
        QFETCH(double, factor);
        const auto o = *parseCollectiveOp(op.toStdString());
        QCOMPARE(busBandwidthFactor(o, ranks), factor);
        // The estimate reports algbw = S / t and busbw = algbw x factor.
        const CollectiveModel m(h100Like());
        CollectiveRequest r;
        r.op = o;
        r.bytes = 256e6;
        r.group = GroupPlacement { ranks, std::min(ranks, 8), 8, ranks > 8 ? 1 : 0, 0 };
        const CollectiveEstimate e = m.estimate(r);
        QVERIFY(e.valid);
        QCOMPARE(e.algbwBytesPerSecond, r.bytes / e.seconds);
        QCOMPARE(e.busbwBytesPerSecond, e.algbwBytesPerSecond * factor);
    }
};

QTEST_GUILESS_MAIN(TestCollectiveFormulas)
#include "tst_collectiveformulas.moc"
