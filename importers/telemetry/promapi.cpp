// Decoding of the Prometheus HTTP API answers (https://prometheus.io/docs/prometheus/latest/querying/api/):
// the envelope {"status":"success"|"error","data":...,"errorType":...,"error":...,"warnings":[...]},
// float samples as strings ("NaN", "+Inf", "-Inf"), and the result types matrix/vector/scalar/string.

#include "importers/telemetry/promclient.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace clusterscope::importers {

using engine::Result;
using engine::Status;
namespace dom = simdjson::dom;

bool decodePromFloat(std::string_view s, double& out)
{
    if (s == "NaN") {
        out = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    if (s == "+Inf" || s == "Inf") {
        out = std::numeric_limits<double>::infinity();
        return true;
    }
    if (s == "-Inf") {
        out = -std::numeric_limits<double>::infinity();
        return true;
    }
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

namespace {

    std::string jsonError(simdjson::error_code e) { return simdjson::error_message(e); }

    // Parses the body and checks the envelope; `data` is left pointing at the "data" member.
    Status openEnvelope(dom::parser& parser, const std::string& body, const std::string& what, dom::element& data,
        std::vector<std::string>* warnings)
    {
        dom::element doc;
        if (auto e = parser.parse(body).get(doc))
            return Status::error(what + ": malformed JSON answer (" + jsonError(e) + "): " + body.substr(0, 120));
        dom::object root;
        if (doc.get(root))
            return Status::error(what + ": the answer is not a JSON object");
        std::string_view status;
        if (root["status"].get(status))
            return Status::error(what + ": the answer has no \"status\"");
        if (status == "error") {
            std::string_view type;
            std::string_view message;
            if (root["errorType"].get(type))
                type = "unknown";
            if (root["error"].get(message))
                message = "(no message)";
            return Status::error(what + ": " + std::string(type) + ": " + std::string(message));
        }
        if (status != "success")
            return Status::error(what + ": unexpected status \"" + std::string(status) + "\"");
        if (warnings) {
            dom::array w;
            if (!root["warnings"].get(w))
                for (dom::element x : w) {
                    std::string_view text;
                    if (!x.get(text))
                        warnings->emplace_back(text);
                }
        }
        if (root["data"].get(data))
            return Status::error(what + ": a successful answer without \"data\"");
        return Status::success();
    }

    /// The envelope's "data" as an array (series, labels, label values); `items` lives in `parser`.
    Status openDataArray(dom::parser& parser, const std::string& body, const std::string& what, dom::array& items)
    {
        dom::element data;
        if (Status s = openEnvelope(parser, body, what, data, nullptr); !s)
            return s;
        if (data.get(items))
            return Status::error(what + ": \"data\" is not an array");
        return Status::success();
    }

    Status decodeLabels(dom::element metric, PromLabels& out, const std::string& what)
    {
        dom::object obj;
        if (metric.get(obj))
            return Status::error(what + ": \"metric\" is not an object");
        for (auto field : obj) {
            std::string_view v;
            if (field.value.get(v))
                return Status::error(what + ": label \"" + std::string(field.key) + "\" is not a string");
            out.emplace_back(std::string(field.key), std::string(v));
        }
        std::sort(out.begin(), out.end());
        return Status::success();
    }

    Status decodePoint(dom::element point, double& t, double& v, const std::string& what)
    {
        dom::array pair;
        if (point.get(pair) || pair.size() != 2)
            return Status::error(what + ": a sample is not a [time, \"value\"] pair");
        auto it = pair.begin();
        dom::element te = *it;
        ++it;
        dom::element ve = *it;
        if (te.get(t)) {
            std::int64_t ti = 0;
            if (te.get(ti))
                return Status::error(what + ": a sample time is not a number");
            t = static_cast<double>(ti);
        }
        std::string_view vs;
        if (ve.get(vs) || !decodePromFloat(vs, v))
            return Status::error(what + ": a sample value is not a Prometheus float string");
        return Status::success();
    }

} // namespace

Result<PromQueryResult> decodeQueryResponse(const std::string& body, const std::string& what)
{
    dom::parser parser;
    dom::element data;
    PromQueryResult out;
    if (Status s = openEnvelope(parser, body, what, data, &out.warnings); !s)
        return s;
    std::string_view type;
    if (data["resultType"].get(type))
        return Status::error(what + ": \"data\" has no \"resultType\"");
    out.resultType = std::string(type);
    dom::element result;
    if (data["result"].get(result))
        return Status::error(what + ": \"data\" has no \"result\"");
    if (type == "scalar" || type == "string") {
        PromSeries s;
        double t = 0;
        double v = 0;
        if (type == "scalar") {
            if (Status st = decodePoint(result, t, v, what); !st)
                return st;
        } else
            v = std::numeric_limits<double>::quiet_NaN();
        s.timesS.push_back(t);
        s.values.push_back(v);
        out.series.push_back(std::move(s));
        return out;
    }
    if (type != "matrix" && type != "vector")
        return Status::error(what + ": unknown resultType \"" + std::string(type) + "\"");
    dom::array items;
    if (result.get(items))
        return Status::error(what + ": \"result\" is not an array");
    out.series.reserve(items.size());
    for (dom::element item : items) {
        PromSeries s;
        dom::element metric;
        if (!item["metric"].get(metric))
            if (Status st = decodeLabels(metric, s.labels, what); !st)
                return st;
        if (type == "vector") {
            dom::element value;
            if (item["value"].get(value)) {
                // Native histograms come as "histogram"; this client reads float samples only.
                continue;
            }
            double t = 0;
            double v = 0;
            if (Status st = decodePoint(value, t, v, what); !st)
                return st;
            s.timesS.push_back(t);
            s.values.push_back(v);
        } else {
            dom::array values;
            if (item["values"].get(values))
                continue;
            s.timesS.reserve(values.size());
            s.values.reserve(values.size());
            for (dom::element p : values) {
                double t = 0;
                double v = 0;
                if (Status st = decodePoint(p, t, v, what); !st)
                    return st;
                s.timesS.push_back(t);
                s.values.push_back(v);
            }
        }
        out.series.push_back(std::move(s));
    }
    return out;
}

Result<std::string> PromClient::api(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& params) const
{
    return checkApi(path, get(path, params));
}

Result<std::string> PromClient::checkApi(const std::string& path, Result<HttpResponse> res) const
{
    if (!res)
        return res.status();
    if (res->status == 200)
        return std::move(res->body);
    const std::string what = m_options.url + " " + path + ": HTTP " + std::to_string(res->status);
    if (res->status == 401 || res->status == 403)
        return Status::error(what + ": not authorised (check the bearer token or user and password)");
    // Prometheus answers 400 bad_data, 422 execution, 503 timeout/unavailable with a JSON envelope.
    dom::parser parser;
    dom::element data;
    if (Status s = openEnvelope(parser, res->body, what, data, nullptr); !s) {
        if (s.message().find("malformed JSON") != std::string::npos)
            return Status::error(what + ": " + res->body.substr(0, 200));
        return s;
    }
    return Status::error(what + ": an error status with a successful body");
}

namespace {
    std::string num(double v)
    {
        char buf[64];
        auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
        (void)ec;
        return std::string(buf, ptr);
    }
} // namespace

Result<PromQueryResult> PromClient::query(const std::string& expr, std::optional<double> timeS) const
{
    std::vector<std::pair<std::string, std::string>> params { { "query", expr } };
    if (timeS)
        params.emplace_back("time", num(*timeS));
    auto body = api("/api/v1/query", params);
    if (!body)
        return body.status();
    return decodeQueryResponse(*body, m_options.url + " /api/v1/query " + expr);
}

std::vector<Result<PromQueryResult>> PromClient::queryMany(const std::vector<std::string>& exprs, double timeS,
    int maxParallel, const std::function<void(std::size_t)>& each) const
{
    std::vector<PromRequest> requests;
    requests.reserve(exprs.size());
    for (const auto& e : exprs)
        requests.push_back({ "/api/v1/query", { { "query", e }, { "time", num(timeS) } } });
    std::vector<Result<PromQueryResult>> out(exprs.size(), Status::error("not run"));
    // Each answer is decoded as it arrives, while the server still works on the others.
    getMany(
        requests,
        [&](std::size_t i, Result<HttpResponse> res) {
            auto body = checkApi("/api/v1/query", std::move(res));
            out[i] = body ? decodeQueryResponse(*body, m_options.url + " /api/v1/query " + exprs[i])
                          : Result<PromQueryResult>(body.status());
            if (each)
                each(i);
        },
        maxParallel);
    return out;
}

Result<PromQueryResult> PromClient::queryRange(const std::string& expr, double startS, double endS, double stepS) const
{
    if (!(stepS > 0))
        return Status::error("query_range " + expr + ": the step must be positive");
    if ((endS - startS) / stepS > 11000)
        return Status::error("query_range " + expr + ": " + num((endS - startS) / stepS)
            + " points per series exceed Prometheus' 11,000; use a larger step or a shorter window");
    auto body = api("/api/v1/query_range",
        { { "query", expr }, { "start", num(startS) }, { "end", num(endS) }, { "step", num(stepS) } });
    if (!body)
        return body.status();
    return decodeQueryResponse(*body, m_options.url + " /api/v1/query_range " + expr);
}

Result<std::vector<PromLabels>> PromClient::series(
    const std::vector<std::string>& matchers, double startS, double endS) const
{
    std::vector<std::pair<std::string, std::string>> params;
    for (const auto& m : matchers)
        params.emplace_back("match[]", m);
    if (startS > 0)
        params.emplace_back("start", num(startS));
    if (endS > 0)
        params.emplace_back("end", num(endS));
    const std::string what = m_options.url + " /api/v1/series";
    auto body = api("/api/v1/series", params);
    if (!body)
        return body.status();
    dom::parser parser;
    dom::array items;
    if (Status s = openDataArray(parser, *body, what, items); !s)
        return s;
    std::vector<PromLabels> out;
    for (dom::element item : items) {
        PromLabels l;
        if (Status s = decodeLabels(item, l, what); !s)
            return s;
        out.push_back(std::move(l));
    }
    return out;
}

namespace {
    Result<std::vector<std::string>> decodeStringArray(const std::string& body, const std::string& what)
    {
        dom::parser parser;
        dom::array items;
        if (Status s = openDataArray(parser, body, what, items); !s)
            return s;
        std::vector<std::string> out;
        for (dom::element item : items) {
            std::string_view v;
            if (item.get(v))
                return Status::error(what + ": an entry of \"data\" is not a string");
            out.emplace_back(v);
        }
        return out;
    }
} // namespace

Result<std::vector<std::string>> PromClient::labels() const
{
    auto body = api("/api/v1/labels", {});
    if (!body)
        return body.status();
    return decodeStringArray(*body, m_options.url + " /api/v1/labels");
}

Result<std::vector<std::string>> PromClient::labelValues(const std::string& name) const
{
    const std::string path = "/api/v1/label/" + name + "/values";
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return Status::error(path + ": invalid label name");
    auto body = api(path, {});
    if (!body)
        return body.status();
    return decodeStringArray(*body, m_options.url + " " + path);
}

Result<std::map<std::string, PromMetadata>> PromClient::metadata(const std::string& metric) const
{
    std::vector<std::pair<std::string, std::string>> params;
    if (!metric.empty())
        params.emplace_back("metric", metric);
    const std::string what = m_options.url + " /api/v1/metadata";
    auto body = api("/api/v1/metadata", params);
    if (!body)
        return body.status();
    dom::parser parser;
    dom::element data;
    if (Status s = openEnvelope(parser, *body, what, data, nullptr); !s)
        return s;
    dom::object obj;
    if (data.get(obj))
        return Status::error(what + ": \"data\" is not an object");
    std::map<std::string, PromMetadata> out;
    for (auto field : obj) {
        dom::array entries;
        if (field.value.get(entries) || entries.size() == 0)
            continue;
        dom::element first = *entries.begin();
        PromMetadata m;
        std::string_view v;
        if (!first["type"].get(v))
            m.type = std::string(v);
        if (!first["help"].get(v))
            m.help = std::string(v);
        if (!first["unit"].get(v))
            m.unit = std::string(v);
        out.emplace(std::string(field.key), std::move(m));
    }
    return out;
}

Result<PromBuildInfo> PromClient::buildInfo() const
{
    const std::string what = m_options.url + " /api/v1/status/buildinfo";
    auto body = api("/api/v1/status/buildinfo", {});
    if (!body)
        return body.status();
    dom::parser parser;
    dom::element data;
    if (Status s = openEnvelope(parser, *body, what, data, nullptr); !s)
        return s;
    PromBuildInfo b;
    std::string_view v;
    if (data["version"].get(v))
        return Status::error(what + ": no \"version\"");
    b.version = std::string(v);
    if (!data["revision"].get(v))
        b.revision = std::string(v);
    if (!data["goVersion"].get(v))
        b.goVersion = std::string(v);
    std::from_chars(b.version.data(), b.version.data() + b.version.size(), b.major);
    return b;
}

} // namespace clusterscope::importers
