#pragma once

#include "views/presentation/fabricscenedata.h"

#include <span>
#include <string>

namespace clusterscope::engine {
class FabricGraph;
}

namespace clusterscope::views {

enum class SceneLayout {
    Tiers, ///< servers on the floor, each switch tier on a level above (reads like a Clos diagram)
    Floor, ///< racks where the physical layout puts them (needs racks in the graph; else Tiers)
};

/// Turns a fabric graph into what the 3D view draws: one glyph per server (its GPUs and NICs
/// folded in), one per switch or NVSwitch domain, and one line per pair of connected glyphs
/// (parallel cables fold into one line coloured by the busiest). Links inside a server (PCIe,
/// NVLink) are not drawn. `linkUtilisation`, when not empty, holds one value 0..1 per graph link
/// (indexed by LinkId) and colours the lines. Level of detail: with more servers than
/// `maxServerGlyphs`, servers are grouped (by rack when laid out, else consecutively) into one
/// glyph per group so that a 16,384-GPU fabric stays interactive.
FabricSceneData sceneFromGraph(const engine::FabricGraph& graph, SceneLayout layout,
    std::span<const float> linkUtilisation = {}, std::string title = {}, int maxServerGlyphs = 512);

} // namespace clusterscope::views
