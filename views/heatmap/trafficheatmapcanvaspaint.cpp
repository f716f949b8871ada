// TrafficHeatmapCanvas: layout, painting (plot, axes, legend, header) and the texts it shows.

#include "views/heatmap/trafficheatmapcanvas.h"
#include "views/presentation/tiernames.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace clusterscope::views {

namespace {

    const QChar kDash(0x2013);

    QString range(long long first, long long last)
    {
        return first == last ? QString::number(first) : QString::number(first) + kDash + QString::number(last);
    }

    QString dimensionLabel(int d)
    {
        static const char* const names[] = { "TP", "CP", "DP", "EP", "PP", "unattributed" };
        return QLatin1String(names[std::clamp(d, 0, engine::kTrafficSourceDimensions - 1)]);
    }

    QString maskLabel(unsigned mask, int count, unsigned all, QString (*label)(int))
    {
        if ((mask & all) == all)
            return QStringLiteral("all");
        QStringList parts;
        for (int i = 0; i < count; ++i)
            if (mask & (1u << i))
                parts << label(i);
        return parts.isEmpty() ? QStringLiteral("none") : parts.join(QLatin1Char('+'));
    }

    /// A "nice" step (1, 2, 5 x 10^k) of at least `minimum`.
    long long niceStep(double minimum)
    {
        long long step = 1;
        while (true) {
            for (long long m : { 1LL, 2LL, 5LL })
                if (m * step >= minimum)
                    return m * step;
            step *= 10;
        }
    }

} // namespace

void TrafficHeatmapCanvas::layoutAreas()
{
    const QFontMetrics fm(font());
    const int line = fm.height();
    const QString widest = QString::number(std::max(9LL, m_source ? m_source->gpus() - 1 : 0));
    // The title and the status line wrap (at most four lines each) instead of being cut on a
    // narrow window; the plot starts below them.
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics boldMetrics(bold);
    const int textWidth = std::max(1, width() - 20);
    const auto wrappedHeight = [textWidth](const QFontMetrics& metrics, const QString& text) {
        const int height
            = metrics.boundingRect(QRect(0, 0, textWidth, 100 * metrics.height()), Qt::TextWordWrap, text).height();
        return std::clamp(height, metrics.height(), 4 * metrics.height());
    };
    m_titleHeight = wrappedHeight(boldMetrics, titleText());
    m_statusHeight = wrappedHeight(fm, statusText());
    const int header = m_titleHeight + m_statusHeight + 14;
    const int left = 10 + line + 8 + fm.horizontalAdvance(widest) + 8;
    const int bottom = line + 8 + line + 10;
    constexpr int kLegendGap = 16; // between the plot and the colour bar
    const int legendWidth = std::max(fm.horizontalAdvance(QStringLiteral("bytes / iteration")),
                                18 + 8 + fm.horizontalAdvance(QStringLiteral("100 MB")))
        + kLegendGap;
    const int side = std::max(0, std::min(width() - left - legendWidth - 10, height() - header - bottom));
    m_plot = QRect(left, header, side, side);
    m_legend = QRect(m_plot.right() + kLegendGap, header, legendWidth - kLegendGap, side);
    m_legendBar
        = QRect(m_legend.left(), m_legend.top() + line + 14, 18, std::max(10, m_legend.height() - 3 * line - 26));
}

void TrafficHeatmapCanvas::paintEvent(QPaintEvent*)
{
    ensureRendered();
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QFontMetrics fm(font());
    const int line = fm.height();

    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().windowText().color());
    p.drawText(QRect(10, 4, width() - 20, m_titleHeight + 2), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
        titleText());
    p.setFont(font());
    p.drawText(QRect(10, 6 + m_titleHeight, width() - 20, m_statusHeight + 2),
        Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, statusText());

    if (m_plot.width() <= 0)
        return;
    if (!m_image.isNull())
        p.drawImage(m_plot.topLeft(), m_image);
    else
        p.fillRect(m_plot, QColor::fromRgb(HeatmapColorScale::zeroRgb()));
    paintHover(p);
    p.setPen(QPen(palette().windowText().color(), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(m_plot.adjusted(0, 0, -1, -1));

    QString message;
    if (!m_source)
        message = QStringLiteral("No traffic to show");
    else if (!m_error.isEmpty())
        message = m_error;
    else if (m_scale.isEmpty())
        message = QStringLiteral("No traffic between these GPUs\nfor the selected dimension and link class");
    if (!message.isEmpty()) {
        p.setPen(palette().placeholderText().color());
        p.drawText(m_plot.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, message);
    }
    if (m_source)
        paintAxes(p);

    // Legend: the log scale as a vertical bar with decade ticks in SI bytes, then the zero swatch.
    p.setPen(palette().windowText().color());
    p.drawText(QRect(m_legend.left(), m_legend.top(), m_legend.width() + 20, line), Qt::AlignLeft,
        QStringLiteral("bytes / iteration"));
    const QRect bar = m_legendBar;
    if (m_scale.isEmpty()) {
        p.fillRect(bar, QColor::fromRgb(HeatmapColorScale::zeroRgb()));
    } else {
        for (int y = 0; y < bar.height(); ++y)
            p.fillRect(bar.left(), bar.bottom() - y, bar.width(), 1,
                QColor::fromRgb(HeatmapColorScale::viridis(bar.height() > 1 ? double(y) / (bar.height() - 1) : 1.0)));
        const int lo = m_scale.lowDecade(), hi = m_scale.highDecade();
        // Every decade gets a tick; a label is drawn only where it clears the one above it (a short bar
        // would otherwise stack "10 MB", "1 MB" and "1 kB" on top of each other), the top label always.
        QVector<int> decades = m_scale.tickDecades();
        std::sort(decades.begin(), decades.end(), std::greater<>());
        int lastLabelY = std::numeric_limits<int>::min() / 2;
        for (int d : decades) {
            const int y = bar.bottom() - static_cast<int>(std::lround(double(d - lo) / (hi - lo) * (bar.height() - 1)));
            p.drawLine(bar.right() + 1, y, bar.right() + 5, y);
            if (y - lastLabelY < line)
                continue;
            lastLabelY = y;
            p.drawText(QRect(bar.right() + 8, y - line / 2, m_legend.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                HeatmapColorScale::formatBytes(std::pow(10.0, d)));
        }
    }
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar.adjusted(0, 0, -1, -1));
    const QRect swatch(bar.left(), bar.bottom() + line, 18, line);
    p.fillRect(swatch, QColor::fromRgb(HeatmapColorScale::zeroRgb()));
    p.drawRect(swatch.adjusted(0, 0, -1, -1));
    p.drawText(QRect(swatch.right() + 8, swatch.top(), m_legend.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
        QStringLiteral("0 B (none)"));
}

void TrafficHeatmapCanvas::paintHover(QPainter& p) const
{
    if (m_hoverSrc < 0 || !m_source)
        return;
    const long long b = m_geometry.gpusPerBlock(m_stats.level);
    const double perGpu = m_plot.width() / m_viewport.span();
    const auto span = [&](long long gpu, double start) {
        const long long lo = gpu / b * b, hi = std::min(m_source->gpus(), lo + b);
        return std::pair<double, double>((lo - start) * perGpu, (hi - start) * perGpu);
    };
    const auto [x0, x1] = span(m_hoverDst, m_viewport.colStart());
    const auto [y0, y1] = span(m_hoverSrc, m_viewport.rowStart());
    QRectF cell(m_plot.left() + x0, m_plot.top() + y0, std::max(3.0, x1 - x0), std::max(3.0, y1 - y0));
    cell = cell.intersected(QRectF(m_plot));
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(Qt::white, 3));
    p.drawRect(cell);
    p.setPen(QPen(Qt::black, 1));
    p.drawRect(cell);
}

void TrafficHeatmapCanvas::paintAxes(QPainter& p) const
{
    const QFontMetrics fm(font());
    const int line = fm.height();
    const HeatmapLevel level = m_stats.level;
    const long long b = m_geometry.gpusPerBlock(level);
    const long long gpus = m_source->gpus();
    const double perGpu = m_plot.width() / m_viewport.span();
    p.setPen(palette().windowText().color());
    for (int axis = 0; axis < 2; ++axis) { // 0: destinations across the bottom, 1: sources down the left
        const double start = axis == 0 ? m_viewport.colStart() : m_viewport.rowStart();
        const double stop = start + m_viewport.span();
        const long long firstGpu = static_cast<long long>(std::floor(start));
        const long long lastGpu = std::min(gpus, static_cast<long long>(std::ceil(stop))) - 1;
        const long long firstBlock = firstGpu / b, lastBlock = lastGpu / b;
        // Ticks at block centres, spaced so that labels never overlap.
        const double labelPixels = axis == 0 ? fm.horizontalAdvance(QString::number(lastBlock)) + 12 : line + 6;
        const long long step = niceStep(labelPixels / (b * perGpu));
        for (long long k = (firstBlock + step - 1) / step * step; k <= lastBlock; k += step) {
            const double centreGpu = 0.5 * (k * b + std::min(gpus, (k + 1) * b));
            const int at = static_cast<int>(std::lround((centreGpu - start) * perGpu));
            if (at < 0 || at > m_plot.width())
                continue;
            const QString label = QString::number(k);
            if (axis == 0) {
                const int x = m_plot.left() + at;
                p.drawLine(x, m_plot.bottom() + 1, x, m_plot.bottom() + 4);
                p.drawText(QRect(x - 40, m_plot.bottom() + 5, 80, line), Qt::AlignHCenter | Qt::AlignTop, label);
            } else {
                const int y = m_plot.top() + at;
                p.drawLine(m_plot.left() - 4, y, m_plot.left() - 1, y);
                p.drawText(QRect(0, y - line / 2, m_plot.left() - 7, line), Qt::AlignRight | Qt::AlignVCenter, label);
            }
        }
        const QString title = axisTitle(axis);
        if (axis == 0) {
            p.drawText(
                QRect(m_plot.left(), m_plot.bottom() + line + 10, m_plot.width(), line), Qt::AlignHCenter, title);
        } else {
            p.save();
            p.translate(10, m_plot.center().y());
            p.rotate(-90);
            p.drawText(QRect(-m_plot.height() / 2, 0, m_plot.height(), line), Qt::AlignHCenter | Qt::AlignTop, title);
            p.restore();
        }
    }
}

QString TrafficHeatmapCanvas::axisTitle(int axis) const
{
    if (!m_source || m_plot.width() <= 0)
        return {};
    const QFontMetrics fm(font());
    const HeatmapLevel level = m_stats.level;
    const long long b = m_geometry.gpusPerBlock(level);
    const long long gpus = m_source->gpus();
    const double start = axis == 0 ? m_viewport.colStart() : m_viewport.rowStart();
    const double stop = start + m_viewport.span();
    const long long firstGpu = static_cast<long long>(std::floor(start));
    const long long lastGpu = std::min(gpus, static_cast<long long>(std::ceil(stop))) - 1;
    const long long firstBlock = firstGpu / b, lastBlock = lastGpu / b;
    QString title = (axis == 0 ? QStringLiteral("Destination ") : QStringLiteral("Source "))
        + (b == 1 ? QString(QStringLiteral("GPUs ") + range(firstGpu, lastGpu))
                  : QString(levelNamePlural(level) + QLatin1Char(' ') + range(firstBlock, lastBlock)
                      + QStringLiteral(" (GPUs ") + range(firstGpu, lastGpu) + QLatin1Char(')')));
    // A small plot drops the GPU range (the hover says it), then elides: never a cut word.
    const int room = axis == 0 ? m_plot.width() : m_plot.height();
    if (b != 1 && fm.horizontalAdvance(title) > room)
        title = title.left(title.indexOf(QStringLiteral(" (GPUs ")));
    return fm.elidedText(title, Qt::ElideRight, room);
}

QString TrafficHeatmapCanvas::titleText() const
{
    return m_title.isEmpty() ? QStringLiteral("GPU-pair traffic, bytes per iteration") : m_title;
}

QString TrafficHeatmapCanvas::statusText() const
{
    if (!m_source)
        return QStringLiteral("No traffic source");
    const long long b = m_geometry.gpusPerBlock(m_stats.level);
    const QString cell
        = b == 1 ? QStringLiteral("one GPU per cell") : QString::number(b) + QStringLiteral(" GPUs per cell");
    const double zoom = m_viewport.span() > 0 ? m_source->gpus() / m_viewport.span() : 1.0;
    return levelName(m_stats.level) + QStringLiteral(" level (") + cell + QStringLiteral(") \u00b7 zoom ")
        + QString::number(zoom, 'g', 3) + QStringLiteral("\u00d7 \u00b7 dimension: ")
        + maskLabel(
            m_filter.dimensionMask, engine::kTrafficSourceDimensions, engine::kAllTrafficDimensionsMask, dimensionLabel)
        + QStringLiteral(" \u00b7 link class: ")
        + maskLabel(m_filter.linkClassMask, engine::kLinkClasses, engine::kAllLinkClassesMask, linkClassLabel)
        // The mouse hint when there is room for it (the Reset button's tooltip says it too).
        + (width() >= 560 ? QStringLiteral(" \u00b7 wheel: zoom, drag: pan, double-click: reset") : QString());
}

QString TrafficHeatmapCanvas::blockLabel(long long block, long long b) const
{
    const long long gpus = m_source->gpus();
    if (b == 1)
        return QStringLiteral("GPU ") + QString::number(block) + QStringLiteral(" (node ")
            + QString::number(block / std::max(1, m_geometry.gpusPerNode)) + QLatin1Char(')');
    return levelName(m_stats.level) + QLatin1Char(' ') + QString::number(block) + QStringLiteral(" (GPUs ")
        + range(block * b, std::min(gpus, (block + 1) * b) - 1) + QLatin1Char(')');
}

QString TrafficHeatmapCanvas::hoverText(QPoint pos) const
{
    long long src = -1, dst = -1;
    if (!gpuAt(pos, src, dst))
        return {};
    const long long b = m_geometry.gpusPerBlock(m_stats.level);
    const long long gpus = m_source->gpus();
    const long long sb = src / b, db = dst / b;
    auto split = m_source->split({ sb * b, std::min(gpus, (sb + 1) * b), db * b, std::min(gpus, (db + 1) * b) });
    if (!split)
        return QString::fromStdString(split.message());
    double shown = 0, all = 0;
    std::array<double, engine::kTrafficSourceDimensions> byDimension {};
    std::array<double, engine::kLinkClasses> byClass {};
    for (int d = 0; d < engine::kTrafficSourceDimensions; ++d)
        for (int c = 0; c < engine::kLinkClasses; ++c) {
            const double v = (*split)[d][c];
            all += v;
            if ((m_filter.dimensionMask & (1u << d)) && (m_filter.linkClassMask & (1u << c))) {
                shown += v;
                byDimension[d] += v;
                byClass[c] += v;
            }
        }
    QString text = QStringLiteral("Source: ") + blockLabel(sb, b) + QStringLiteral("\nDestination: ")
        + blockLabel(db, b) + QStringLiteral("\nBytes per iteration: ") + HeatmapColorScale::formatBytes(shown);
    if (all > shown)
        text += QStringLiteral(" (") + HeatmapColorScale::formatBytes(all - shown)
            + QStringLiteral(" more hidden by the filters)");
    QStringList dims, classes;
    for (int d = 0; d < engine::kTrafficSourceDimensions; ++d)
        if (byDimension[d] > 0)
            dims << dimensionLabel(d) + QLatin1Char(' ') + HeatmapColorScale::formatBytes(byDimension[d]);
    for (int c = 0; c < engine::kLinkClasses; ++c)
        if (byClass[c] > 0)
            classes << linkClassLabel(c) + QLatin1Char(' ') + HeatmapColorScale::formatBytes(byClass[c]);
    if (!dims.isEmpty())
        text += QStringLiteral("\nBy dimension: ") + dims.join(QStringLiteral(", "));
    if (!classes.isEmpty())
        text += QStringLiteral("\nBy link class: ") + classes.join(QStringLiteral(", "));
    return text;
}

} // namespace clusterscope::views
