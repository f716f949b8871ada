#pragma once

// `clusterscope-cli telemetry --live SECONDS --every N [--count K]`: analyses the last SECONDS every N
// seconds until interrupted (SIGINT/SIGTERM) or K rounds, printing per round the alerts that were
// raised and cleared since the previous round (JSON lines with --json).

#include "app/cli/clicommand.h"
#include "engine/telemetry/telemetryanalysis.h"
#include "importers/telemetry/fabricmapping.h"
#include "importers/telemetry/promclient.h"
#include "importers/telemetry/sourceprofile.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace clusterscope::app {

/// One alert as the telemetry command's JSON spells it.
nlohmann::json telemetryAlertJson(const engine::FabricGraph& graph, const engine::Alert& alert);

struct TelemetryFollowOptions {
    double windowS = 60.0; ///< each round analyses [now - windowS, now]
    double everyS = 5.0; ///< seconds between round starts (>= 1)
    int count = 0; ///< rounds; 0 = until interrupted
    bool json = false;
};

/// Runs the rounds. Exit code: 0, or 1 when any round failed (its error is printed and the next
/// round still runs: a monitor outlives a server restart).
int followTelemetry(importers::PromClient& client, const engine::FabricGraph& graph,
    const importers::FabricMapping& mapping, const std::vector<importers::SourceProfile>& profiles,
    const engine::AlertRules& rules, const TelemetryFollowOptions& options, CliIo io);

} // namespace clusterscope::app
