#pragma once

// The cluster geometry of an imported run, for the views that group GPUs into nodes, leaves and
// pods (the traffic heatmap). Traces record each rank's number, not which ranks share a server.

#include "engine/training/groupplacer.h"

namespace clusterscope::engine {

/// GPUs per server assumed for a run whose traces do not say: one HGX/DGX board (NVIDIA DGX H100
/// user guide: eight GPUs per system).
inline constexpr int kDefaultRunGpusPerNode = 8;

/// `ranks` GPUs filling servers of `gpusPerNode` in rank order (torchrun's block placement: RANK =
/// node_rank x nproc_per_node + local_rank, PyTorch "torchrun (Elastic Launch)" documentation), one
/// NVLink domain and one NIC per GPU per server, and all servers under one leaf (a run's traces say
/// nothing about the switches).
ClusterGeometry measuredRunGeometry(int ranks, int gpusPerNode = kDefaultRunGpusPerNode);

} // namespace clusterscope::engine
