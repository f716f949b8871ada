#include "views/fabric/fabricscenebuilder.h"

#include "engine/fabric/fabricgraph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace clusterscope::views {

using namespace clusterscope::engine;

namespace {

SceneNodeKind kindOfSwitch(int tier)
{
    switch (tier) {
    case kTierLeaf: return SceneNodeKind::Leaf;
    case kTierSpine: return SceneNodeKind::Spine;
    case kTierCore: return SceneNodeKind::Core;
    default: return SceneNodeKind::Other;
    }
}

// Spreads `count` items evenly over [-width/2, width/2].
float spread(std::size_t index, std::size_t count, float width)
{
    if (count <= 1)
        return 0.0f;
    return -width / 2 + width * float(index) / float(count - 1);
}

} // namespace

FabricSceneData sceneFromGraph(const FabricGraph& graph, SceneLayout layout, std::span<const float> linkUtilisation,
    std::string title)
{
    FabricSceneData scene;
    scene.title = std::move(title);
    const bool floor = layout == SceneLayout::Floor && !graph.racks().empty();

    // Scene node per graph node: servers collapse GPUs, NICs and their NVSwitch into one glyph.
    std::vector<int> sceneOf(graph.nodeCount(), -1);
    std::map<std::int32_t, int> hostScene; // server index -> scene node
    std::map<int, std::vector<NodeId>> switchesByTier;
    std::vector<NodeId> others;
    for (NodeId id = 0; id < graph.nodeCount(); ++id) {
        const FabricNode& n = graph.node(id);
        if (n.host >= 0 && n.kind != NodeKind::Switch) {
            auto [it, inserted] = hostScene.try_emplace(n.host, int(scene.nodes.size()));
            if (inserted)
                scene.nodes.push_back({ 0, 0, 0, SceneNodeKind::Node, "server " + std::to_string(n.host) });
            sceneOf[id] = it->second;
        } else if (n.kind == NodeKind::Switch) {
            switchesByTier[n.tier].push_back(id);
        } else {
            others.push_back(id);
        }
    }
    // NVSwitch nodes without a host (an NVL72 domain switch) are drawn like servers' switch trays.
    for (NodeId id : others) {
        sceneOf[id] = int(scene.nodes.size());
        scene.nodes.push_back({ 0, 0, 0, SceneNodeKind::Other, graph.label(id) });
    }

    // Positions.
    const std::size_t hosts = hostScene.size();
    const std::size_t perRow = std::max<std::size_t>(1, std::min<std::size_t>(32, std::size_t(std::ceil(std::sqrt(double(hosts) * 4)))));
    const float pitch = 1.0f;
    const float width = float(std::min(hosts, perRow)) * pitch;
    std::size_t h = 0;
    for (const auto& [host, index] : hostScene) {
        SceneNode& s = scene.nodes[std::size_t(index)];
        s.x = spread(h % perRow, std::min(hosts, perRow), width);
        s.y = float(h / perRow) * 1.6f;
        ++h;
    }
    const float levelHeight = std::max(4.0f, width / 5);
    const float depth = float((hosts + perRow - 1) / std::max<std::size_t>(perRow, 1)) * 1.6f;
    // Each tier is a block of rows above the servers, one switch glyph per 1.2 m so they never touch.
    const std::size_t switchesPerRow = std::max<std::size_t>(8, std::size_t(width / 1.2f) + 1);
    for (auto& [tier, ids] : switchesByTier) {
        const int level = tier < 0 ? int(switchesByTier.size()) : tier;
        const std::size_t planes = std::size_t(graph.planeCount());
        const std::size_t inRow = std::min(ids.size(), switchesPerRow);
        const std::size_t rows = (ids.size() + inRow - 1) / inRow;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const FabricNode& n = graph.node(ids[i]);
            sceneOf[ids[i]] = int(scene.nodes.size());
            SceneNode s { 0, 0, 0, kindOfSwitch(tier), graph.label(ids[i]) };
            s.x = spread(i % inRow, inRow, float(inRow - 1) * 1.2f);
            s.y = depth / 2 + (float(i / inRow) - float(rows - 1) / 2) * 1.6f
                + (planes > 1 ? (float(n.plane) - float(planes - 1) / 2) * float(rows) * 1.8f : 0.0f);
            s.z = levelHeight * float(level + 1);
            scene.nodes.push_back(s);
        }
    }
    for (std::size_t i = 0; i < others.size(); ++i) {
        SceneNode& s = scene.nodes[std::size_t(sceneOf[others[i]])];
        s.x = spread(i, others.size(), width);
        s.y = -2.0f;
    }
    if (floor) {
        // Physical layout: every glyph in its rack, stacked by rack unit (1 U = 44.45 mm, EIA-310).
        for (NodeId id = 0; id < graph.nodeCount(); ++id) {
            const FabricNode& n = graph.node(id);
            if (sceneOf[id] < 0 || n.rack < 0)
                continue;
            const FabricRack& r = graph.racks()[std::size_t(n.rack)];
            SceneNode& s = scene.nodes[std::size_t(sceneOf[id])];
            s.x = r.xMetres;
            s.y = r.yMetres;
            s.z = float(n.rackUnit) * 0.04445f;
        }
    }

    // Links between different scene nodes (server-internal links vanish).
    for (LinkId l = 0; l < graph.linkCount(); ++l) {
        const FabricLink& link = graph.link(l);
        const int a = sceneOf[link.a], b = sceneOf[link.b];
        if (a < 0 || b < 0 || a == b) {
            if (a >= 0 && a == b && (link.flags & kLinkMissing) == 0 && link.a == link.b)
                scene.links.push_back({ a, b, -1.0f, true }); // a switch cabled to itself
            continue;
        }
        SceneLink s { a, b, -1.0f, link.flags != 0 };
        if (l < linkUtilisation.size())
            s.value = std::clamp(linkUtilisation[l], 0.0f, 1.0f);
        scene.links.push_back(s);
    }
    // Centre the picture on the origin so camera presets look at its middle.
    float cx = 0, cy = 0;
    for (const SceneNode& n : scene.nodes) {
        cx += n.x;
        cy += n.y;
    }
    if (!scene.nodes.empty()) {
        cx /= float(scene.nodes.size());
        cy /= float(scene.nodes.size());
        for (SceneNode& n : scene.nodes) {
            n.x -= cx;
            n.y -= cy;
        }
    }
    return scene;
}

} // namespace clusterscope::views
