#pragma once

// A Prometheus rules file generated from the fabric model and the source profiles
// (https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/): per pod, recording
// rules that turn each port's byte counter into utilisation of its link (irate for the 1-s peak,
// rate over 5 m for averages) labelled with pod and tier, and pod aggregates (max, mean, links at or
// above 95 %, per-switch uplink imbalance); then the alerting rules of AlertRules with their
// thresholds and durations. At 25k GPUs the shards evaluate these and the desktop reads only the
// aggregates plus a few hundred drill-down links.

#include "engine/fabric/fabricgraph.h"
#include "engine/telemetry/alertrules.h"
#include "importers/telemetry/fabricmapping.h"
#include "importers/telemetry/sourceprofile.h"

#include <string>
#include <vector>

namespace clusterscope::importers {

struct RulesOptions {
    double evaluationIntervalS = 15.0;
};

/// The YAML text of the rules file. `graph` must carry the labels FabricMapping gave it.
std::string generatePrometheusRules(const engine::FabricGraph& graph, const std::vector<SourceProfile>& profiles,
    const engine::AlertRules& rules, const RulesOptions& options = {});

} // namespace clusterscope::importers
