#pragma once

#include "engine/training/trainingestimate.h"

#include <memory>
#include <vector>

namespace clusterscope::engine {
class Catalog;
struct Scenario;
struct ScenarioAnalysis;
}
namespace clusterscope::views {
class BomView;
class BreakdownChart;
class FabricView;
class StrategiesView;
class TrafficHeatmapWidget;
}

namespace clusterscope::app {

/// Shows an analysis's fabric in the 3D view (links coloured by the iteration's modelled
/// utilisation) and its bill of materials in the BOM tab; parts the engine could not produce show
/// the engine's message instead. With `showScene` false only the BOM is shown (Fabric 3D keeps an
/// imported fabric).
/// Clicking a switch, server or link shows its details (rate, lanes, medium, length, utilisation,
/// cable and optics cost from the BOM).
void presentFabric(views::FabricView& view, views::BomView& bomView, const engine::Scenario& scenario,
    std::shared_ptr<const engine::ScenarioAnalysis> analysis, const engine::Catalog& catalog, bool showScene = true);

/// Shows an analysis's training estimate (iteration breakdown of the current strategy beside the
/// search's best) and the ranked strategies; the engine's message when there is none.
/// `rankedWithContention`: the first ranked strategies with fabric contention
/// (AnalysisRunner::rankedWithContention): the chart's bars and the table's "With contention" column.
/// `contendedPending`: they are still being computed (the column shows "…", the chart the current
/// strategy alone) until presentRankedWithContention.
void presentTraining(views::BreakdownChart& chart, views::StrategiesView& strategies, const engine::Scenario& scenario,
    const engine::ScenarioAnalysis& analysis, const std::vector<engine::TrainingEstimate>& rankedWithContention = {},
    bool contendedPending = false);

/// Fills in what presentTraining left pending: the chart's ranked bars and the table's "With
/// contention" column, keeping the table's rows (and the user's selection).
void presentRankedWithContention(views::BreakdownChart& chart, views::StrategiesView& strategies,
    const engine::ScenarioAnalysis& analysis, const std::vector<engine::TrainingEstimate>& rankedWithContention);

/// Shows the iteration's GPU-pair traffic in the heatmap (the engine's message when there is none).
void presentTraffic(
    views::TrafficHeatmapWidget& heatmap, const engine::Scenario& scenario, const engine::ScenarioAnalysis& analysis);

} // namespace clusterscope::app
