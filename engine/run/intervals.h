#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace clusterscope::engine {

/// Half-open time intervals [start, end) in nanoseconds, kept sorted and disjoint.
class Intervals {
public:
    using Span = std::pair<std::int64_t, std::int64_t>;

    /// Builds the union of arbitrary (unsorted, overlapping) spans; empty or reversed ones are dropped.
    static Intervals unionOf(std::vector<Span> spans);

    std::int64_t totalNs() const;
    /// Length of the intersection with `other`.
    std::int64_t overlapNs(const Intervals& other) const;
    /// The union of this and `other`.
    Intervals unite(const Intervals& other) const;
    /// This set clipped to [start, end).
    Intervals clip(std::int64_t start, std::int64_t end) const;
    const std::vector<Span>& spans() const { return m_spans; }

private:
    std::vector<Span> m_spans;
};

} // namespace clusterscope::engine
