#pragma once

// The iteration breakdown chart: one horizontal stacked bar per scenario, components in the order
// of engine::IterationBreakdown, with a legend. Drawn with QPainter into a QImage.
//
// Palette (views/charts did not exist when the report was written, so the report documents its
// own): the colour-blind-safe Okabe-Ito set (Okabe & Ito 2008, "Color Universal Design") for the
// first eight components, then brown and light grey for the two small ones.

#include "engine/training/trainingestimate.h"

#include <QColor>
#include <QImage>
#include <QString>

#include <vector>

namespace clusterscope::app {

struct BreakdownComponent {
    QString name;
    QColor colour;
    double seconds = 0;
};

/// The ten components of `b` in IterationBreakdown order with their colours (zeros included).
std::vector<BreakdownComponent> breakdownComponents(const engine::IterationBreakdown& b);

struct BreakdownBar {
    QString label;                        ///< scenario name
    engine::IterationBreakdown breakdown; ///< seconds per component
};

/// Chart of `bars` (all on one time axis) at `widthPx` pixels wide; the height follows the bar count.
QImage drawBreakdownChart(const std::vector<BreakdownBar>& bars, int widthPx = 1800);

} // namespace clusterscope::app
