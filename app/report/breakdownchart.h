#pragma once

// The iteration breakdown chart of the report: one horizontal stacked bar per scenario, with a
// legend. Drawn with QPainter into a QImage. Components, names and colours are the GUI's
// (views/presentation/breakdownpalette.h), so the report and the Breakdown tab agree.

#include "engine/training/trainingestimate.h"
#include "views/presentation/breakdownpalette.h"

#include <QColor>
#include <QImage>
#include <QString>

#include <vector>

namespace clusterscope::app {

struct BreakdownBar {
    QString label; ///< scenario name
    engine::IterationBreakdown breakdown; ///< seconds per component
};

/// The legend of a chart of `bars`: the components that occur in some bar, in stacking order.
std::vector<views::BreakdownSlice> breakdownLegend(const std::vector<BreakdownBar>& bars);

/// Chart of `bars` (all on one time axis) at `widthPx` pixels wide; the height follows the bar count.
QImage drawBreakdownChart(const std::vector<BreakdownBar>& bars, int widthPx = 1800);

} // namespace clusterscope::app
