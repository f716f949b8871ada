#pragma once

// Places the process groups of a parallelism layout on the cluster: rank r of the job runs on GPU r,
// ranks are numbered with the innermost dimension varying fastest (default TP, then CP, then DP
// with EP inside it, PP outermost, as Megatron-LM's RankGenerator does with order "tp-cp-ep-dp-pp").
// From that numbering and the fabric it derives each group's GroupPlacement for the collectives model.

#include "engine/collectives/collectivemodel.h"

namespace clusterscope::engine {

struct Scenario;
struct GpuModel;
struct ParallelismSpec;

/// Size of the physical building blocks a group can span. Counts are in GPUs or nodes as named.
struct ClusterGeometry {
    int gpus = 8;
    int gpusPerNode = 8;
    int scaleUpDomainGpus = 8; ///< GPUs sharing one NVLink/NVSwitch domain (>= gpusPerNode)
    int nicsPerDomain = 8; ///< NICs of one scale-up domain
    int nodesPerLeaf = 1; ///< nodes whose traffic meets under one leaf (per rail when rail-optimized)
    int nodesPerPod = 1; ///< nodes reachable through the spine tier without the core
    int tiers = 2; ///< switching tiers above the nodes (spanTier never exceeds this)

    /// Geometry of `scenario`'s cluster. Leaf down-ports = radix x o / (1 + o) for oversubscription
    /// o:1 (Al-Fares et al. 2008 fat-tree; leaf-spine design guides); a rail-optimized leaf serves one
    /// NIC of each of its down-port nodes (NVIDIA DGX SuperPOD reference architecture), so same-rail
    /// traffic of all those nodes stays under it; dragonfly: p hosts per router, a routers per group
    /// (Kim et al. 2008); torus: one ring of dims[0] nodes, then a plane.
    static ClusterGeometry fromScenario(const Scenario& scenario, const GpuModel& gpu);
};

/// Placements of every group one strategy uses.
struct StrategyGroups {
    GroupPlacement tp, cp, dp, ep, ppPair;
    /// The whole pipeline group (pp ranks). Without virtual stages Megatron-LM sends stage to stage with
    /// batch_isend_irecv (megatron/training/arguments.py turns overlap_p2p_comm off, argument_utils.py
    /// sets batch_p2p_comm = not overlap_p2p_comm), which PyTorch's ProcessGroupNCCL runs on the group's
    /// communicator ("For batch P2P, we need to treat it like a collective when selecting communicator");
    /// the communicator's size sets NCCL's p2p channels per send (extracost.cpp p2pChannels).
    GroupPlacement pp;
    GroupPlacement dpGrad; ///< dense-gradient group: dp x cp ranks (Megatron reduces over both)
    GroupPlacement expertDpGrad; ///< expert-gradient group: tp x cp x dp / (etp x ep) ranks
    GroupPlacement expertTp; ///< expert-tensor-parallel group (the tp group unless etp is stated)
    int tpStride = 1, cpStride = 1, dpStride = 1, epStride = 1, ppStride = 1; ///< GPUs between group neighbours
    int expertDpStride = 1; ///< GPUs between neighbours of the expert-gradient group

    /// The communicator the pipeline's stage-to-stage sends run on, the one their cost and every report
    /// of them use: the whole pipeline group without virtual stages (batched sends, `pp` above), a pair of
    /// neighbouring stages with them (the interleaved schedule's overlapped sends, overlap_p2p_comm).
    const GroupPlacement& pipelineSends(int vpp) const { return vpp == 1 ? pp : ppPair; }
};

class GroupPlacer {
public:
    GroupPlacer() = default;
    explicit GroupPlacer(const ClusterGeometry& geometry)
        : m_geometry(geometry)
    {
    }
    const ClusterGeometry& geometry() const { return m_geometry; }

    /// Placement of a group of `ranks` GPUs spaced `strideGpus` apart in rank order.
    GroupPlacement place(int ranks, int strideGpus) const;
    /// All groups of `p`, with the rank order of p.placementOrder.
    StrategyGroups groups(const ParallelismSpec& p) const;
    /// Highest tier between the nodes of GPUs `a` and `b` (0 when in one scale-up domain).
    int pairTier(long long gpuA, long long gpuB) const;

private:
    ClusterGeometry m_geometry;
};

} // namespace clusterscope::engine
