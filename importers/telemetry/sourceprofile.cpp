#include "importers/telemetry/sourceprofile.h"

#include "importers/common/inputfile.h"
#include "resources/embeddedresources.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace clusterscope::importers {

using engine::Result;
using engine::Status;
using nlohmann::json;

namespace {

    Status need(const json& j, const char* key, json::value_t type, const std::string& where)
    {
        if (!j.contains(key))
            return Status::error(where + "/" + key + ": missing");
        const auto t = j.at(key).type();
        const bool ok = t == type
            || (type == json::value_t::number_float
                && (t == json::value_t::number_integer || t == json::value_t::number_unsigned));
        if (!ok)
            return Status::error(where + "/" + key + ": wrong type (" + j.at(key).type_name() + ")");
        return Status::success();
    }

    std::vector<std::string> stringOrList(const json& j)
    {
        std::vector<std::string> out;
        if (j.is_string()) {
            if (!j.get<std::string>().empty())
                out.push_back(j.get<std::string>());
        } else if (j.is_array())
            for (const auto& x : j)
                if (x.is_string())
                    out.push_back(x.get<std::string>());
        return out;
    }

} // namespace

Result<SourceProfile> parseSourceProfile(std::string_view text, const std::string& name)
{
    json j = json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return Status::error(name + ": not a JSON object");
    if (j.value("format", "") != "clusterscope-telemetry-profile")
        return Status::error(name + ": /format: expected \"clusterscope-telemetry-profile\"");
    if (j.value("version", 0) != 1)
        return Status::error(name + ": /version: only version 1 is known");
    for (const char* k : { "name", "end" })
        if (Status s = need(j, k, json::value_t::string, name + ": "); !s)
            return s;
    if (Status s = need(j, "labels", json::value_t::object, name + ": "); !s)
        return s;
    if (Status s = need(j, "series", json::value_t::array, name + ": "); !s)
        return s;
    SourceProfile p;
    p.name = j["name"];
    p.description = j.value("description", "");
    p.source = j.value("source", "");
    const std::string end = j["end"];
    if (end == "nic")
        p.end = ProfileEnd::Nic;
    else if (end == "switch")
        p.end = ProfileEnd::Switch;
    else if (end == "gpu")
        p.end = ProfileEnd::Gpu;
    else
        return Status::error(name + ": /end: \"" + end + "\" is not nic, switch or gpu");
    const json& l = j["labels"];
    p.hostLabels = stringOrList(l.value("host", json()));
    p.deviceLabel = l.value("device", "");
    p.portLabel = l.value("port", "");
    p.guidLabel = l.value("guid", "");
    p.nameLabels = stringOrList(l.value("name", json()));
    p.gpuLabel = l.value("gpu", "");
    p.portTrailingNumber = l.value("port_trailing_number", false);
    if (p.end == ProfileEnd::Nic && (p.hostLabels.empty() || p.deviceLabel.empty()))
        return Status::error(name + ": /labels: a nic profile needs \"host\" and \"device\"");
    if (p.end == ProfileEnd::Switch && p.guidLabel.empty() && p.nameLabels.empty())
        return Status::error(name + ": /labels: a switch profile needs \"guid\" or \"name\"");
    if (p.end == ProfileEnd::Gpu && (p.hostLabels.empty() || p.gpuLabel.empty()))
        return Status::error(name + ": /labels: a gpu profile needs \"host\" and \"gpu\"");
    if (j.contains("capacity")) {
        p.capacityMetric = j["capacity"].value("metric", "");
        p.capacityScale = j["capacity"].value("scale", 1.0);
    }
    for (std::size_t i = 0; i < j["series"].size(); ++i) {
        const json& s = j["series"][i];
        const std::string where = name + ": /series/" + std::to_string(i);
        for (const char* k : { "metric", "measures", "type" })
            if (Status st = need(s, k, json::value_t::string, where); !st)
                return st;
        ProfileSeries ps;
        ps.metric = s["metric"];
        if (!engine::parseTelemetryMetric(s["measures"], ps.measures))
            return Status::error(where + "/measures: unknown quantity \"" + s["measures"].get<std::string>() + "\"");
        const std::string type = s["type"];
        if (type != "counter" && type != "gauge")
            return Status::error(where + "/type: \"" + type + "\" is not counter or gauge");
        ps.gauge = type == "gauge";
        ps.scale = s.value("scale", 1.0);
        if (!(ps.scale > 0))
            return Status::error(where + "/scale: must be positive");
        ps.unit = s.value("unit", "");
        p.series.push_back(std::move(ps));
    }
    if (j.contains("health") && j["health"].is_array())
        for (const auto& h : j["health"])
            p.health.push_back({ h.value("metric", ""), h.value("unhealthy_below", 1.0), h.value("name_label", "") });
    return p;
}

Result<SourceProfile> loadSourceProfileFile(const std::string& path)
{
    auto text = readInputFile(path);
    if (!text)
        return text.status();
    return parseSourceProfile(*text, path);
}

Result<std::vector<SourceProfile>> builtinSourceProfiles()
{
    std::vector<SourceProfile> out;
    for (const auto& f : resources::embeddedFiles()) {
        if (f.path.rfind("telemetry/", 0) != 0)
            continue;
        auto p = parseSourceProfile(f.contents, std::string(f.path));
        if (!p)
            return p.status();
        out.push_back(std::move(p.value()));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

} // namespace clusterscope::importers
