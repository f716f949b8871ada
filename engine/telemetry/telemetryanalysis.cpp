#include "engine/telemetry/telemetryanalysis.h"

#include "engine/telemetry/counterintervals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace clusterscope::engine {

namespace {

    std::string nodeName(const FabricGraph& g, NodeId n)
    {
        const std::string& label = g.label(n);
        if (!label.empty())
            return label;
        const FabricNode& node = g.node(n);
        switch (node.kind) {
        case NodeKind::Nic:
            return "host" + std::to_string(node.host) + "/nic" + std::to_string(node.rail);
        case NodeKind::Gpu:
            return "host" + std::to_string(node.host) + "/gpu" + std::to_string(node.rail);
        default:
            return std::string(toString(node.kind)) + "#" + std::to_string(n);
        }
    }

    // Rank for "up": endpoints below leaves, switches by tier.
    int rank(const FabricNode& n)
    {
        if (n.kind == NodeKind::Switch)
            return n.tier < 0 ? 0 : n.tier;
        if (n.kind == NodeKind::NvSwitch)
            return 0;
        return -1;
    }

    std::string pct(double v)
    {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f %%", v * 100.0);
        return b;
    }

    double median(std::vector<double> v)
    {
        if (v.empty())
            return 0.0;
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    }

} // namespace

std::string linkName(const FabricGraph& g, LinkId id)
{
    const FabricLink& l = g.link(id);
    auto end = [&](NodeId n, int port) {
        std::string s = nodeName(g, n);
        if (port > 0)
            s += " port " + std::to_string(port);
        return s;
    };
    return end(l.a, l.portA) + " <-> " + end(l.b, l.portB);
}

TelemetryReport analyseTelemetry(const FabricGraph& g, const TelemetryData& data, const AlertRules& rules)
{
    TelemetryReport r;
    r.windowS = std::max(0.0, data.endS - data.startS);
    r.sampleIntervalS = data.sampleIntervalS();
    r.health = data.health;
    const double step = r.sampleIntervalS > 0 ? r.sampleIntervalS : 1.0;
    const double gapS = 2.5 * step;
    const AlertRule* peakRule = rules.find(AlertKind::PeakUtilisation);
    const double peakThreshold = peakRule ? peakRule->threshold : 0.95;

    // Which links count: the scale-out network, plus NVLink links that have data.
    std::vector<char> network(g.linkCount(), 0);
    for (LinkId id = 0; id < g.linkCount(); ++id) {
        const FabricLink& l = g.link(id);
        if (l.flags & kLinkMissing)
            continue;
        const LinkLevel lv = g.level(id);
        if (lv == LinkLevel::NodeLeaf || lv == LinkLevel::LeafSpine || lv == LinkLevel::SpineCore)
            network[id] = 1;
    }
    data.forEach([&](LinkId link, int, TelemetryMetric, const RawSeries&) {
        if (link < g.linkCount() && g.link(link).medium == LinkMedium::NvLink)
            network[link] = 1;
    });

    // Period: NIC-to-leaf traffic summed on a grid of the sample interval.
    const std::size_t bins = r.windowS > 0 ? static_cast<std::size_t>(std::ceil(r.windowS / step)) + 1 : 0;
    std::vector<double> nicSum(bins, 0.0);
    std::vector<int> nicCount(bins, 0);

    r.utilisation.assign(g.linkCount(), {});
    for (LinkId id = 0; id < g.linkCount(); ++id) {
        if (!network[id])
            continue;
        const FabricLink& l = g.link(id);
        const double capacity = double(l.gbps) * 1e9 / 8.0; // B/s per direction
        bool any = false;
        for (int dir = 0; dir < 2; ++dir) {
            const RawSeries* s = data.find(id, dir, TelemetryMetric::TxBytes);
            std::string source = "tx at " + nodeName(g, dir == 0 ? l.a : l.b);
            if (!s) {
                s = data.find(id, 1 - dir, TelemetryMetric::RxBytes);
                source = "rx at " + nodeName(g, dir == 0 ? l.b : l.a);
            }
            if (!s || !(capacity > 0))
                continue;
            const CounterIntervals ci = counterIntervals(*s, gapS);
            DirectionUtilisation& u = r.utilisation[id][dir];
            u.source = source;
            u.resets = ci.resets;
            if (ci.intervals.empty())
                continue;
            u.hasData = true;
            any = true;
            u.average = ci.total / (capacity * ci.coveredS);
            u.coverage = r.windowS > 0 ? std::min(1.0, ci.coveredS / r.windowS) : 0.0;
            std::vector<double> util;
            util.reserve(ci.intervals.size());
            double run = 0.0;
            double lastEnd = -1.0;
            for (const auto& iv : ci.intervals) {
                const double x = iv.rate / capacity;
                util.push_back(x);
                u.peak = std::max(u.peak, x);
                if (x >= peakThreshold) {
                    run = (iv.startS == lastEnd ? run : 0.0) + (iv.endS - iv.startS);
                    u.longestAboveS = std::max(u.longestAboveS, run);
                } else
                    run = 0.0;
                lastEnd = iv.endS;
            }
            std::sort(util.begin(), util.end());
            u.p99
                = util[std::min(util.size() - 1, static_cast<std::size_t>(std::ceil(0.99 * double(util.size()))) - 1)];
            const bool up = (dir == 0) == (rank(g.node(l.a)) <= rank(g.node(l.b)));
            if (up && g.level(id) == LinkLevel::NodeLeaf && bins > 0)
                for (const auto& iv : ci.intervals) {
                    const auto b = static_cast<std::size_t>(std::floor((iv.endS - data.startS) / step + 1e-6));
                    if (b < bins) {
                        nicSum[b] += iv.rate;
                        ++nicCount[b];
                    }
                }
            if (ci.resets > 0 && (r.resets.empty() || r.resets.back() != id))
                r.resets.push_back(id);
        }
        if (any)
            ++r.linksMeasured;
        else {
            ++r.linksWithoutData;
            if (r.gaps.size() < 1000)
                r.gaps.push_back(id);
        }
    }

    // Period from the bins that have data (edges without data are cut, inner gaps are NaN).
    {
        std::size_t first = 0;
        std::size_t last = bins;
        while (first < bins && nicCount[first] == 0)
            ++first;
        while (last > first && nicCount[last - 1] == 0)
            --last;
        std::vector<double> series;
        for (std::size_t b = first; b < last; ++b)
            series.push_back(nicCount[b] ? nicSum[b] : std::nan(""));
        r.period = findIterationPeriod(series, step);
    }

    // Tiers.
    std::map<std::pair<int, int>, std::vector<const DirectionUtilisation*>> groups;
    std::map<std::pair<int, int>, std::vector<std::pair<LinkId, int>>> groupLinks;
    for (LinkId id = 0; id < g.linkCount(); ++id)
        for (int dir = 0; dir < 2; ++dir) {
            const DirectionUtilisation& u = r.utilisation[id][dir];
            if (!u.hasData)
                continue;
            const FabricLink& l = g.link(id);
            const bool up = (dir == 0) == (rank(g.node(l.a)) <= rank(g.node(l.b)));
            const auto key = std::make_pair(int(g.level(id)), up ? 0 : 1);
            groups[key].push_back(&u);
            groupLinks[key].emplace_back(id, dir);
        }
    const AlertRule* outlierRule = rules.find(AlertKind::PeerOutlier);
    for (const auto& [key, members] : groups) {
        TierUtilisation t;
        t.level = static_cast<LinkLevel>(key.first);
        t.direction = key.second;
        t.links = int(members.size());
        std::vector<double> averages;
        for (const auto* u : members) {
            averages.push_back(u->average);
            t.average += u->average;
            t.peak = std::max(t.peak, u->peak);
            t.above80 += u->average > 0.80 ? 1 : 0;
            t.peaksAbove95 += u->peak >= 0.95 ? 1 : 0;
        }
        t.average /= double(members.size());
        std::vector<double> sorted = averages;
        std::sort(sorted.begin(), sorted.end());
        t.p99OfAverages = sorted[std::min(
            sorted.size() - 1, static_cast<std::size_t>(std::ceil(0.99 * double(sorted.size()))) - 1)];
        r.tiers.push_back(t);
        // Peer outliers: robust z-score (Iglewicz & Hoaglin, 1993: MAD x 1.4826 estimates sigma).
        if (outlierRule && averages.size() >= 8) {
            const double med = median(averages);
            std::vector<double> dev;
            for (double a : averages)
                dev.push_back(std::abs(a - med));
            // A floor of half a percent keeps identical peers from making noise an outlier.
            const double sigma = std::max(1.4826 * median(dev), 0.005);
            const auto& ids = groupLinks[key];
            for (std::size_t i = 0; i < averages.size(); ++i) {
                const double z = (averages[i] - med) / sigma;
                // Hot outliers only: a cold link among busy peers is usually an idle corner of the
                // fabric (a leaf without servers), and dead paths show up as imbalance or gaps.
                if (z > outlierRule->threshold && averages[i] - med > 0.05)
                    r.outliers.push_back({ ids[i].first, ids[i].second, t.level, averages[i], med, z });
            }
        }
    }

    // Errors per link, both ends.
    std::map<std::pair<LinkId, int>, LinkErrors> errs;
    data.forEach([&](LinkId link, int end, TelemetryMetric m, const RawSeries& s) {
        if (!isErrorMetric(m) || link >= g.linkCount())
            return;
        const CounterIntervals ci = counterIntervals(s, 1e18); // exact counts: gaps do not lose increases
        LinkErrors& e = errs[{ link, int(m) }];
        e.link = link;
        e.metric = m;
        e.increase[end] = ci.total;
        e.measured[end] = true;
        e.saturated = e.saturated || ci.saturated;
    });
    for (auto& [key, e] : errs) {
        // An end with an error series but no increase measured zero; an end without one is unmeasured.
        if (e.increase[0] > 0 || e.increase[1] > 0 || e.saturated)
            r.errors.push_back(e);
    }

    // PFC pauses per direction, both ends.
    const AlertRule* pfcRule = rules.find(AlertKind::PfcStorm);
    r.pfc = analysePfc(g, data, pfcRule ? pfcRule->threshold : 0.5);

    // ECMP imbalance among each switch's uplinks (up direction average).
    const AlertRule* imbalanceRule = rules.find(AlertKind::Imbalance);
    for (NodeId n = 0; n < g.nodeCount() && imbalanceRule; ++n) {
        const FabricNode& node = g.node(n);
        if (node.kind != NodeKind::Switch)
            continue;
        SwitchImbalance s;
        s.node = n;
        double sum = 0.0;
        for (LinkId id : g.linksOf(n)) {
            const NodeId other = g.otherEnd(id, n);
            if (g.node(other).kind != NodeKind::Switch || rank(g.node(other)) <= rank(node) || !network[id])
                continue;
            const int dir = g.link(id).a == n ? 0 : 1;
            const DirectionUtilisation& u = r.utilisation[id][dir];
            if (!u.hasData)
                continue;
            ++s.uplinks;
            sum += u.average;
            if (u.average > s.maxAverage || s.hottest == kNoId) {
                s.maxAverage = u.average;
                s.hottest = id;
            }
        }
        if (s.uplinks < 2 || !(sum > 0))
            continue;
        s.meanAverage = sum / s.uplinks;
        s.maxOverMean = s.maxAverage / s.meanAverage;
        if (s.maxOverMean > imbalanceRule->threshold && s.maxAverage >= 0.05)
            r.imbalance.push_back(s);
    }

    // Stale series: the last sample is older than three intervals before the window's end.
    data.forEach([&](LinkId link, int, TelemetryMetric m, const RawSeries& s) {
        if (!s.timesS.empty() && s.timesS.back() < data.endS - 3 * step && r.staleSeries.size() < 1000)
            r.staleSeries.push_back((s.source.empty() ? linkName(g, link) + " " + toString(m) : s.source)
                + " (last sample " + std::to_string(int(data.endS - s.timesS.back())) + " s before the window's end)");
    });
    std::sort(r.staleSeries.begin(), r.staleSeries.end());

    // Alerts.
    auto push = [&](const AlertRule& rule, LinkId link, NodeId node, int dir, double value, std::string message) {
        r.alerts.push_back({ rule.name, rule.kind, rule.severity, link, node, dir, value, std::move(message) });
    };
    for (const AlertRule& rule : rules.rules) {
        switch (rule.kind) {
        case AlertKind::PeakUtilisation:
        case AlertKind::Burst:
        case AlertKind::AverageUtilisation:
            for (LinkId id = 0; id < g.linkCount(); ++id)
                for (int dir = 0; dir < 2; ++dir) {
                    const DirectionUtilisation& u = r.utilisation[id][dir];
                    if (!u.hasData)
                        continue;
                    const FabricLink& l = g.link(id);
                    const std::string name
                        = nodeName(g, dir == 0 ? l.a : l.b) + " -> " + nodeName(g, dir == 0 ? l.b : l.a);
                    if (rule.kind == AlertKind::AverageUtilisation && u.average > rule.threshold)
                        push(rule, id, kNoId, dir, u.average,
                            name + ": average utilisation " + pct(u.average) + " above " + pct(rule.threshold));
                    if (rule.kind == AlertKind::Burst && u.peak >= rule.threshold)
                        push(rule, id, kNoId, dir, u.peak,
                            name + ": 1-interval peak " + pct(u.peak) + " (at or above " + pct(rule.threshold) + ")");
                    if (rule.kind == AlertKind::PeakUtilisation && u.peak >= rule.threshold
                        && u.longestAboveS >= rule.forS - 1e-9) {
                        char b[64];
                        std::snprintf(b, sizeof b, " for %.3g s in a row", u.longestAboveS);
                        push(rule, id, kNoId, dir, u.peak,
                            name + ": utilisation at or above " + pct(rule.threshold) + b + " (peak " + pct(u.peak)
                                + ")");
                    }
                }
            break;
        case AlertKind::LinkErrors:
        case AlertKind::Discards:
        case AlertKind::LinkDown:
            for (const LinkErrors& e : r.errors) {
                const bool isDiscard
                    = e.metric == TelemetryMetric::XmitDiscards || e.metric == TelemetryMetric::RcvDiscards;
                const bool isDown = e.metric == TelemetryMetric::LinkDowned;
                const AlertKind k = isDown ? AlertKind::LinkDown
                    : isDiscard            ? AlertKind::Discards
                                           : AlertKind::LinkErrors;
                const double total = e.increase[0] + e.increase[1];
                if (k != rule.kind || !(total > rule.threshold || e.saturated))
                    continue;
                const FabricLink& l = g.link(e.link);
                std::string where;
                if (e.increase[0] > 0 && e.increase[1] > 0)
                    where = "seen at both ends (" + std::to_string(std::llround(e.increase[0])) + " at "
                        + nodeName(g, l.a) + ", " + std::to_string(std::llround(e.increase[1])) + " at "
                        + nodeName(g, l.b) + ")";
                else {
                    const int end = e.increase[0] > 0 ? 0 : 1;
                    where = std::to_string(std::llround(e.increase[end])) + " at " + nodeName(g, end == 0 ? l.a : l.b)
                        + " only";
                    if (!e.measured[1 - end])
                        where += " (the other end is not measured)";
                    else if (k == AlertKind::LinkErrors)
                        where += ": one-ended errors point at the cable or optic of that direction";
                }
                push(rule, e.link, kNoId, -1, total,
                    linkName(g, e.link) + ": " + toString(e.metric) + " +" + std::to_string(std::llround(total))
                        + " in the window, " + where
                        + (e.saturated ? "; a counter is pegged at its maximum (saturated)" : ""));
            }
            break;
        case AlertKind::Imbalance:
            for (const SwitchImbalance& s : r.imbalance) {
                char b[64];
                std::snprintf(b, sizeof b, "%.2fx", s.maxOverMean);
                push(rule, s.hottest, s.node, -1, s.maxOverMean,
                    nodeName(g, s.node) + ": uplink " + linkName(g, s.hottest) + " averages " + pct(s.maxAverage) + ", "
                        + b + " the mean of its " + std::to_string(s.uplinks) + " uplinks (" + pct(s.meanAverage)
                        + ")");
            }
            break;
        case AlertKind::PeerOutlier:
            for (const PeerOutlier& o : r.outliers) {
                char b[48];
                std::snprintf(b, sizeof b, "robust z %.1f", o.robustZ);
                push(rule, o.link, kNoId, o.direction, o.robustZ,
                    linkName(g, o.link) + ": average " + pct(o.average) + " against a " + toString(o.level)
                        + " median of " + pct(o.groupMedian) + " (" + b + ")");
            }
            break;
        case AlertKind::CounterReset:
            for (LinkId id : r.resets)
                push(rule, id, kNoId, -1, 0.0,
                    linkName(g, id) + ": a byte counter restarted (driver reload, port reset or reboot)");
            break;
        case AlertKind::PfcStorm:
            for (const LinkPfc& p : r.pfc) {
                if (p.peakFraction < rule.threshold || p.longestAboveS < rule.forS - 1e-9)
                    continue;
                const FabricLink& l = g.link(p.link);
                const NodeId sender = p.direction == 0 ? l.a : l.b;
                const NodeId receiver = p.direction == 0 ? l.b : l.a;
                char b[96];
                std::snprintf(
                    b, sizeof b, " for %.3g s in a row (peak %s)", p.longestAboveS, pct(p.peakFraction).c_str());
                std::string ends = p.receivedMeasured
                    ? nodeName(g, sender) + " received pauses " + pct(p.receivedFraction) + " of the window"
                    : nodeName(g, sender) + "'s received pauses are not measured";
                ends += p.sentMeasured ? "; " + nodeName(g, receiver) + " sent pauses " + pct(p.sentFraction)
                                       : "; " + nodeName(g, receiver) + "'s sent pauses are not measured";
                push(rule, p.link, kNoId, p.direction, p.peakFraction,
                    nodeName(g, sender) + " -> " + nodeName(g, receiver) + ": paused by PFC at or above "
                        + pct(rule.threshold) + " of the time" + b + "; " + ends);
            }
            break;
        case AlertKind::TelemetryGap:
            for (const auto& h : r.health)
                push(rule, kNoId, kNoId, -1, 0.0, h.target + ": " + h.message);
            for (const auto& s : r.staleSeries)
                push(rule, kNoId, kNoId, -1, 0.0, "stale series " + s);
            break;
        }
    }
    return r;
}

} // namespace clusterscope::engine
