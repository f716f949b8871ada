#pragma once

// The heatmap's drawing surface: GPU-pair bytes per iteration (rows = source, columns =
// destination) rendered through block aggregation into a QImage of the plot's pixel size, with
// axes naming the level and index ranges, a log colour legend, hover details, wheel zoom at the
// cursor, drag to pan, double-click (or 0 / Home) to reset. Memory is O(pixels + visible blocks):
// the dense GPU x GPU matrix is never built, so 16,384 GPUs draw as easily as 8.

#include "engine/training/trafficblocks.h"
#include "views/heatmap/heatmapcolorscale.h"
#include "views/heatmap/heatmapviewport.h"

#include <QImage>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

namespace clusterscope::views {

class TrafficHeatmapCanvas : public QWidget {
    Q_OBJECT
public:
    explicit TrafficHeatmapCanvas(QWidget* parent = nullptr);

    /// Shows `source` (nullptr: nothing) aggregated by `geometry`; resets the view.
    void setSource(std::shared_ptr<const engine::TrafficSource> source, const TrafficHeatmapGeometry& geometry);
    const std::shared_ptr<const engine::TrafficSource>& source() const { return m_source; }
    const TrafficHeatmapGeometry& geometry() const { return m_geometry; }
    void setFilter(const engine::TrafficFilter& filter);
    const engine::TrafficFilter& filter() const { return m_filter; }
    void setTitle(const QString& title);

    const HeatmapViewport& viewport() const { return m_viewport; }
    /// Shows source GPUs [rowStart, rowStart + span) x destination GPUs [colStart, colStart + span).
    void setViewWindow(double rowStart, double colStart, double span);
    /// Zooms by `factor` (> 1 in) keeping the GPU under widget position `pos` in place.
    void zoomAt(QPointF pos, double factor);
    void resetView();

    /// Brings the picture up to date with the size, source, filters and view (no-op when current).
    void ensureRendered();
    struct RenderStats {
        HeatmapLevel level = HeatmapLevel::Gpu;
        long long cells = 0; ///< block cells queried
        double queryMilliseconds = 0; ///< TrafficSource::blocks
        double imageMilliseconds = 0; ///< cells to pixels
    };
    const RenderStats& lastRenderStats() const { return m_stats; }
    HeatmapLevel level() const { return m_stats.level; }
    const HeatmapColorScale& colorScale() const { return m_scale; }
    const QImage& heatmapImage() const { return m_image; }
    QRect plotRect() const { return m_plot; }
    QRect legendRect() const { return m_legend; }
    QRect legendBarRect() const { return m_legendBar; } ///< the colour bar inside the legend
    /// The level, index ranges and filters of the picture (the header's second line).
    QString statusText() const;
    /// The axis title as drawn (0: destinations under the plot, 1: sources beside it), elided
    /// ("…") when the plot is too small for it; empty before the first picture.
    QString axisTitle(int axis) const;
    /// The title drawn above the plot (the default when none was set).
    QString titleText() const;
    /// Widget position of the centre of the cell holding GPU pair (srcGpu, dstGpu); (-1, -1) when
    /// the pair is outside the view.
    QPoint cellCenter(long long srcGpu, long long dstGpu) const;
    /// Tooltip text for widget position `pos`: the pair (GPU or block ids with GPU ranges), bytes
    /// shown, split by dimension and link class; empty outside the plot.
    QString hoverText(QPoint pos) const;

Q_SIGNALS:
    void viewChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void layoutAreas();
    void viewWasChanged();
    void renderImage();
    /// GPU under widget position `pos` on each axis; false outside the plot.
    bool gpuAt(QPointF pos, long long& srcGpu, long long& dstGpu) const;
    void paintAxes(QPainter& painter) const;
    void paintHover(QPainter& painter) const;
    QString blockLabel(long long block, long long gpusPerBlock) const;

    std::shared_ptr<const engine::TrafficSource> m_source;
    TrafficHeatmapGeometry m_geometry;
    engine::TrafficFilter m_filter;
    HeatmapViewport m_viewport;
    QString m_title;

    bool m_dirty = true;
    QRect m_plot, m_legend, m_legendBar;
    int m_titleHeight = 0; ///< pixels of the wrapped title (layoutAreas)
    int m_statusHeight = 0; ///< pixels of the wrapped status line (layoutAreas)
    QImage m_image;
    std::vector<std::int16_t> m_pixelIndex; ///< colour index per plot pixel (-1: no traffic)
    engine::TrafficBlocks m_blocks;
    HeatmapColorScale m_scale;
    RenderStats m_stats;
    QString m_error;

    bool m_dragging = false;
    QPointF m_lastDragPos;
    long long m_hoverSrc = -1, m_hoverDst = -1; ///< hovered GPUs (-1: none)
};

} // namespace clusterscope::views
