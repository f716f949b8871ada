#pragma once

// What the 3D fabric view draws, independent of where it came from (a planned fabric built by the
// engine or an imported ibnetdiscover dump): positioned nodes and links with an optional value.

#include <string>
#include <vector>

namespace clusterscope::views {

enum class SceneNodeKind { Node, Leaf, Spine, Core, Other };

struct SceneNode {
    float x = 0, y = 0, z = 0; ///< metres, z up
    SceneNodeKind kind = SceneNodeKind::Node;
    std::string label;
    int graphNode = -1; ///< the graph node it stands for (a switch, or one node of a server); -1 none
    int members = 1; ///< servers folded into this glyph (level of detail)
    bool flagged = false; ///< a switch an imported fabric's checks flagged: drawn highlighted
};

struct SceneLink {
    int from = 0, to = 0; ///< indices into nodes
    float value = -1.0f; ///< utilisation 0..1 (the busiest member), or < 0 when unknown
    bool flagged = false; ///< missing/degraded/miswired: drawn highlighted
    int graphLink = -1; ///< one graph link it stands for (the busiest member); -1 none
    int members = 1; ///< parallel graph links folded into this line
};

struct FabricSceneData {
    std::vector<SceneNode> nodes;
    std::vector<SceneLink> links;
    std::string title;
    int serversPerGlyph = 1; ///< > 1 when servers were aggregated into racks/groups (level of detail)
    bool physicalSizes = false; ///< glyphs at real rack-mount sizes (floor plan) instead of diagram sizes
    std::string valueTitle; ///< title of the colour bar (empty: "Link utilisation")
    std::string flagLegend; ///< legend text for flagged lines when no switch is flagged (empty: none)
};

} // namespace clusterscope::views
