#include "engine/fabric/fabricgraph.h"

#include <algorithm>

namespace clusterscope::engine {

const char* toString(NodeKind v)
{
    switch (v) {
    case NodeKind::Gpu:
        return "gpu";
    case NodeKind::Nic:
        return "nic";
    case NodeKind::Switch:
        return "switch";
    case NodeKind::NvSwitch:
        return "nvswitch";
    case NodeKind::Host:
        return "host";
    }
    return "?";
}

const char* toString(LinkMedium v)
{
    switch (v) {
    case LinkMedium::Unknown:
        return "unknown";
    case LinkMedium::Pcie:
        return "pcie";
    case LinkMedium::NvLink:
        return "nvlink";
    case LinkMedium::PassiveCopper:
        return "passive-copper";
    case LinkMedium::ActiveCopper:
        return "active-copper";
    case LinkMedium::Multimode:
        return "multimode";
    case LinkMedium::SingleMode:
        return "single-mode";
    }
    return "?";
}

const char* toString(LinkLevel v)
{
    switch (v) {
    case LinkLevel::Internal:
        return "internal";
    case LinkLevel::NodeLeaf:
        return "node_leaf";
    case LinkLevel::LeafSpine:
        return "leaf_spine";
    case LinkLevel::SpineCore:
        return "spine_core";
    case LinkLevel::Other:
        return "other";
    }
    return "?";
}

std::string tierName(int tier)
{
    switch (tier) {
    case kTierLeaf:
        return "leaf";
    case kTierSpine:
        return "spine";
    case kTierCore:
        return "core";
    default:
        break;
    }
    return tier < 0 ? "unknown" : "tier" + std::to_string(tier);
}

NodeId FabricGraph::addNode(const FabricNode& node)
{
    m_nodes.push_back(node);
    m_adjValid = false;
    return static_cast<NodeId>(m_nodes.size() - 1);
}

LinkId FabricGraph::addLink(const FabricLink& link)
{
    m_links.push_back(link);
    m_adjValid = false;
    return static_cast<LinkId>(m_links.size() - 1);
}

std::int32_t FabricGraph::addRack(const FabricRack& rack)
{
    m_racks.push_back(rack);
    return static_cast<std::int32_t>(m_racks.size() - 1);
}

void FabricGraph::buildAdjacency() const
{
    m_adjOffsets.assign(m_nodes.size() + 1, 0);
    for (const FabricLink& l : m_links) {
        ++m_adjOffsets[l.a + 1];
        if (l.b != l.a)
            ++m_adjOffsets[l.b + 1];
    }
    for (std::size_t i = 1; i < m_adjOffsets.size(); ++i)
        m_adjOffsets[i] += m_adjOffsets[i - 1];
    m_adjLinks.assign(m_adjOffsets.back(), kNoId);
    std::vector<std::uint32_t> fill(m_adjOffsets.begin(), m_adjOffsets.end() - 1);
    for (LinkId id = 0; id < m_links.size(); ++id) {
        const FabricLink& l = m_links[id];
        m_adjLinks[fill[l.a]++] = id;
        if (l.b != l.a)
            m_adjLinks[fill[l.b]++] = id;
    }
    m_adjValid = true;
}

std::span<const LinkId> FabricGraph::linksOf(NodeId node) const
{
    if (!m_adjValid || m_adjOffsets.size() != m_nodes.size() + 1)
        buildAdjacency();
    return std::span<const LinkId>(m_adjLinks.data() + m_adjOffsets[node], m_adjOffsets[node + 1] - m_adjOffsets[node]);
}

LinkLevel FabricGraph::level(LinkId id) const
{
    const FabricLink& l = m_links[id];
    const FabricNode& a = m_nodes[l.a];
    const FabricNode& b = m_nodes[l.b];
    const auto isEndpoint = [](const FabricNode& n) { return n.kind == NodeKind::Nic || n.kind == NodeKind::Host; };
    const auto isInternal = [](const FabricNode& n) { return n.kind == NodeKind::Gpu || n.kind == NodeKind::NvSwitch; };
    if (isInternal(a) || isInternal(b) || l.medium == LinkMedium::Pcie || l.medium == LinkMedium::NvLink)
        return LinkLevel::Internal;
    if (isEndpoint(a) != isEndpoint(b)) {
        const FabricNode& sw = isEndpoint(a) ? b : a;
        return sw.kind == NodeKind::Switch && sw.tier == kTierLeaf ? LinkLevel::NodeLeaf : LinkLevel::Other;
    }
    if (a.kind == NodeKind::Switch && b.kind == NodeKind::Switch) {
        const int lo = std::min(int(a.tier), int(b.tier));
        const int hi = std::max(int(a.tier), int(b.tier));
        if (lo == kTierLeaf && hi == kTierSpine)
            return LinkLevel::LeafSpine;
        if (lo == kTierSpine && hi == kTierCore)
            return LinkLevel::SpineCore;
    }
    return LinkLevel::Other;
}

void FabricGraph::setLabel(NodeId node, std::string label)
{
    if (m_labels.size() <= node)
        m_labels.resize(m_nodes.size());
    m_labels[node] = std::move(label);
}

const std::string& FabricGraph::label(NodeId node) const
{
    static const std::string empty;
    return node < m_labels.size() ? m_labels[node] : empty;
}

std::size_t FabricGraph::countNodes(NodeKind kind) const
{
    return static_cast<std::size_t>(
        std::count_if(m_nodes.begin(), m_nodes.end(), [kind](const FabricNode& n) { return n.kind == kind; }));
}

std::vector<std::size_t> FabricGraph::switchesPerTier() const
{
    std::vector<std::size_t> counts;
    for (const FabricNode& n : m_nodes) {
        if (n.kind != NodeKind::Switch || n.tier < 0)
            continue;
        if (counts.size() <= static_cast<std::size_t>(n.tier))
            counts.resize(n.tier + 1, 0);
        ++counts[n.tier];
    }
    return counts;
}

std::size_t FabricGraph::countLinks(LinkLevel lv) const
{
    std::size_t n = 0;
    for (LinkId id = 0; id < m_links.size(); ++id)
        if (!(m_links[id].flags & kLinkMissing) && level(id) == lv)
            ++n;
    return n;
}

int FabricGraph::planeCount() const
{
    int planes = 0;
    for (const FabricNode& n : m_nodes)
        planes = std::max(planes, n.plane + 1);
    return planes;
}

std::vector<NodeId> FabricGraph::nodesOfKind(NodeKind kind) const
{
    std::vector<NodeId> ids;
    for (NodeId i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i].kind == kind)
            ids.push_back(i);
    return ids;
}

} // namespace clusterscope::engine
