#include "engine/calibration/collectivecalibrator.h"

#include "engine/calibration/weightedleastsquares.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace clusterscope::engine {

namespace {

constexpr int kRounds = 6; ///< refits on the calibrated model's new choices (see calibrateSweep)

/// One measured point with the model's uncalibrated terms for the (algorithm, protocol) it picks.
struct Sample {
    double bytes = 0;
    double seconds = 0;
    double latency = 0;   ///< L (s)
    double bandwidth = 0; ///< W (s)
};

CollectiveEstimate evaluate(const CollectiveModel& model, const MeasuredSweep& sweep, double bytes)
{
    return model.evaluateNcclTests(sweep.op, bytes, sweep.ranks, sweep.nodes, sweep.algorithm);
}

double rmsOf(const std::vector<ResidualRow>& rows, bool after)
{
    double sum = 0;
    for (const auto& r : rows) {
        const double x = after ? r.residualAfter() : r.residualBefore();
        sum += x * x;
    }
    return rows.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(rows.size()));
}

bool latencyNonNegative(const std::vector<Sample>& samples, double scale, double offset)
{
    for (const auto& s : samples)
        if (scale * s.latency + offset < -1e-12)
            return false;
    return true;
}

/// Weighted (1/t^2) fit of t = x1 L + x2 + x3 W; see calibrateSweep() for the fallbacks.
CollectiveTermCorrection fitGroup(const std::vector<Sample>& samples, int& parameters, const CollectiveTermCorrection& prior = {})
{
    std::vector<double> y, w, a3, a2, yMinusL;
    double minL = samples.front().latency, maxL = minL, latencyShare = 0, bandwidthShare = 0;
    for (const auto& s : samples) {
        y.push_back(s.seconds);
        w.push_back(1.0 / (s.seconds * s.seconds));
        a3.insert(a3.end(), { s.latency, 1.0, s.bandwidth });
        a2.insert(a2.end(), { 1.0, s.bandwidth });
        yMinusL.push_back(s.seconds - s.latency);
        minL = std::min(minL, s.latency);
        maxL = std::max(maxL, s.latency);
        latencyShare = std::max(latencyShare, s.latency / (s.latency + s.bandwidth));
        bandwidthShare = std::max(bandwidthShare, s.bandwidth / (s.latency + s.bandwidth));
    }
    // A term is only fitted when it makes up a fair share (25%) of some modelled time in the
    // group: bandwidth read off latency-bound sizes (or latency off bandwidth-bound ones) would be
    // noise amplified into an extreme correction.
    constexpr double kIdentifiable = 0.25;
    const bool fitLatency = latencyShare >= kIdentifiable;
    const bool fitBandwidth = bandwidthShare >= kIdentifiable;
    CollectiveTermCorrection c;
    if (fitLatency && fitBandwidth) {
        // Three parameters only when L varies (several protocols) and enough sizes back them.
        if (samples.size() >= 4 && maxL > minL * (1 + 1e-9)) {
            if (auto x = solveWeightedLeastSquares(a3, 3, y, w);
                x && (*x)[0] >= 0 && (*x)[2] > 0 && latencyNonNegative(samples, (*x)[0], (*x)[1])) {
                c.latencyScale = (*x)[0];
                c.latencyOffsetSeconds = (*x)[1];
                c.bandwidthScale = 1.0 / (*x)[2];
                parameters = 3;
                return c;
            }
        }
        // Two: latency scale 1, fit t - L = offset + W / bandwidthScale.
        if (samples.size() >= 2) {
            if (auto x = solveWeightedLeastSquares(a2, 2, yMinusL, w); x && (*x)[1] > 0) {
                double offset = (*x)[0];
                double inverseBandwidth = (*x)[1];
                if (!latencyNonNegative(samples, 1.0, offset)) {
                    // Clamp the latency at zero for the smallest L and refit the bandwidth alone.
                    offset = -minL;
                    double num = 0, den = 0;
                    for (std::size_t i = 0; i < samples.size(); ++i) {
                        num += w[i] * samples[i].bandwidth * (yMinusL[i] - offset);
                        den += w[i] * samples[i].bandwidth * samples[i].bandwidth;
                    }
                    inverseBandwidth = den > 0 ? num / den : 0;
                }
                if (inverseBandwidth > 0) {
                    c.latencyOffsetSeconds = offset;
                    c.bandwidthScale = 1.0 / inverseBandwidth;
                    parameters = 2;
                    return c;
                }
            }
        }
    }
    if (fitBandwidth && !fitLatency) {
        // One: bandwidth only, latency terms from the prior: t - (s L + o) = W / bandwidthScale.
        double num = 0, den = 0;
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const double rest = samples[i].seconds - prior.latencyScale * samples[i].latency - prior.latencyOffsetSeconds;
            num += w[i] * samples[i].bandwidth * rest;
            den += w[i] * samples[i].bandwidth * samples[i].bandwidth;
        }
        if (num > 0 && den > 0) {
            c.latencyScale = prior.latencyScale;
            c.latencyOffsetSeconds = prior.latencyOffsetSeconds;
            c.bandwidthScale = den / num;
            parameters = 1;
            return c;
        }
    }
    // One: bandwidth from the prior, offset = weighted mean of t - L - W / scale (latency kept >= 0).
    c.bandwidthScale = prior.bandwidthScale;
    double num = 0, den = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        num += w[i] * (yMinusL[i] - samples[i].bandwidth / c.bandwidthScale);
        den += w[i];
    }
    c.latencyOffsetSeconds = std::max(num / den, -minL);
    parameters = 1;
    return c;
}

std::vector<ResidualRow> rowsFor(const CollectiveModel& before, const CollectiveModel& after, const MeasuredSweep& sweep)
{
    std::vector<ResidualRow> rows;
    for (const auto& p : sweep.points) {
        const CollectiveEstimate b = evaluate(before, sweep, p.bytes);
        const CollectiveEstimate a = evaluate(after, sweep, p.bytes);
        ResidualRow r;
        r.bytes = p.bytes;
        r.measuredSeconds = p.seconds;
        r.beforeSeconds = b.seconds;
        r.afterSeconds = a.seconds;
        r.algorithmBefore = b.algorithm;
        r.protocolBefore = b.protocol;
        r.algorithmAfter = a.algorithm;
        r.protocolAfter = a.protocol;
        rows.push_back(r);
    }
    return rows;
}

} // namespace

std::vector<ResidualRow> compareSweep(const CollectiveModel& model, const MeasuredSweep& sweep)
{
    return rowsFor(model, model, sweep);
}

Result<SweepCalibration> calibrateSweep(const CollectiveModel& model, const MeasuredSweep& sweep)
{
    if (sweep.points.empty())
        return Status::error("calibration: the sweep has no measured sizes");
    if (sweep.ranks < 2 || sweep.nodes < 1 || sweep.nodes > sweep.ranks)
        return Status::error("calibration: need at least 2 ranks on 1..ranks nodes, got " + std::to_string(sweep.ranks)
            + " ranks on " + std::to_string(sweep.nodes) + " nodes");
    for (const auto& p : sweep.points) {
        if (!(p.bytes > 0) || !(p.seconds > 0) || !std::isfinite(p.seconds))
            return Status::error("calibration: every measured size and time must be positive (size "
                + std::to_string(p.bytes) + " B, time " + std::to_string(p.seconds) + " s)");
    }
    const CollectiveRequest probe { sweep.op, sweep.points.front().bytes,
        model.placementForNcclTests(sweep.ranks, sweep.nodes), sweep.algorithm };
    if (auto status = model.check(probe); !status.isOk())
        return Status::error("calibration: the model cannot evaluate this sweep: " + status.message());

    SweepCalibration out;
    out.sweep = sweep;
    out.calibration = model.calibration();
    out.rows = compareSweep(model, sweep);
    out.rmsBefore = rmsOf(out.rows, false);
    out.rmsAfter = out.rmsBefore;
    std::vector<AlgorithmCorrection> roundCorrections; // every group fitted so far, latest fit wins

    CollectiveModel current = model;
    std::set<std::pair<int, int>> fittedAlone; // (algorithm, tier) with a fit of their own
    for (int round = 0; round < kRounds; ++round) {
        // Group the points by the (algorithm, tier) the current model picks; terms are uncalibrated.
        std::map<std::pair<int, int>, std::vector<Sample>> groups;
        std::map<int, std::vector<Sample>> perTier;
        for (const auto& p : sweep.points) {
            const CollectiveEstimate e = evaluate(current, sweep, p.bytes);
            CollectiveRequest request = probe;
            request.bytes = p.bytes;
            const CollectiveTerms t = current.terms(request, e.algorithm, e.protocol);
            if (!t.supported)
                continue;
            const Sample sample { p.bytes, p.seconds, t.latencySeconds, t.bandwidthSeconds };
            groups[{ static_cast<int>(e.algorithm), t.tier }].push_back(sample);
            perTier[t.tier].push_back(sample);
        }
        CollectiveCalibration candidate = current.calibration();
        std::map<int, CollectiveTermCorrection> pooledByTier;
        // Algorithms the sweep never exercised get the tier's pooled correction, so that the
        // calibrated model does not switch to one of them merely because it alone stayed optimistic.
        for (const auto& [tier, samples] : perTier) {
            int parameters = 0;
            const CollectiveTermCorrection pooled = fitGroup(samples, parameters);
            pooledByTier[tier] = pooled;
            for (int a = 1; a < CollectiveCalibration::kAlgorithms; ++a) {
                if (!fittedAlone.count({ a, tier }))
                    candidate.at(a, tier) = pooled;
            }
        }
        std::vector<AlgorithmCorrection> corrections;
        for (const auto& [key, samples] : groups) {
            AlgorithmCorrection c;
            c.algorithm = static_cast<CollectiveAlgorithm>(key.first);
            c.tier = key.second;
            c.correction = fitGroup(samples, c.parameters, pooledByTier[key.second]);
            c.points = static_cast<int>(samples.size());
            c.minBytes = samples.front().bytes;
            c.maxBytes = samples.front().bytes;
            for (const auto& s : samples) {
                c.minBytes = std::min(c.minBytes, s.bytes);
                c.maxBytes = std::max(c.maxBytes, s.bytes);
            }
            std::vector<SweepPoint> measured;
            for (const auto& s : samples)
                measured.push_back({ s.bytes, s.seconds });
            if (auto law = fitLatencyBandwidth(measured))
                c.measuredLaw = *law;
            candidate.at(key.first, key.second) = c.correction;
            fittedAlone.insert(key);
            corrections.push_back(c);
        }
        for (auto& c : corrections) {
            auto it = std::find_if(roundCorrections.begin(), roundCorrections.end(),
                [&](const AlgorithmCorrection& o) { return o.algorithm == c.algorithm && o.tier == c.tier; });
            if (it != roundCorrections.end())
                *it = c;
            else
                roundCorrections.push_back(c);
        }
        CollectiveModel next = model;
        next.setCalibration(candidate);
        std::vector<ResidualRow> rows = rowsFor(model, next, sweep);
        const double rms = rmsOf(rows, true);
        if (rms < out.rmsAfter) {
            out.calibration = candidate;
            out.rows = std::move(rows);
            out.rmsAfter = rms;
            out.corrections = roundCorrections;
        }
        current = next;
    }
    return out;
}

} // namespace clusterscope::engine
