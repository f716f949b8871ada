#pragma once

// Builds the VTK picture of a fabric into a renderer: nodes and switches as glyphs coloured by
// tier, links as lines coloured by utilisation with a scalar bar, a title and a legend.
// Knows VTK, not Qt widgets (house style: scene logic apart from the widget that hosts it).

#include "views/presentation/fabricscenedata.h"

#include <array>
#include <memory>

class vtkRenderer;

namespace clusterscope::views {

class FabricScene {
public:
    FabricScene();
    ~FabricScene();

    /// Replaces the renderer's content with `data` and resets the camera to show all of it.
    void build(const FabricSceneData& data, vtkRenderer* renderer);

    /// Glyphs drawn per kind, in SceneNodeKind order (for tests and the status line).
    const std::array<int, 5>& glyphCounts() const { return m_glyphCounts; }
    int linkCount() const { return m_linkCount; }
    /// Switches drawn highlighted as flagged.
    int flaggedNodeCount() const { return m_flaggedNodes; }

    /// RGB (0..1) used for each node kind.
    static std::array<double, 3> kindColour(SceneNodeKind kind);

private:
    struct Actors;
    std::unique_ptr<Actors> m_actors;
    std::array<int, 5> m_glyphCounts {};
    int m_linkCount = 0;
    int m_flaggedNodes = 0;
};

} // namespace clusterscope::views
