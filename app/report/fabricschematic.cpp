#include "app/report/fabricschematic.h"

#include "app/report/reportformat.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace clusterscope::app {

using namespace clusterscope::engine;

namespace {

constexpr int kHostRow = -1;
constexpr std::size_t kMaxBlocksPerRow = 8;

struct Block {
    int row = 0;      // switch tier, or kHostRow for GPU servers
    int group = -1;
    int plane = 0;
    int switches = 0;
    int hosts = 0;
    int appliances = 0;
    int order = 0;    // sort key within the row (host blocks: their leaf block's position)
    bool visible = true;
    QRectF rect;
};

struct Bundle {
    long long cables = 0;
    std::set<float> rates;
    float maxUtilisation = 0;
};

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
    case 0:
        return QColor(0xE6, 0xF2, 0xE6);
    case 1:
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
    const FabricGraph& g = design.graph;
    const double u = widthPx / 900.0; // layout designed on a 900-unit-wide canvas

    // 1. Blocks of switches by (tier, group, plane).
    std::vector<Block> blocks;
    std::map<std::tuple<int, int, int>, int> blockOfKey;
    std::vector<int> blockOfNode(g.nodeCount(), -1);
    const auto blockFor = [&](int row, int group, int plane) {
        const auto key = std::make_tuple(row, group, plane);
        auto it = blockOfKey.find(key);
        if (it != blockOfKey.end())
            return it->second;
        Block b;
        b.row = row;
        b.group = group;
        b.plane = plane;
        blocks.push_back(b);
        blockOfKey.emplace(key, int(blocks.size() - 1));
        return int(blocks.size() - 1);
    };
    // Groups above the leaves are not drawn apart when they are many, nor for core tiers of a Clos
    // (core groups are cabling groups, not pods): one block per plane keeps the bundles readable.
    std::map<int, std::set<int>> groupsOfTier;
    for (const FabricNode& node : g.nodes())
        if (node.kind == NodeKind::Switch)
            groupsOfTier[std::max<int>(0, node.tier)].insert(node.group);
    const auto mergeGroups = [&](int tier) {
        if (tier == 0 || design.family == FabricFamily::Dragonfly)
            return false;
        return tier >= 2 || groupsOfTier[tier].size() > kMaxBlocksPerRow;
    };
    for (NodeId n = 0; n < g.nodeCount(); ++n) {
        const FabricNode& node = g.node(n);
        if (node.kind != NodeKind::Switch)
            continue;
        const int tier = std::max<int>(0, node.tier);
        const int b = blockFor(tier, mergeGroups(tier) ? -1 : node.group, node.plane);
        blockOfNode[n] = b;
        ++blocks[b].switches;
    }
    // 2. Servers: each joins the host block under the switch block its first NIC is cabled to.
    const auto firstSwitchBlock = [&](NodeId n) {
        for (const LinkId l : g.linksOf(n)) {
            const NodeId other = g.otherEnd(l, n);
            if (g.node(other).kind == NodeKind::Switch && !(g.link(l).flags & kLinkMissing))
                return blockOfNode[other];
        }
        return -1;
    };
    std::map<int, int> hostBlockOfHost;
    for (const NodeId nic : design.nics) {
        const FabricNode& node = g.node(nic);
        if (hostBlockOfHost.count(node.host))
            continue;
        const int leaf = firstSwitchBlock(nic);
        const int b = blockFor(kHostRow, leaf >= 0 ? leaf : node.group, 0);
        hostBlockOfHost[node.host] = b;
        ++blocks[b].hosts;
    }
    for (const NodeId nic : design.nics)
        blockOfNode[nic] = hostBlockOfHost[g.node(nic).host];
    for (NodeId n = 0; n < g.nodeCount(); ++n) {
        if (g.node(n).kind != NodeKind::Host)
            continue;
        const int leaf = firstSwitchBlock(n);
        const int b = blockFor(kHostRow, leaf, 0);
        blockOfNode[n] = b;
        ++blocks[b].appliances;
    }

    // 3. Bundles between blocks (scale-up and PCIe links stay inside servers).
    std::map<std::pair<int, int>, Bundle> bundles;
    for (LinkId l = 0; l < g.linkCount(); ++l) {
        const FabricLink& link = g.link(l);
        if (link.flags & kLinkMissing || link.medium == LinkMedium::Pcie || link.medium == LinkMedium::NvLink)
            continue;
        const int a = blockOfNode[link.a], b = blockOfNode[link.b];
        if (a < 0 || b < 0)
            continue;
        Bundle& bundle = bundles[{ std::min(a, b), std::max(a, b) }];
        ++bundle.cables;
        bundle.rates.insert(link.gbps);
        if (l < utilisation.size())
            bundle.maxUtilisation = std::max(bundle.maxUtilisation, utilisation[l]);
    }

    // 4. Rows: highest tier at the top, servers at the bottom; blocks ordered by plane and group.
    std::vector<int> rows;
    for (const Block& b : blocks)
        if (std::find(rows.begin(), rows.end(), b.row) == rows.end())
            rows.push_back(b.row);
    std::sort(rows.begin(), rows.end(), [](int a, int b) { return a > b; });
    std::map<int, std::vector<int>> blocksOfRow;
    for (int i = 0; i < int(blocks.size()); ++i)
        blocksOfRow[blocks[i].row].push_back(i);
    const double margin = 16 * u, gap = 10 * u;
    const double switchRowHeight = 92 * u, hostRowHeight = 78 * u, rowGap = 120 * u;
    double y = 14 * u;
    std::map<int, QString> hiddenText;
    for (const int row : rows) {
        std::vector<int>& ids = blocksOfRow[row];
        if (row == kHostRow) {
            for (const int id : ids) {
                const int leaf = blocks[id].group;
                blocks[id].order = leaf >= 0 && leaf < int(blocks.size()) && blocks[leaf].row != kHostRow
                    ? int(blocks[leaf].rect.center().x())
                    : blocks[id].group;
            }
        } else {
            for (const int id : ids)
                blocks[id].order = blocks[id].plane * 100000 + blocks[id].group;
        }
        std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) { return blocks[a].order < blocks[b].order; });
        // Too many blocks: the first ones, a "more" slot, the last one.
        std::vector<int> cells(ids.begin(), ids.end());
        if (ids.size() > kMaxBlocksPerRow) {
            cells.assign(ids.begin(), ids.begin() + (kMaxBlocksPerRow - 2));
            cells.push_back(-1);
            cells.push_back(ids.back());
            for (std::size_t k = kMaxBlocksPerRow - 2; k + 1 < ids.size(); ++k)
                blocks[ids[k]].visible = false;
            hiddenText[row] = QStringLiteral("⋯ ") + QString::number(ids.size() - kMaxBlocksPerRow + 1)
                + QStringLiteral(" more");
        }
        const double height = row == kHostRow ? hostRowHeight : switchRowHeight;
        const double width = (900 * u - 2 * margin - gap * (cells.size() - 1)) / cells.size();
        for (std::size_t k = 0; k < cells.size(); ++k) {
            const QRectF r(margin + k * (width + gap), y, width, height);
            if (cells[k] >= 0)
                blocks[cells[k]].rect = r;
            else
                blocks[ids[kMaxBlocksPerRow - 2]].rect = r; // the slot's rectangle, drawn as "more"
        }
        y += height + rowGap;
    }
    const bool utilisationKnown = !utilisation.empty();
    const double legendHeight = 30 * u;
    const int heightPx = int(y - rowGap + 16 * u + legendHeight);

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

    // 5. Bundles: attachment points spread along each block's edge in the order of the partners.
    std::map<int, std::vector<std::pair<double, int>>> downPartners, upPartners; // block -> (partner x, partner)
    for (const auto& [key, bundle] : bundles) {
        const Block& a = blocks[key.first];
        const Block& b = blocks[key.second];
        if (!a.visible || !b.visible || a.row == b.row)
            continue;
        const int upper = a.row > b.row || b.row == kHostRow ? key.first : key.second;
        const int lower = upper == key.first ? key.second : key.first;
        downPartners[upper].push_back({ blocks[lower].rect.center().x(), lower });
        upPartners[lower].push_back({ blocks[upper].rect.center().x(), upper });
    }
    const auto attach = [&](std::map<int, std::vector<std::pair<double, int>>>& partners, int block, int partner,
                            bool bottom) {
        auto& list = partners[block];
        std::sort(list.begin(), list.end());
        const auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.second == partner; });
        const double index = double(it - list.begin());
        const QRectF& r = blocks[block].rect;
        const double x = r.left() + r.width() * (index + 0.5) / double(list.size());
        return QPointF(x, bottom ? r.bottom() : r.top());
    };
    struct Label {
        QPointF at;
        QString text;
    };
    std::vector<Label> labels;
    int sameRowBundles = 0;
    long long sameRowCables = 0;
    for (const auto& [key, bundle] : bundles) {
        const Block& a = blocks[key.first];
        const Block& b = blocks[key.second];
        if (a.row == b.row) {
            ++sameRowBundles;
            sameRowCables += bundle.cables;
            continue;
        }
        if (!a.visible || !b.visible)
            continue;
        const int upper = a.row > b.row || b.row == kHostRow ? key.first : key.second;
        const int lower = upper == key.first ? key.second : key.first;
        const QPointF from = attach(downPartners, upper, lower, true);
        const QPointF to = attach(upPartners, lower, upper, false);
        const double width = u * (1.0 + 1.6 * std::log10(double(bundle.cables)));
        p.setPen(QPen(utilisationColour(bundle.maxUtilisation, utilisationKnown), width, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(from, to);
        labels.push_back({ from + (to - from) * 0.7, formatCount(bundle.cables) + rateText(bundle.rates) });
    }
    p.setFont(small);
    const QFontMetricsF smallMetrics(small);
    for (const Label& label : labels) {
        const double w = smallMetrics.horizontalAdvance(label.text) + 8 * u;
        const QRectF r(label.at.x() - w / 2, label.at.y() - 8 * u, w, 16 * u);
        p.setPen(QPen(QColor(0xBB, 0xBB, 0xBB), 0.8 * u));
        p.setBrush(Qt::white);
        p.drawRoundedRect(r, 4 * u, 4 * u);
        p.setPen(QColor(0x22, 0x22, 0x22));
        p.drawText(r, Qt::AlignCenter, label.text);
    }

    // 6. Blocks.
    const QString switchName = QString::fromStdString(design.switchModel);
    std::set<int> moreDrawn;
    for (const int row : rows) {
        for (const int id : blocksOfRow[row]) {
            const Block& b = blocks[id];
            if (!b.visible) {
                if (moreDrawn.insert(row).second) {
                    p.setPen(QPen(QColor(0x99, 0x99, 0x99), u, Qt::DashLine));
                    p.setBrush(Qt::NoBrush);
                    p.drawRoundedRect(b.rect, 6 * u, 6 * u);
                    p.setFont(font);
                    p.setPen(QColor(0x55, 0x55, 0x55));
                    p.drawText(b.rect, Qt::AlignCenter, hiddenText[row]);
                }
                continue;
            }
            p.setPen(QPen(QColor(0x88, 0x88, 0x88), u));
            p.setBrush(rowFill(b.row));
            p.drawRoundedRect(b.rect, 6 * u, 6 * u);
            QString title;
            if (b.row == kHostRow) {
                title = b.hosts > 0 ? QStringLiteral("Servers") : QStringLiteral("Other hosts");
            } else {
                const std::string tier = tierName(b.row);
                title = QString::fromStdString(tier);
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
            const QRectF inner = b.rect.adjusted(6 * u, 4 * u, -6 * u, -4 * u);
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
                caption = QString::number(b.appliances) + (b.appliances == 1 ? QStringLiteral(" appliance") : QStringLiteral(" appliances"));
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

    // 7. Legend.
    p.setFont(small);
    const double ly = heightPx - legendHeight + 6 * u;
    double lx = margin;
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
    if (utilisationKnown) {
        legendText(QStringLiteral("Busiest link's utilisation per iteration:"));
        swatch(utilisationColour(0.1f, true));
        legendText(QStringLiteral("< 50%"));
        swatch(utilisationColour(0.6f, true));
        legendText(QStringLiteral("50-80%"));
        swatch(utilisationColour(0.9f, true));
        legendText(QStringLiteral("≥ 80%"));
    }
    if (sameRowBundles > 0)
        legendText(formatCount(sameRowCables) + QStringLiteral(" cables between blocks of the same tier (not drawn)"));
    return image;
}

} // namespace clusterscope::app
