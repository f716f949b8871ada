#include "views/runs/timelinewidget.h"

#include "views/runs/runpalette.h"
#include "views/runs/timelinedata.h"

#include <QElapsedTimer>
#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>

namespace clusterscope::views {

namespace {
    QString axisLabel(double ns)
    {
        const QLocale l;
        const double a = std::abs(ns);
        if (a >= 1e9)
            return l.toString(ns / 1e9, 'g', 6) + QStringLiteral(" s");
        if (a >= 1e6)
            return l.toString(ns / 1e6, 'g', 6) + QStringLiteral(" ms");
        if (a >= 1e3)
            return l.toString(ns / 1e3, 'g', 6) + QStringLiteral(" µs");
        return l.toString(ns, 'g', 6) + QStringLiteral(" ns");
    }

    // 1, 2 or 5 times a power of ten, the smallest such step giving at most `maxTicks` ticks.
    double niceStep(double span, int maxTicks)
    {
        const double raw = span / std::max(1, maxTicks);
        const double power = std::pow(10.0, std::floor(std::log10(raw)));
        for (double m : { 1.0, 2.0, 5.0, 10.0 })
            if (m * power >= raw)
                return m * power;
        return 10 * power;
    }
}

TimelineWidget::TimelineWidget(QWidget* parent)
    : QWidget(parent)
    , m_placeholder(tr("No events to show."))
{
    setMouseTracking(true);
    setMinimumHeight(160);
    setFocusPolicy(Qt::WheelFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

TimelineWidget::~TimelineWidget() = default;

void TimelineWidget::setData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_firstLane = 0;
    fitAll();
}

void TimelineWidget::setPlaceholderText(const QString& text)
{
    m_placeholder = text;
    update();
}

QRect TimelineWidget::lanesRect() const
{
    return QRect(kLabelWidth, kAxisHeight, std::max(1, width() - kLabelWidth), std::max(1, height() - kAxisHeight));
}

int TimelineWidget::laneHeight() const
{
    const int lanes = m_data ? int(m_data->lanes().size()) : 0;
    if (lanes == 0)
        return 20;
    return std::clamp(lanesRect().height() / lanes, 4, 20);
}

int TimelineWidget::visibleLaneCount() const { return lanesRect().height() / laneHeight() + 1; }

void TimelineWidget::fitAll()
{
    const int w = lanesRect().width();
    if (m_data && m_data->endNs() > m_data->beginNs()) {
        const double span = double(m_data->endNs() - m_data->beginNs());
        m_nsPerPixel = span * 1.02 / w;
        m_viewStartNs = double(m_data->beginNs()) - span * 0.01;
    } else {
        m_nsPerPixel = 1;
        m_viewStartNs = 0;
    }
    invalidate();
}

void TimelineWidget::setViewRange(double startNs, double endNs)
{
    if (endNs <= startNs)
        return;
    m_viewStartNs = startNs;
    m_nsPerPixel = (endNs - startNs) / lanesRect().width();
    invalidate();
}

double TimelineWidget::viewEndNs() const { return m_viewStartNs + m_nsPerPixel * lanesRect().width(); }

void TimelineWidget::zoomAt(double factor, int x)
{
    if (!m_data || factor <= 0)
        return;
    const double px = std::clamp(x - kLabelWidth, 0, lanesRect().width());
    const double t = m_viewStartNs + px * m_nsPerPixel;
    const double span = std::max(1.0, double(m_data->endNs() - m_data->beginNs()));
    // From a tenth of a nanosecond per pixel to four times the run across the widget.
    m_nsPerPixel = std::clamp(m_nsPerPixel / factor, 0.1, span * 4 / lanesRect().width());
    m_viewStartNs = t - px * m_nsPerPixel;
    invalidate();
}

void TimelineWidget::panByPixels(int dx)
{
    m_viewStartNs -= dx * m_nsPerPixel;
    invalidate();
}

void TimelineWidget::invalidate()
{
    m_dirty = true;
    update();
    Q_EMIT viewChanged();
}

QImage TimelineWidget::renderLanes(QSize size) const
{
    QElapsedTimer timer;
    timer.start();
    QImage image(size, QImage::Format_RGB32);
    const QColor base = palette().color(QPalette::Base);
    const QColor shade = palette().color(QPalette::AlternateBase);
    image.fill(base);
    if (!m_data || size.isEmpty()) {
        m_lastRenderMs = double(timer.nsecsElapsed()) / 1e6;
        return image;
    }
    const int columns = size.width();
    const int laneH = laneHeight();
    std::array<std::array<float, 3>, kTimelineKinds> kindRgb;
    for (int k = 0; k < kTimelineKinds; ++k) {
        const QColor c = RunPalette::activityColor(engine::GpuActivityKind(k));
        kindRgb[std::size_t(k)] = { float(c.red()), float(c.green()), float(c.blue()) };
    }
    std::vector<float> occupancy(std::size_t(columns) * kTimelineKinds);
    std::vector<QRgb> row(static_cast<std::size_t>(columns));
    const auto& lanes = m_data->lanes();
    for (int lane = m_firstLane, y = 0; lane < int(lanes.size()) && y < size.height(); ++lane, y += laneH) {
        std::fill(occupancy.begin(), occupancy.end(), 0.0f);
        m_data->binLane(lane, m_viewStartNs, m_nsPerPixel, columns, occupancy.data());
        // Alternate the background per rank so that a rank's lanes read as one band.
        const QColor bg = lanes[std::size_t(lane)].rankIndex % 2 ? shade : base;
        const float bgr = float(bg.red()), bgg = float(bg.green()), bgb = float(bg.blue());
        for (int x = 0; x < columns; ++x) {
            const float* o = occupancy.data() + std::size_t(x) * kTimelineKinds;
            float total = 0, r = 0, g = 0, b = 0;
            for (int k = 0; k < kTimelineKinds; ++k) {
                total += o[k];
                r += o[k] * kindRgb[std::size_t(k)][0];
                g += o[k] * kindRgb[std::size_t(k)][1];
                b += o[k] * kindRgb[std::size_t(k)][2];
            }
            if (total <= 0) {
                row[std::size_t(x)] = qRgb(int(bgr), int(bgg), int(bgb));
                continue;
            }
            // Opacity grows with the busy share of the column; a floor keeps single short kernels
            // visible when zoomed far out.
            const float alpha = 0.3f + 0.7f * std::min(1.0f, total);
            r /= total;
            g /= total;
            b /= total;
            row[std::size_t(x)] = qRgb(int(bgr + (r - bgr) * alpha + 0.5f), int(bgg + (g - bgg) * alpha + 0.5f),
                int(bgb + (b - bgb) * alpha + 0.5f));
        }
        const int rows = std::min(laneH - (laneH > 5 ? 1 : 0), size.height() - y);
        for (int dy = 0; dy < rows; ++dy)
            std::copy(row.begin(), row.end(), reinterpret_cast<QRgb*>(image.scanLine(y + dy)));
    }
    m_lastRenderMs = double(timer.nsecsElapsed()) / 1e6;
    return image;
}

void TimelineWidget::drawAxis(QPainter& p, const QRect& lanes) const
{
    const double span = m_nsPerPixel * lanes.width();
    const double origin = m_data ? double(m_data->beginNs()) : 0.0;
    const double step = niceStep(span, std::max(2, lanes.width() / 110));
    const double first = std::ceil((m_viewStartNs - origin) / step) * step;
    p.setPen(palette().color(QPalette::Text));
    for (double t = first; t <= m_viewStartNs - origin + span; t += step) {
        const int x = lanes.left() + int(std::lround((t + origin - m_viewStartNs) / m_nsPerPixel));
        p.drawLine(x, kAxisHeight - 5, x, kAxisHeight - 1);
        p.drawText(QRect(x + 3, 0, 120, kAxisHeight - 4), Qt::AlignLeft | Qt::AlignVCenter, axisLabel(t));
    }
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Window));
    const QRect lanes = lanesRect();
    if (!m_data || m_data->lanes().empty()) {
        p.fillRect(rect(), palette().color(QPalette::Base));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    if (m_dirty || m_cache.size() != lanes.size()) {
        m_cache = renderLanes(lanes.size());
        m_dirty = false;
    }
    p.drawImage(lanes.topLeft(), m_cache);
    drawAxis(p, lanes);
    // Lane labels: every lane when they fit, else the first lane of each rank.
    const int laneH = laneHeight();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    p.setPen(palette().color(QPalette::Text));
    const auto& all = m_data->lanes();
    const bool every = laneH >= p.fontMetrics().height();
    for (int lane = m_firstLane, y = lanes.top(); lane < int(all.size()) && y < lanes.bottom(); ++lane, y += laneH) {
        const bool firstOfRank = lane == 0 || all[std::size_t(lane - 1)].rankIndex != all[std::size_t(lane)].rankIndex;
        if (firstOfRank && lane != m_firstLane) {
            p.setPen(palette().color(QPalette::Mid));
            p.drawLine(0, y, width(), y);
            p.setPen(palette().color(QPalette::Text));
        }
        if (every)
            p.drawText(QRect(4, y, kLabelWidth - 8, laneH), Qt::AlignLeft | Qt::AlignVCenter, m_data->laneLabel(lane));
        else if (firstOfRank)
            p.drawText(QRect(4, y, kLabelWidth - 8, p.fontMetrics().height()), Qt::AlignLeft | Qt::AlignTop,
                tr("rank %1").arg(all[std::size_t(lane)].rank));
    }
}

void TimelineWidget::resizeEvent(QResizeEvent* event)
{
    // Keep the visible time span when the widget is resized before any data was shown.
    const int oldWidth = event->oldSize().width() - kLabelWidth;
    if (oldWidth > 0)
        m_nsPerPixel *= double(oldWidth) / lanesRect().width();
    else
        fitAll();
    invalidate();
    QWidget::resizeEvent(event);
}

void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier) {
        const int lanes = m_data ? int(m_data->lanes().size()) : 0;
        m_firstLane = std::clamp(m_firstLane - int(steps * 3), 0, std::max(0, lanes - visibleLaneCount() + 1));
        invalidate();
    } else {
        zoomAt(std::pow(1.25, steps), int(event->position().x()));
    }
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragOrigin = event->position().toPoint();
        m_dragStartNs = m_viewStartNs;
        m_dragFirstLane = m_firstLane;
        setCursor(Qt::ClosedHandCursor);
    }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_dragging)
        return;
    const QPoint delta = event->position().toPoint() - m_dragOrigin;
    m_viewStartNs = m_dragStartNs - delta.x() * m_nsPerPixel;
    const int lanes = m_data ? int(m_data->lanes().size()) : 0;
    m_firstLane = std::clamp(
        m_dragFirstLane - delta.y() / std::max(1, laneHeight()), 0, std::max(0, lanes - visibleLaneCount() + 1));
    invalidate();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent*)
{
    m_dragging = false;
    unsetCursor();
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent*)
{
    m_firstLane = 0;
    fitAll();
}

int TimelineWidget::laneAt(int y) const
{
    if (!m_data || y < kAxisHeight)
        return -1;
    const int lane = m_firstLane + (y - kAxisHeight) / laneHeight();
    return lane < int(m_data->lanes().size()) ? lane : -1;
}

QString TimelineWidget::eventTextAt(QPoint pos) const
{
    const int lane = laneAt(pos.y());
    if (lane < 0 || pos.x() < kLabelWidth)
        return {};
    const double t = m_viewStartNs + (pos.x() - kLabelWidth + 0.5) * m_nsPerPixel;
    const int event = m_data->eventAt(lane, t, 3 * m_nsPerPixel);
    return event < 0 ? QString() : m_data->describe(lane, event);
}

bool TimelineWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = eventTextAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace clusterscope::views
