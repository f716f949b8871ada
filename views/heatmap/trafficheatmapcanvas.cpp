#include "views/heatmap/trafficheatmapcanvas.h"

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace clusterscope::views {

namespace {

    /// First plot pixel whose centre lies at or after GPU coordinate `gpu`: pixel p shows the GPU under
    /// its centre, start + (p + 0.5) / pixelsPerGpu. The image and the hover both use this one rule, so
    /// the tooltip always names the cell drawn under the cursor.
    long long firstPixelAt(double gpu, double start, double pixelsPerGpu)
    {
        return static_cast<long long>(std::ceil((gpu - start) * pixelsPerGpu - 0.5));
    }

} // namespace

TrafficHeatmapCanvas::TrafficHeatmapCanvas(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    // A laptop's Runs tab holds it beside the per-rank chart, under its filter row, in a pane of
    // ~210 px: a taller minimum would push the plot's bottom out of the pane.
    setMinimumSize(240, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setCursor(Qt::CrossCursor);
}

void TrafficHeatmapCanvas::setSource(
    std::shared_ptr<const engine::TrafficSource> source, const TrafficHeatmapGeometry& geometry)
{
    m_source = std::move(source);
    m_geometry = geometry;
    m_viewport.setGpus(m_source ? m_source->gpus() : 0);
    m_hoverSrc = m_hoverDst = -1;
    viewWasChanged();
}

void TrafficHeatmapCanvas::setFilter(const engine::TrafficFilter& filter)
{
    if (filter.dimensionMask == m_filter.dimensionMask && filter.linkClassMask == m_filter.linkClassMask)
        return;
    m_filter = filter;
    m_dirty = true;
    update();
}

void TrafficHeatmapCanvas::setTitle(const QString& title)
{
    m_title = title;
    update();
}

void TrafficHeatmapCanvas::setViewWindow(double rowStart, double colStart, double span)
{
    m_viewport.setWindow(rowStart, colStart, span);
    viewWasChanged();
}

void TrafficHeatmapCanvas::zoomAt(QPointF pos, double factor)
{
    if (m_plot.width() <= 0)
        layoutAreas();
    const double fx = std::clamp((pos.x() - m_plot.left()) / std::max(1, m_plot.width()), 0.0, 1.0);
    const double fy = std::clamp((pos.y() - m_plot.top()) / std::max(1, m_plot.height()), 0.0, 1.0);
    m_viewport.zoomAt(fx, fy, factor);
    viewWasChanged();
}

void TrafficHeatmapCanvas::resetView()
{
    m_viewport.reset();
    viewWasChanged();
}

void TrafficHeatmapCanvas::viewWasChanged()
{
    m_dirty = true;
    update();
    Q_EMIT viewChanged();
}

void TrafficHeatmapCanvas::ensureRendered()
{
    const QRect oldPlot = m_plot;
    layoutAreas();
    if (m_dirty || m_plot.size() != oldPlot.size() || m_image.size() != m_plot.size())
        renderImage();
}

void TrafficHeatmapCanvas::renderImage()
{
    m_dirty = false;
    m_error.clear();
    m_blocks = {};
    m_scale = {};
    const int pixels = m_plot.width();
    if (!m_source || m_source->gpus() <= 0 || pixels <= 0) {
        m_image = QImage();
        return;
    }
    const HeatmapLevel level = m_viewport.levelFor(m_geometry, pixels);
    const long long b = m_geometry.gpusPerBlock(level);
    QElapsedTimer timer;
    timer.start();
    auto result = m_source->blocks({ m_viewport.blockWindow(b), b, m_filter });
    m_stats.level = level;
    m_stats.queryMilliseconds = timer.nsecsElapsed() / 1e6;
    if (!result) {
        m_error = QString::fromStdString(result.message());
        m_image = QImage();
        return;
    }
    m_blocks = std::move(*result);
    m_stats.cells = m_blocks.rows * m_blocks.cols;
    timer.restart();
    m_scale = HeatmapColorScale::forRange(m_blocks.minPositiveBytes(), m_blocks.maxBytes());

    // Pixel extent of every block row and column: GPU g is at (g - start) x pixels / span.
    const double scale = pixels / m_viewport.span();
    const long long gpus = m_source->gpus();
    const auto extents = [&](long long firstBlock, long long count, double start) {
        std::vector<std::pair<int, int>> out(static_cast<std::size_t>(count));
        for (long long i = 0; i < count; ++i) {
            const long long lo = (firstBlock + i) * b, hi = std::min(gpus, lo + b);
            const long long p0 = firstPixelAt(double(lo), start, scale);
            const long long p1 = std::max(firstPixelAt(double(hi), start, scale), p0 + 1); // thin blocks still show
            out[std::size_t(i)]
                = { int(std::clamp(p0, 0LL, (long long)pixels)), int(std::clamp(p1, 0LL, (long long)pixels)) };
        }
        return out;
    };
    const auto rowsPx = extents(m_blocks.firstRowBlock, m_blocks.rows, m_viewport.rowStart());
    const auto colsPx = extents(m_blocks.firstColBlock, m_blocks.cols, m_viewport.colStart());

    // Colour index per pixel (-1: no traffic); where blocks share a pixel the larger one wins, so
    // a hot pair never disappears when zoomed out.
    std::vector<std::int16_t>& index = m_pixelIndex; // kept between frames: no page faults per frame
    index.assign(static_cast<std::size_t>(pixels) * pixels, -1);
    for (long long r = 0; r < m_blocks.rows; ++r) {
        const auto [y0, y1] = rowsPx[std::size_t(r)];
        if (y0 >= y1)
            continue;
        for (long long c = 0; c < m_blocks.cols; ++c) {
            const double v = m_blocks.at(r, c);
            const auto [x0, x1] = colsPx[std::size_t(c)];
            if (!(v > 0) || x0 >= x1)
                continue;
            const auto k = static_cast<std::int16_t>(m_scale.index(v));
            for (int y = y0; y < y1; ++y) {
                std::int16_t* line = index.data() + std::size_t(y) * pixels;
                for (int x = x0; x < x1; ++x)
                    line[x] = std::max(line[x], k);
            }
        }
    }
    // Faint lines at the boundaries of the next coarser level (nodes at GPU level, racks at node
    // level, ...) once they are 12 pixels apart, so blocks can be counted. Baked into the image:
    // a hundred translucent QPainter lines cost more than the whole picture.
    std::vector<char> rowLine(std::size_t(pixels), 0), colLine(std::size_t(pixels), 0);
    if (level != HeatmapLevel::Pod) {
        const long long coarse = m_geometry.gpusPerBlock(static_cast<HeatmapLevel>(int(level) + 1));
        if (coarse * scale >= 12 && coarse < gpus)
            for (int axis = 0; axis < 2; ++axis) {
                const double start = axis == 0 ? m_viewport.colStart() : m_viewport.rowStart();
                std::vector<char>& lines = axis == 0 ? colLine : rowLine;
                for (long long g = (static_cast<long long>(start) / coarse + 1) * coarse; g < start + m_viewport.span();
                     g += coarse) {
                    const long long at = firstPixelAt(double(g), start, scale);
                    if (at >= 0 && at < pixels)
                        lines[std::size_t(at)] = 1;
                }
            }
    }
    const auto darken = [](QRgb c) { // 18 % black over the cell, as a pen of alpha 45 would draw
        return qRgb(qRed(c) * 82 / 100, qGreen(c) * 82 / 100, qBlue(c) * 82 / 100);
    };
    if (m_image.size() != QSize(pixels, pixels) || m_image.format() != QImage::Format_RGB32)
        m_image = QImage(pixels, pixels, QImage::Format_RGB32);
    const QRgb zero = HeatmapColorScale::zeroRgb();
    for (int y = 0; y < pixels; ++y) {
        auto* out = reinterpret_cast<QRgb*>(m_image.scanLine(y));
        const std::int16_t* in = index.data() + std::size_t(y) * pixels;
        for (int x = 0; x < pixels; ++x) {
            const QRgb c = in[x] < 0 ? zero : HeatmapColorScale::viridisAt(in[x]);
            out[x] = rowLine[std::size_t(y)] || colLine[std::size_t(x)] ? darken(c) : c;
        }
    }
    m_stats.imageMilliseconds = timer.nsecsElapsed() / 1e6;
}

bool TrafficHeatmapCanvas::gpuAt(QPointF pos, long long& srcGpu, long long& dstGpu) const
{
    if (!m_source || !m_plot.contains(pos.toPoint()) || m_plot.width() <= 0)
        return false;
    const double scale = m_plot.width() / m_viewport.span();
    const long long last = m_source->gpus() - 1;
    const auto gpuOf = [&](long long pixel, double start) {
        // The GPU under the pixel's centre, then nudged so that firstPixelAt (the image's rule) agrees.
        long long g = std::clamp(static_cast<long long>(start + (pixel + 0.5) / scale), 0LL, last);
        while (g < last && firstPixelAt(double(g + 1), start, scale) <= pixel)
            ++g;
        while (g > 0 && firstPixelAt(double(g), start, scale) > pixel)
            --g;
        return g;
    };
    dstGpu = gpuOf(static_cast<long long>(std::floor(pos.x())) - m_plot.left(), m_viewport.colStart());
    srcGpu = gpuOf(static_cast<long long>(std::floor(pos.y())) - m_plot.top(), m_viewport.rowStart());
    return true;
}

QPoint TrafficHeatmapCanvas::cellCenter(long long srcGpu, long long dstGpu) const
{
    if (!m_source || m_plot.width() <= 0)
        return { -1, -1 };
    const long long b = m_geometry.gpusPerBlock(m_stats.level);
    const auto centre = [&](long long gpu, double start) {
        const long long lo = gpu / b * b, hi = std::min(m_source->gpus(), lo + b);
        const double visibleLo = std::max<double>(lo, start),
                     visibleHi = std::min<double>(hi, start + m_viewport.span());
        return (0.5 * (visibleLo + visibleHi) - start) * m_plot.width() / m_viewport.span();
    };
    const double x = centre(dstGpu, m_viewport.colStart()), y = centre(srcGpu, m_viewport.rowStart());
    if (x < 0 || y < 0 || x >= m_plot.width() || y >= m_plot.height())
        return { -1, -1 };
    return { m_plot.left() + static_cast<int>(x), m_plot.top() + static_cast<int>(y) };
}

// --- interaction ---------------------------------------------------------------------------------

void TrafficHeatmapCanvas::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    m_dirty = true;
}

void TrafficHeatmapCanvas::wheelEvent(QWheelEvent* event)
{
    if (!m_source) {
        event->ignore();
        return;
    }
    // One notch (120 eighths of a degree) zooms by 1.25; touchpads send smaller steps.
    zoomAt(event->position(), std::pow(1.25, event->angleDelta().y() / 120.0));
    event->accept();
}

void TrafficHeatmapCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_plot.contains(event->position().toPoint())) {
        m_dragging = true;
        m_lastDragPos = event->position();
        setCursor(Qt::ClosedHandCursor);
        QToolTip::hideText();
    }
}

void TrafficHeatmapCanvas::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragging) {
        const QPointF delta = event->position() - m_lastDragPos;
        m_lastDragPos = event->position();
        m_viewport.panBy(delta.x() / std::max(1, m_plot.width()), delta.y() / std::max(1, m_plot.height()));
        viewWasChanged();
        return;
    }
    long long src = -1, dst = -1;
    if (!gpuAt(event->position(), src, dst))
        src = dst = -1;
    if (src != m_hoverSrc || dst != m_hoverDst) {
        m_hoverSrc = src;
        m_hoverDst = dst;
        update();
    }
    const QString text = hoverText(event->position().toPoint());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void TrafficHeatmapCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_dragging) {
        m_dragging = false;
        setCursor(Qt::CrossCursor);
    }
}

void TrafficHeatmapCanvas::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        resetView();
}

void TrafficHeatmapCanvas::keyPressEvent(QKeyEvent* event)
{
    const QPointF centre = QRectF(m_plot).center();
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(centre, 2.0);
        break;
    case Qt::Key_Minus:
        zoomAt(centre, 0.5);
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        resetView();
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

void TrafficHeatmapCanvas::leaveEvent(QEvent* event)
{
    QWidget::leaveEvent(event);
    if (m_hoverSrc >= 0) {
        m_hoverSrc = m_hoverDst = -1;
        update();
    }
}

} // namespace clusterscope::views
