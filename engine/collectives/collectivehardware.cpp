// From a scenario's cluster and the catalog to the link figures of the collective model, and the
// placements (consecutive, nccl-tests header) built on them.

#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/collectives/nccltuningtables.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace clusterscope::engine {

namespace {

    // NCCL counts a 100 Gb/s NIC as 12 GB/s (src/graph/topo.h NET_BW 12.0): 96% of the 12.5 GB/s line rate.
    constexpr double kNicEfficiency = 12.0 / 12.5;
    // NCCL's PCIe Gen3 x16 figure is 12 GB/s of the 16 GB/s raw rate.
    constexpr double kPcieEfficiency = 12.0 / 16.0;
    // Non-NVIDIA scale-up (Infinity Fabric): NCCL's Hopper ratio of channel bandwidth to the link's
    // nominal rate, 18 x 20.6 / 450 (assumption: RCCL reaches the same share of its links).
    constexpr double kOtherScaleUpEfficiency = 18.0 * 20.6 / 450.0;

    int archIndex(GpuArch arch)
    {
        switch (arch) {
        case GpuArch::Volta:
            return 0;
        case GpuArch::Ampere:
            return 1;
        case GpuArch::Hopper:
            return 2;
        case GpuArch::Blackwell:
            return 3;
        case GpuArch::Cdna3:
        case GpuArch::Cdna4:
            return 2; // MI300X .. MI355X: RCCL's tuner is not NCCL's; Hopper's caps, as for MI300X
        }
        return 2;
    }

    unsigned algorithmBit(CollectiveAlgorithm a) { return 1u << static_cast<unsigned>(a); }

    // The net transport of the scenario (catalog net_transports; "" = RDMA verbs on the cluster's
    // transport): the NCCL_ALGO / NCCL_PROTO / NCCL_NVLS_ENABLE / NCCL_BUFFSIZE it runs under, the
    // share of the line rate NCCL gets, and its per-call cost. A catalog without net transports
    // (an old catalog folder) leaves NCCL's defaults.
    Status applyNetTransport(const ClusterSpec& c, const Catalog& catalog, CollectiveHardware& hw)
    {
        const std::string id = !c.nic.net.empty() ? c.nic.net : c.transport == Transport::InfiniBand ? "ib" : "roce";
        const NetTransportModel* net = catalog.findNetTransport(id);
        if (!net) {
            if (c.nic.net.empty())
                return Status::success();
            return Status::error("/cluster/nic/net: unknown net transport \"" + c.nic.net + "\" (not in the catalog)");
        }
        if (net->fabric != "any" && net->fabric != toString(c.transport))
            return Status::error("/cluster/nic/net: " + net->id + " runs on " + net->fabric
                + " fabrics but /cluster/transport is " + toString(c.transport));
        if (!net->algorithms.empty()) {
            hw.algorithmMask = 0;
            for (const std::string& name : net->algorithms)
                if (const auto a = parseCollectiveAlgorithm(name))
                    hw.algorithmMask |= algorithmBit(*a);
        }
        if (!net->protocols.empty()) {
            hw.protocolMask = 0;
            for (const std::string& name : net->protocols)
                for (int p = 0; p < kCollectiveProtocolCount; ++p)
                    if (name == toString(static_cast<CollectiveProtocol>(p)))
                        hw.protocolMask |= 1u << p;
        }
        if (!net->nvls)
            hw.nvlsCapable = false;
        hw.simpleStepBytes = net->bufferBytes / nccl::kSteps;
        hw.nicBytesPerSecond = c.nic.gbps * 1e9 / 8.0 * net->nicEfficiency;
        hw.netCallOverheadSeconds = net->callOverheadUs * 1e-6;
        return Status::success();
    }

    // No GPUDirect RDMA (cluster.nic.gpudirect_rdma false): NCCL's default when the NIC is not close
    // to the GPU (src/graph/paths.cc ncclTopoCheckGdr: GDR only up to NCCL_NET_GDR_LEVEL, PXB or
    // P2C, so a NIC reached through the CPU, PATH_PHB or PATH_SYS, has none), or when the NIC or the
    // VM cannot register GPU memory (gdrSupport 0). NCCL's net transport then places the FIFO
    // buffers of every protocol in pinned host memory (src/transport/net.cc sendProxyConnect /
    // recvProxyConnect: NCCL_NET_MAP_ADD_POINTER(..., useGdr ? device : host, ...)): the sending
    // GPU writes each step into host memory over PCIe and the NIC reads it from there; the NIC writes
    // what it receives into host memory and the receiving GPU reads it over PCIe. Two effects:
    // - every network byte crosses PCIe twice at each end. On the HGX boards a GPU and its NIC sit
    //   behind one PCIe switch whose x16 uplink to the CPU carries both crossings (GPU <-> host and
    //   host <-> NIC, in each direction), so a NIC moves at most half of NCCL's figure for that
    //   link (the GPU's host link at NCCL's PCIe efficiency, src/graph/topo.h PCI_BW: kPcieEfficiency).
    //   One GPU-NIC pair per uplink is assumed: where two pairs share a switch (HGX H100 boards) and
    //   both move data at once, each gets half of that again, which is not modelled;
    // - the GPU-NIC path is beyond PATH_PXB (the common cause), where tuning.cc disables LL128 for the
    //   inter-node graph ("Enable LL128 only up to PXB", PXN on Hopper and later), while LL128 over
    //   NVLink stays. A NIC at PXB without GPU memory registration would keep LL128 (staged: net.cc
    //   has the proxy check the LL128 flags in host memory); the one flag does not tell them apart.
    void applyHostStaging(const GpuModel& gpu, CollectiveHardware& hw)
    {
        if (gpu.pcieBytesPerSecond > 0)
            hw.nicBytesPerSecond = std::min(hw.nicBytesPerSecond, gpu.pcieBytesPerSecond * kPcieEfficiency / 2.0);
        hw.protocolMask |= nccl::kNoNetLl128Bit;
    }

} // namespace

Result<CollectiveModel> CollectiveModel::fromScenario(const Scenario& scenario, const Catalog& catalog)
{
    const ClusterSpec& c = scenario.cluster;
    const GpuModel* gpu = catalog.findGpu(c.gpu);
    if (!gpu)
        return Status::error("/cluster/gpu: unknown GPU \"" + c.gpu + "\" (not in the catalog)");
    if (c.gpusPerNode < 1)
        return Status::error(
            "/cluster/gpus_per_node: expected a positive integer, got " + std::to_string(c.gpusPerNode));
    if (c.gpus < 1)
        return Status::error("/cluster/gpus: expected a positive integer, got " + std::to_string(c.gpus));
    if (!(c.nic.gbps > 0))
        return Status::error("/cluster/nic/gbps: expected a positive rate, got " + std::to_string(c.nic.gbps));
    if (c.nic.perNode < 1)
        return Status::error(
            "/cluster/nic/per_node: expected a positive integer, got " + std::to_string(c.nic.perNode));

    CollectiveHardware hw;
    hw.archIndex = archIndex(gpu->arch);
    const bool nvidia = gpu->scaleUpLink.rfind("nvlink", 0) == 0;
    hw.nvlink = gpu->scaleUpBytesPerSecond > 0 && gpu->scaleUpLinks > 0;
    hw.nvlinkChannelFigures = nvidia;
    if (hw.nvlink) {
        // NCCL: busBw = nChannels x per-channel NVLink bw (20.0 SM80, 20.6 SM90, 40.1 SM100).
        hw.intraBytesPerSecond = nvidia ? gpu->scaleUpLinks * nccl::kNvlinkChannelGBps[hw.archIndex] * 1e9
                                        : gpu->scaleUpBytesPerSecond * kOtherScaleUpEfficiency;
        hw.intraChannels = std::min(32, gpu->scaleUpLinks);
    } else {
        hw.intraBytesPerSecond = gpu->pcieBytesPerSecond * kPcieEfficiency;
        hw.intraChannels = 2;
    }
    hw.nvlsCapable = nvidia && gpu->scaleUpSwitched && hw.archIndex >= 2;
    hw.infiniband = c.transport == Transport::InfiniBand;
    hw.nicBytesPerSecond = c.nic.gbps * 1e9 / 8.0 * kNicEfficiency;
    if (auto status = applyNetTransport(c, catalog, hw); !status.isOk())
        return status;
    if (!c.nic.gpuDirectRdma)
        applyHostStaging(*gpu, hw);
    hw.copyBytesPerSecond = gpu->hbmBytesPerSecond / 2.0; // read + write
    hw.gpusPerNode = c.gpusPerNode;
    // NCCL doubles its p2p network chunk on ARM hosts with Blackwell GPUs ("GBx platforms only have 4
    // GPUs per host", src/init.cc computeBuffSizes); the catalog marks a Grace host by a host link
    // faster than PCIe (NVLink-C2C).
    if (hw.archIndex >= 3 && gpu->hostLinkBytesPerSecond > gpu->pcieBytesPerSecond)
        hw.p2pNetChunkBytes *= 2.0;
    // The server's GPUs, capped by the catalog domain; only multi-node NVLink systems (NVL72) span
    // servers (catalog.h scaleUpDomainGpus).
    hw.domainGpus = std::min(scaleUpDomainGpus(*gpu, c.gpusPerNode, c.gpus), std::max(c.gpus, 1));
    if (hw.domainGpus < 2)
        hw.nvlsCapable = false; // one GPU per domain: no NVSwitch to reduce in
    const double serversPerDomain = double(hw.domainGpus) / c.gpusPerNode;
    hw.nicsPerNode = std::max(1, int(std::lround(c.nic.perNode * serversPerDomain)));
    hw.totalGpus = c.gpus;
    hw.oversubscription = std::max(1.0, c.fabric.oversubscription);
    hw.fabricTiers = std::max(1, c.fabric.tiers);
    // A leaf gives radix x over/(1+over) ports to nodes. Rail-optimized: each rail has its own leaf,
    // one port per server; otherwise all NICs of a server land on the same leaf.
    const double over = hw.oversubscription;
    const double downPorts = std::max(1.0, std::floor(c.fabric.switchRadix * over / (1.0 + over)));
    const double portsPerDomain
        = c.fabric.type == FabricType::RailOptimized ? serversPerDomain : c.nic.perNode * serversPerDomain;
    const int domains = std::max(1, (c.gpus + hw.domainGpus - 1) / hw.domainGpus);
    hw.nodesPerLeaf = std::max(1, int(downPorts / std::max(1.0, portsPerDomain)));
    if (hw.fabricTiers <= 1)
        hw.nodesPerLeaf = domains;
    hw.nodesPerPod = hw.fabricTiers >= 3 ? hw.nodesPerLeaf * std::max(1, c.fabric.switchRadix / 2)
                                         : std::max(domains, hw.nodesPerLeaf);
    return CollectiveModel(hw);
}

namespace {

    GroupPlacement placeOn(const CollectiveHardware& hw, int ranks, int ranksPerNode)
    {
        GroupPlacement g;
        g.ranks = std::max(1, ranks);
        g.ranksPerNode = std::clamp(ranksPerNode, 1, g.ranks);
        const int nodes = (g.ranks + g.ranksPerNode - 1) / g.ranksPerNode;
        // The group's GPUs of a node use their own rails (rail-optimized: one NIC per GPU).
        g.nicsPerNode = std::max(1, int(std::lround(double(hw.nicsPerNode) * g.ranksPerNode / hw.domainGpus)));
        if (nodes <= 1)
            g.spanTier = 0;
        else if (nodes <= hw.nodesPerLeaf || hw.fabricTiers <= 1)
            g.spanTier = 1;
        else if (nodes <= hw.nodesPerPod || hw.fabricTiers <= 2)
            g.spanTier = 2;
        else
            g.spanTier = 3;
        g.nodesPerLeaf = hw.nodesPerLeaf;
        return g;
    }

} // namespace

GroupPlacement CollectiveModel::placementFor(int ranks) const
{
    return placeOn(m_hardware, ranks, std::min(ranks, m_hardware.domainGpus));
}

GroupPlacement CollectiveModel::placementForNcclTests(int ranks, int nodes, int gpusPerThread) const
{
    const int n = std::max(1, nodes);
    const int perHost = (std::max(1, ranks) + n - 1) / n;
    // On a multi-node NVLink system (NVL72) the hosts of one rack are one scale-up domain: the
    // group's ranks of `domainGpus / gpusPerNode` hosts share NVLink.
    const int hostsPerDomain = std::max(1, m_hardware.domainGpus / std::max(1, m_hardware.gpusPerNode));
    GroupPlacement g = placeOn(m_hardware, ranks, perHost * hostsPerDomain);
    g.gpusPerThread = std::clamp(gpusPerThread, 1, std::max(1, perHost));
    return g;
}

CollectiveEstimate CollectiveModel::evaluateNcclTests(
    CollectiveOp op, double bytes, int ranks, int nodes, CollectiveAlgorithm algorithm, int gpusPerThread) const
{
    CollectiveRequest r;
    r.op = op;
    r.bytes = bytes;
    r.group = placementForNcclTests(ranks, nodes, gpusPerThread);
    r.algorithm = algorithm;
    return estimate(r);
}

} // namespace clusterscope::engine
