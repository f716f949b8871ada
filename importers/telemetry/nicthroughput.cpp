#include "importers/telemetry/nicthroughput.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace clusterscope::importers {

using engine::Result;
using engine::Status;

std::string traceFileHost(const std::string& path)
{
    std::string name = path.substr(path.find_last_of("/\\") == std::string::npos ? 0 : path.find_last_of("/\\") + 1);
    auto dropSuffix = [&name](const std::string& suffix) {
        if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            name.resize(name.size() - suffix.size());
            return true;
        }
        return false;
    };
    dropSuffix(".gz");
    if (!dropSuffix(".pt.trace.json"))
        return {};
    auto allDigits = [](const std::string& s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    // ".{time_ms}", then "_{pid}": what is left is the host name (which may itself hold dots).
    const auto dot = name.rfind('.');
    if (dot == std::string::npos || !allDigits(name.substr(dot + 1)))
        return {};
    name.resize(dot);
    const auto underscore = name.rfind('_');
    if (underscore == std::string::npos || underscore == 0 || !allDigits(name.substr(underscore + 1)))
        return {};
    return name.substr(0, underscore);
}

bool sameHost(const std::string& a, const std::string& b)
{
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return s;
    };
    const std::string x = lower(a), y = lower(b);
    if (x.empty() || y.empty())
        return false;
    auto shortOf = [](const std::string& s) { return s.substr(0, s.find('.')); };
    if (x == y)
        return true;
    if (x.find('.') == std::string::npos)
        return x == shortOf(y);
    return y.find('.') == std::string::npos && y == shortOf(x);
}

Result<std::pair<double, double>> runWallClockWindowS(const engine::Run& run)
{
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    for (const auto& r : run.ranks) {
        for (const auto& a : r.activities) {
            first = std::min(first, a.startNs);
            last = std::max(last, a.endNs);
        }
        for (const auto& s : r.steps) {
            first = std::min(first, s.startNs);
            last = std::max(last, s.endNs);
        }
    }
    if (first > last)
        return Status::error("the run has no GPU events or steps: no time window to read telemetry for");
    // 2001-09-09 (1e9 s) to 2100-01-01: wall-clock times; anything else is a clock relative to the trace.
    constexpr double kEarliestS = 1e9, kLatestS = 4102444800.0;
    const double startS = double(first) / 1e9, endS = double(last) / 1e9;
    if (startS < kEarliestS || endS > kLatestS)
        return Status::error("the run's times are relative to the trace (its first event is at "
            + std::to_string(startS) + " s), not wall-clock: telemetry cannot be laid on its timeline");
    return std::make_pair(startS, endS);
}

Result<NicThroughput> fetchNicThroughput(
    const PromClient& client, const std::vector<SourceProfile>& profiles, double startS, double endS, double stepS)
{
    if (!(stepS > 0) || !(endS >= startS))
        return Status::error("NIC throughput: the window or the step is invalid");
    NicThroughput out;
    out.startS = std::floor(startS / stepS) * stepS;
    out.stepS = stepS;
    const std::size_t points = std::size_t(std::llround(std::ceil((endS - out.startS) / stepS))) + 1;
    auto names = client.labelValues("__name__");
    if (!names)
        return names.status();
    const std::set<std::string> present(names->begin(), names->end());
    // irate over a few steps: the last two samples before each point (1-s scrapes at a 1-s step give
    // every interval once; a coarser step shows the newest interval before each point).
    const std::string range = "[" + std::to_string(std::max<long long>(3, std::llround(std::ceil(3 * stepS)))) + "s]";
    std::map<std::string, std::vector<double>> byHost;
    for (const auto& p : profiles) {
        if (p.end != ProfileEnd::Nic || p.hostLabels.empty())
            continue;
        for (const auto& s : p.series) {
            if (s.measures != engine::TelemetryMetric::TxBytes || !present.count(s.metric))
                continue;
            std::string by;
            for (const auto& l : p.hostLabels)
                by += (by.empty() ? "" : ", ") + l;
            std::string expr = "sum by (" + by + ") (irate(" + s.metric + range + "))";
            if (s.scale != 1.0)
                expr = "(" + expr + ") * " + std::to_string(s.scale);
            auto res = client.queryRange(expr, out.startS, out.startS + double(points - 1) * stepS, stepS);
            if (!res)
                return res.status();
            out.metric += (out.metric.empty() ? "" : ", ") + s.metric;
            for (const auto& series : res->series) {
                std::string host;
                for (const auto& l : p.hostLabels)
                    if (host = labelValue(series.labels, l); !host.empty()) {
                        if (l == "instance")
                            host = host.substr(0, host.rfind(':') == std::string::npos ? host.size() : host.rfind(':'));
                        break;
                    }
                auto& v = byHost.try_emplace(host, points, std::numeric_limits<double>::quiet_NaN()).first->second;
                for (std::size_t i = 0; i < series.timesS.size(); ++i) {
                    const double k = std::round((series.timesS[i] - out.startS) / stepS);
                    if (k < 0 || k >= double(points) || !std::isfinite(series.values[i]))
                        continue;
                    double& slot = v[std::size_t(k)];
                    slot = std::isnan(slot) ? series.values[i] : slot + series.values[i];
                }
            }
        }
    }
    if (out.metric.empty())
        return Status::error(client.options().url
            + ": none of the NIC byte counters of the source profiles (e.g. "
              "node_infiniband_port_data_transmitted_bytes_total) is on this server");
    for (auto& [host, v] : byHost)
        out.hosts.push_back({ host, std::move(v) });
    return out;
}

} // namespace clusterscope::importers
