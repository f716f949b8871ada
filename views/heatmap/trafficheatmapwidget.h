#pragma once

// The GPU-pair traffic heatmap tab: filter bar (parallelism dimension, link class), reset button,
// the heatmap canvas, and an empty state when there is nothing to show. Fed by any
// engine::TrafficSource: the model's (ModelTrafficSource) or a measured run's (MeasuredTrafficSource).

#include "engine/training/trafficblocks.h"
#include "views/heatmap/heatmapviewport.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QStackedWidget;
class QToolButton;

namespace clusterscope::engine {
struct ClusterGeometry;
struct Scenario;
}

namespace clusterscope::views {

class EmptyStateWidget;
class TrafficHeatmapCanvas;

/// Node, rack and pod sizes of a scenario: nodes per rack from its layout section (4 when absent,
/// the LayoutSpec default), pods from the fabric geometry (nodes reachable without the core).
TrafficHeatmapGeometry heatmapGeometryFor(const engine::Scenario& scenario, const engine::ClusterGeometry& geometry);
/// The same for a cluster known only by its geometry (an imported run): servers in racks of the
/// default layout's size (engine::LayoutSpec).
TrafficHeatmapGeometry heatmapGeometryFor(const engine::ClusterGeometry& geometry);

class TrafficHeatmapWidget : public QWidget {
    Q_OBJECT
public:
    explicit TrafficHeatmapWidget(QWidget* parent = nullptr);

    /// Shows `source` aggregated by `geometry` (nullptr: the empty state). Resets the view; keeps filters.
    void setSource(std::shared_ptr<const engine::TrafficSource> source, const TrafficHeatmapGeometry& geometry);
    /// Bit d for dimension index d (engine::TrafficDimension, then kTrafficUnknownDimension).
    void setDimensionFilter(unsigned dimensionMask);
    unsigned dimensionFilter() const;
    /// Bit c for link class c (0 scale-up, 1 leaf, 2 spine, 3 core).
    void setLinkClassFilter(unsigned linkClassMask);
    unsigned linkClassFilter() const;
    /// Text of the empty state shown while there is no source.
    void setEmptyState(const QString& text);
    /// Heading painted above the heatmap (e.g. "Model traffic" or "Measured traffic, run 3").
    void setTitle(const QString& title);
    void resetView();

    TrafficHeatmapCanvas* canvas() const { return m_canvas; }
    QComboBox* dimensionCombo() const { return m_dimension; }
    QComboBox* linkClassCombo() const { return m_linkClass; }
    bool isShowingEmptyState() const;

private:
    void applyFilter();
    void syncCombo(QComboBox* combo, unsigned mask);

    QComboBox* m_dimension;
    QComboBox* m_linkClass;
    QToolButton* m_reset;
    QStackedWidget* m_stack;
    TrafficHeatmapCanvas* m_canvas;
    EmptyStateWidget* m_empty;
};

} // namespace clusterscope::views
