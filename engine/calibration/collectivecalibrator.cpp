#include "engine/calibration/collectivecalibrator.h"

#include "engine/calibration/weightedleastsquares.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <utility>

namespace clusterscope::engine {

namespace {

    // One fit: the calibrated model keeps the model's own choice of algorithm and protocol (NCCL's
    // tuner does not know the calibration), so a refit would group the sizes the same way.
    constexpr int kRounds = 1;

    /// One measured point with the model's uncalibrated terms for the (algorithm, protocol) it picks.
    struct Sample {
        double bytes = 0;
        double seconds = 0; ///< measured time less the model's pipeline and overhead (what L, W explain)
        double latency = 0; ///< L (s), the tuner's latency term
        double bandwidth = 0; ///< W (s), the tuner's bandwidth term
        double measured = 0; ///< the measured time (s): the weights are 1 / measured^2
    };

    CollectiveEstimate evaluate(const CollectiveModel& model, const MeasuredSweep& sweep, double bytes)
    {
        return model.evaluateNcclTests(sweep.op, bytes, sweep.ranks, sweep.nodes, sweep.algorithm, sweep.gpusPerThread);
    }

    double rmsOfKept(const std::vector<ResidualRow>& rows, bool after)
    {
        double sum = 0;
        int kept = 0;
        for (const auto& r : rows) {
            if (r.outlier)
                continue;
            const double x = after ? r.residualAfter() : r.residualBefore();
            sum += x * x;
            ++kept;
        }
        return kept == 0 ? 0.0 : std::sqrt(sum / kept);
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

    /// Robust weighted least squares: iteratively reweighted least squares with Huber's weights on the
    /// weighted residuals sqrt(w_i) r_i (here relative residuals, since w_i = 1/t_i^2), the tuning
    /// constant 1.345 x a robust scale (1.4826 x the median absolute residual, at least 1%) (Huber,
    /// "Robust Statistics", 1981; Holland and Welsch, 1977). A single wild point then pulls the fit with
    /// a bounded, not a squared, force.
    std::optional<std::vector<double>> solveHuber(
        std::span<const double> rows, int columns, std::span<const double> y, std::span<const double> baseWeights)
    {
        constexpr int kIterations = 12;
        constexpr double kHuberK = 1.345;
        std::vector<double> w(baseWeights.begin(), baseWeights.end());
        std::optional<std::vector<double>> x = solveWeightedLeastSquares(rows, columns, y, w);
        const std::size_t n = y.size();
        if (!x || n <= static_cast<std::size_t>(columns) + 1)
            return x;
        std::vector<double> r(n), absR(n);
        for (int it = 0; it < kIterations; ++it) {
            for (std::size_t i = 0; i < n; ++i) {
                double pred = 0;
                for (int j = 0; j < columns; ++j)
                    pred += rows[i * columns + j] * (*x)[j];
                r[i] = (pred - y[i]) * std::sqrt(baseWeights[i]);
                absR[i] = std::abs(r[i]);
            }
            std::nth_element(absR.begin(), absR.begin() + static_cast<long>(n / 2), absR.end());
            const double scale = std::max(0.01, 1.4826 * absR[n / 2]);
            for (std::size_t i = 0; i < n; ++i) {
                const double a = std::abs(r[i]) / scale;
                w[i] = baseWeights[i] * (a <= kHuberK ? 1.0 : kHuberK / a);
            }
            auto next = solveWeightedLeastSquares(rows, columns, y, w);
            if (!next)
                break;
            double change = 0;
            for (int j = 0; j < columns; ++j)
                change = std::max(change, std::abs((*next)[j] - (*x)[j]) / std::max(1e-300, std::abs((*x)[j])));
            x = std::move(next);
            if (change < 1e-6)
                break;
        }
        return x;
    }

    /// The time a correction gives a sample: s L + o + W / b.
    double correctedSeconds(const CollectiveTermCorrection& c, const Sample& s)
    {
        return c.latencyScale * s.latency + c.latencyOffsetSeconds + s.bandwidth / c.bandwidthScale;
    }

    /// Two parameters, latency scale 1: robust weighted fit of t - L = offset + W / bandwidthScale, the
    /// offset clamped so that no sample's latency is negative (then the bandwidth refitted alone).
    std::optional<CollectiveTermCorrection> fitOffsetAndBandwidth(const std::vector<Sample>& samples)
    {
        if (samples.size() < 2)
            return std::nullopt;
        std::vector<double> a2, yMinusL, w;
        double minL = samples.front().latency;
        for (const auto& s : samples) {
            a2.insert(a2.end(), { 1.0, s.bandwidth });
            yMinusL.push_back(s.seconds - s.latency);
            w.push_back(1.0 / (s.measured * s.measured));
            minL = std::min(minL, s.latency);
        }
        auto x = solveHuber(a2, 2, yMinusL, w);
        if (!x || !((*x)[1] > 0))
            return std::nullopt;
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
        if (!(inverseBandwidth > 0))
            return std::nullopt;
        CollectiveTermCorrection c;
        c.latencyOffsetSeconds = offset;
        c.bandwidthScale = 1.0 / inverseBandwidth;
        return c;
    }

    /// One parameter: the bandwidth, the latency terms from the prior: t - (s L + o) = W / bandwidthScale.
    std::optional<CollectiveTermCorrection> fitBandwidthOnly(
        const std::vector<Sample>& samples, const CollectiveTermCorrection& prior)
    {
        double num = 0, den = 0;
        for (const auto& s : samples) {
            const double w = 1.0 / (s.measured * s.measured);
            const double rest = s.seconds - prior.latencyScale * s.latency - prior.latencyOffsetSeconds;
            num += w * s.bandwidth * rest;
            den += w * s.bandwidth * s.bandwidth;
        }
        if (!(num > 0 && den > 0))
            return std::nullopt;
        CollectiveTermCorrection c = prior;
        c.bandwidthScale = den / num;
        return c;
    }

    /// Leave-one-out RMS of the relative error (to the measured time) of a fit, each sample predicted by
    /// the fit on the others; +inf when a fit fails.
    template <typename Fit> double leaveOneOutRms(const std::vector<Sample>& samples, Fit fit)
    {
        double sum = 0;
        for (std::size_t i = 0; i < samples.size(); ++i) {
            std::vector<Sample> rest = samples;
            rest.erase(rest.begin() + static_cast<long>(i));
            const std::optional<CollectiveTermCorrection> c = fit(rest);
            if (!c)
                return std::numeric_limits<double>::infinity();
            const double e = (correctedSeconds(*c, samples[i]) - samples[i].seconds) / samples[i].measured;
            sum += e * e;
        }
        return std::sqrt(sum / static_cast<double>(samples.size()));
    }

    /// Weighted (1/t^2) robust fit of t = x1 L + x2 + x3 W; see calibrateSweep() for the fallbacks.
    CollectiveTermCorrection fitGroup(const std::vector<Sample>& samples, int& parameters,
        const CollectiveTermCorrection& prior = {}, bool oneParameter = false)
    {
        std::vector<double> y, w, a3;
        double minL = samples.front().latency, maxL = minL, latencyShare = 0, bandwidthShare = 0;
        double minW = samples.front().bandwidth, maxW = minW;
        for (const auto& s : samples) {
            y.push_back(s.seconds);
            w.push_back(1.0 / (s.measured * s.measured));
            a3.insert(a3.end(), { s.latency, 1.0, s.bandwidth });
            minL = std::min(minL, s.latency);
            maxL = std::max(maxL, s.latency);
            minW = std::min(minW, s.bandwidth);
            maxW = std::max(maxW, s.bandwidth);
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
        if (fitLatency && fitBandwidth && !oneParameter) {
            // Three parameters only when L varies (several protocols) and enough sizes back them.
            if (samples.size() >= 4 && maxL > minL * (1 + 1e-9)) {
                if (auto x = solveHuber(a3, 3, y, w);
                    x && (*x)[0] >= 0 && (*x)[2] > 0 && latencyNonNegative(samples, (*x)[0], (*x)[1])) {
                    c.latencyScale = (*x)[0];
                    c.latencyOffsetSeconds = (*x)[1];
                    c.bandwidthScale = 1.0 / (*x)[2];
                    parameters = 3;
                    return c;
                }
            }
            // Two: latency scale 1, fit t - L = offset + W / bandwidthScale.
            if (auto two = fitOffsetAndBandwidth(samples)) {
                parameters = 2;
                return *two;
            }
        }
        if (fitBandwidth && (!fitLatency || oneParameter)) {
            auto one = fitBandwidthOnly(samples, prior);
            // Bandwidth-bound sizes only, as the model sees them: the measured times may still carry a
            // fixed cost per call that the model lacks (a large run's launch skew across ranks, a
            // multi-rack NVLink run's set-up). When the sizes span at least two octaves of W (then an
            // offset and a slope are told apart by the sizes themselves) and four or more back it, the
            // offset-and-bandwidth fit replaces the bandwidth-only one if it predicts each size, left
            // out in turn, better (leave-one-out cross-validation; Hastie, Tibshirani and Friedman, "The
            // Elements of Statistical Learning", 2nd ed., section 7.10).
            constexpr double kOffsetSpread = 4.0;
            constexpr std::size_t kOffsetSizes = 4;
            if (!oneParameter && !fitLatency && samples.size() >= kOffsetSizes && maxW >= kOffsetSpread * minW) {
                const double looOne = leaveOneOutRms(
                    samples, [&prior](const std::vector<Sample>& s) { return fitBandwidthOnly(s, prior); });
                const double looTwo = leaveOneOutRms(samples, fitOffsetAndBandwidth);
                if (looTwo < looOne) {
                    if (auto two = fitOffsetAndBandwidth(samples)) {
                        parameters = 2;
                        return *two;
                    }
                }
            }
            if (one) {
                parameters = 1;
                return *one;
            }
        }
        // One: bandwidth from the prior, offset = weighted mean of t - L - W / scale (latency kept >= 0).
        c.bandwidthScale = prior.bandwidthScale;
        double num = 0, den = 0;
        for (std::size_t i = 0; i < samples.size(); ++i) {
            num += w[i] * (samples[i].seconds - samples[i].latency - samples[i].bandwidth / c.bandwidthScale);
            den += w[i];
        }
        c.latencyOffsetSeconds = std::max(num / den, -minL);
        parameters = 1;
        return c;
    }

    /// The smooth size correction of one tier (collectivecalibration.h): robust (Huber) weighted least
    /// squares of the log-time residuals ln(t_measured / t_calibrated) on the knots' interpolation
    /// basis, in log-time so that every size counts by its relative error, with a roughness penalty
    /// (second differences of neighbouring knots, weight 0.02 of a point) that keeps it smooth, and a
    /// weak pull of every knot towards 0 (weight 1% of a point) for knots the sweep does not reach.
    /// The roughness weight is the one value of the fit chosen on data: the summed 4-fold held-out RMS
    /// over the 12 public logs of tests/data/nccltests/public (all at once) is 102.5 percentage points
    /// at 0.2, 99.0 at 0.1, 96.6 at 0.05, 89.3 at 0.02, 87.8 at 0.01 and 87.9 at 0.005; 0.02 is on
    /// that plateau and, unlike 0.01, makes no log's held-out RMS worse by more than a point.
    bool fitSizeCorrection(const std::vector<ResidualRow>& rows, int tier, CollectiveCalibration& calibration)
    {
        constexpr double kRoughnessWeight = 0.02;
        constexpr int k = CollectiveCalibration::kSizeKnots;
        std::vector<double> a, y, w;
        int points = 0;
        for (const auto& r : rows) {
            if (!(r.afterSeconds > 0) || !(r.measuredSeconds > 0))
                continue;
            const double l = std::log2(r.bytes);
            for (int j = 0; j < k; ++j)
                a.push_back(CollectiveCalibration::knotWeight(j, l));
            y.push_back(std::log(r.measuredSeconds / r.afterSeconds));
            w.push_back(1.0);
            ++points;
        }
        if (points < 2 * k)
            return false;
        for (int j = 0; j < k; ++j) {
            for (int i = 0; i < k; ++i)
                a.push_back(i == j ? 1.0 : 0.0);
            y.push_back(0.0);
            w.push_back(0.01);
        }
        for (int j = 1; j + 1 < k; ++j) {
            for (int i = 0; i < k; ++i)
                a.push_back(i == j ? -2.0 : (i == j - 1 || i == j + 1) ? 1.0 : 0.0);
            y.push_back(0.0);
            w.push_back(kRoughnessWeight);
        }
        // Residuals of the current correction are relative to it: add it back.
        for (int i = 0; i < points; ++i)
            for (int j = 0; j < k; ++j)
                y[i] += a[i * k + j] * calibration.logTimeAtKnot[tier][j];
        auto x = solveHuber(a, k, y, w);
        if (!x)
            return false;
        for (int j = 0; j < k; ++j)
            calibration.logTimeAtKnot[tier][j] = (*x)[j];
        return true;
    }

    std::vector<ResidualRow> rowsFor(
        const CollectiveModel& before, const CollectiveModel& after, const MeasuredSweep& sweep)
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

namespace {

    SweepCalibration fitSweep(const CollectiveModel& model, const MeasuredSweep& sweep, const CollectiveRequest& probe);

    MeasuredSweep withoutPoints(const MeasuredSweep& sweep, const std::vector<bool>& drop)
    {
        MeasuredSweep out = sweep;
        out.points.clear();
        for (std::size_t i = 0; i < sweep.points.size(); ++i)
            if (!drop[i])
                out.points.push_back(sweep.points[i]);
        return out;
    }

    double medianAbs(std::vector<double> v)
    {
        if (v.empty())
            return 0;
        for (auto& x : v)
            x = std::abs(x);
        std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
        return v[v.size() / 2];
    }

} // namespace

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
        model.placementForNcclTests(sweep.ranks, sweep.nodes, sweep.gpusPerThread), sweep.algorithm };
    if (auto status = model.check(probe); !status.isOk())
        return Status::error("calibration: the model cannot evaluate this sweep: " + status.message());

    // 1. Robust fit of every size, then outliers: a size whose residual is beyond 5 robust standard
    // deviations of the kept sizes' (1.4826 x median |residual|) and beyond 20% is left out and the
    // sweep refitted without it; repeated on the refit (a wild size hides a lesser one behind the
    // spread it causes) until no size is added, at most a quarter of the sizes in all. The later
    // passes take isolated sizes only: a size whose neighbour (the sizes are sorted) is off the same
    // way is a band the model misses, not noise.
    const std::size_t n = sweep.points.size();
    SweepCalibration out = fitSweep(model, sweep, probe);
    std::vector<bool> outlier(n, false);
    // The sweep fitted without the sizes `drop` marks; its rows and RMS cover every size.
    auto refitWithout = [&](const std::vector<bool>& drop) {
        SweepCalibration refit = fitSweep(model, withoutPoints(sweep, drop), probe);
        CollectiveModel calibrated = model;
        calibrated.setCalibration(refit.calibration);
        refit.sweep = sweep;
        refit.rows = rowsFor(model, calibrated, sweep);
        refit.rmsBefore = rmsOf(refit.rows, false);
        refit.rmsAfter = rmsOf(refit.rows, true);
        return refit;
    };
    // Sizes the measurement itself calls noisy (MeasuredSweep::noisySizes, e.g. nccl-tests -I: the
    // spread of the size's own iterations) are left out first, with that reason, when they are at most
    // a quarter of the sizes and at least two sizes remain; a sweep noisy throughout is fitted whole.
    std::vector<std::string> noisyReason(n);
    for (std::size_t i = 0; i < n; ++i)
        for (const auto& [bytes, reason] : sweep.noisySizes)
            if (bytes == sweep.points[i].bytes)
                noisyReason[i] = reason;
    {
        const auto noisy = static_cast<std::size_t>(
            std::count_if(noisyReason.begin(), noisyReason.end(), [](const std::string& r) { return !r.empty(); }));
        if (noisy > 0 && noisy <= n / 4 && n - noisy >= 2) {
            for (std::size_t i = 0; i < n; ++i)
                outlier[i] = !noisyReason[i].empty();
            SweepCalibration refit = refitWithout(outlier);
            for (std::size_t i = 0; i < n; ++i) {
                if (!outlier[i])
                    continue;
                refit.rows[i].outlier = true;
                refit.rows[i].outlierReason = noisyReason[i];
                ++refit.outliers;
            }
            out = std::move(refit);
        }
    }
    constexpr int kOutlierPasses = 3;
    for (int pass = 0; pass < kOutlierPasses && n >= 6; ++pass) {
        std::vector<double> residuals, kept;
        for (std::size_t i = 0; i < n; ++i) {
            residuals.push_back(out.rows[i].residualAfter());
            if (!outlier[i])
                kept.push_back(residuals.back());
        }
        const double scale = 1.4826 * medianAbs(kept);
        const double limit = std::max(0.2, 5.0 * scale);
        int count = static_cast<int>(std::count(outlier.begin(), outlier.end(), true));
        std::vector<bool> next = outlier;
        bool added = false;
        auto offSameWay = [&](std::size_t i, std::size_t j) {
            return (outlier[j] || std::abs(residuals[j]) > limit) && (residuals[j] > 0) == (residuals[i] > 0);
        };
        for (std::size_t i = 0; i < n; ++i) {
            const bool isolated
                = pass == 0 || ((i == 0 || !offSameWay(i, i - 1)) && (i + 1 == n || !offSameWay(i, i + 1)));
            if (!next[i] && isolated && std::abs(residuals[i]) > limit) {
                next[i] = true;
                added = true;
                ++count;
            }
        }
        if (!added || count > static_cast<int>(n / 4))
            break;
        outlier = next;
        {
            SweepCalibration refit = refitWithout(outlier);
            for (std::size_t i = 0; i < n; ++i) {
                if (!outlier[i])
                    continue;
                if (out.rows[i].outlier) { // found by an earlier pass: keep its reason
                    refit.rows[i].outlier = true;
                    refit.rows[i].outlierReason = out.rows[i].outlierReason;
                    ++refit.outliers;
                    continue;
                }
                refit.rows[i].outlier = true;
                char reason[200];
                std::snprintf(reason, sizeof reason,
                    "residual %+.0f%% against the robust fit, beyond %.0f%% (5 x the sweep's robust spread of %.1f%%, "
                    "at least 20%%): a noisy size, left out of the fit",
                    100 * residuals[i], 100 * limit, 100 * scale);
                refit.rows[i].outlierReason = reason;
                ++refit.outliers;
            }
            out = std::move(refit);
        }
    }

    // 2. Cross-validation inside the sweep: 4 interleaved folds of the sizes (every 4th size held out
    // in turn), each predicted by a calibration fitted on the others. If the calibrated model predicts
    // held-out sizes worse than the model as given, the calibration is not kept.
    constexpr std::size_t kFolds = 4;
    if (n >= 2 * kFolds) {
        double sumBefore = 0, sumAfter = 0;
        int held = 0;
        for (std::size_t f = 0; f < kFolds; ++f) {
            std::vector<bool> drop = outlier;
            for (std::size_t i = f; i < n; i += kFolds)
                drop[i] = true;
            const SweepCalibration fold = fitSweep(model, withoutPoints(sweep, drop), probe);
            CollectiveModel calibrated = model;
            calibrated.setCalibration(fold.calibration);
            for (std::size_t i = f; i < n; i += kFolds) {
                if (outlier[i])
                    continue;
                const double t = sweep.points[i].seconds;
                const double before = (evaluate(model, sweep, sweep.points[i].bytes).seconds - t) / t;
                const double after = (evaluate(calibrated, sweep, sweep.points[i].bytes).seconds - t) / t;
                sumBefore += before * before;
                sumAfter += after * after;
                ++held;
            }
        }
        if (held > 0) {
            out.heldOutRmsBefore = std::sqrt(sumBefore / held);
            out.heldOutRmsAfter = std::sqrt(sumAfter / held);
            if (out.heldOutRmsAfter > out.heldOutRmsBefore) {
                out.rejectedByCrossValidation = true;
                out.calibration = model.calibration();
                out.corrections.clear();
                for (auto& r : out.rows) {
                    r.afterSeconds = r.beforeSeconds;
                    r.algorithmAfter = r.algorithmBefore;
                    r.protocolAfter = r.protocolBefore;
                }
                out.rmsAfter = out.rmsBefore;
            }
        }
    }
    out.rmsBeforeKept = rmsOfKept(out.rows, false);
    out.rmsAfterKept = rmsOfKept(out.rows, true);
    return out;
}

void restateBefore(const CollectiveModel& reference, SweepCalibration& calibrated)
{
    for (auto& r : calibrated.rows) {
        const CollectiveEstimate b = evaluate(reference, calibrated.sweep, r.bytes);
        r.beforeSeconds = b.seconds;
        r.algorithmBefore = b.algorithm;
        r.protocolBefore = b.protocol;
    }
    calibrated.rmsBefore = rmsOf(calibrated.rows, false);
    calibrated.rmsBeforeKept = rmsOfKept(calibrated.rows, false);
    if (calibrated.heldOutRmsBefore > 0 || calibrated.heldOutRmsAfter > 0)
        calibrated.heldOutRmsBefore = calibrated.rmsBeforeKept;
}

namespace {

    SweepCalibration fitSweep(const CollectiveModel& model, const MeasuredSweep& sweep, const CollectiveRequest& probe)
    {
        SweepCalibration out;
        out.sweep = sweep;
        out.calibration = model.calibration();
        out.rows = compareSweep(model, sweep);
        out.rmsBefore = rmsOf(out.rows, false);
        out.rmsAfter = out.rmsBefore;
        std::vector<AlgorithmCorrection> roundCorrections; // every group fitted so far, latest fit wins
        // A candidate calibration replaces the best so far when it lowers the sweep's RMS.
        auto keepIfBetter = [&](const CollectiveCalibration& candidate) {
            CollectiveModel next = model;
            next.setCalibration(candidate);
            std::vector<ResidualRow> rows = rowsFor(model, next, sweep);
            const double rms = rmsOf(rows, true);
            if (!(rms < out.rmsAfter))
                return false;
            out.calibration = candidate;
            out.rows = std::move(rows);
            out.rmsAfter = rms;
            return true;
        };

        // The per-algorithm fits regress on the model's terms without a size correction of this
        // sweep's tier (a later sweep's size correction replaces an earlier one's).
        int tier = sweep.nodes > 1 ? 1 : 0;
        if (!sweep.points.empty()) {
            CollectiveRequest first = probe;
            first.bytes = sweep.points.front().bytes;
            const CollectiveEstimate e = evaluate(model, sweep, first.bytes);
            if (const CollectiveTerms t = model.terms(first, e.algorithm, e.protocol); t.supported)
                tier = t.tier;
        }
        CollectiveCalibration start = model.calibration();
        for (double& v : start.logTimeAtKnot[tier])
            v = 0.0;
        CollectiveModel current = model;
        current.setCalibration(start);
        std::set<std::pair<int, int>> fittedAlone; // (algorithm, tier) with a fit of their own
        for (int round = 0; round < kRounds; ++round) {
            // Group the points by the (algorithm, tier) NCCL's tuner picks; terms are uncalibrated.
            std::map<std::pair<int, int>, std::vector<Sample>> groups;
            // The same points per (algorithm, protocol, tier): NCCL's protocol switches are its tuner's,
            // so each protocol's sizes get their own correction on top of the algorithm's.
            std::map<std::tuple<int, int, int>, std::vector<Sample>> protocolGroups;
            std::map<int, std::vector<Sample>> perTier;
            for (const auto& p : sweep.points) {
                const CollectiveEstimate e = evaluate(current, sweep, p.bytes);
                CollectiveRequest request = probe;
                request.bytes = p.bytes;
                const CollectiveTerms t = current.terms(request, e.algorithm, e.protocol);
                if (!t.supported)
                    continue;
                // The corrections scale the tuner's terms; the model's per-call overhead and pipeline
                // (achieved - tuner, ncclpipeline.cpp) are taken as they are.
                const double extra
                    = (t.achievedLatencySeconds - t.latencySeconds) + (t.achievedBandwidthSeconds - t.bandwidthSeconds);
                const Sample sample { p.bytes, p.seconds - extra, t.latencySeconds, t.bandwidthSeconds, p.seconds };
                groups[{ static_cast<int>(e.algorithm), t.tier }].push_back(sample);
                protocolGroups[{ static_cast<int>(e.algorithm), static_cast<int>(e.protocol), t.tier }].push_back(
                    sample);
                perTier[t.tier].push_back(sample);
            }
            CollectiveCalibration candidate = current.calibration();
            // A correction this sweep sets for (algorithm, tier) replaces what an earlier sweep left for
            // it, its protocol refinements included (they would override the new fit).
            auto setAlgorithm = [&candidate](int a, int tier, const CollectiveTermCorrection& c) {
                candidate.at(a, tier) = c;
                for (int p = 0; p < CollectiveCalibration::kProtocols; ++p)
                    candidate.protocolFitted[a][p][tier] = false;
            };
            std::map<int, CollectiveTermCorrection> pooledByTier;
            // Algorithms the sweep never exercised get the tier's pooled correction, so that a request
            // pinned to one of them (NCCL_ALGO) is not priced by its optimistic uncalibrated figures alone.
            for (const auto& [tier, samples] : perTier) {
                int parameters = 0;
                const CollectiveTermCorrection pooled = fitGroup(samples, parameters);
                pooledByTier[tier] = pooled;
                for (int a = 1; a < CollectiveCalibration::kAlgorithms; ++a) {
                    if (!fittedAlone.count({ a, tier }))
                        setAlgorithm(a, tier, pooled);
                }
            }
            std::vector<AlgorithmCorrection> corrections;
            for (const auto& [key, samples] : groups) {
                AlgorithmCorrection c;
                c.algorithm = static_cast<CollectiveAlgorithm>(key.first);
                c.tier = key.second;
                // The tier's pooled fit is the prior for what the group's sizes cannot identify, unless
                // the group is the whole tier: then it is the same data, and its parameters the group's own.
                const bool wholeTier = samples.size() == perTier[key.second].size();
                c.correction = fitGroup(
                    samples, c.parameters, wholeTier ? CollectiveTermCorrection {} : pooledByTier[key.second]);
                c.points = static_cast<int>(samples.size());
                c.minBytes = samples.front().bytes;
                c.maxBytes = samples.front().bytes;
                for (const auto& s : samples) {
                    c.minBytes = std::min(c.minBytes, s.bytes);
                    c.maxBytes = std::max(c.maxBytes, s.bytes);
                }
                std::vector<SweepPoint> measured;
                for (const auto& s : samples)
                    measured.push_back({ s.bytes, s.measured });
                if (auto law = fitLatencyBandwidth(measured))
                    c.measuredLaw = *law;
                setAlgorithm(key.first, key.second, c.correction);
                fittedAlone.insert(key);
                corrections.push_back(c);
            }
            // An algorithm whose sizes ran more than one protocol: each protocol's own fit, with the
            // algorithm's as the prior for what its sizes cannot identify.
            std::map<std::pair<int, int>, int> protocolsOf;
            for (const auto& [key, samples] : protocolGroups)
                ++protocolsOf[{ std::get<0>(key), std::get<2>(key) }];
            for (const auto& [key, samples] : protocolGroups) {
                const auto [algorithm, protocol, groupTier] = key;
                if (protocolsOf[{ algorithm, groupTier }] < 2)
                    continue;
                AlgorithmCorrection c;
                c.algorithm = static_cast<CollectiveAlgorithm>(algorithm);
                c.tier = groupTier;
                c.protocol = protocol;
                c.correction = fitGroup(samples, c.parameters, candidate.at(algorithm, groupTier), true);
                c.points = static_cast<int>(samples.size());
                c.minBytes = samples.front().bytes;
                c.maxBytes = samples.back().bytes;
                std::vector<SweepPoint> measured;
                for (const auto& sm : samples)
                    measured.push_back({ sm.bytes, sm.measured });
                if (auto law = fitLatencyBandwidth(measured))
                    c.measuredLaw = *law;
                candidate.setProtocol(algorithm, protocol, groupTier, c.correction);
                corrections.push_back(c);
            }
            for (auto& c : corrections) {
                auto it
                    = std::find_if(roundCorrections.begin(), roundCorrections.end(), [&](const AlgorithmCorrection& o) {
                          return o.algorithm == c.algorithm && o.tier == c.tier && o.protocol == c.protocol;
                      });
                if (it != roundCorrections.end())
                    *it = c;
                else
                    roundCorrections.push_back(c);
            }
            if (keepIfBetter(candidate))
                out.corrections = roundCorrections;
            current.setCalibration(candidate);
        }
        // Then the smooth size correction on what the per-algorithm fits leave, kept when it lowers
        // the RMS (cross-validation in calibrateSweep() judges it on held-out sizes with the rest).
        CollectiveCalibration withSize = out.calibration;
        if (fitSizeCorrection(out.rows, tier, withSize))
            keepIfBetter(withSize);
        return out;
    }

} // namespace

} // namespace clusterscope::engine
