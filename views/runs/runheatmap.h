#pragma once

// The measured-traffic heatmap of an imported run: the bytes each pair of ranks exchanged, in the
// same heatmap widget as the model's, on the run's assumed geometry (engine/analysis/rungeometry.h).

#include "views/heatmap/heatmapviewport.h"

#include <QString>

namespace clusterscope::engine {
struct ClusterGeometry;
struct RunAnalysis;
}

namespace clusterscope::views {

class TrafficHeatmapWidget;

/// Servers per "pod" cell of a run's heatmap: the traces name no switches, so a pod is one scalable
/// unit of 32 eight-GPU servers (NVIDIA DGX SuperPOD reference architecture, DGX H100: "a scalable
/// unit (SU) of 32 DGX H100 systems"). A 16,384-rank run opens as 64 x 64 such cells instead of one.
inline constexpr int kRunHeatmapNodesPerPod = 32;

/// Node, rack and pod sizes for a run of `geometry` (racks of the default layout, pods of
/// kRunHeatmapNodesPerPod servers, at most the whole run).
TrafficHeatmapGeometry runHeatmapGeometry(const engine::ClusterGeometry& geometry);

/// A heatmap widget showing `analysis`'s measured traffic, or an empty state saying why there is
/// none. Its title does not repeat the run's name (the Runs tab's header says it): a short title
/// leaves the plot its height on a laptop. The caller owns the widget.
TrafficHeatmapWidget* makeRunHeatmap(const engine::RunAnalysis& analysis);

} // namespace clusterscope::views
