#pragma once

// The report's sensitivity table: the subject scenario re-analysed with one change at a time
// (leaf oversubscription 1:1 / 2:1 / 3:1, InfiniBand vs RoCE, the next GPU count up).

#include "app/report/reportdocument.h"

#include <stop_token>
#include <vector>

namespace clusterscope::app {

/// Rows for `scenario`, whose analysis is `base` (the first row). The next GPU count up is the
/// smallest count above the current one at which the scenario's strategy still runs with only DP
/// grown (global batch unchanged), searched up to twice the DP size; when there is none, or the
/// scenario states no strategy, twice the GPUs with the best strategy the search finds.
std::vector<SensitivityRow> computeSensitivity(const engine::Scenario& scenario, const engine::ScenarioAnalysis& base,
    const engine::Catalog& catalog, const engine::PriceBook& prices, std::stop_token stop = {},
    const engine::CollectiveCalibration* calibration = nullptr);

/// Why `variant` (an analysis of the same strategy as `base` on another fabric or transport) takes
/// another time than `base`: the parallel groups whose placement spans other switches, the two
/// breakdown components that moved most and the contention, e.g. "pipeline neighbours under one
/// leaf instead of through the spines; Exposed PP 26.0 ms instead of 64.1 ms". Empty when the
/// iteration times agree to 0.01%.
QString sameStrategyDifference(const engine::ScenarioAnalysis& base, const engine::ScenarioAnalysis& variant);

/// One row from an analysis (an error when the fabric, BOM or estimate is missing).
SensitivityRow sensitivityRow(
    const QString& variant, const engine::Scenario& scenario, const engine::ScenarioAnalysis& analysis);

} // namespace clusterscope::app
