#pragma once

// When a strategy "fits" in GPU memory on paper but leaves too little for what the model does not
// count: the caching allocator's fragmentation, NCCL's communication buffers and the CUDA context
// take a few GB per GPU in practice (PyTorch "CUDA semantics: memory management"; NCCL_BUFFSIZE
// defaults to 4 MiB per channel and peer). Every view warns from the same threshold.

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
