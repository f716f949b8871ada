#include "engine/telemetry/telemetrydata.h"

#include <algorithm>
#include <numeric>

namespace clusterscope::engine {

namespace {
    constexpr const char* kNames[] = { "tx_bytes", "rx_bytes", "symbol_errors", "link_error_recovery", "link_downed",
        "rcv_errors", "xmit_discards", "rcv_discards", "xmit_wait", "pfc_pause_rx_us", "pfc_pause_tx_us" };
    static_assert(std::size(kNames) == kTelemetryMetricCount);
} // namespace

const char* toString(TelemetryMetric m) { return kNames[static_cast<int>(m)]; }

bool parseTelemetryMetric(const std::string& s, TelemetryMetric& out)
{
    for (int i = 0; i < kTelemetryMetricCount; ++i)
        if (s == kNames[i]) {
            out = static_cast<TelemetryMetric>(i);
            return true;
        }
    return false;
}

bool isErrorMetric(TelemetryMetric m)
{
    switch (m) {
    case TelemetryMetric::SymbolErrors:
    case TelemetryMetric::LinkErrorRecovery:
    case TelemetryMetric::LinkDowned:
    case TelemetryMetric::RcvErrors:
    case TelemetryMetric::XmitDiscards:
    case TelemetryMetric::RcvDiscards:
        return true;
    default:
        return false;
    }
}

void TelemetryData::add(LinkId link, int end, TelemetryMetric metric, RawSeries series)
{
    auto [it, inserted] = m_series.try_emplace(key(link, end, metric), std::move(series));
    if (inserted)
        return;
    // Two series for one link end (e.g. a relabelled duplicate target): merge by time, first wins.
    RawSeries& a = it->second;
    std::vector<std::pair<double, double>> merged;
    merged.reserve(a.timesS.size() + series.timesS.size());
    for (std::size_t i = 0; i < a.timesS.size(); ++i)
        merged.emplace_back(a.timesS[i], a.values[i]);
    for (std::size_t i = 0; i < series.timesS.size(); ++i)
        merged.emplace_back(series.timesS[i], series.values[i]);
    std::stable_sort(merged.begin(), merged.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    merged.erase(
        std::unique(merged.begin(), merged.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
        merged.end());
    a.timesS.clear();
    a.values.clear();
    for (const auto& [t, v] : merged) {
        a.timesS.push_back(t);
        a.values.push_back(v);
    }
}

const RawSeries* TelemetryData::find(LinkId link, int end, TelemetryMetric metric) const
{
    auto it = m_series.find(key(link, end, metric));
    return it == m_series.end() ? nullptr : &it->second;
}

double TelemetryData::sampleIntervalS() const
{
    if (scrapeIntervalS > 0)
        return scrapeIntervalS;
    std::vector<double> gaps;
    for (const auto& [k, s] : m_series) {
        // Byte series set the pace; error counters are often scraped less often.
        const auto m = static_cast<TelemetryMetric>(k & 0x7F);
        if (m != TelemetryMetric::TxBytes && m != TelemetryMetric::RxBytes)
            continue;
        for (std::size_t i = 1; i < s.timesS.size() && i < 64; ++i)
            gaps.push_back(s.timesS[i] - s.timesS[i - 1]);
        if (gaps.size() > 20000)
            break;
    }
    if (gaps.empty())
        return 0.0;
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    return gaps[gaps.size() / 2];
}

} // namespace clusterscope::engine
