#pragma once

// The timeline's events in a compact, render-friendly layout: one lane per (rank, stream), events
// of a lane as parallel arrays sorted by start on the aligned clock (own clock - the analysis'
// clock offset, so that ranks line up), and the per-pixel-column binning that lets the timeline
// summarise millions of events: each column of a lane gets the fraction of its time occupied by
// each activity kind, so the work per frame is O(visible events + lanes x columns) however far
// one zooms out.

#include "engine/run/runmodel.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace clusterscope::views {

inline constexpr int kTimelineKinds = 4; ///< engine::GpuActivityKind values

struct TimelineLane {
    std::int32_t rank = 0;
    std::int32_t stream = 0;
    std::int32_t rankIndex = 0; ///< index into Run::ranks
    engine::GpuActivityKind dominant = engine::GpuActivityKind::Compute; ///< kind with most events
    std::vector<std::int64_t> startNs; ///< aligned, sorted ascending
    std::vector<std::int64_t> endNs;
    std::vector<std::uint8_t> kind; ///< engine::GpuActivityKind
    std::vector<std::int32_t> collective; ///< index into the rank's collectives, -1 for none
    std::int64_t maxDurationNs = 0; ///< longest event: bounds the binary search for visible events
};

/// What a collective kernel was (for the hover text).
struct TimelineCollective {
    engine::CollectiveOp op = engine::CollectiveOp::Unknown;
    std::int64_t bytes = -1;
    std::string processGroup;
};

class TimelineData {
public:
    /// Lanes of `run` sorted by rank then stream; `clockOffsetNs` as in engine::RunAnalysis (empty =
    /// no alignment).
    static std::shared_ptr<const TimelineData> fromRun(
        const engine::Run& run, const std::vector<std::int64_t>& clockOffsetNs);

    const std::vector<TimelineLane>& lanes() const { return m_lanes; }
    std::int64_t beginNs() const { return m_beginNs; }
    std::int64_t endNs() const { return m_endNs; }
    std::size_t eventCount() const { return m_eventCount; }
    int rankCount() const { return int(m_collectives.size()); }

    /// Adds the occupancy of lane `lane` in [t0, t0 + columns x nsPerColumn) to `occupancy`
    /// (columns x kTimelineKinds floats, column-major by kind): each entry is the fraction of the
    /// column's time covered by events of that kind (overlapping events may add up past 1).
    void binLane(int lane, double t0Ns, double nsPerColumn, int columns, float* occupancy) const;
    /// Index of the event of `lane` that covers `timeNs`, else the nearest within `toleranceNs`; -1.
    int eventAt(int lane, double timeNs, double toleranceNs) const;
    /// One line describing event `event` of `lane` (kind, start relative to the run, duration, and
    /// for communication the operation, bytes and process group).
    QString describe(int lane, int event) const;
    /// Short label of a lane, e.g. "rank 3 · s7 comm".
    QString laneLabel(int lane) const;

private:
    std::vector<TimelineLane> m_lanes;
    std::vector<std::vector<TimelineCollective>> m_collectives; ///< per rank index
    std::int64_t m_beginNs = 0;
    std::int64_t m_endNs = 0;
    std::size_t m_eventCount = 0;
};

} // namespace clusterscope::views
