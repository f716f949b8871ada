#include "engine/calibration/sweepcalibrator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace clusterscope::engine {

const RegimeCorrection* SweepCalibration::findRegime(const std::string& algorithm, const std::string& protocol) const
{
    for (const auto& r : regimes) {
        if (r.algorithm == algorithm && r.protocol == protocol)
            return &r;
    }
    return nullptr;
}

double SweepCalibration::calibratedSeconds(const std::string& algorithm, const std::string& protocol, double bytes,
    double modelSeconds) const
{
    const RegimeCorrection* r = findRegime(algorithm, protocol);
    return r && r->applied ? r->fitted.timeAt(bytes) : modelSeconds;
}

namespace {

/// The model's own law over a group of sizes: the same weighted fit applied to its predictions; a
/// single size uses the local slope between S and 1.01 S.
LatencyBandwidth modelLaw(const std::vector<SweepPoint>& modelPoints, const ModelCurve& model)
{
    std::set<double> sizes;
    for (const auto& p : modelPoints)
        sizes.insert(p.bytes);
    if (sizes.size() >= 2) {
        if (auto law = fitLatencyBandwidth(modelPoints))
            return *law;
    }
    const SweepPoint& p = modelPoints.front();
    const double t2 = model(p.bytes * 1.01).seconds;
    const double slope = (t2 - p.seconds) / (p.bytes * 0.01);
    LatencyBandwidth law;
    law.bytesPerSecond = slope > 0 ? 1.0 / slope : 0.0;
    law.latencySeconds = std::max(0.0, p.seconds - (slope > 0 ? slope * p.bytes : 0.0));
    return law;
}

double rms(const std::vector<ResidualRow>& rows, bool after)
{
    double sum = 0;
    for (const auto& r : rows) {
        const double x = after ? r.residualAfter() : r.residualBefore();
        sum += x * x;
    }
    return rows.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(rows.size()));
}

} // namespace

Result<SweepCalibration> calibrateSweep(const MeasuredSweep& sweep, const ModelCurve& model)
{
    if (sweep.points.empty())
        return Status::error("calibration: the sweep has no measured sizes");
    for (const auto& p : sweep.points) {
        if (!(p.bytes > 0) || !(p.seconds > 0))
            return Status::error("calibration: every measured size and time must be positive (size "
                + std::to_string(p.bytes) + " B, time " + std::to_string(p.seconds) + " s)");
    }
    SweepCalibration out;
    out.sweep = sweep;
    std::map<std::pair<std::string, std::string>, std::pair<std::vector<SweepPoint>, std::vector<SweepPoint>>> groups;
    for (const auto& p : sweep.points) {
        const ModelPoint m = model(p.bytes);
        if (!(m.seconds > 0) || !std::isfinite(m.seconds))
            return Status::error("calibration: the model gives no usable time for " + std::to_string(p.bytes) + " bytes");
        ResidualRow row;
        row.bytes = p.bytes;
        row.measuredSeconds = p.seconds;
        row.beforeSeconds = m.seconds;
        row.algorithm = m.algorithm;
        row.protocol = m.protocol;
        out.rows.push_back(row);
        auto& g = groups[{ m.algorithm, m.protocol }];
        g.first.push_back(p);
        g.second.push_back({ p.bytes, m.seconds });
    }
    for (const auto& [key, group] : groups) {
        const auto& [measured, predicted] = group;
        RegimeCorrection r;
        r.algorithm = key.first;
        r.protocol = key.second;
        r.points = static_cast<int>(measured.size());
        r.minBytes = measured.front().bytes;
        r.maxBytes = measured.front().bytes;
        for (const auto& p : measured) {
            r.minBytes = std::min(r.minBytes, p.bytes);
            r.maxBytes = std::max(r.maxBytes, p.bytes);
        }
        r.model = modelLaw(predicted, model);
        if (auto fitted = fitLatencyBandwidth(measured))
            r.fitted = *fitted;
        else
            r.fitted = fitBandwidthWithLatency(measured, r.model.latencySeconds);
        r.latencyScale = r.model.latencySeconds > 0 ? r.fitted.latencySeconds / r.model.latencySeconds : 1.0;
        r.bandwidthScale = r.model.bytesPerSecond > 0 && r.fitted.bytesPerSecond > 0
            ? r.fitted.bytesPerSecond / r.model.bytesPerSecond : 1.0;
        // Keep the model where its own curve fits these sizes better than any a + S/b law.
        double fittedSq = 0, modelSq = 0;
        for (std::size_t i = 0; i < measured.size(); ++i) {
            const double t = measured[i].seconds;
            fittedSq += std::pow((r.fitted.timeAt(measured[i].bytes) - t) / t, 2);
            modelSq += std::pow((predicted[i].seconds - t) / t, 2);
        }
        r.applied = fittedSq <= modelSq;
        out.regimes.push_back(r);
    }
    for (auto& row : out.rows)
        row.afterSeconds = out.calibratedSeconds(row.algorithm, row.protocol, row.bytes, row.beforeSeconds);
    out.rmsBefore = rms(out.rows, false);
    out.rmsAfter = rms(out.rows, true);
    return out;
}

} // namespace clusterscope::engine
