#pragma once

// A 2D schematic of a fabric for reports, painted from the blocks model of
// engine/fabric/fabricschematic.h: switching tiers as rows of switch boxes (top: highest
// tier), GPU servers aggregated per leaf block at the bottom, and link bundles between the blocks
// labelled with their cable count and rate and coloured by the busiest link's modelled utilisation.
// Switches are grouped into blocks by (tier, group, plane): a pod or scalable unit's leaves form
// one block. Drawn with QPainter into a QImage (no display needed).

#include "engine/fabric/fabricdesign.h"

#include <QImage>

#include <vector>

namespace clusterscope::app {

/// Schematic of `design` `widthPx` wide. `utilisation` (per LinkId, 0..1; may be empty) colours the
/// bundles; `switchName` names the switch model in the block captions.
QImage drawFabricSchematic(
    const engine::FabricDesign& design, const std::vector<float>& utilisation, int widthPx = 1800);

} // namespace clusterscope::app
