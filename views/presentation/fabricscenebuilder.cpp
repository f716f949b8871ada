#include "views/presentation/fabricscenebuilder.h"

#include "engine/fabric/fabricgraph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <vector>

namespace clusterscope::views {

using namespace clusterscope::engine;

namespace {

    SceneNodeKind kindOfSwitch(int tier)
    {
        switch (tier) {
        case kTierLeaf:
            return SceneNodeKind::Leaf;
        case kTierSpine:
            return SceneNodeKind::Spine;
        case kTierCore:
            return SceneNodeKind::Core;
        default:
            return SceneNodeKind::Other;
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
    std::string title, int maxServerGlyphs)
{
    FabricSceneData scene;
    scene.title = std::move(title);
    const bool floor = layout == SceneLayout::Floor && !graph.racks().empty();

    // Servers: every host index seen on a non-switch node.
    std::map<std::int32_t, std::int32_t> rackOfHost;
    for (NodeId id = 0; id < graph.nodeCount(); ++id) {
        const FabricNode& n = graph.node(id);
        if (n.host >= 0 && n.kind != NodeKind::Switch)
            rackOfHost.try_emplace(n.host, n.rack);
    }
    const std::size_t hosts = rackOfHost.size();
    // Level of detail: group servers (by rack when every server has one, else consecutive blocks).
    std::size_t perGroup = 1;
    if (maxServerGlyphs > 0 && hosts > std::size_t(maxServerGlyphs))
        perGroup = (hosts + std::size_t(maxServerGlyphs) - 1) / std::size_t(maxServerGlyphs);
    const bool byRack = perGroup > 1
        && std::all_of(rackOfHost.begin(), rackOfHost.end(), [](const auto& e) { return e.second >= 0; });
    std::map<std::int64_t, int> groupScene; // group key -> scene node
    std::unordered_map<std::int32_t, int> hostScene;
    std::size_t hostIndex = 0;
    for (const auto& [host, rack] : rackOfHost) {
        const std::int64_t key = perGroup == 1 ? host : (byRack ? rack : std::int64_t(hostIndex / perGroup));
        auto [it, inserted] = groupScene.try_emplace(key, int(scene.nodes.size()));
        if (inserted) {
            SceneNode node { 0, 0, 0, SceneNodeKind::Node, {}, -1, 0, false };
            node.label = perGroup == 1
                ? "server " + std::to_string(host)
                : (byRack ? "rack " + std::to_string(rack) : "servers from " + std::to_string(host));
            scene.nodes.push_back(node);
        }
        scene.nodes[std::size_t(it->second)].members += 1;
        hostScene[host] = it->second;
        ++hostIndex;
    }
    scene.serversPerGlyph = 1;
    for (const SceneNode& n : scene.nodes)
        scene.serversPerGlyph = std::max(scene.serversPerGlyph, n.members);

    std::vector<int> sceneOf(graph.nodeCount(), -1);
    std::map<int, std::vector<NodeId>> switchesByTier;
    std::vector<NodeId> others;
    for (NodeId id = 0; id < graph.nodeCount(); ++id) {
        const FabricNode& n = graph.node(id);
        if (n.host >= 0 && n.kind != NodeKind::Switch) {
            sceneOf[id] = hostScene[n.host];
            SceneNode& s = scene.nodes[std::size_t(sceneOf[id])];
            if (s.graphNode < 0)
                s.graphNode = int(id);
        } else if (n.kind == NodeKind::Switch) {
            switchesByTier[n.tier].push_back(id);
        } else {
            others.push_back(id);
        }
    }
    // Scale-up switches without a host (an NVL72 domain switch) and appliances.
    for (NodeId id : others) {
        sceneOf[id] = int(scene.nodes.size());
        scene.nodes.push_back({ 0, 0, 0, SceneNodeKind::Other, graph.label(id), int(id), 1, false });
    }

    // Positions: server glyphs on the floor in rows, each switch tier a block of rows above.
    const std::size_t glyphs = groupScene.size();
    const std::size_t perRow
        = std::max<std::size_t>(1, std::min<std::size_t>(32, std::size_t(std::ceil(std::sqrt(double(glyphs) * 4)))));
    const float width = float(std::min(glyphs, perRow));
    std::size_t g = 0;
    for (const auto& [key, index] : groupScene) {
        SceneNode& s = scene.nodes[std::size_t(index)];
        s.x = spread(g % perRow, std::min(glyphs, perRow), width);
        s.y = float(g / perRow) * 1.6f;
        ++g;
    }
    const float levelHeight = std::max(4.0f, width / 5);
    const float depth = float((glyphs + perRow - 1) / perRow) * 1.6f;
    // One switch glyph per 1.2 m so they never touch.
    const std::size_t switchesPerRow = std::max<std::size_t>(8, std::size_t(width / 1.2f) + 1);
    for (auto& [tier, ids] : switchesByTier) {
        const int level = tier < 0 ? int(switchesByTier.size()) : tier;
        const std::size_t planes = std::size_t(graph.planeCount());
        const std::size_t inRow = std::min(ids.size(), switchesPerRow);
        const std::size_t rows = (ids.size() + inRow - 1) / inRow;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const FabricNode& n = graph.node(ids[i]);
            sceneOf[ids[i]] = int(scene.nodes.size());
            SceneNode s { 0, 0, 0, kindOfSwitch(tier), graph.label(ids[i]), int(ids[i]), 1, false };
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
        scene.physicalSizes = true;
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

    // Lines: one per pair of glyphs; parallel cables fold into it (value = the busiest member).
    std::unordered_map<std::uint64_t, int> lineOf;
    for (LinkId l = 0; l < graph.linkCount(); ++l) {
        const FabricLink& link = graph.link(l);
        const int a = sceneOf[link.a], b = sceneOf[link.b];
        if (a < 0 || b < 0)
            continue;
        if (a == b) {
            if (link.a == link.b) // a switch cabled to itself: show it
                scene.links.push_back({ a, b, -1.0f, true, int(l), 1 });
            continue; // inside a server or a group of servers
        }
        const float value = l < linkUtilisation.size() ? std::clamp(linkUtilisation[l], 0.0f, 1.0f) : -1.0f;
        const bool flagged = link.flags != 0;
        const std::uint64_t key = (std::uint64_t(std::min(a, b)) << 32) | std::uint64_t(std::max(a, b));
        const auto [it, inserted] = lineOf.try_emplace(key, int(scene.links.size()));
        if (inserted) {
            scene.links.push_back({ a, b, value, flagged, int(l), 1 });
            continue;
        }
        SceneLink& line = scene.links[std::size_t(it->second)];
        line.members += 1;
        line.flagged = line.flagged || flagged;
        if (value > line.value) {
            line.value = value;
            line.graphLink = int(l);
        }
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
