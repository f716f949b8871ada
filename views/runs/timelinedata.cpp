#include "views/runs/timelinedata.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace clusterscope::views {

namespace {
    QString kindName(engine::GpuActivityKind k)
    {
        switch (k) {
        case engine::GpuActivityKind::Compute:
            return QCoreApplication::translate("TimelineData", "compute");
        case engine::GpuActivityKind::Communication:
            return QCoreApplication::translate("TimelineData", "comm");
        case engine::GpuActivityKind::Memcpy:
            return QCoreApplication::translate("TimelineData", "memcpy");
        case engine::GpuActivityKind::Memset:
            return QCoreApplication::translate("TimelineData", "memset");
        }
        return {};
    }

    QString durationText(double ns)
    {
        const QLocale l;
        if (std::abs(ns) >= 1e9)
            return l.toString(ns / 1e9, 'f', 3) + QStringLiteral(" s");
        if (std::abs(ns) >= 1e6)
            return l.toString(ns / 1e6, 'f', 3) + QStringLiteral(" ms");
        if (std::abs(ns) >= 1e3)
            return l.toString(ns / 1e3, 'f', 1) + QStringLiteral(" µs");
        return l.toString(ns, 'f', 0) + QStringLiteral(" ns");
    }
}

std::shared_ptr<const TimelineData> TimelineData::fromRun(
    const engine::Run& run, const std::vector<std::int64_t>& clockOffsetNs)
{
    auto data = std::make_shared<TimelineData>();
    data->m_beginNs = std::numeric_limits<std::int64_t>::max();
    data->m_endNs = std::numeric_limits<std::int64_t>::min();
    for (std::size_t ri = 0; ri < run.ranks.size(); ++ri) {
        const engine::RankTrace& rank = run.ranks[ri];
        const std::int64_t offset = ri < clockOffsetNs.size() ? clockOffsetNs[ri] : 0;
        std::vector<TimelineCollective> colls;
        colls.reserve(rank.collectives.size());
        for (const auto& c : rank.collectives)
            colls.push_back({ c.op, c.bytes, c.processGroup });
        data->m_collectives.push_back(std::move(colls));

        std::map<std::int32_t, std::size_t> laneOfStream;
        std::vector<std::array<std::size_t, kTimelineKinds>> kindCounts;
        const std::size_t firstLane = data->m_lanes.size();
        for (const auto& a : rank.activities)
            laneOfStream.emplace(a.stream, 0);
        for (auto& [stream, lane] : laneOfStream) {
            lane = data->m_lanes.size();
            TimelineLane l;
            l.rank = rank.rank;
            l.stream = stream;
            l.rankIndex = std::int32_t(ri);
            data->m_lanes.push_back(std::move(l));
            kindCounts.push_back({});
        }
        for (const auto& a : rank.activities) { // sorted by start already (runmodel.h)
            const std::size_t li = laneOfStream[a.stream];
            TimelineLane& l = data->m_lanes[li];
            const std::int64_t s = a.startNs - offset, e = std::max(a.endNs, a.startNs) - offset;
            l.startNs.push_back(s);
            l.endNs.push_back(e);
            l.kind.push_back(std::uint8_t(a.kind));
            l.collective.push_back(a.collectiveIndex);
            l.maxDurationNs = std::max(l.maxDurationNs, e - s);
            ++kindCounts[li - firstLane][std::size_t(a.kind)];
            data->m_beginNs = std::min(data->m_beginNs, s);
            data->m_endNs = std::max(data->m_endNs, e);
            ++data->m_eventCount;
        }
        for (std::size_t li = firstLane; li < data->m_lanes.size(); ++li) {
            TimelineLane& l = data->m_lanes[li];
            const auto& counts = kindCounts[li - firstLane];
            l.dominant = engine::GpuActivityKind(std::max_element(counts.begin(), counts.end()) - counts.begin());
            if (!std::is_sorted(l.startNs.begin(), l.startNs.end())) { // be robust to unsorted input
                std::vector<std::size_t> order(l.startNs.size());
                std::iota(order.begin(), order.end(), std::size_t(0));
                std::stable_sort(order.begin(), order.end(),
                    [&](std::size_t a, std::size_t b) { return l.startNs[a] < l.startNs[b]; });
                TimelineLane sorted = l;
                for (std::size_t i = 0; i < order.size(); ++i) {
                    sorted.startNs[i] = l.startNs[order[i]];
                    sorted.endNs[i] = l.endNs[order[i]];
                    sorted.kind[i] = l.kind[order[i]];
                    sorted.collective[i] = l.collective[order[i]];
                }
                l = std::move(sorted);
            }
        }
    }
    if (data->m_eventCount == 0)
        data->m_beginNs = data->m_endNs = 0;
    return data;
}

void TimelineData::binLane(int lane, double t0Ns, double nsPerColumn, int columns, float* occupancy) const
{
    const TimelineLane& l = m_lanes[std::size_t(lane)];
    if (l.startNs.empty() || columns <= 0 || nsPerColumn <= 0)
        return;
    const double t1Ns = t0Ns + nsPerColumn * columns;
    // Events starting before t0 - maxDuration cannot reach the window.
    const double searchFrom = t0Ns - double(l.maxDurationNs);
    auto it = std::lower_bound(
        l.startNs.begin(), l.startNs.end(), searchFrom, [](std::int64_t s, double t) { return double(s) < t; });
    const double invNs = 1.0 / nsPerColumn;
    for (std::size_t i = std::size_t(it - l.startNs.begin()), n = l.startNs.size(); i < n; ++i) {
        const double s = double(l.startNs[i]);
        if (s >= t1Ns)
            break;
        const double e = double(l.endNs[i]);
        if (e <= t0Ns)
            continue;
        const double x0 = std::max(0.0, (s - t0Ns) * invNs);
        const double x1 = std::min(double(columns), (e - t0Ns) * invNs);
        float* out = occupancy + l.kind[i];
        int c0 = int(x0);
        const int c1 = std::min(columns - 1, int(x1));
        if (c0 == c1) { // the common case when zoomed out: the event lies within one column
            out[c0 * kTimelineKinds] += float(x1 - x0);
            continue;
        }
        out[c0 * kTimelineKinds] += float(double(c0 + 1) - x0);
        for (++c0; c0 < c1; ++c0)
            out[c0 * kTimelineKinds] += 1.0f;
        out[c1 * kTimelineKinds] += float(x1 - double(c1));
    }
}

int TimelineData::eventAt(int lane, double timeNs, double toleranceNs) const
{
    if (lane < 0 || lane >= int(m_lanes.size()))
        return -1;
    const TimelineLane& l = m_lanes[std::size_t(lane)];
    auto it = std::lower_bound(l.startNs.begin(), l.startNs.end(), timeNs - double(l.maxDurationNs) - toleranceNs,
        [](std::int64_t s, double t) { return double(s) < t; });
    int best = -1;
    double bestDistance = toleranceNs;
    for (std::size_t i = std::size_t(it - l.startNs.begin()); i < l.startNs.size(); ++i) {
        const double s = double(l.startNs[i]), e = double(l.endNs[i]);
        if (s > timeNs + toleranceNs)
            break;
        const double distance = timeNs < s ? s - timeNs : timeNs > e ? timeNs - e : 0.0;
        if (distance <= bestDistance && (best < 0 || distance < bestDistance || distance == 0)) {
            best = int(i);
            bestDistance = distance;
        }
    }
    return best;
}

QString TimelineData::describe(int lane, int event) const
{
    const TimelineLane& l = m_lanes[std::size_t(lane)];
    const std::size_t i = std::size_t(event);
    const auto kind = engine::GpuActivityKind(l.kind[i]);
    QString text = QCoreApplication::translate("TimelineData", "Rank %1, stream %2: %3 at %4 for %5")
                       .arg(l.rank)
                       .arg(l.stream)
                       .arg(kindName(kind), durationText(double(l.startNs[i] - m_beginNs)),
                           durationText(double(l.endNs[i] - l.startNs[i])));
    const std::int32_t c = l.collective[i];
    const auto& colls = m_collectives[std::size_t(l.rankIndex)];
    if (c >= 0 && std::size_t(c) < colls.size()) {
        const TimelineCollective& coll = colls[std::size_t(c)];
        text += QStringLiteral("\n") + QString::fromLatin1(engine::toString(coll.op));
        if (coll.bytes >= 0)
            text += QStringLiteral(", ") + QLocale().formattedDataSize(coll.bytes, 2, QLocale::DataSizeSIFormat);
        text += QStringLiteral(", ")
            + (coll.processGroup.empty() ? QCoreApplication::translate("TimelineData", "default group")
                                         : QCoreApplication::translate("TimelineData", "group %1")
                                               .arg(QString::fromStdString(coll.processGroup)));
    }
    return text;
}

QString TimelineData::laneLabel(int lane) const
{
    const TimelineLane& l = m_lanes[std::size_t(lane)];
    return QCoreApplication::translate("TimelineData", "rank %1 · s%2 %3")
        .arg(l.rank)
        .arg(l.stream)
        .arg(kindName(l.dominant));
}

} // namespace clusterscope::views
