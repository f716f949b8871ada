#include "engine/fabric/fabricschematic.h"

#include <algorithm>
#include <tuple>

namespace clusterscope::engine {

namespace {

    using Layout = SchematicLayout;
    constexpr int kHostRow = SchematicBlock::kHostRow;

    // Steps 1 and 2: switch blocks by (tier, group, plane), then servers under their first leaf block.
    void groupIntoBlocks(const FabricDesign& design, FabricSchematic& s, std::vector<int>& blockOfNode)
    {
        const FabricGraph& g = design.graph;
        std::map<std::tuple<int, int, int>, int> blockOfKey;
        blockOfNode.assign(g.nodeCount(), -1);
        const auto blockFor = [&](int row, int group, int plane) {
            const auto [it, added] = blockOfKey.emplace(std::make_tuple(row, group, plane), int(s.blocks.size()));
            if (added) {
                SchematicBlock b;
                b.row = row;
                b.group = group;
                b.plane = plane;
                s.blocks.push_back(b);
            }
            return it->second;
        };
        // Groups above the leaves are not drawn apart when they are many, nor for core tiers of a Clos
        // (core groups are cabling groups, not pods): one block per plane keeps the bundles readable.
        std::map<int, std::set<int>> groupsOfTier;
        for (const FabricNode& node : g.nodes())
            if (node.kind == NodeKind::Switch)
                groupsOfTier[std::max<int>(0, node.tier)].insert(node.group);
        const auto mergeGroups = [&](int tier) {
            if (tier == kTierLeaf || design.family == FabricFamily::Dragonfly)
                return false;
            return tier >= kTierCore || groupsOfTier[tier].size() > Layout::kMaxBlocksPerRow;
        };
        for (NodeId n = 0; n < g.nodeCount(); ++n) {
            const FabricNode& node = g.node(n);
            if (node.kind != NodeKind::Switch)
                continue;
            const int tier = std::max<int>(0, node.tier);
            const int b = blockFor(tier, mergeGroups(tier) ? -1 : node.group, node.plane);
            blockOfNode[n] = b;
            ++s.blocks[std::size_t(b)].switches;
        }
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
            ++s.blocks[std::size_t(b)].hosts;
        }
        for (const NodeId nic : design.nics)
            blockOfNode[nic] = hostBlockOfHost[g.node(nic).host];
        for (NodeId n = 0; n < g.nodeCount(); ++n) {
            if (g.node(n).kind != NodeKind::Host)
                continue;
            const int b = blockFor(kHostRow, firstSwitchBlock(n), 0);
            blockOfNode[n] = b;
            ++s.blocks[std::size_t(b)].appliances;
        }
    }

    // Step 4: rows top (highest tier) to bottom (servers); blocks by plane and group, servers under
    // their leaf block; a row with too many blocks shows the first ones, a "more" slot and the last.
    void layOutRows(FabricSchematic& s)
    {
        for (const SchematicBlock& b : s.blocks)
            if (std::find(s.rows.begin(), s.rows.end(), b.row) == s.rows.end())
                s.rows.push_back(b.row);
        std::sort(s.rows.begin(), s.rows.end(), [](int a, int b) { return a > b; });
        for (int i = 0; i < int(s.blocks.size()); ++i)
            s.blocksOfRow[s.blocks[std::size_t(i)].row].push_back(i);
        std::vector<double> order(s.blocks.size(), 0.0);
        double y = Layout::kTop;
        for (const int row : s.rows) {
            std::vector<int>& ids = s.blocksOfRow[row];
            for (const int id : ids) {
                const SchematicBlock& b = s.blocks[std::size_t(id)];
                if (row != kHostRow) {
                    order[std::size_t(id)] = b.plane * 100000.0 + b.group;
                } else {
                    const int leaf = b.group;
                    const bool underLeaf
                        = leaf >= 0 && leaf < int(s.blocks.size()) && s.blocks[std::size_t(leaf)].row != kHostRow;
                    // Whole canvas units, as the drawing always did: blocks under one leaf keep their order.
                    order[std::size_t(id)]
                        = underLeaf ? double(int(s.blocks[std::size_t(leaf)].rect.centerX())) : double(b.group);
                }
            }
            std::stable_sort(
                ids.begin(), ids.end(), [&](int a, int b) { return order[std::size_t(a)] < order[std::size_t(b)]; });
            std::vector<int> cells(ids.begin(), ids.end());
            constexpr std::size_t kShown = Layout::kMaxBlocksPerRow - 2;
            if (ids.size() > Layout::kMaxBlocksPerRow) {
                cells.assign(ids.begin(), ids.begin() + kShown);
                cells.push_back(-1);
                cells.push_back(ids.back());
                for (std::size_t k = kShown; k + 1 < ids.size(); ++k)
                    s.blocks[std::size_t(ids[k])].visible = false;
                s.hiddenBlocks[row] = int(ids.size() - kShown - 1);
            }
            const double height = row == kHostRow ? Layout::kHostRowHeight : Layout::kSwitchRowHeight;
            const double width
                = (Layout::kCanvasWidth - 2 * Layout::kMargin - Layout::kBlockGap * double(cells.size() - 1))
                / double(cells.size());
            for (std::size_t k = 0; k < cells.size(); ++k) {
                const SchematicRect r { Layout::kMargin + double(k) * (width + Layout::kBlockGap), y, width, height };
                if (cells[k] >= 0)
                    s.blocks[std::size_t(cells[k])].rect = r;
                else
                    s.blocks[std::size_t(ids[kShown])].rect = r; // the "more" slot
            }
            y += height + Layout::kRowGap;
        }
        s.height = y - Layout::kRowGap + Layout::kBottom + Layout::kLegendHeight;
    }

    // Step 5: attachment points spread along each block's edge in the order of the partners' centres.
    void attachBundles(FabricSchematic& s)
    {
        std::map<int, std::vector<std::pair<double, int>>> downPartners, upPartners; // block -> (partner x, partner)
        for (const SchematicBundle& b : s.bundles) {
            if (!b.drawn)
                continue;
            downPartners[b.upper].push_back({ s.blocks[std::size_t(b.lower)].rect.centerX(), b.lower });
            upPartners[b.lower].push_back({ s.blocks[std::size_t(b.upper)].rect.centerX(), b.upper });
        }
        for (auto* partners : { &downPartners, &upPartners })
            for (auto& [block, list] : *partners)
                std::sort(list.begin(), list.end());
        const auto attach = [&](std::map<int, std::vector<std::pair<double, int>>>& partners, int block, int partner,
                                bool bottom) {
            const auto& list = partners[block];
            const auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.second == partner; });
            const double index = double(it - list.begin());
            const SchematicRect& r = s.blocks[std::size_t(block)].rect;
            return SchematicPoint { r.x + r.width * (index + 0.5) / double(list.size()), bottom ? r.bottom() : r.y };
        };
        for (SchematicBundle& b : s.bundles) {
            if (!b.drawn)
                continue;
            b.from = attach(downPartners, b.upper, b.lower, true);
            b.to = attach(upPartners, b.lower, b.upper, false);
        }
    }

} // namespace

FabricSchematic fabricSchematic(const FabricDesign& design, const std::vector<float>& utilisation)
{
    FabricSchematic s;
    s.utilisationKnown = !utilisation.empty();
    std::vector<int> blockOfNode;
    groupIntoBlocks(design, s, blockOfNode);

    // Step 3: bundles between blocks.
    const FabricGraph& g = design.graph;
    std::map<std::pair<int, int>, SchematicBundle> bundles;
    for (LinkId l = 0; l < g.linkCount(); ++l) {
        const FabricLink& link = g.link(l);
        if (link.flags & kLinkMissing || link.medium == LinkMedium::Pcie || link.medium == LinkMedium::NvLink)
            continue;
        const int a = blockOfNode[link.a], b = blockOfNode[link.b];
        if (a < 0 || b < 0)
            continue;
        SchematicBundle& bundle = bundles[{ std::min(a, b), std::max(a, b) }];
        ++bundle.cables;
        bundle.rates.insert(link.gbps);
        if (l < utilisation.size())
            bundle.maxUtilisation = std::max(bundle.maxUtilisation, utilisation[l]);
    }
    layOutRows(s);
    for (auto& [key, bundle] : bundles) {
        const SchematicBlock& a = s.blocks[std::size_t(key.first)];
        const SchematicBlock& b = s.blocks[std::size_t(key.second)];
        if (a.row == b.row) {
            ++s.sameRowBundles;
            s.sameRowCables += bundle.cables;
            continue;
        }
        bundle.upper = a.row > b.row || b.row == kHostRow ? key.first : key.second;
        bundle.lower = bundle.upper == key.first ? key.second : key.first;
        bundle.drawn = a.visible && b.visible;
        s.bundles.push_back(std::move(bundle));
    }
    attachBundles(s);
    return s;
}

} // namespace clusterscope::engine
