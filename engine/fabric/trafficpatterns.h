#pragma once

// Classic traffic matrices of distributed training, as flows between ranks for FlowModel. Byte
// counts are the totals each transfer carries over the whole collective (NVIDIA/nccl-tests
// doc/PERFORMANCE.md: ring AllReduce moves 2 (N-1)/N of the buffer per rank).

#include "engine/fabric/flowmodel.h"

#include <vector>

namespace clusterscope::engine {

/// Ring AllReduce of `bytes` per rank over all GPUs of `design`, NCCL style with one ring per
/// channel (channels 0 = one per NIC). Channel c enters every server at local GPU c, walks the
/// server's GPUs over the scale-up fabric with a stride coprime with the GPU count (different GPU
/// pairs per channel on a mesh), returns to GPU c (PXN) and leaves from GPU c to GPU c of the next
/// server, so inter-server traffic stays on rail c. Each hop carries 2 (N-1)/N x bytes / channels.
std::vector<Flow> ringAllReduceFlows(const FabricDesign& design, double bytes, int channels = 0);

/// Ring over an explicit rank order (e.g. one data-parallel group): rank[i] -> rank[i+1], each hop
/// 2 (N-1)/N x bytes.
std::vector<Flow> ringFlows(const std::vector<std::uint32_t>& ranks, double bytes);

/// Hierarchical AllReduce: reduce-scatter and all-gather inside each server (ring, 2 (G-1)/G x bytes
/// per hop) and a ring across servers among GPUs of the same local index carrying
/// 2 (M-1)/M x bytes / G (M servers, G GPUs per server).
std::vector<Flow> hierarchicalAllReduceFlows(const FabricDesign& design, double bytes);

/// All-to-all: every rank sends `bytesPerPair` to every other rank of `ranks` (all GPUs when empty).
std::vector<Flow> allToAllFlows(const FabricDesign& design, double bytesPerPair, std::vector<std::uint32_t> ranks = {});

/// Sharded parameter server: `hubs` hub ranks (spread evenly over the GPUs); every other rank pushes
/// bytes / hubs to each hub and pulls the same amount back (incast at the hubs).
std::vector<Flow> parameterServerFlows(const FabricDesign& design, double bytes, int hubs);

/// Permutation: rank r sends `bytes` to rank (r + shift) mod N. shift = N/2 sends every flow across
/// the host-order bisection (the classic ECMP stress test).
std::vector<Flow> shiftFlows(const FabricDesign& design, std::uint32_t shift, double bytes);

} // namespace clusterscope::engine
