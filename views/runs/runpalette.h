#pragma once

// The measured breakdown's parts (engine::RankStepBreakdown) with names and colours taken from the
// model's BreakdownPalette, so that compute is the same blue in the Runs tab as in the Breakdown
// chart and exposed communication uses the exposed-communication family of hues.

#include <QColor>
#include <QString>

#include <array>
#include <cstdint>

namespace clusterscope::engine {
struct RankStepBreakdown;
enum class GpuActivityKind : std::uint8_t;
}

namespace clusterscope::views {

/// The parts of one rank's step. Compute + exposed communication + memcpy + idle = the step
/// duration; overlapped communication runs under compute and is not part of that sum, so the
/// stacked bar puts it on top (RunPalette::components() is the stacking order, bottom first).
enum class RunComponent { Compute, CommExposed, CommOverlapped, Memcpy, Idle };
inline constexpr int kRunComponentCount = 5;

class RunPalette {
public:
    /// Stacking order, bottom first: compute, exposed communication, memcpy, idle, overlapped.
    static const std::array<RunComponent, kRunComponentCount>& components();
    static QString name(RunComponent c);
    static QString description(RunComponent c);
    /// Compute = BreakdownPalette Compute; exposed communication = BreakdownPalette "Exposed TP"
    /// (the first exposed-communication hue); overlapped = the same hue lightened; memcpy =
    /// BreakdownPalette "Other"; idle = BreakdownPalette "Pipeline bubble" (idle GPU time).
    static QColor color(RunComponent c);
    /// Seconds of `c` in `b`.
    static double seconds(const engine::RankStepBreakdown& b, RunComponent c);
    /// False for overlapped communication (it runs under compute, not in addition to it).
    static bool addsToDuration(RunComponent c);
    /// Colour of a GPU activity kind in the timeline (compute, communication, memcpy, memset).
    static QColor activityColor(engine::GpuActivityKind kind);
};

} // namespace clusterscope::views
