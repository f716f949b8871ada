#include "engine/calibration/calibrationjson.h"

#include "engine/core/jsonfields.h"

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

MeasuredSweep readSweep(JsonObjectReader r)
{
    MeasuredSweep s;
    s.op = r.choice("op", { "allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall", "sendrecv" });
    s.ranks = r.positiveInt("ranks");
    s.ranksPerNode = r.positiveInt("ranks_per_node");
    s.nodes = r.positiveInt("nodes");
    s.gpuName = r.string("gpu", std::string());
    s.busbwFactor = r.number("busbw_factor", 0.0, 2.0);
    const json& sources = array(r, "sources");
    for (std::size_t i = 0; i < sources.size(); ++i) {
        if (!sources[i].is_string())
            throw JsonFieldError(r.pointerOf("sources") + "/" + std::to_string(i), "expected a file name");
        s.sources.push_back(sources[i].get<std::string>());
    }
    const json& measured = array(r, "measured");
    for (std::size_t i = 0; i < measured.size(); ++i) {
        const std::string pointer = r.pointerOf("measured") + "/" + std::to_string(i);
        if (!measured[i].is_object())
            throw JsonFieldError(pointer, "expected {\"bytes\", \"time_us\"}");
        JsonObjectReader p(measured[i], pointer);
        SweepPoint point;
        point.bytes = p.number("bytes", 1.0, kHuge);
        point.seconds = p.number("time_us", 1e-6, kHuge) * 1e-6;
        p.finish();
        s.points.push_back(point);
    }
    r.finish();
    return s;
}

RegimeCorrection readRegime(JsonObjectReader r)
{
    RegimeCorrection c;
    c.algorithm = r.string("algorithm");
    c.protocol = r.choice("protocol", { "LL", "LL128", "Simple" });
    c.minBytes = r.number("min_bytes", 0.0, kHuge);
    c.maxBytes = r.number("max_bytes", c.minBytes, kHuge);
    c.points = r.positiveInt("points");
    c.applied = r.boolean("applied");
    c.model.latencySeconds = r.number("model_latency_us", 0.0, kHuge) * 1e-6;
    c.model.bytesPerSecond = r.number("model_bandwidth_gbps", 0.0, kHuge) * 1e9;
    c.fitted.latencySeconds = r.number("fitted_latency_us", 0.0, kHuge) * 1e-6;
    c.fitted.bytesPerSecond = r.number("fitted_bandwidth_gbps", 0.0, kHuge) * 1e9;
    c.latencyScale = r.number("latency_scale", 0.0, kHuge);
    c.bandwidthScale = r.number("bandwidth_scale", 0.0, kHuge);
    r.finish();
    return c;
}

ResidualRow readResidual(JsonObjectReader r)
{
    ResidualRow row;
    row.bytes = r.number("bytes", 1.0, kHuge);
    row.measuredSeconds = r.number("measured_us", 1e-6, kHuge) * 1e-6;
    row.beforeSeconds = r.number("before_us", 0.0, kHuge) * 1e-6;
    row.afterSeconds = r.number("after_us", 0.0, kHuge) * 1e-6;
    row.algorithm = r.string("algorithm");
    row.protocol = r.string("protocol");
    r.finish();
    return row;
}

SweepCalibration readCalibration(const json& root)
{
    if (!root.is_object())
        throw JsonFieldError("", "expected a JSON object");
    JsonObjectReader r(root, "");
    const std::string format = r.string("format");
    if (format != "clusterscope-calibration")
        throw JsonFieldError("/format", "expected \"clusterscope-calibration\", got \"" + format + "\"");
    const long long version = r.integer("version", 1);
    if (version != 1)
        throw JsonFieldError("/version", "this ClusterScope reads calibration version 1, the file has version " + std::to_string(version));
    SweepCalibration c;
    c.sweep = readSweep(*r.object("sweep", true));
    for (const char* key : { "regimes", "residuals" }) {
        const json& items = array(r, key);
        for (std::size_t i = 0; i < items.size(); ++i) {
            const std::string pointer = r.pointerOf(key) + "/" + std::to_string(i);
            if (!items[i].is_object())
                throw JsonFieldError(pointer, "expected an object");
            if (std::string(key) == "regimes")
                c.regimes.push_back(readRegime(JsonObjectReader(items[i], pointer)));
            else
                c.rows.push_back(readResidual(JsonObjectReader(items[i], pointer)));
        }
    }
    c.rmsBefore = r.number("rms_before", 0.0, kHuge);
    c.rmsAfter = r.number("rms_after", 0.0, kHuge);
    r.finish();
    return c;
}

} // namespace

std::string calibrationToJson(const SweepCalibration& c)
{
    json measured = json::array();
    for (const auto& p : c.sweep.points)
        measured.push_back({ { "bytes", p.bytes }, { "time_us", p.seconds * 1e6 } });
    json sweep = { { "op", c.sweep.op }, { "ranks", c.sweep.ranks }, { "ranks_per_node", c.sweep.ranksPerNode },
        { "nodes", c.sweep.nodes }, { "gpu", c.sweep.gpuName }, { "busbw_factor", c.sweep.busbwFactor },
        { "sources", c.sweep.sources }, { "measured", measured } };
    json regimes = json::array();
    for (const auto& r : c.regimes) {
        regimes.push_back({ { "algorithm", r.algorithm }, { "protocol", r.protocol }, { "min_bytes", r.minBytes },
            { "max_bytes", r.maxBytes }, { "points", r.points }, { "applied", r.applied },
            { "model_latency_us", r.model.latencySeconds * 1e6 }, { "model_bandwidth_gbps", r.model.bytesPerSecond / 1e9 },
            { "fitted_latency_us", r.fitted.latencySeconds * 1e6 }, { "fitted_bandwidth_gbps", r.fitted.bytesPerSecond / 1e9 },
            { "latency_scale", r.latencyScale }, { "bandwidth_scale", r.bandwidthScale } });
    }
    json residuals = json::array();
    for (const auto& row : c.rows) {
        residuals.push_back({ { "bytes", row.bytes }, { "measured_us", row.measuredSeconds * 1e6 },
            { "before_us", row.beforeSeconds * 1e6 }, { "after_us", row.afterSeconds * 1e6 },
            { "algorithm", row.algorithm }, { "protocol", row.protocol } });
    }
    const json doc = { { "format", "clusterscope-calibration" }, { "version", 1 }, { "sweep", sweep },
        { "regimes", regimes }, { "residuals", residuals }, { "rms_before", c.rmsBefore }, { "rms_after", c.rmsAfter } };
    return doc.dump(2) + "\n";
}

Result<SweepCalibration> calibrationFromJson(std::string_view text, const std::string& origin)
{
    json root;
    try {
        root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        return Status::error(origin + ": byte " + std::to_string(e.byte) + ": not valid JSON");
    }
    try {
        return readCalibration(root);
    } catch (const JsonFieldError& e) {
        return Status::error(origin + ": " + (e.pointer.empty() ? "/" : e.pointer) + ": " + e.what());
    }
}

} // namespace clusterscope::engine
