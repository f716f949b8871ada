#pragma once

// What part of the GPU x GPU traffic matrix the heatmap shows: a square window of `span` GPUs on
// both axes (sources down, destinations across), zoomed around the cursor and panned by dragging,
// and the aggregation level (GPU, node, rack, pod) that fits the window on the plot's pixels.

#include "engine/training/trafficblocks.h"

#include <QString>

namespace clusterscope::views {

enum class HeatmapLevel { Gpu, Node, Rack, Pod };
inline constexpr int kHeatmapLevels = 4;

/// Sizes of the physical blocks the heatmap aggregates over (counts, not bytes).
struct TrafficHeatmapGeometry {
    int gpusPerNode = 8;
    int nodesPerRack = 4;
    int racksPerPod = 8;
    long long gpusPerBlock(HeatmapLevel level) const;
};

QString levelName(HeatmapLevel level); ///< "GPU", "node", "rack", "pod"
QString levelNamePlural(HeatmapLevel level); ///< "GPUs", "nodes", "racks", "pods"

class HeatmapViewport {
public:
    /// Shows all of `gpus` (>= 0) again.
    void setGpus(long long gpus);
    long long gpus() const { return m_gpus; }
    void reset();
    bool isReset() const { return m_span >= static_cast<double>(m_gpus); }

    double rowStart() const { return m_rowStart; } ///< first visible source GPU (fractional)
    double colStart() const { return m_colStart; } ///< first visible destination GPU (fractional)
    double span() const { return m_span; } ///< visible GPUs on each axis
    double minSpan() const; ///< deepest zoom: 4 GPUs (or all when fewer)

    /// Zooms by `factor` (> 1 in, < 1 out) keeping the GPU under the plot fraction (fx, fy) fixed.
    void zoomAt(double fx, double fy, double factor);
    /// Moves the window by a fraction of the plot (positive dx shows lower-numbered destinations,
    /// as dragging the picture to the right does).
    void panBy(double dxFraction, double dyFraction);
    /// Sets the window directly (clamped to the matrix).
    void setWindow(double rowStart, double colStart, double span);

    /// The finest level whose cells in the window are at least one pixel on a plot of `plotPixels`
    /// and number at most 2048 per axis (engine cap); the pod level when none does.
    HeatmapLevel levelFor(const TrafficHeatmapGeometry& geometry, int plotPixels) const;
    /// The visible GPUs rounded out to whole blocks of `gpusPerBlock` (clipped to the matrix).
    engine::GpuWindow blockWindow(long long gpusPerBlock) const;

private:
    void clamp();
    long long m_gpus = 0;
    double m_rowStart = 0, m_colStart = 0, m_span = 0;
};

} // namespace clusterscope::views
