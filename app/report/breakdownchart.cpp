#include "app/report/breakdownchart.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace clusterscope::app {

std::vector<views::BreakdownSlice> breakdownLegend(const std::vector<BreakdownBar>& bars)
{
    std::vector<views::BreakdownSlice> legend;
    for (const views::BreakdownSlice& slice : views::BreakdownPalette::slices({})) {
        for (const BreakdownBar& bar : bars)
            if (views::BreakdownPalette::seconds(bar.breakdown, slice.component) > 0) {
                legend.push_back(slice);
                break;
            }
    }
    return legend;
}

namespace {

    /// A "nice" axis step (1, 2 or 5 x 10^k) giving about `ticks` intervals over `range`.
    double niceStep(double range, int ticks)
    {
        const double raw = range / std::max(1, ticks);
        const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
        for (const double f : { 1.0, 2.0, 5.0, 10.0 })
            if (raw <= f * magnitude)
                return f * magnitude;
        return 10.0 * magnitude;
    }

} // namespace

QImage drawBreakdownChart(const std::vector<BreakdownBar>& bars, int widthPx)
{
    const double unit = widthPx / 900.0; // layout designed on a 900-unit-wide canvas
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(int(13 * unit));
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF fm(font);

    double maxLabel = 0;
    for (const BreakdownBar& bar : bars)
        maxLabel = std::max(maxLabel, fm.horizontalAdvance(bar.label));
    const double left = std::min(std::max(maxLabel + 16 * unit, 60 * unit), 300 * unit);
    const double right = widthPx - 90 * unit;
    const double barHeight = 30 * unit;
    const double barGap = 14 * unit;
    const double top = 14 * unit;
    const double axisY = top + bars.size() * (barHeight + barGap);

    // Legend: only components that occur in some bar, in breakdown order.
    const std::vector<views::BreakdownSlice> legend = breakdownLegend(bars);
    // Legend items flow left to right: swatch, name, gap; a new row when the next one does not fit.
    std::vector<QPointF> legendAt;
    {
        double x = 14 * unit, y = 0;
        for (const views::BreakdownSlice& c : legend) {
            const double w = 20 * unit + fm.horizontalAdvance(c.name) + 28 * unit;
            if (x + w > widthPx - 14 * unit && x > 14 * unit) {
                x = 14 * unit;
                y += 24 * unit;
            }
            legendAt.emplace_back(x, y);
            x += w;
        }
    }
    const int legendRows = legendAt.empty() ? 0 : int(legendAt.back().y() / (24 * unit)) + 1;
    const double legendTop = axisY + 40 * unit;
    const int height = int(legendTop + legendRows * 24 * unit + 10 * unit);

    QImage image(widthPx, height, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setFont(font);

    double maxTotal = 0;
    for (const BreakdownBar& bar : bars)
        maxTotal = std::max(maxTotal, bar.breakdown.total());
    if (maxTotal <= 0)
        maxTotal = 1;
    const double step = niceStep(maxTotal, 6);
    const double axisMax = std::ceil(maxTotal / step - 1e-9) * step;
    const auto xOf = [&](double s) { return left + (right - left) * s / axisMax; };

    // Grid and axis.
    p.setPen(QPen(QColor(0xDD, 0xDD, 0xDD), unit));
    for (double t = 0; t <= axisMax + step / 2; t += step) {
        p.drawLine(QPointF(xOf(t), top - 4 * unit), QPointF(xOf(t), axisY));
        p.setPen(QColor(0x44, 0x44, 0x44));
        const QString label = QString::number(t, 'g', 4) + QStringLiteral(" s");
        p.drawText(QRectF(xOf(t) - 50 * unit, axisY + 4 * unit, 100 * unit, 20 * unit), Qt::AlignHCenter | Qt::AlignTop,
            label);
        p.setPen(QPen(QColor(0xDD, 0xDD, 0xDD), unit));
    }
    p.setPen(QPen(QColor(0x66, 0x66, 0x66), unit));
    p.drawLine(QPointF(left, axisY), QPointF(right, axisY));

    for (std::size_t i = 0; i < bars.size(); ++i) {
        const double y = top + i * (barHeight + barGap);
        p.setPen(QColor(0x22, 0x22, 0x22));
        p.drawText(QRectF(0, y, left - 10 * unit, barHeight), Qt::AlignRight | Qt::AlignVCenter,
            fm.elidedText(bars[i].label, Qt::ElideRight, left - 14 * unit));
        double start = 0;
        for (const views::BreakdownSlice& c : views::BreakdownPalette::slices(bars[i].breakdown)) {
            if (c.seconds <= 0)
                continue;
            const QRectF r(QPointF(xOf(start), y), QPointF(xOf(start + c.seconds), y + barHeight));
            p.fillRect(r, c.color);
            start += c.seconds;
        }
        p.setPen(QPen(Qt::white, unit));
        p.setBrush(Qt::NoBrush);
        p.setPen(QColor(0x22, 0x22, 0x22));
        p.setFont(bold);
        p.drawText(QRectF(xOf(start) + 6 * unit, y, 120 * unit, barHeight), Qt::AlignLeft | Qt::AlignVCenter,
            QString::number(bars[i].breakdown.total(), 'f', 3) + QStringLiteral(" s"));
        p.setFont(font);
    }

    for (std::size_t k = 0; k < legend.size(); ++k) {
        const double x = legendAt[k].x();
        const double y = legendTop + legendAt[k].y();
        p.fillRect(QRectF(x, y + 3 * unit, 14 * unit, 14 * unit), legend[k].color);
        p.setPen(QColor(0x22, 0x22, 0x22));
        p.drawText(QRectF(x + 20 * unit, y, fm.horizontalAdvance(legend[k].name) + 8 * unit, 20 * unit),
            Qt::AlignLeft | Qt::AlignVCenter, legend[k].name);
    }
    return image;
}

} // namespace clusterscope::app
