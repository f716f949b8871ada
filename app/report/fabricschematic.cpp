#include "app/report/fabricschematic.h"

#include "app/report/reportformat.h"
#include "engine/fabric/fabricschematic.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace clusterscope::app {

using namespace clusterscope::engine;

namespace {

    constexpr int kHostRow = SchematicBlock::kHostRow;

    QRectF toRect(const SchematicRect& r, double u) { return QRectF(r.x * u, r.y * u, r.width * u, r.height * u); }
    QPointF toPoint(const SchematicPoint& p, double u) { return QPointF(p.x * u, p.y * u); }

    QString groupWord(FabricFamily family)
    {
        switch (family) {
        case FabricFamily::RailOptimized:
            return QStringLiteral("SU");
        case FabricFamily::Dragonfly:
            return QStringLiteral("group");
        default:
            return QStringLiteral("pod");
        }
    }

    QColor utilisationColour(float u, bool known)
    {
        if (!known)
            return QColor(0x5B, 0x6B, 0x7F);
        if (u >= 0.8f)
            return QColor(0xC6, 0x28, 0x28);
        if (u >= 0.5f)
            return QColor(0xEF, 0x9A, 0x00);
        return QColor(0x2E, 0x7D, 0x32);
    }

    QColor rowFill(int row)
    {
        switch (row) {
        case kHostRow:
            return QColor(0xFF, 0xF6, 0xDB);
        case kTierLeaf:
            return QColor(0xE6, 0xF2, 0xE6);
        case kTierSpine:
            return QColor(0xE1, 0xEE, 0xFA);
        default:
            return QColor(0xEE, 0xE8, 0xF7);
        }
    }

    QString rateText(const std::set<float>& rates)
    {
        if (rates.size() != 1)
            return QString();
        return QStringLiteral(" × ") + QString::number(double(*rates.begin()), 'f', 0) + QStringLiteral("G");
    }

} // namespace

QImage drawFabricSchematic(const FabricDesign& design, const std::vector<float>& utilisation, int widthPx)
{
    const FabricSchematic s = fabricSchematic(design, utilisation);
    const double u = widthPx / SchematicLayout::kCanvasWidth; // canvas units to pixels
    const int heightPx = int(s.height * u);

    QImage image(widthPx, heightPx, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(int(12 * u));
    QFont small = font;
    small.setPixelSize(int(10.5 * u));
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF smallMetrics(small);

    // Bundles, then their labels on top.
    struct Label {
        QPointF at;
        QString text;
    };
    std::vector<Label> labels;
    for (const SchematicBundle& bundle : s.bundles) {
        if (!bundle.drawn)
            continue;
        const QPointF from = toPoint(bundle.from, u), to = toPoint(bundle.to, u);
        const double width = u * (1.0 + 1.6 * std::log10(double(bundle.cables)));
        p.setPen(
            QPen(utilisationColour(bundle.maxUtilisation, s.utilisationKnown), width, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(from, to);
        labels.push_back({ from + (to - from) * 0.7, formatCount(bundle.cables) + rateText(bundle.rates) });
    }
    p.setFont(small);
    for (const Label& label : labels) {
        const double w = smallMetrics.horizontalAdvance(label.text) + 8 * u;
        const QRectF r(label.at.x() - w / 2, label.at.y() - 8 * u, w, 16 * u);
        p.setPen(QPen(QColor(0xBB, 0xBB, 0xBB), 0.8 * u));
        p.setBrush(Qt::white);
        p.drawRoundedRect(r, 4 * u, 4 * u);
        p.setPen(QColor(0x22, 0x22, 0x22));
        p.drawText(r, Qt::AlignCenter, label.text);
    }

    // Blocks.
    const QString switchName = QString::fromStdString(design.switchModel);
    std::set<int> moreDrawn;
    for (const int row : s.rows) {
        for (const int id : s.blocksOfRow.at(row)) {
            const SchematicBlock& b = s.blocks[std::size_t(id)];
            const QRectF rect = toRect(b.rect, u);
            if (!b.visible) {
                if (moreDrawn.insert(row).second) {
                    p.setPen(QPen(QColor(0x99, 0x99, 0x99), u, Qt::DashLine));
                    p.setBrush(Qt::NoBrush);
                    p.drawRoundedRect(rect, 6 * u, 6 * u);
                    p.setFont(font);
                    p.setPen(QColor(0x55, 0x55, 0x55));
                    p.drawText(rect, Qt::AlignCenter,
                        QStringLiteral("⋯ ") + QString::number(s.hiddenBlocks.at(row)) + QStringLiteral(" more"));
                }
                continue;
            }
            p.setPen(QPen(QColor(0x88, 0x88, 0x88), u));
            p.setBrush(rowFill(b.row));
            p.drawRoundedRect(rect, 6 * u, 6 * u);
            QString title;
            if (b.row == kHostRow) {
                title = b.hosts > 0 ? QStringLiteral("Servers") : QStringLiteral("Other hosts");
            } else {
                title = QString::fromStdString(tierName(b.row));
                if (!title.isEmpty())
                    title[0] = title[0].toUpper();
                if (b.group >= 0)
                    title += QStringLiteral(" · ") + groupWord(design.family) + QLatin1Char(' ')
                        + QString::number(b.group + 1);
                if (design.planes > 1)
                    title += QStringLiteral(" · plane ") + QString::number(b.plane + 1);
            }
            p.setFont(bold);
            p.setPen(QColor(0x22, 0x22, 0x22));
            const QRectF inner = rect.adjusted(6 * u, 4 * u, -6 * u, -4 * u);
            p.drawText(QRectF(inner.left(), inner.top(), inner.width(), 18 * u), Qt::AlignHCenter | Qt::AlignTop,
                QFontMetricsF(bold).elidedText(title, Qt::ElideRight, inner.width()));

            // Icons: one small box per switch (or server), as many as fit; "…" for the rest.
            const int count = b.row == kHostRow ? (b.hosts > 0 ? b.hosts : b.appliances) : b.switches;
            const double icon = b.row == kHostRow ? 9 * u : 12 * u;
            const double iconGap = 3 * u;
            const int fit = std::max(1, int((inner.width() + iconGap) / (icon + iconGap)));
            const int drawn = count <= fit ? count : fit - 1;
            const double total = drawn * (icon + iconGap) - iconGap + (count > drawn ? icon + iconGap : 0);
            double x = inner.center().x() - total / 2;
            const double iy = inner.top() + 24 * u;
            for (int k = 0; k < drawn; ++k, x += icon + iconGap) {
                p.setPen(QPen(QColor(0x44, 0x44, 0x44), 0.8 * u));
                p.setBrush(b.row == kHostRow ? QColor(0xF2, 0xC1, 0x4E) : QColor(0x5B, 0x84, 0xB1));
                p.drawRect(QRectF(x, iy, icon, b.row == kHostRow ? icon * 1.6 : icon));
            }
            if (count > drawn) {
                p.setPen(QColor(0x44, 0x44, 0x44));
                p.drawText(QRectF(x, iy - 2 * u, icon + iconGap, icon + 4 * u), Qt::AlignCenter, QStringLiteral("…"));
            }
            QString caption;
            if (b.row == kHostRow && b.hosts == 0) {
                caption = QString::number(b.appliances)
                    + (b.appliances == 1 ? QStringLiteral(" appliance") : QStringLiteral(" appliances"));
            } else if (b.row == kHostRow) {
                caption = formatCount(b.hosts) + QStringLiteral(" servers · ")
                    + formatCount((long long)b.hosts * design.gpusPerNode) + QStringLiteral(" GPUs");
                if (b.appliances > 0)
                    caption += QStringLiteral(" + ") + QString::number(b.appliances) + QStringLiteral(" appliance");
            } else {
                caption = formatCount(b.switches) + QStringLiteral(" × ") + switchName;
            }
            p.setFont(small);
            p.drawText(QRectF(inner.left(), inner.bottom() - 18 * u, inner.width(), 18 * u),
                Qt::AlignHCenter | Qt::AlignBottom, smallMetrics.elidedText(caption, Qt::ElideRight, inner.width()));
        }
    }

    // Legend.
    p.setFont(small);
    const double ly = heightPx - SchematicLayout::kLegendHeight * u + 6 * u;
    double lx = SchematicLayout::kMargin * u;
    const auto legendText = [&](const QString& text) {
        p.setPen(QColor(0x33, 0x33, 0x33));
        const double w = smallMetrics.horizontalAdvance(text);
        p.drawText(QRectF(lx, ly, w + 2 * u, 18 * u), Qt::AlignLeft | Qt::AlignVCenter, text);
        lx += w + 14 * u;
    };
    const auto swatch = [&](const QColor& c) {
        p.setPen(QPen(c, 4 * u, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(lx, ly + 9 * u), QPointF(lx + 22 * u, ly + 9 * u));
        lx += 28 * u;
    };
    legendText(QStringLiteral("Bundles: cables × rate, width grows with the cable count."));
    if (s.utilisationKnown) {
        legendText(QStringLiteral("Busiest link's utilisation per iteration:"));
        swatch(utilisationColour(0.1f, true));
        legendText(QStringLiteral("< 50%"));
        swatch(utilisationColour(0.6f, true));
        legendText(QStringLiteral("50-80%"));
        swatch(utilisationColour(0.9f, true));
        legendText(QStringLiteral("≥ 80%"));
    }
    if (s.sameRowBundles > 0)
        legendText(
            formatCount(s.sameRowCables) + QStringLiteral(" cables between blocks of the same tier (not drawn)"));
    return image;
}

} // namespace clusterscope::app
