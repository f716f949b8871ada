#pragma once

// The blocks model of a fabric's 2D schematic (drawn by app/report/fabricschematic.h): switching
// tiers as rows of switch blocks (top: highest tier), GPU servers aggregated per leaf block at the
// bottom, and cable bundles between blocks with their count, rates and busiest link. Switches are
// grouped into blocks by (tier, group, plane): a pod or scalable unit's leaves form one block.
// Positions are in canvas units on a canvas SchematicLayout::kCanvasWidth wide (the painter
// scales them to pixels). Qt-free, so that the grouping and the layout are tested without drawing.

#include "engine/fabric/fabricdesign.h"

#include <map>
#include <set>
#include <vector>

namespace clusterscope::engine {

/// Layout constants of the schematic, in canvas units.
struct SchematicLayout {
    static constexpr double kCanvasWidth = 900; ///< every length below is relative to this width
    static constexpr double kMargin = 16; ///< left and right of the rows
    static constexpr double kTop = 14; ///< above the first row
    static constexpr double kBlockGap = 10; ///< between blocks of a row
    static constexpr double kSwitchRowHeight = 92; ///< a row of switch blocks
    static constexpr double kHostRowHeight = 78; ///< the row of server blocks
    static constexpr double kRowGap = 120; ///< between rows (room for the bundles and their labels)
    static constexpr double kBottom = 16; ///< below the last row, above the legend
    static constexpr double kLegendHeight = 30;
    static constexpr std::size_t kMaxBlocksPerRow = 8; ///< beyond: the first ones, a "more" slot, the last
};

/// A rectangle in canvas units.
struct SchematicRect {
    double x = 0, y = 0, width = 0, height = 0;
    double centerX() const { return x + width / 2; }
    double bottom() const { return y + height; }
};

struct SchematicPoint {
    double x = 0, y = 0;
};

struct SchematicBlock {
    static constexpr int kHostRow = -1; ///< `row` of server blocks
    int row = 0; ///< switch tier (kTierLeaf..), or kHostRow
    int group = -1; ///< pod / scalable unit / dragonfly group (-1: merged); host blocks: their leaf block
    int plane = 0;
    int switches = 0;
    int hosts = 0; ///< GPU servers
    int appliances = 0; ///< other hosts (storage, management)
    bool visible = true; ///< false when folded into the row's "more" slot
    SchematicRect rect; ///< hidden blocks: the "more" slot's rectangle
};

/// The cables between two blocks of different rows.
struct SchematicBundle {
    int upper = 0; ///< block index (the higher row)
    int lower = 0;
    long long cables = 0;
    std::set<float> rates; ///< Gb/s of the cables
    float maxUtilisation = 0;
    bool drawn = false; ///< both blocks visible
    SchematicPoint from; ///< on the upper block's bottom edge, spread in the order of the partners
    SchematicPoint to; ///< on the lower block's top edge
};

struct FabricSchematic {
    std::vector<SchematicBlock> blocks;
    std::vector<int> rows; ///< top to bottom
    std::map<int, std::vector<int>> blocksOfRow; ///< block indices left to right
    std::map<int, int> hiddenBlocks; ///< row -> blocks folded into its "more" slot
    std::vector<SchematicBundle> bundles; ///< between rows
    int sameRowBundles = 0; ///< bundles inside a row (not drawn)
    long long sameRowCables = 0;
    bool utilisationKnown = false;
    double height = 0; ///< canvas units, legend included
};

/// Groups `design` into blocks and bundles and lays them out. `utilisation` (per LinkId, 0..1, may
/// be empty) gives each bundle its busiest link. Scale-up (NVLink) and PCIe links stay inside
/// servers; missing links are left out.
FabricSchematic fabricSchematic(const FabricDesign& design, const std::vector<float>& utilisation);

} // namespace clusterscope::engine
