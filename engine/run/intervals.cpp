#include "engine/run/intervals.h"

#include <algorithm>

namespace clusterscope::engine {

Intervals Intervals::unionOf(std::vector<Span> spans)
{
    std::sort(spans.begin(), spans.end());
    Intervals out;
    for (const auto& s : spans) {
        if (s.second <= s.first)
            continue;
        if (!out.m_spans.empty() && s.first <= out.m_spans.back().second)
            out.m_spans.back().second = std::max(out.m_spans.back().second, s.second);
        else
            out.m_spans.push_back(s);
    }
    return out;
}

std::int64_t Intervals::totalNs() const
{
    std::int64_t total = 0;
    for (const auto& s : m_spans)
        total += s.second - s.first;
    return total;
}

std::int64_t Intervals::overlapNs(const Intervals& other) const
{
    std::int64_t total = 0;
    std::size_t i = 0, j = 0;
    const auto& a = m_spans;
    const auto& b = other.m_spans;
    while (i < a.size() && j < b.size()) {
        const std::int64_t lo = std::max(a[i].first, b[j].first);
        const std::int64_t hi = std::min(a[i].second, b[j].second);
        if (hi > lo)
            total += hi - lo;
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return total;
}

Intervals Intervals::unite(const Intervals& other) const
{
    std::vector<Span> all = m_spans;
    all.insert(all.end(), other.m_spans.begin(), other.m_spans.end());
    return unionOf(std::move(all));
}

Intervals Intervals::clip(std::int64_t start, std::int64_t end) const
{
    Intervals out;
    for (const auto& s : m_spans) {
        const std::int64_t lo = std::max(s.first, start);
        const std::int64_t hi = std::min(s.second, end);
        if (hi > lo)
            out.m_spans.emplace_back(lo, hi);
    }
    return out;
}

} // namespace clusterscope::engine
