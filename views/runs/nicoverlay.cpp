#include "views/runs/nicoverlay.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace clusterscope::views {

namespace {
    constexpr int kTop = 18; ///< room for the title
    constexpr int kBottom = 4;
} // namespace

NicOverlay::NicOverlay(QWidget* parent)
    : QWidget(parent)
{
    // Up to sizeHint() (never more), down to one line when the room is short.
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    setMessage(tr("No telemetry source connected: connect one in the Live tab to see the hosts' NIC throughput "
                  "on this timeline."));
}

void NicOverlay::setThroughput(double startS, double stepS, std::vector<NicOverlayHost> hosts)
{
    m_startS = startS;
    m_stepS = stepS > 0 ? stepS : 1.0;
    m_hosts = std::move(hosts);
    m_maxBytesPerS = 0.0;
    for (const auto& h : m_hosts)
        for (double v : h.bytesPerS)
            if (std::isfinite(v))
                m_maxBytesPerS = std::max(m_maxBytesPerS, v);
    m_message.clear();
    fitHeight();
    update();
}

QSize NicOverlay::sizeHint() const
{
    if (!m_message.isEmpty() || m_hosts.empty())
        return { 600, 2 * fontMetrics().lineSpacing() + 8 };
    return { 600, 110 };
}

QSize NicOverlay::minimumSizeHint() const { return { 100, hasLines() ? kMinimumLinesHeight : 0 }; }

void NicOverlay::fitHeight()
{
    // Layouts give it up to sizeHint()'s height (the vertical size policy is Maximum).
    updateGeometry();
    if (hasLines() != m_linesShown) {
        m_linesShown = hasLines();
        Q_EMIT linesShownChanged(m_linesShown);
    }
}

void NicOverlay::setMessage(const QString& text)
{
    m_message = text;
    m_hosts.clear();
    fitHeight();
    update();
}

void NicOverlay::setHighlightedHost(const QString& host)
{
    m_highlighted = host;
    update();
}

void NicOverlay::setTimeAxis(double viewStartNs, double viewEndNs, int plotLeft, int plotRight)
{
    m_viewStartNs = viewStartNs;
    m_viewEndNs = viewEndNs > viewStartNs ? viewEndNs : viewStartNs + 1.0;
    m_plotLeft = plotLeft;
    m_plotRight = plotRight;
    update();
}

double NicOverlay::xOf(double timeS) const
{
    const int right = m_plotRight < 0 ? width() : m_plotRight;
    return m_plotLeft + (timeS * 1e9 - m_viewStartNs) / (m_viewEndNs - m_viewStartNs) * double(right - m_plotLeft);
}

double NicOverlay::yOf(double bytesPerS) const
{
    const double h = double(height() - kTop - kBottom);
    // 8 % headroom: the busiest host's line stays clear of the title.
    const double top = m_maxBytesPerS > 0 ? 1.08 * m_maxBytesPerS : 1.0;
    return double(height() - kBottom) - std::clamp(bytesPerS / top, 0.0, 1.0) * h;
}

void NicOverlay::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(250, 250, 252));
    p.setPen(QColor(60, 60, 70));
    if (!m_message.isEmpty() || m_hosts.empty()) {
        p.drawText(rect().adjusted(8, 4, -8, -4), Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap,
            m_message.isEmpty() ? tr("No NIC samples in the run's window.") : m_message);
        return;
    }
    p.drawText(QRect(m_plotLeft + 4, 2, width(), kTop - 2), Qt::AlignLeft | Qt::AlignVCenter,
        tr("NIC transmit throughput per host (telemetry), up to %1 GB/s").arg(m_maxBytesPerS / 1e9, 0, 'f', 1));
    const int right = m_plotRight < 0 ? width() : m_plotRight;
    p.setClipRect(QRect(m_plotLeft, kTop, right - m_plotLeft, height() - kTop));
    p.setRenderHint(QPainter::Antialiasing, true);
    // Faint hosts first, the highlighted one on top.
    for (int pass = 0; pass < 2; ++pass)
        for (const auto& h : m_hosts) {
            const bool bold = !m_highlighted.isEmpty() && h.host == m_highlighted;
            if (bold != (pass == 1))
                continue;
            QPainterPath path;
            bool drawing = false;
            for (std::size_t k = 0; k < h.bytesPerS.size(); ++k) {
                const double v = h.bytesPerS[k];
                if (!std::isfinite(v)) {
                    drawing = false; // a gap: the line stops here
                    continue;
                }
                const QPointF at(xOf(m_startS + double(k) * m_stepS), yOf(v));
                if (drawing)
                    path.lineTo(at);
                else
                    path.moveTo(at);
                drawing = true;
            }
            const QColor c = bold ? QColor(200, 60, 20) : QColor(40, 90, 170, m_highlighted.isEmpty() ? 200 : 60);
            p.setPen(QPen(c, bold ? 2.0 : 1.0));
            p.drawPath(path);
        }
}

} // namespace clusterscope::views
