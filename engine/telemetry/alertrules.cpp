#include "engine/telemetry/alertrules.h"

namespace clusterscope::engine {

const char* toString(AlertKind kind)
{
    switch (kind) {
    case AlertKind::PeakUtilisation:
        return "peak_utilisation";
    case AlertKind::Burst:
        return "burst";
    case AlertKind::AverageUtilisation:
        return "average_utilisation";
    case AlertKind::LinkErrors:
        return "link_errors";
    case AlertKind::Discards:
        return "discards";
    case AlertKind::LinkDown:
        return "link_down";
    case AlertKind::Imbalance:
        return "imbalance";
    case AlertKind::PeerOutlier:
        return "peer_outlier";
    case AlertKind::CounterReset:
        return "counter_reset";
    case AlertKind::TelemetryGap:
        return "telemetry_gap";
    case AlertKind::PfcStorm:
        return "pfc_storm";
    }
    return "unknown";
}

const char* toString(AlertSeverity severity)
{
    switch (severity) {
    case AlertSeverity::Info:
        return "info";
    case AlertSeverity::Warning:
        return "warning";
    case AlertSeverity::Critical:
        return "critical";
    }
    return "unknown";
}

AlertRules AlertRules::defaults()
{
    AlertRules r;
    // Utilisation guideline: average 60-80 %, peaks under 95 % (see telemetryanalysis.h).
    r.rules.push_back({ "LinkPeakUtilisation", AlertKind::PeakUtilisation, 0.95, 2.0, AlertSeverity::Warning });
    r.rules.push_back({ "LinkBurst", AlertKind::Burst, 0.95, 0.0, AlertSeverity::Info });
    r.rules.push_back({ "LinkAverageUtilisation", AlertKind::AverageUtilisation, 0.80, 0.0, AlertSeverity::Warning });
    // Any error: at 0.01 % loss RDMA go-back-N retransmission already costs ~10 % of throughput
    // (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, fig. 6).
    r.rules.push_back({ "LinkErrors", AlertKind::LinkErrors, 0.0, 0.0, AlertSeverity::Warning });
    r.rules.push_back({ "LinkDiscards", AlertKind::Discards, 0.0, 0.0, AlertSeverity::Warning });
    r.rules.push_back({ "LinkDown", AlertKind::LinkDown, 0.0, 0.0, AlertSeverity::Critical });
    r.rules.push_back({ "UplinkImbalance", AlertKind::Imbalance, 1.5, 0.0, AlertSeverity::Warning });
    r.rules.push_back({ "PeerOutlier", AlertKind::PeerOutlier, 6.0, 0.0, AlertSeverity::Info });
    r.rules.push_back({ "CounterReset", AlertKind::CounterReset, 0.0, 0.0, AlertSeverity::Info });
    r.rules.push_back({ "TelemetryGap", AlertKind::TelemetryGap, 0.0, 0.0, AlertSeverity::Warning });
    // Pausing that persists: a sender paused half of every second for 5 s is a PFC storm (a NIC or
    // switch port stuck sending pauses spreads head-of-line blocking upstream; Guo et al., SIGCOMM
    // 2016, section 4.3, stop it with a watchdog).
    r.rules.push_back({ "PfcStorm", AlertKind::PfcStorm, 0.5, 5.0, AlertSeverity::Critical });
    return r;
}

const AlertRule* AlertRules::find(AlertKind kind) const
{
    for (const auto& r : rules)
        if (r.kind == kind)
            return &r;
    return nullptr;
}

} // namespace clusterscope::engine
