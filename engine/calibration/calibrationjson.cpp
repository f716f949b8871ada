#include "engine/calibration/calibrationjson.h"

#include "engine/core/jsonfields.h"

#include <cmath>
#include <limits>

namespace clusterscope::engine {

namespace {

    using nlohmann::json;

    constexpr double kHuge = std::numeric_limits<double>::max();

    const json& array(JsonObjectReader& r, const std::string& key)
    {
        const json* value = r.raw(key);
        if (!value)
            throw JsonFieldError(r.pointerOf(key), "missing key \"" + key + "\"");
        if (!value->is_array())
            throw JsonFieldError(r.pointerOf(key), "expected an array, got " + describeJsonValue(*value));
        return *value;
    }

    CollectiveOp readOp(JsonObjectReader& r, const std::string& key)
    {
        const std::string text = r.string(key);
        if (auto op = parseCollectiveOp(text))
            return *op;
        throw JsonFieldError(r.pointerOf(key), "unknown collective \"" + text + "\"");
    }

    CollectiveAlgorithm readAlgorithm(JsonObjectReader& r, const std::string& key)
    {
        const std::string text = r.string(key);
        if (auto a = parseCollectiveAlgorithm(text))
            return *a;
        throw JsonFieldError(r.pointerOf(key), "unknown algorithm \"" + text + "\"");
    }

    CollectiveProtocol readProtocol(JsonObjectReader& r, const std::string& key)
    {
        const std::string text = r.choice(key, { "LL", "LL128", "Simple" });
        return text == "LL"   ? CollectiveProtocol::LL
            : text == "LL128" ? CollectiveProtocol::LL128
                              : CollectiveProtocol::Simple;
    }

    /// Optional "protocol" of a correction ("LL", "LL128", "Simple"): -1 when absent (the correction
    /// is the algorithm's own, for all its protocols).
    int readOptionalProtocol(JsonObjectReader& r)
    {
        return r.has("protocol") ? static_cast<int>(readProtocol(r, "protocol")) : -1;
    }

    /// Puts a correction read from a file where the model looks for it.
    void applyCorrection(CollectiveCalibration& calibration, const AlgorithmCorrection& c)
    {
        if (c.protocol >= 0)
            calibration.setProtocol(static_cast<int>(c.algorithm), c.protocol, c.tier, c.correction);
        else
            calibration.at(static_cast<int>(c.algorithm), c.tier) = c.correction;
    }

    template <typename Item, typename Read>
    void readArray(JsonObjectReader& r, const std::string& key, std::vector<Item>& out, Read read)
    {
        const json& items = array(r, key);
        for (std::size_t i = 0; i < items.size(); ++i) {
            const std::string pointer = r.pointerOf(key) + "/" + std::to_string(i);
            if (!items[i].is_object())
                throw JsonFieldError(pointer, "expected an object, got " + describeJsonValue(items[i]));
            JsonObjectReader item(items[i], pointer);
            out.push_back(read(item));
            item.finish();
        }
    }

    MeasuredSweep readSweep(JsonObjectReader r)
    {
        MeasuredSweep s;
        s.op = readOp(r, "op");
        s.ranks = r.positiveInt("ranks");
        s.nodes = r.positiveInt("nodes");
        s.gpuName = r.string("gpu", std::string());
        s.algorithm = readAlgorithm(r, "algorithm");
        const json& sources = array(r, "sources");
        for (std::size_t i = 0; i < sources.size(); ++i) {
            if (!sources[i].is_string())
                throw JsonFieldError(r.pointerOf("sources") + "/" + std::to_string(i),
                    "expected a file name, got " + describeJsonValue(sources[i]));
            s.sources.push_back(sources[i].get<std::string>());
        }
        readArray(r, "measured", s.points, [](JsonObjectReader& p) {
            SweepPoint point;
            point.bytes = p.number("bytes", 1.0, kHuge);
            point.seconds = p.number("time_us", 1e-9, kHuge) * 1e-6;
            return point;
        });
        r.finish();
        return s;
    }

    AlgorithmCorrection readCorrection(JsonObjectReader& r)
    {
        AlgorithmCorrection c;
        c.algorithm = readAlgorithm(r, "algorithm");
        if (c.algorithm == CollectiveAlgorithm::Auto)
            throw JsonFieldError(
                r.pointerOf("algorithm"), "a correction belongs to a concrete algorithm, not \"auto\"");
        const long long tier = r.integer("tier", 0);
        if (tier >= CollectiveCalibration::kTiers)
            throw JsonFieldError(
                r.pointerOf("tier"), "expected tier 0 (intra-node) or 1 (inter-node), got " + std::to_string(tier));
        c.tier = static_cast<int>(tier);
        c.protocol = readOptionalProtocol(r);
        c.correction.latencyScale = r.number("latency_scale", 0.0, kHuge);
        c.correction.latencyOffsetSeconds = r.number("latency_offset_us", -kHuge, kHuge) * 1e-6;
        c.correction.bandwidthScale = r.number("bandwidth_scale", 1e-12, kHuge);
        c.parameters = r.positiveInt("parameters");
        c.points = r.positiveInt("points");
        c.minBytes = r.number("min_bytes", 0.0, kHuge);
        c.maxBytes = r.number("max_bytes", c.minBytes, kHuge);
        c.measuredLaw.latencySeconds = r.number("measured_latency_us", 0.0, kHuge) * 1e-6;
        c.measuredLaw.bytesPerSecond = r.number("measured_bandwidth_gbps", 0.0, kHuge) * 1e9;
        return c;
    }

    // Optional "size_corrections": [{ "tier": t, "log_time_at_knots": [8 numbers] }] (collectivecalibration.h;
    // knots at log2(bytes) 10, 13, ..., 31). Absent: no size correction.
    void readSizeCorrections(JsonObjectReader& r, CollectiveCalibration& calibration)
    {
        if (!r.has("size_corrections"))
            return;
        struct Entry {
            int tier = 0;
            double values[CollectiveCalibration::kSizeKnots] = {};
        };
        std::vector<Entry> entries;
        readArray(r, "size_corrections", entries, [](JsonObjectReader& e) {
            Entry entry;
            const long long tier = e.integer("tier", 0);
            if (tier >= CollectiveCalibration::kTiers)
                throw JsonFieldError(
                    e.pointerOf("tier"), "expected tier 0 (intra-node) or 1 (inter-node), got " + std::to_string(tier));
            entry.tier = static_cast<int>(tier);
            const json& values = array(e, "log_time_at_knots");
            if (values.size() != CollectiveCalibration::kSizeKnots)
                throw JsonFieldError(e.pointerOf("log_time_at_knots"),
                    "expected " + std::to_string(CollectiveCalibration::kSizeKnots)
                        + " numbers (knots at 1 KiB, 8 KiB, ..., 2 GiB), got " + std::to_string(values.size()));
            for (int k = 0; k < CollectiveCalibration::kSizeKnots; ++k) {
                if (!values[k].is_number() || !(std::abs(values[k].get<double>()) <= 20.0))
                    throw JsonFieldError(e.pointerOf("log_time_at_knots") + "/" + std::to_string(k),
                        "expected a number between -20 and 20 (natural log of a time ratio), got "
                            + describeJsonValue(values[k]));
                entry.values[k] = values[k].get<double>();
            }
            return entry;
        });
        for (const auto& entry : entries)
            for (int k = 0; k < CollectiveCalibration::kSizeKnots; ++k)
                calibration.logTimeAtKnot[entry.tier][k] = entry.values[k];
    }

    json sizeCorrectionsToJson(const CollectiveCalibration& calibration)
    {
        json out = json::array();
        for (int t = 0; t < CollectiveCalibration::kTiers; ++t) {
            if (!calibration.hasSizeCorrection(t))
                continue;
            json values = json::array();
            for (double v : calibration.logTimeAtKnot[t])
                values.push_back(v);
            out.push_back({ { "tier", t }, { "log_time_at_knots", values } });
        }
        return out;
    }

    ResidualRow readResidual(JsonObjectReader& r)
    {
        ResidualRow row;
        row.bytes = r.number("bytes", 1.0, kHuge);
        row.measuredSeconds = r.number("measured_us", 1e-9, kHuge) * 1e-6;
        row.beforeSeconds = r.number("before_us", 0.0, kHuge) * 1e-6;
        row.afterSeconds = r.number("after_us", 0.0, kHuge) * 1e-6;
        row.algorithmBefore = readAlgorithm(r, "algorithm_before");
        row.protocolBefore = readProtocol(r, "protocol_before");
        row.algorithmAfter = readAlgorithm(r, "algorithm_after");
        row.protocolAfter = readProtocol(r, "protocol_after");
        return row;
    }

    SweepCalibration readSweepCalibration(JsonObjectReader& r)
    {
        SweepCalibration c;
        c.sweep = readSweep(*r.object("sweep", true));
        readArray(r, "corrections", c.corrections, readCorrection);
        readArray(r, "residuals", c.rows, readResidual);
        c.rmsBefore = r.number("rms_before", 0.0, kHuge);
        c.rmsAfter = r.number("rms_after", 0.0, kHuge);
        for (const auto& k : c.corrections)
            applyCorrection(c.calibration, k);
        readSizeCorrections(r, c.calibration);
        return c;
    }

    CalibrationSet readCalibration(const json& root)
    {
        if (!root.is_object())
            throw JsonFieldError("", "expected a JSON object, got " + describeJsonValue(root));
        JsonObjectReader r(root, "");
        const std::string format = r.string("format");
        if (format != "clusterscope-calibration")
            throw JsonFieldError("/format", "expected \"clusterscope-calibration\", got \"" + format + "\"");
        const long long version = r.integer("version", 1);
        if (version != 1)
            throw JsonFieldError("/version",
                "this ClusterScope reads calibration version 1, the file has version " + std::to_string(version));
        CalibrationSet set;
        std::vector<AlgorithmCorrection> entries;
        readArray(r, "calibration", entries, [](JsonObjectReader& e) {
            AlgorithmCorrection c;
            c.algorithm = readAlgorithm(e, "algorithm");
            if (c.algorithm == CollectiveAlgorithm::Auto)
                throw JsonFieldError(
                    e.pointerOf("algorithm"), "a correction belongs to a concrete algorithm, not \"auto\"");
            const long long tier = e.integer("tier", 0);
            if (tier >= CollectiveCalibration::kTiers)
                throw JsonFieldError(
                    e.pointerOf("tier"), "expected tier 0 (intra-node) or 1 (inter-node), got " + std::to_string(tier));
            c.tier = static_cast<int>(tier);
            c.protocol = readOptionalProtocol(e);
            c.correction.latencyScale = e.number("latency_scale", 0.0, kHuge);
            c.correction.latencyOffsetSeconds = e.number("latency_offset_us", -kHuge, kHuge) * 1e-6;
            c.correction.bandwidthScale = e.number("bandwidth_scale", 1e-12, kHuge);
            return c;
        });
        for (const auto& e : entries)
            applyCorrection(set.calibration, e);
        readSizeCorrections(r, set.calibration);
        readArray(r, "sweeps", set.sweeps, readSweepCalibration);
        r.finish();
        return set;
    }

} // namespace

namespace {
    json sweepToJson(const SweepCalibration& c)
    {
        json measured = json::array();
        for (const auto& p : c.sweep.points)
            measured.push_back({ { "bytes", p.bytes }, { "time_us", p.seconds * 1e6 } });
        const json sweep = { { "op", toString(c.sweep.op) }, { "ranks", c.sweep.ranks }, { "nodes", c.sweep.nodes },
            { "gpu", c.sweep.gpuName }, { "algorithm", toString(c.sweep.algorithm) }, { "sources", c.sweep.sources },
            { "measured", measured } };
        json corrections = json::array();
        for (const auto& k : c.corrections) {
            json entry = { { "algorithm", toString(k.algorithm) }, { "tier", k.tier },
                { "latency_scale", k.correction.latencyScale },
                { "latency_offset_us", k.correction.latencyOffsetSeconds * 1e6 },
                { "bandwidth_scale", k.correction.bandwidthScale }, { "parameters", k.parameters },
                { "points", k.points }, { "min_bytes", k.minBytes }, { "max_bytes", k.maxBytes },
                { "measured_latency_us", k.measuredLaw.latencySeconds * 1e6 },
                { "measured_bandwidth_gbps", k.measuredLaw.bytesPerSecond / 1e9 } };
            if (k.protocol >= 0)
                entry["protocol"] = toString(static_cast<CollectiveProtocol>(k.protocol));
            corrections.push_back(std::move(entry));
        }
        json residuals = json::array();
        for (const auto& row : c.rows) {
            residuals.push_back({ { "bytes", row.bytes }, { "measured_us", row.measuredSeconds * 1e6 },
                { "before_us", row.beforeSeconds * 1e6 }, { "after_us", row.afterSeconds * 1e6 },
                { "algorithm_before", toString(row.algorithmBefore) },
                { "protocol_before", toString(row.protocolBefore) },
                { "algorithm_after", toString(row.algorithmAfter) },
                { "protocol_after", toString(row.protocolAfter) } });
        }
        json out = { { "sweep", sweep }, { "corrections", corrections }, { "residuals", residuals },
            { "rms_before", c.rmsBefore }, { "rms_after", c.rmsAfter } };
        if (const json size = sizeCorrectionsToJson(c.calibration); !size.empty())
            out["size_corrections"] = size;
        return out;
    }
} // namespace

std::string calibrationToJson(const CalibrationSet& set)
{
    const CollectiveTermCorrection identity;
    json entries = json::array();
    for (int a = 0; a < CollectiveCalibration::kAlgorithms; ++a) {
        // The Auto slot is never used by the model (Auto resolves to a concrete algorithm first),
        // and the reader refuses it: do not write it.
        if (static_cast<CollectiveAlgorithm>(a) == CollectiveAlgorithm::Auto)
            continue;
        for (int t = 0; t < CollectiveCalibration::kTiers; ++t) {
            const CollectiveTermCorrection& c = set.calibration.at(a, t);
            if (c == identity)
                continue;
            entries.push_back({ { "algorithm", toString(static_cast<CollectiveAlgorithm>(a)) }, { "tier", t },
                { "latency_scale", c.latencyScale }, { "latency_offset_us", c.latencyOffsetSeconds * 1e6 },
                { "bandwidth_scale", c.bandwidthScale } });
        }
    }
    // The per-protocol refinements (an optional "protocol" key; files without it hold none).
    for (int a = 0; a < CollectiveCalibration::kAlgorithms; ++a) {
        if (static_cast<CollectiveAlgorithm>(a) == CollectiveAlgorithm::Auto)
            continue;
        for (int p = 0; p < CollectiveCalibration::kProtocols; ++p) {
            for (int t = 0; t < CollectiveCalibration::kTiers; ++t) {
                if (!set.calibration.protocolFitted[a][p][t])
                    continue;
                const CollectiveTermCorrection& c = set.calibration.protocolCorrections[a][p][t];
                entries.push_back({ { "algorithm", toString(static_cast<CollectiveAlgorithm>(a)) }, { "tier", t },
                    { "protocol", toString(static_cast<CollectiveProtocol>(p)) }, { "latency_scale", c.latencyScale },
                    { "latency_offset_us", c.latencyOffsetSeconds * 1e6 }, { "bandwidth_scale", c.bandwidthScale } });
            }
        }
    }
    json sweeps = json::array();
    for (const auto& s : set.sweeps)
        sweeps.push_back(sweepToJson(s));
    json doc = { { "format", "clusterscope-calibration" }, { "version", 1 }, { "calibration", entries },
        { "sweeps", sweeps } };
    if (const json size = sizeCorrectionsToJson(set.calibration); !size.empty())
        doc["size_corrections"] = size;
    return doc.dump(2) + "\n";
}

Result<CalibrationSet> calibrationFromJson(std::string_view text, const std::string& origin)
{
    auto root = parseJsonText(text, origin);
    if (!root)
        return root.status();
    return guardJsonRead(origin, [&]() -> Result<CalibrationSet> { return readCalibration(*root); });
}

} // namespace clusterscope::engine
