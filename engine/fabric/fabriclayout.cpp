#include "engine/fabric/fabriclayout.h"

#include "engine/catalog/catalog.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace clusterscope::engine {

namespace {

    constexpr int kSwitchesPerNetworkRack = 32; // 1U switches leaving room for patch panels and PDUs

    LinkMedium mediumOf(const std::string& medium)
    {
        if (medium == "passive-copper")
            return LinkMedium::PassiveCopper;
        if (medium == "active-copper")
            return LinkMedium::ActiveCopper;
        if (medium == "multimode")
            return LinkMedium::Multimode;
        if (medium == "single-mode")
            return LinkMedium::SingleMode;
        return LinkMedium::Unknown;
    }

} // namespace

LayoutSpec defaultLayout(const FabricDesign& d)
{
    LayoutSpec l;
    if (d.nvlinkDomainGpus > d.gpusPerNode && d.gpusPerNode > 0)
        l.nodesPerRack = d.nvlinkDomainGpus / d.gpusPerNode; // NVL72: 18 compute trays in one rack
    if (d.family == FabricFamily::Torus)
        l.nodesPerRack = 16;
    return l;
}

double cableRunMetres(const FabricRack& a, const FabricRack& b, bool sameRack, double slackMetres)
{
    if (sameRack)
        return slackMetres;
    return std::abs(a.xMetres - b.xMetres) + std::abs(a.yMetres - b.yMetres) + slackMetres;
}

const CableModel* cableFor(const FabricLink& link, const Catalog& catalog)
{
    for (const CableModel& c : catalog.cables())
        if (mediumOf(c.medium) == link.medium && c.maxReachMetres + 1e-9 >= link.lengthMetres
            && c.maxGbps + 1e-9 >= link.gbps)
            return &c;
    return nullptr;
}

Status layOutFabric(FabricDesign& d, const LayoutSpec& l, const Catalog& catalog)
{
    FabricGraph& g = d.graph;
    if (l.nodesPerRack < 1 || l.racksPerRow < 1)
        return Status::error("/layout: nodes_per_rack and racks_per_row must be positive");
    const auto place = [&](int row, int column) {
        FabricRack r;
        r.row = row;
        r.column = column;
        r.xMetres = static_cast<float>(column * l.rackPitchMetres);
        r.yMetres = static_cast<float>(row * l.rowPitchMetres);
        return g.addRack(r);
    };
    const int computeRacks = (d.hosts + l.nodesPerRack - 1) / l.nodesPerRack;
    const int rows = (computeRacks + l.racksPerRow - 1) / l.racksPerRow;
    for (int r = 0; r < computeRacks; ++r)
        place(r / l.racksPerRow, r % l.racksPerRow);
    for (NodeId id = 0; id < g.nodeCount(); ++id) {
        FabricNode& n = g.node(id);
        if (n.host >= 0) {
            n.rack = n.host / l.nodesPerRack;
            if (n.kind == NodeKind::Gpu && n.rail == 0)
                n.rackUnit = static_cast<std::uint16_t>(1 + (n.host % l.nodesPerRack) * 8); // 8U servers
        }
    }

    // Leaves: end-of-row network racks, in the row holding most of their servers.
    std::map<int, std::vector<std::int32_t>> endOfRow; // row -> its network racks
    std::map<std::int32_t, int> fill;
    const auto networkRack = [&](std::vector<std::int32_t>& racks, int row, int firstColumn) {
        if (racks.empty() || fill[racks.back()] >= kSwitchesPerNetworkRack)
            racks.push_back(place(row, firstColumn + static_cast<int>(racks.size())));
        const std::int32_t r = racks.back();
        return std::pair<std::int32_t, int>(r, ++fill[r]);
    };
    std::vector<std::int32_t> spineRacks;
    const int spineRow = rows; // one network row behind the compute rows
    for (int tier = 0; tier <= 3; ++tier) {
        for (NodeId id = 0; id < g.nodeCount(); ++id) {
            FabricNode& n = g.node(id);
            if (n.kind != NodeKind::Switch || std::max<int>(n.tier, 0) != tier)
                continue;
            std::pair<std::int32_t, int> slot;
            if (tier == 0) {
                std::map<int, int> votes;
                for (LinkId lk : g.linksOf(id)) {
                    const FabricNode& peer = g.node(g.otherEnd(lk, id));
                    if (peer.host >= 0)
                        ++votes[peer.host / l.nodesPerRack / l.racksPerRow];
                }
                int row = 0, best = -1;
                for (const auto& [r, v] : votes)
                    if (v > best)
                        best = v, row = r;
                slot = networkRack(endOfRow[row], row, l.racksPerRow);
            } else {
                slot = networkRack(spineRacks, spineRow, 0);
            }
            n.rack = slot.first;
            n.rackUnit = static_cast<std::uint16_t>(slot.second);
        }
    }
    // Hosts without GPUs (UFM) sit with the first leaf they connect to.
    for (NodeId id = 0; id < g.nodeCount(); ++id) {
        FabricNode& n = g.node(id);
        if (n.kind == NodeKind::Host && n.rack < 0 && !g.linksOf(id).empty())
            n.rack = g.node(g.otherEnd(g.linksOf(id).front(), id)).rack;
    }
    // Centre the spine row on the compute rows.
    const int spineColumns = static_cast<int>(spineRacks.size());
    for (std::int32_t r : spineRacks)
        g.rack(r).xMetres += static_cast<float>(std::max(0, l.racksPerRow - spineColumns) * l.rackPitchMetres / 2);

    for (LinkId id = 0; id < g.linkCount(); ++id) {
        FabricLink& link = g.link(id);
        if (link.medium == LinkMedium::Pcie || link.medium == LinkMedium::NvLink)
            continue;
        const FabricNode& a = g.node(link.a);
        const FabricNode& b = g.node(link.b);
        if (a.rack < 0 || b.rack < 0)
            return Status::error("/layout: node " + std::to_string(a.rack < 0 ? link.a : link.b) + " was not placed");
        link.lengthMetres
            = static_cast<float>(cableRunMetres(g.racks()[a.rack], g.racks()[b.rack], a.rack == b.rack, l.slackMetres));
        link.medium = LinkMedium::Unknown;
        for (const CableModel& c : catalog.cables()) {
            if (c.maxReachMetres + 1e-9 >= link.lengthMetres && c.maxGbps + 1e-9 >= link.gbps) {
                link.medium = mediumOf(c.medium);
                break;
            }
        }
        if (link.medium == LinkMedium::Unknown)
            return Status::error("/layout: no catalog cable carries " + std::to_string(static_cast<int>(link.gbps))
                + " Gb/s over " + std::to_string(link.lengthMetres) + " m");
    }
    return Status::success();
}

} // namespace clusterscope::engine
