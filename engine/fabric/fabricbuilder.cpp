// Scenario -> FabricDesign: picks the catalog models and dispatches to the topology builders.

#include "engine/fabric/fabricbuilder.h"

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenario.h"

#include <cmath>
#include <limits>

namespace clusterscope::engine {

namespace {

    // The switch for `radix` ports at `gbps`: same transport, enough capacity; prefer the exact radix
    // and port rate, then the smallest capacity (the cheapest silicon that does the job).
    const SwitchModel* pickSwitch(const Catalog& catalog, const std::string& transport, int radix, double gbps)
    {
        const SwitchModel* best = nullptr;
        double bestScore = std::numeric_limits<double>::infinity();
        for (const SwitchModel& s : catalog.switches()) {
            if (s.transport != transport || s.radix * s.portGbps < radix * gbps - 1e-6 || s.portGbps < gbps - 1e-6)
                continue;
            double score = s.radix * s.portGbps;
            if (s.radix == radix && std::abs(s.portGbps - gbps) < 1e-6)
                score -= 1e12;
            else if (std::abs(s.portGbps - gbps) < 1e-6)
                score -= 1e11;
            if (score < bestScore) {
                bestScore = score;
                best = &s;
            }
        }
        return best;
    }

} // namespace

Result<FabricDesign> buildFabric(const Scenario& s, const Catalog& catalog)
{
    const ClusterSpec& c = s.cluster;
    const FabricSpec& f = c.fabric;
    const GpuModel* gpu = catalog.findGpu(c.gpu);
    if (!gpu)
        return Status::error("/cluster/gpu: unknown GPU \"" + c.gpu + "\"");
    const std::string transport = toString(c.transport);
    const NicModel* nic = catalog.nicFor(transport, c.nic.gbps);
    if (!nic)
        return Status::error("/cluster/nic/gbps: the catalog has no " + transport + " NIC at "
            + std::to_string(static_cast<long long>(c.nic.gbps)) + " Gb/s");
    if (c.gpus % c.gpusPerNode != 0)
        return Status::error("/cluster/gpus: " + std::to_string(c.gpus) + " GPUs do not fill whole nodes of "
            + std::to_string(c.gpusPerNode));

    HostOptions ho;
    ho.hosts = c.gpus / c.gpusPerNode;
    ho.gpusPerNode = c.gpusPerNode;
    ho.nicsPerNode = c.nic.perNode;
    ho.nicGbps = c.nic.gbps;
    ho.nvlinkDomainGpus = gpu->nvlinkDomainGpus;
    ho.nvlinkSwitched = gpu->scaleUpSwitched;
    ho.nvlinkGbps = gpu->scaleUpBytesPerSecond * 8.0 / 1e9;
    ho.nvlinkLanes = gpu->scaleUpLinks;
    ho.pcieGbps = gpu->pcieBytesPerSecond * 8.0 / 1e9;

    const int sides = f.dualTor ? 2 : 1;
    const double portGbps = c.nic.gbps / (f.planes * sides);
    Result<FabricDesign> built = Status::error("unreachable");
    int radixNeeded = f.switchRadix;
    switch (f.type) {
    case FabricType::FatTree:
    case FabricType::LeafSpine:
    case FabricType::RailOptimized: {
        ClosOptions co;
        co.radix = f.switchRadix;
        co.tiers = f.tiers;
        co.oversubscription = f.oversubscription;
        co.planes = f.planes;
        co.dualTor = f.dualTor;
        co.railOptimized = f.type == FabricType::RailOptimized;
        // The DGX SuperPOD H100 reference puts the UFM appliance in one node slot of the InfiniBand
        // compute fabric (31/63/95/127 nodes); the B200 reference keeps all 32 slots per SU for
        // compute (256 nodes in 8 SU). Follow the reference of the GPU's generation.
        co.ufmSlot = co.railOptimized && c.transport == Transport::InfiniBand && gpu->arch != GpuArch::Blackwell;
        if (f.type == FabricType::FatTree && f.oversubscription != 1.0)
            return Status::error(
                "/cluster/fabric/oversubscription: a fat-tree is non-blocking (1.0); use leaf-spine for "
                + std::to_string(f.oversubscription) + ":1");
        built = buildClos(ho, co);
        break;
    }
    case FabricType::Dragonfly:
        built = buildDragonfly(ho, f.dragonflyP, f.dragonflyA, f.dragonflyH);
        radixNeeded = f.dragonflyP + f.dragonflyA - 1 + f.dragonflyH;
        break;
    case FabricType::Torus:
        built = buildTorus(ho, f.torusDims);
        break;
    }
    if (!built)
        return Status::error("/cluster/fabric: " + built.message());
    FabricDesign d = std::move(built).value();
    d.gpuModel = gpu->id;
    d.nicModel = nic->id;
    if (d.graph.countNodes(NodeKind::Switch) > 0) {
        const SwitchModel* sw = pickSwitch(catalog, transport, radixNeeded, portGbps);
        if (!sw)
            return Status::error("/cluster/fabric/switch_radix: the catalog has no " + transport + " switch with "
                + std::to_string(radixNeeded) + " ports at " + std::to_string(static_cast<long long>(portGbps))
                + " Gb/s");
        d.switchModel = sw->id;
        if (sw->radix != radixNeeded || std::abs(sw->portGbps - portGbps) > 1e-6)
            d.notes.push_back("switch " + sw->id + " (" + std::to_string(sw->radix) + " x "
                + std::to_string(static_cast<long long>(sw->portGbps)) + " Gb/s) used as " + std::to_string(radixNeeded)
                + " x " + std::to_string(static_cast<long long>(portGbps)) + " Gb/s");
    }
    return d;
}

} // namespace clusterscope::engine
