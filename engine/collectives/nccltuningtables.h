#pragma once

// NCCL's default tuning constants (NCCL 2.30 src/graph/tuning.cc: baseLat, hwLat, llMaxBws,
// perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws, perChMaxNVLSTreeBws, treeCorrectionFactor,
// and the factors of ncclTopoTuneModel). Internal to engine/collectives.

namespace clusterscope::engine::nccl {

// Algorithm rows of the NCCL tables (NCCL's own order).
enum Algo { kTree = 0, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree, kPat, kAlgoCount };
// Hardware rows of hwLat.
enum Hw { kNvlink = 0, kPci, kNet, kHwCount };

// A negative entry marks a protocol NCCL does not run for that algorithm ("-" in the notes).
inline constexpr double kNa = -1.0;

/// baseLat[algo][LL, LL128, Simple] in microseconds.
inline constexpr double kBaseLatencyUs[kAlgoCount][3] = {
    { 6.8, 14.0, 8.4 }, // Tree
    { 6.6, 14.0, 8.4 }, // Ring
    { 0, 0, 0 }, // CollNetDirect
    { 0, 0, 0 }, // CollNetChain
    { 0, 0, 0 }, // NVLS
    { 0, 0, 0 }, // NVLSTree
    { 8, 8, 8 }, // PAT
};

/// hwLat[hw][algo][LL, LL128, Simple] in microseconds.
inline constexpr double kHwLatencyUs[kHwCount][kAlgoCount][3] = {
    {
        // NVLink
        { 0.6, 1.25, 4.0 }, // Tree
        { 0.6, 1.9, 3.4 }, // Ring
        { kNa, kNa, 3.7 }, // CollNetDirect
        { kNa, kNa, 2.8 }, // CollNetChain
        { kNa, kNa, 25 }, // NVLS
        { kNa, kNa, 25 }, // NVLSTree
        { kNa, kNa, 4.0 }, // PAT
    },
    {
        // PCI
        { 1.0, 1.9, 4.0 }, // Tree
        { 1.0, 2.5, 5.7 }, // Ring
        { kNa, kNa, 3.7 }, // CollNetDirect
        { kNa, kNa, 2.8 }, // CollNetChain
        { kNa, kNa, 0 }, // NVLS
        { kNa, kNa, 0 }, // NVLSTree
        { kNa, kNa, 4.0 }, // PAT
    },
    {
        // NET
        { 5.0, 8.5, 14 }, // Tree
        { 2.7, 4.0, 14.0 }, // Ring
        { kNa, kNa, 31 }, // CollNetDirect
        { kNa, kNa, 30 }, // CollNetChain
        { kNa, kNa, 18 }, // NVLS
        { kNa, kNa, 20.9 }, // NVLSTree
        { kNa, kNa, 14 }, // PAT
    },
};
/// The NET latency of NVLSTree (Simple) before NCCL 2.28.9: 14 us; 2.28.9 raised it to 20.9
/// (src/graph/tuning.cc ncclTunerConstantsDefaults, v2.28.7-1 -> v2.28.9-1). A run whose log states an
/// older NCCL (CollectiveHardware::ncclVersionCode) is costed with the value its tuner had.
inline constexpr double kNvlsTreeNetLatencyBefore22809Us = 14.0;
inline constexpr int kNcclVersionNvlsTreeNetLatency = 22809;

// Per-architecture caps in GB/s, [arch: Volta, Ampere, Hopper, Blackwell][1 node, 2 nodes, >= 4 nodes]
// (NCCL indexes nNodes <= 2 ? nNodes - 1 : 2).
/// llMaxBws: the row is the GPU architecture on one node only; across nodes NCCL picks it by the
/// host CPU (tuning.cc "index1 = nNodes == 1 ? compCapIndex : AMD or mixed ? 1 : 0": rows
/// "Volta-N1/Intel-N2/Intel-N4", "Ampere-N1/AMD-N2/AMD-N4"), so a multi-node Blackwell ring LL is
/// capped at 39 GB/s on Intel hosts, not 90.
inline constexpr double kLlMaxBwGBps[4][3]
    = { { 39, 39, 20.4 }, { 87.7, 22.5, 19.0 }, { 141, 45, 35 }, { 282, 90, 70 } };
/// The llMaxBws row across nodes: Intel x86 hosts (row 0). The scenario does not name the host CPU;
/// DGX/HGX H100, H200 and B200 servers and the clouds' H100/H200/B200 VMs run Intel Xeons, and
/// getNetOverhead's 1 us (kNetOverheadUs) is the Intel figure too.
inline constexpr int kLlMaxBwMultiNodeRow = 0;
inline constexpr double kPerChMaxRingLL128GBps[4][3]
    = { { 20, 20, 20 }, { 20, 20, 20 }, { 36.7, 36.7, 36.7 }, { 40, 40, 40 } };
inline constexpr double kPerChMaxTreeLL128GBps[4][3]
    = { { 20, 20, 20 }, { 20, 20, 20 }, { 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 } };
inline constexpr double kPerChMaxTreeGBps[4][3]
    = { { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 } };
/// NCCL_MAX_NVLS_ARITY (src/include/device.h): at most this many NVLS heads (search.cc ncclTopoCompute:
/// maxChannels = min(NCCL_MAX_NVLS_ARITY, GPUs) for the NVLS pattern).
inline constexpr double kMaxNvlsArity = 32;
inline constexpr double kPerChMaxNvlsTreeGBps[4][3]
    = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 57.7, 45.5 }, { 0, 96.0, 80.0 } };

/// Per-channel NVLink bandwidth NCCL assumes (GB/s): SM70/SM80 20.0, SM90 20.6, SM100 40.1.
inline constexpr double kNvlinkChannelGBps[4] = { 20.0, 20.0, 20.6, 40.1 };
/// NVLS efficiency (Hopper 0.85, Blackwell 0.74); Volta/Ampere have no NVLS.
inline constexpr double kNvlsEfficiency[4] = { 0, 0, 0.85, 0.74 };

/// Tree AllReduce bandwidth correction indexed by log2(bytes / 64), 64 B .. 256 MB, [LL, LL128, Simple].
inline constexpr int kTreeCorrectionEntries = 24;
inline constexpr double kTreeCorrection[3][kTreeCorrectionEntries] = {
    { 1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1, 1 },
    { 1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1, 1 },
    { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9 },
};

/// Ring Simple multi-node AllReduce latency multiplier (plateau effect), Ampere and later / before.
inline constexpr double kRingPlateauLatencyFactor = 1.4;
inline constexpr double kRingPlateauLatencyFactorPreAmpere = 1.9;
/// Network proxy overhead per step (microseconds), x3 for Simple, multi-node only.
inline constexpr double kNetOverheadUs = 1.0;
/// Multi-node LL: intra-node latency x 1.8 (tuning.cc: "if (nNodes > 1 && p == LL) intraLat *= 1.8").
inline constexpr double kMultiNodeLlIntraFactor = 1.8;

// Per-algorithm bandwidth factors of ncclTopoTuneModel (src/graph/tuning.cc), named here so that
// every inline factor of the cost functions has one definition and one source.

/// Ring LL128: busBw x 0.92 (tuning.cc "busBw * (0.92 /*120.0/128.0*/)"; the ppn < 2 ? 0.7 case was
/// dropped in NCCL 2.23.4).
inline constexpr double kRingLl128Factor = 0.92;
/// Ring and Tree LL: half the bus bandwidth (LL sends a 4-byte flag with every 4 bytes of data),
/// tuning.cc "busBw = std::min(llMaxBw, busBw * .5)" for Ring.
inline constexpr double kRingLlFactor = 0.5;
/// Tree Simple: busBw x 0.92 capped by nChannels x perChMaxTreeBw (tuning.cc "busBw*.92").
inline constexpr double kTreeFactor = 0.92;
/// Tree LL: busBw / 3.8 capped by llMaxBw (tuning.cc "busBw*1.0/3.8").
inline constexpr double kTreeLlDivisor = 3.8;
/// Tree LL128: busBw x 7/9 on one node, x 120/128 across nodes (tuning.cc
/// "nNodes == 1 ? 7.0/9.0 : 120.0/128.0"; 120 of every 128 bytes of an LL128 line carry data).
inline constexpr double kTreeLl128OneNodeFactor = 7.0 / 9.0;
inline constexpr double kTreeLl128Factor = 120.0 / 128.0;
/// Tree and CollNet: algBw = busBw x 0.5 (tuning.cc "ratio = .5" for Tree/CollNet: each byte
/// crosses the tree up and down).
inline constexpr double kTreeAlgorithmRatio = 0.5;
/// CollNet (SHARP) bandwidth x 0.9 (tuning.cc "if (a == NCCL_ALGO_COLLNET_*) busBw *= .9").
inline constexpr double kCollNetFactor = 0.9;
/// PAT: ring bandwidth x 0.75 (tuning.cc "if (a == NCCL_ALGO_PAT) busBw *= .75").
inline constexpr double kPatFactor = 0.75;
/// CollNetDirect latency: 2 x (min(1, ppn-1) x intraLat + 0.4 us x (ppn-1)) + interLat
/// (tuning.cc "(nRanks/nNodes-1)*0.4": 0.4 us per local peer of the direct scatter/gather).
inline constexpr double kCollNetDirectPerPeerUs = 0.4;
/// PAT latency: log2(nNodes) x interLat / 3.5 + 2.8 us x nRanks (tuning.cc
/// "log2i(nNodes) * (interLat/3.5) + nRanks * 2.8").
inline constexpr double kPatInterLatDivisor = 3.5;
inline constexpr double kPatPerRankUs = 2.8;

// The chunk pipeline NCCL runs (src/enqueue.cc calcCollChunking; buffer sizes src/include/device.h,
// src/init.cc; NVLS defaults src/transport/nvls.cc), used by ncclpipeline.cpp.

/// NCCL_STEPS: slots of a connection's FIFO (src/include/device.h).
inline constexpr double kSteps = 8;
// The Simple protocol's step, NCCL_BUFFSIZE (default 4 MiB, src/init.cc DEFAULT_BUFFSIZE) / NCCL_STEPS,
// is CollectiveHardware::simpleStepBytes: net transports change the buffer (catalog net_transports).
/// LL buffer: NCCL_LL_LINES_PER_THREAD (8) x NCCL_LL_MAX_NTHREADS (512) x NCCL_STEPS x 16-byte lines;
/// a chunk is one step and carries half of it as data (4-byte flag per 4 bytes).
inline constexpr double kLlChunkBytes = 8.0 * 512 * 16 / 2;
/// LL128 buffer: NCCL_LL128_ELEMS_PER_THREAD (120) x NCCL_LL128_MAX_NTHREADS (640) x 8 B per step;
/// 15 of every 16 8-byte words carry data (NCCL_LL128_DATAELEMS / NCCL_LL128_LINEELEMS).
inline constexpr double kLl128ChunkBytes = 120.0 * 640 * 8 * 15 / 16;
/// NCCL_NVLS_CHUNKSIZE default (src/transport/nvls.cc).
inline constexpr double kNvlsChunkBytes = 128.0 * 1024;
/// NVLS channels (src/transport/nvls.cc NVLS_NCHANNELS_SM90 16; SM100 32 across nodes, 24 on one).
inline constexpr double kNvlsChannelsHopper = 16;
inline constexpr double kNvlsChannelsBlackwellMultiNode = 32;
inline constexpr double kNvlsChannelsBlackwellOneNode = 24;
/// NVLSTree chunk cap from 4 nodes on (src/transport/nvls.cc: treeMaxChunkSize 64 KiB when nNodes >= 4).
inline constexpr double kNvlsTreeMaxChunkBytesFrom4Nodes = 64.0 * 1024;

/// A bit of CollectiveHardware::protocolMask beyond the protocols' own: LL128 is off across nodes
/// (the GPU-NIC path goes through the CPU: tuning.cc enables LL128 only up to PATH_PXB, or PATH_PXN
/// on Hopper and later) while NVLink inside the node keeps it.
inline constexpr unsigned kNoNetLl128Bit = 1u << 8;

// What nccl-tests measures per call beyond NCCL's tuner latency, in microseconds, fitted on the public
// logs (tests/data/nccltests/public, README there; all logs at once, never per log) at sizes up to
// 64 KiB, where the time is all latency.
// One node: the host launch of the call's kernels. nccl-tests (src/common.cu startColl) issues one
// call per GPU of its thread inside ncclGroupStart/End, and NCCL's group launch (src/group.cc
// doLaunches) launches each communicator's kernel in turn from that thread, so a thread driving G
// GPUs (`-g G`, header "nGpus G") pays G launches per call. The figure is per launch: the median over
// the five one-node logs of each log's median (measured - tuner time) / G (A100 -g 8: 2.7, H100 -g 1:
// 2.0, B200 5.9 with -g 1 assumed: its excerpt has no header; A100 thanos -g 8: 3.0, mpirun -g 1: 9.4).
inline constexpr double kLaunchPerGpuUs = 3.0;
// Across nodes: the proxy thread's network progress (src/proxy.cc) on top of the launch; the median
// over the nine multi-node logs that have sizes up to 64 KiB of each log's median (measured - tuner
// time - pipeline): A3 Mega 34, H200 RoCE 14, GKE H200 2x1 22, GKE A4 256, B200 2x8 IB 12, alpha 29,
// h100_2x4 10, XE9680 -3, 4x8 VM -3 (the training logs alone: 22). It does not grow with nGpus (-g 8
// and -g 1 logs on both sides of the median): the launches overlap with the network progress.
inline constexpr double kNetCallOverheadUs = 14.0;

} // namespace clusterscope::engine::nccl
