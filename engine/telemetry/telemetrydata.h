#pragma once

// Measured counters attached to a fabric's links: the neutral form every telemetry source (Prometheus
// API, a saved /metrics snapshot) is turned into before the analyses run. Link ends follow
// FabricLink: end 0 is `a`, end 1 is `b`. A series that is absent is a gap, never a zero.

#include "engine/fabric/fabricgraph.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace clusterscope::engine {

/// What a mapped series measures at one link end. Byte quantities are bytes (IB data counters are
/// converted from 4-octet words by the source profile's scale), error quantities are event counts.
enum class TelemetryMetric : std::uint8_t {
    TxBytes, ///< bytes sent by this end (counter), or B/s (gauge, e.g. DCGM NVLink)
    RxBytes, ///< bytes received by this end
    SymbolErrors, ///< IB SymbolErrorCounter: minor lane errors
    LinkErrorRecovery, ///< IB LinkErrorRecoveryCounter
    LinkDowned, ///< IB LinkDownedCounter: the link failed to recover and went down
    RcvErrors, ///< IB PortRcvErrors / ifInErrors
    XmitDiscards, ///< IB PortXmitDiscards / ifOutDiscards: packets dropped on transmit
    RcvDiscards, ///< ifInDiscards
    XmitWait, ///< IB PortXmitWait ticks: time with data to send but no credits (congestion)
    PfcPauseRxUs, ///< Ethernet PFC pause duration received (microseconds, counter)
    PfcPauseTxUs, ///< Ethernet PFC pause duration sent (microseconds, counter)
    Count
};
inline constexpr int kTelemetryMetricCount = static_cast<int>(TelemetryMetric::Count);

/// "tx_bytes", "rx_bytes", "symbol_errors", ... (the profile JSON spelling).
const char* toString(TelemetryMetric m);
/// Parses the spelling of toString(); false when unknown.
bool parseTelemetryMetric(const std::string& s, TelemetryMetric& out);
/// Error, discard and link-down counters (everything but bytes, xmit wait and PFC pause).
bool isErrorMetric(TelemetryMetric m);

/// Raw samples of one series, in time order. `gauge` series are rates (B/s) already; others are
/// monotonic counters that may reset.
struct RawSeries {
    std::vector<double> timesS;
    std::vector<double> values;
    bool gauge = false;
    std::string source; ///< the series as the source names it ("node_infiniband_...{device=...}")
};

/// A scrape target or collector the source reports unhealthy (Prometheus `up == 0`,
/// node_exporter `node_scrape_collector_success == 0`).
struct TelemetryHealthIssue {
    std::string target; ///< instance / job / collector
    std::string message; ///< one sentence
};

/// Everything measured over one window.
class TelemetryData {
public:
    double startS = 0.0; ///< window start (seconds since the epoch)
    double endS = 0.0; ///< window end
    double scrapeIntervalS = 0.0; ///< expected spacing of samples (0 = estimate from the samples)
    std::vector<TelemetryHealthIssue> health;

    /// Adds a series for one link end; a second series for the same key is merged by time.
    void add(LinkId link, int end, TelemetryMetric metric, RawSeries series);
    const RawSeries* find(LinkId link, int end, TelemetryMetric metric) const;
    std::size_t seriesCount() const { return m_series.size(); }
    /// Calls f(link, end, metric, series) for every series (unordered).
    template <typename F> void forEach(F&& f) const
    {
        for (const auto& [key, s] : m_series)
            f(static_cast<LinkId>(key >> 8), static_cast<int>((key >> 7) & 1), static_cast<TelemetryMetric>(key & 0x7F),
                s);
    }
    /// Median spacing of samples over all series (the scrape interval), or scrapeIntervalS when set.
    double sampleIntervalS() const;

private:
    static std::uint64_t key(LinkId link, int end, TelemetryMetric m)
    {
        return (std::uint64_t(link) << 8) | (std::uint64_t(end & 1) << 7) | std::uint64_t(m);
    }
    std::unordered_map<std::uint64_t, RawSeries> m_series;
};

} // namespace clusterscope::engine
