#pragma once

// The iteration-breakdown components in display order, with their names and colours. Every view
// that shows a breakdown (the Breakdown chart, the Runs tab, the Compare view) uses this palette so
// that "exposed DP" is the same green everywhere.

#include <QColor>
#include <QString>

#include <array>

namespace clusterscope::engine {
struct IterationBreakdown;
}

namespace clusterscope::views {

/// The parts of engine::IterationBreakdown, bottom to top in a stacked bar.
enum class BreakdownComponent { Compute, Recompute, TpExposed, PpExposed, DpExposed, CpExposed, EpExposed, Bubble, Optimizer, Other };

inline constexpr int kBreakdownComponentCount = 10;

class BreakdownPalette {
public:
    /// All components in stacking order (compute at the bottom).
    static const std::array<BreakdownComponent, kBreakdownComponentCount>& components();
    /// Short legend name, e.g. "Exposed DP".
    static QString name(BreakdownComponent c);
    /// One sentence for tooltips (what the seconds stand for).
    static QString description(BreakdownComponent c);
    /// Fill colour (opaque, distinct hues; compute and recompute share the blue family, the exposed
    /// communication dimensions are the warm and green hues, overheads are muted).
    static QColor color(BreakdownComponent c);
    /// Seconds of one iteration spent in `c`.
    static double seconds(const engine::IterationBreakdown& b, BreakdownComponent c);
    /// Colour of the network-share line and of its axis.
    static QColor networkShareColor();
    /// Colour of the 25% guideline (dashed).
    static QColor guidelineColor();
};

} // namespace clusterscope::views
