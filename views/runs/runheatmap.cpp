#include "views/runs/runheatmap.h"

#include "engine/analysis/rungeometry.h"
#include "engine/run/runanalysis.h"
#include "engine/training/trafficblocks.h"
#include "views/heatmap/trafficheatmapwidget.h"

#include <QCoreApplication>

#include <algorithm>
#include <memory>
#include <vector>

namespace clusterscope::views {

TrafficHeatmapGeometry runHeatmapGeometry(const engine::ClusterGeometry& geometry)
{
    TrafficHeatmapGeometry out = heatmapGeometryFor(geometry);
    const int nodes = std::max(1, geometry.nodesPerPod);
    const int podNodes = std::min(nodes, kRunHeatmapNodesPerPod);
    out.racksPerPod = std::max(1, (podNodes + out.nodesPerRack - 1) / out.nodesPerRack);
    return out;
}

TrafficHeatmapWidget* makeRunHeatmap(const engine::RunAnalysis& analysis)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("RunHeatmap", text); };
    const engine::MeasuredTraffic& m = analysis.traffic;
    auto* heatmap = new TrafficHeatmapWidget;
    if (m.ranks < 2 || m.pairs.empty()) {
        heatmap->setEmptyState(tr("The traces hold no GPU-pair traffic to show."));
        return heatmap;
    }
    std::vector<engine::MeasuredTrafficPair> pairs;
    pairs.reserve(m.pairs.size());
    for (const engine::RankTrafficPair& p : m.pairs)
        pairs.push_back({ p.src, p.dst, p.bytes, engine::kTrafficUnknownDimension });
    const engine::ClusterGeometry geometry = engine::measuredRunGeometry(m.ranks);
    auto source = engine::MeasuredTrafficSource::create(m.ranks, std::move(pairs), engine::GroupPlacer(geometry));
    if (!source) {
        heatmap->setEmptyState(QString::fromStdString(source.message()));
        return heatmap;
    }
    heatmap->setTitle(tr("Measured bytes between ranks, all imported steps"));
    heatmap->setSource(
        std::make_shared<const engine::MeasuredTrafficSource>(std::move(*source)), runHeatmapGeometry(geometry));
    return heatmap;
}

} // namespace clusterscope::views
