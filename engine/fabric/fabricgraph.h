#pragma once

// The one graph type every fabric lives in: built from a scenario (fabricbuilder.h), imported from
// an ibnetdiscover dump (importers/ibnetdiscover), drawn by the GUI and routed by the flow model.
// Compact on purpose (a 65k-GPU fabric is a few hundred thousand PODs): nodes and links are plain
// structs in vectors, ids are 32-bit indices into them, strings live in side tables.
//
// Conventions
// - Links are full duplex: `gbps` is the data rate in EACH direction (Gb/s = 1e9 bit/s, the nominal
//   signalling-free rate: NDR 4x = 400).
// - Switch tiers count from the nodes up: 0 = leaf (ToR), 1 = spine, 2 = core. An imported switch
//   whose tier is not known yet has kTierUnknown until inferred. GPUs and NICs have kTierUnknown.
// - A physical cable is one link; parallel cables between the same two switches are separate links
//   (ibnetdiscover reports them port by port).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace clusterscope::engine {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
inline constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

inline constexpr std::int8_t kTierUnknown = -1;
inline constexpr std::int8_t kTierLeaf = 0;
inline constexpr std::int8_t kTierSpine = 1;
inline constexpr std::int8_t kTierCore = 2;

enum class NodeKind : std::uint8_t {
    Gpu, ///< one accelerator
    Nic, ///< one network port of a host (HCA / RoCE NIC); `host` says which server
    Switch, ///< scale-out switch (InfiniBand or Ethernet), with a tier
    NvSwitch, ///< scale-up switch of an NVLink domain (one node stands for the domain's switch chips)
    Host, ///< a host that is not a GPU server (UFM appliance, storage, imported CA without GPUs)
};

enum class LinkMedium : std::uint8_t {
    Unknown, ///< not known (imported fabric) or not chosen yet
    Pcie, ///< GPU to NIC inside a server
    NvLink, ///< GPU to NVSwitch (or GPU to GPU in a point-to-point mesh)
    PassiveCopper, ///< DAC
    ActiveCopper, ///< ACC / AEC
    Multimode, ///< multimode fibre or AOC with SR optics
    SingleMode, ///< single-mode fibre with DR/FR optics
};

/// Link state flags (bit set); a healthy link has none.
enum LinkFlag : std::uint8_t {
    kLinkDegraded = 1, ///< up but below its nominal width or rate (imported: 1x instead of 4x)
    kLinkMissing = 2, ///< planned but absent or failed: routing, bisection and loads ignore it
};

struct FabricNode {
    std::uint64_t guid = 0; ///< node GUID when imported; 0 for built fabrics
    std::int32_t host = -1; ///< GPU/NIC/Host: server index (0-based); -1 for switches
    std::int32_t group = -1; ///< pod / scalable unit / dragonfly group / NVLink domain; -1 none
    std::int32_t rack = -1; ///< index into FabricGraph::racks(); -1 when not placed
    std::uint16_t ports = 0; ///< port count (switch radix, 1 for a single-port NIC)
    std::uint16_t rackUnit = 0; ///< lowest rack unit occupied (1-based, 0 = not placed)
    NodeKind kind = NodeKind::Switch;
    std::int8_t tier = kTierUnknown; ///< switches: kTierLeaf.. ; others kTierUnknown
    std::uint8_t plane = 0; ///< independent plane (multi-plane fabrics); 0 for single plane
    std::uint8_t rail = 0; ///< GPU: local index in its server; NIC: rail it is cabled to
};

struct FabricLink {
    NodeId a = kNoId; ///< one end (for tiered fabrics the lower tier)
    NodeId b = kNoId; ///< other end
    std::uint16_t portA = 0; ///< port number at a (1-based as in ibnetdiscover; 0 = unknown)
    std::uint16_t portB = 0; ///< port number at b
    float gbps = 0.0f; ///< data rate per direction (Gb/s)
    float lengthMetres = 0.0f; ///< cable length including slack (m); 0 = not laid out
    std::uint8_t lanes = 4; ///< electrical/optical lanes (4x NDR = 4; NVLink: links bundled)
    LinkMedium medium = LinkMedium::Unknown;
    std::uint8_t flags = 0; ///< LinkFlag bits
    std::uint8_t plane = 0; ///< plane the link belongs to
};

/// One rack in the hall: rows of racks at a fixed pitch. Positions in metres from the hall origin.
struct FabricRack {
    std::int32_t row = 0;
    std::int32_t column = 0;
    float xMetres = 0.0f; ///< along the row
    float yMetres = 0.0f; ///< across rows
};

/// Tier boundary a link crosses, used for counts per tier (`node_leaf`, `leaf_spine`, ...).
enum class LinkLevel : std::uint8_t {
    Internal, ///< inside a server or NVLink domain (PCIe, NVLink)
    NodeLeaf, ///< NIC or host to a leaf switch
    LeafSpine, ///< tier 0 to tier 1
    SpineCore, ///< tier 1 to tier 2
    Other, ///< between switches of the same tier, unknown tiers, or non-Clos topologies
};

const char* toString(NodeKind v);
const char* toString(LinkMedium v);
const char* toString(LinkLevel v);
/// "leaf", "spine", "core", "tier3"..., "unknown".
std::string tierName(int tier);

class FabricGraph {
public:
    NodeId addNode(const FabricNode& node);
    LinkId addLink(const FabricLink& link);
    std::int32_t addRack(const FabricRack& rack);

    std::size_t nodeCount() const { return m_nodes.size(); }
    std::size_t linkCount() const { return m_links.size(); }
    const std::vector<FabricNode>& nodes() const { return m_nodes; }
    const std::vector<FabricLink>& links() const { return m_links; }
    const std::vector<FabricRack>& racks() const { return m_racks; }
    const FabricNode& node(NodeId id) const { return m_nodes[id]; }
    FabricNode& node(NodeId id) { return m_nodes[id]; }
    const FabricLink& link(LinkId id) const { return m_links[id]; }
    /// Mutable access; changing endpoints invalidates the adjacency (call it again to rebuild).
    FabricLink& link(LinkId id) { return m_links[id]; }
    FabricRack& rack(std::size_t id) { return m_racks[id]; }

    /// The other end of `link` seen from `from`.
    NodeId otherEnd(LinkId link, NodeId from) const
    {
        const FabricLink& l = m_links[link];
        return l.a == from ? l.b : l.a;
    }

    /// Links incident to `node` (missing links included; filter on flags). Built on first use after
    /// a change (CSR arrays; not thread-safe while being rebuilt).
    std::span<const LinkId> linksOf(NodeId node) const;

    /// Level of a link from its endpoints' kinds and tiers.
    LinkLevel level(LinkId link) const;

    /// Optional text per node (imported description, "leaf-3-rail-5"); empty when none.
    void setLabel(NodeId node, std::string label);
    const std::string& label(NodeId node) const;

    /// Counts by kind / switches by tier (tier index -> count, unknown tiers excluded).
    std::size_t countNodes(NodeKind kind) const;
    std::vector<std::size_t> switchesPerTier() const;
    /// Links at one level, excluding links flagged missing.
    std::size_t countLinks(LinkLevel level) const;
    /// Highest plane index + 1.
    int planeCount() const;

    /// Ids of all nodes of one kind, in id order.
    std::vector<NodeId> nodesOfKind(NodeKind kind) const;

private:
    void buildAdjacency() const;

    std::vector<FabricNode> m_nodes;
    std::vector<FabricLink> m_links;
    std::vector<FabricRack> m_racks;
    std::vector<std::string> m_labels; // sparse: sized lazily
    mutable std::vector<std::uint32_t> m_adjOffsets;
    mutable std::vector<LinkId> m_adjLinks;
    mutable bool m_adjValid = false;
};

} // namespace clusterscope::engine
