#include "engine/telemetry/pfcanalysis.h"

#include "engine/telemetry/counterintervals.h"

#include <algorithm>
#include <map>

namespace clusterscope::engine {

namespace {

    struct EndPauses {
        bool measured = false;
        double fraction = 0.0; ///< total pause seconds / covered seconds
        double peak = 0.0;
        double longestAboveS = 0.0;
    };

    EndPauses pauses(const RawSeries* s, double gapS, double threshold)
    {
        EndPauses e;
        if (!s)
            return e;
        e.measured = true;
        const CounterIntervals ci = counterIntervals(*s, gapS);
        if (!(ci.coveredS > 0))
            return e;
        e.fraction = std::min(1.0, ci.total * 1e-6 / ci.coveredS); // microseconds of pause per second
        double run = 0.0, lastEnd = -1.0;
        for (const auto& iv : ci.intervals) {
            const double f = std::min(1.0, iv.rate * 1e-6);
            e.peak = std::max(e.peak, f);
            if (f >= threshold) {
                run = (iv.startS == lastEnd ? run : 0.0) + (iv.endS - iv.startS);
                e.longestAboveS = std::max(e.longestAboveS, run);
            } else
                run = 0.0;
            lastEnd = iv.endS;
        }
        return e;
    }

} // namespace

std::vector<LinkPfc> analysePfc(const FabricGraph& g, const TelemetryData& data, double threshold)
{
    const double step = data.sampleIntervalS() > 0 ? data.sampleIntervalS() : 1.0;
    std::map<LinkId, char> links;
    data.forEach([&](LinkId link, int, TelemetryMetric m, const RawSeries&) {
        if ((m == TelemetryMetric::PfcPauseRxUs || m == TelemetryMetric::PfcPauseTxUs) && link < g.linkCount())
            links[link] = 1;
    });
    std::vector<LinkPfc> out;
    for (const auto& [link, _] : links)
        for (int dir = 0; dir < 2; ++dir) {
            // Direction dir is sent by end dir and received by end 1 - dir.
            const EndPauses received
                = pauses(data.find(link, dir, TelemetryMetric::PfcPauseRxUs), 2.5 * step, threshold);
            const EndPauses sent
                = pauses(data.find(link, 1 - dir, TelemetryMetric::PfcPauseTxUs), 2.5 * step, threshold);
            if (!(received.fraction > 0) && !(sent.fraction > 0) && !(received.peak > 0) && !(sent.peak > 0))
                continue;
            LinkPfc p;
            p.link = link;
            p.direction = dir;
            p.receivedMeasured = received.measured;
            p.sentMeasured = sent.measured;
            p.receivedFraction = received.fraction;
            p.sentFraction = sent.fraction;
            p.peakFraction = std::max(received.peak, sent.peak);
            p.longestAboveS = std::max(received.longestAboveS, sent.longestAboveS);
            out.push_back(p);
        }
    return out;
}

} // namespace clusterscope::engine
