#pragma once

// Gradient compression on the data-parallel gradient synchronisation: volumes, the collective that
// carries the compressed payload, and the GPU time spent compressing.

#include "engine/collectives/collectivemodel.h"

namespace clusterscope::engine {

struct CompressionSpec;

/// How one gradient synchronisation of `elements` gradient values is sent.
struct CompressedSync {
    CollectiveOp op = CollectiveOp::AllReduce;
    double bytes = 0; ///< nccl-tests size S of that collective (bytes)
    double computeSeconds = 0; ///< time spent compressing/decompressing on the GPU
};

class GradientCompression {
public:
    /// Bytes sent per gradient element relative to sending `valueBytes` per element uncompressed:
    /// top-k: fraction x (value + 4-byte index) / value (Aji & Heafield 2017; Lin et al. 2018 DGC);
    /// int8 / fp8: 1 byte (+ one fp32 scale per 2,048 elements) / value; 1-bit: 1 bit (+ scale) / value
    /// (Seide et al. 2014; Tang et al. 2021, 1-bit Adam). 1 for no compression.
    static double volumeRatio(const CompressionSpec& spec, double valueBytes);
    /// Share of DP gradient traffic saved over a whole run when `spec.warmupFraction` of the steps run
    /// uncompressed (1-bit Adam's warm-up phase): 1 - (w + (1 - w) x volumeRatio).
    static double runTrafficReduction(const CompressionSpec& spec, double valueBytes);

    /// The synchronisation of `elements` gradients of `valueBytes` each over `ranks` ranks, with the
    /// collective a real implementation uses: top-k cannot be summed in place, so every rank gathers
    /// all others' (value, index) pairs (AllGather, S = ranks x payload); quantised methods keep an
    /// all-reduce of the compressed payload. `hbmBytesPerSecond` prices the compression passes:
    /// top-k moves ~16 B per element (read gradient, two radix-select passes, gather) and 1-bit / 8-bit
    /// ~10 B (read, scale, write), plus 8 B (read + write fp32 residual) with error feedback.
    static CompressedSync sync(
        const CompressionSpec& spec, double elements, double valueBytes, int ranks, double hbmBytesPerSecond);
};

} // namespace clusterscope::engine
