#pragma once

// The iteration-breakdown components in display order, with their names and colours. Every view
// that shows a breakdown (the Breakdown chart, the Runs tab, the Compare view) and the report's
// breakdown chart (app/report/breakdownchart.h) use this palette, so that "Exposed DP" is the same
// vermillion everywhere.

#include <QColor>
#include <QString>

#include <array>
#include <vector>

namespace clusterscope::engine {
struct IterationBreakdown;
}

namespace clusterscope::views {

/// The parts of engine::IterationBreakdown, bottom to top in a stacked bar.
enum class BreakdownComponent {
    Compute,
    Recompute,
    TpExposed,
    PpExposed,
    DpExposed,
    CpExposed,
    EpExposed,
    Bubble,
    Optimizer,
    Other
};

inline constexpr int kBreakdownComponentCount = 10;

/// One component of one breakdown, as charts and tables draw it.
struct BreakdownSlice {
    BreakdownComponent component = BreakdownComponent::Compute;
    QString name;
    QColor color;
    double seconds = 0;
};

class BreakdownPalette {
public:
    /// All components in stacking order (compute at the bottom).
    static const std::array<BreakdownComponent, kBreakdownComponentCount>& components();
    /// Short legend name, e.g. "Exposed DP".
    static QString name(BreakdownComponent c);
    /// One sentence for tooltips (what the seconds stand for).
    static QString description(BreakdownComponent c);
    /// Fill colour: the colour-blind-safe Okabe-Ito set (Okabe and Ito, "Color Universal Design",
    /// 2008; https://jfly.uni-koeln.de/color/) for the first seven components (compute and
    /// recompute the blue family), then grey, brown and light grey for the overheads.
    static QColor color(BreakdownComponent c);
    /// Seconds of one iteration spent in `c`.
    static double seconds(const engine::IterationBreakdown& b, BreakdownComponent c);
    /// Every component of `b` in stacking order with its name, colour and seconds (zeros included).
    static std::vector<BreakdownSlice> slices(const engine::IterationBreakdown& b);
    /// Colour of the network-share line and of its axis.
    static QColor networkShareColor();
    /// Colour of the 25% guideline (dashed).
    static QColor guidelineColor();
};

} // namespace clusterscope::views
