#pragma once

#include "views/fabric/fabricscenedata.h"

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
/// folded in), one per switch or NVSwitch domain, and one line per scale-out cable. Links inside a
/// server (PCIe, NVLink) are not drawn. `linkUtilisation`, when not empty, holds one value 0..1 per
/// graph link (indexed by LinkId) and colours the lines.
FabricSceneData sceneFromGraph(const engine::FabricGraph& graph, SceneLayout layout,
    std::span<const float> linkUtilisation = {}, std::string title = {});

} // namespace clusterscope::views
