#pragma once

// The run's timeline: one lane per (rank, stream), time running left to right on the aligned
// clock. Each repaint bins the visible events per pixel column (TimelineData::binLane) and writes
// the lanes straight into an image, so zoomed out it shows per-column occupancy (colour of the
// kinds present, opacity = share of the column's time that is busy) and zoomed in the kernels
// themselves; either way the cost is O(visible events + lanes x columns), fluid with millions of
// events. Wheel zooms around the cursor (Shift+wheel scrolls the lanes), dragging pans,
// double-click shows everything, hovering shows the event under the cursor.

#include <QImage>
#include <QWidget>

#include <memory>

namespace clusterscope::views {

class TimelineData;

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);
    ~TimelineWidget() override;

    /// Shows `data` zoomed to fit; nullptr shows the "no events" message.
    void setData(std::shared_ptr<const TimelineData> data);
    const TimelineData* data() const { return m_data.get(); }
    /// Text drawn when there is no data.
    void setPlaceholderText(const QString& text);

    /// Visible time window on the aligned clock (ns).
    void setViewRange(double startNs, double endNs);
    double viewStartNs() const { return m_viewStartNs; }
    double viewEndNs() const;
    /// Zooms by `factor` (> 1 zooms in) keeping the time under widget x-coordinate `x` in place.
    void zoomAt(double factor, int x);
    void panByPixels(int dx);
    void fitAll();

    /// Renders the lanes area for the current view into an image of `size` (what paintEvent
    /// shows right of the labels and below the axis). Background is the widget's base colour.
    QImage renderLanes(QSize size) const;
    /// Wall time of the last renderLanes() in milliseconds.
    double lastRenderMilliseconds() const { return m_lastRenderMs; }
    /// Lane height and first visible lane as laid out now.
    int laneHeight() const;
    int firstVisibleLane() const { return m_firstLane; }
    /// The rectangle (widget coordinates) where the lanes are drawn.
    QRect lanesRect() const;
    /// Hover text for widget position `pos`: the event under it, or empty.
    QString eventTextAt(QPoint pos) const;

    static constexpr int kLabelWidth = 130;
    static constexpr int kAxisHeight = 22;

Q_SIGNALS:
    /// The visible window or the lanes' x-range changed (zoom, pan, resize, new data): widgets that
    /// share the time axis read viewStartNs(), viewEndNs() and lanesRect() again.
    void viewChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    void invalidate();
    void drawAxis(class QPainter& p, const QRect& lanes) const;
    int laneAt(int y) const;
    int visibleLaneCount() const;

    std::shared_ptr<const TimelineData> m_data;
    QString m_placeholder;
    double m_viewStartNs = 0;
    double m_nsPerPixel = 1;
    int m_firstLane = 0;
    QImage m_cache;
    bool m_dirty = true;
    mutable double m_lastRenderMs = 0;
    QPoint m_dragOrigin;
    bool m_dragging = false;
    double m_dragStartNs = 0;
    int m_dragFirstLane = 0;
};

} // namespace clusterscope::views
