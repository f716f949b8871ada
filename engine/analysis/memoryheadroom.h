#pragma once

// When a strategy fits in GPU memory with little to spare. The memory model counts the CUDA context,
// NCCL's buffers and a share for the caching allocator's fragmentation (memorymodel.h MemoryInputs),
// but real runs vary around those figures (the allocator with PYTORCH_CUDA_ALLOC_CONF, PyTorch "CUDA
// semantics: memory management"; NCCL_BUFFSIZE and the channels NCCL opens), so a plan within 5% of
// the capacity is flagged. Every view warns from the same threshold.

#include "engine/training/memorymodel.h"

namespace clusterscope::engine {

/// Memory per GPU above this share of HBM is flagged as leaving too little headroom.
inline constexpr double kMemoryHeadroomWarningFraction = 0.95;

/// True when `m` fits but uses more than kMemoryHeadroomWarningFraction of the GPU's memory.
inline bool lowMemoryHeadroom(const MemoryBreakdown& m)
{
    return m.capacityBytes > 0 && m.fits() && m.totalBytes() > m.capacityBytes * kMemoryHeadroomWarningFraction;
}

} // namespace clusterscope::engine
