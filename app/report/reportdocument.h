#pragma once

// The content of a procurement report: one scenario (the subject) and optionally others it is
// compared with, each analysed by the engine (fabric, BOM, training estimate, link loads) plus a
// sensitivity table; the pictures are plain QImages so a caller may substitute its own (the GUI's
// 3D snapshot of the fabric).

#include "engine/analysis/scenarioanalysis.h"
#include "engine/calibration/sweepcalibration.h"
#include "engine/run/runanalysis.h"
#include "engine/scenario/scenario.h"
#include "engine/training/computecalibration.h"

#include <QDateTime>
#include <QImage>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <stop_token>
#include <vector>

namespace clusterscope::engine {
class Catalog;
class PriceBook;
}

namespace clusterscope::app {

/// One row of the sensitivity table: the subject scenario with one change, analysed again.
struct SensitivityRow {
    QString variant; ///< "Oversubscription 2:1", "RoCE", "1,280 GPUs"
    bool base = false; ///< the scenario as given
    QString error; ///< set when the variant cannot be built or trained
    QString note; ///< how the strategy was chosen for the variant
    QString strategy; ///< the variant's own strategy, e.g. "TP8 PP4 DP32 Z1 mb1" (views::strategyLabel)
    /// s: the variant evaluated with the base row's strategy (only the fabric or transport changes);
    /// 0 when that strategy cannot run on the variant (another GPU count) or the base has none.
    double sameStrategySeconds = 0;
    /// Why the variant with the base row's strategy differs from the base row: parallel groups
    /// placed under other switches, the breakdown components that moved, the contention. Empty when
    /// the times agree.
    QString sameStrategyWhy;
    int gpus = 0;
    double iterationSeconds = 0; ///< s
    double tokensPerSecond = 0; ///< tokens/s of the whole cluster
    double networkCostPerGpuUsd = 0;
    double clusterCostUsd = 0;
    double contentionSlowdown = 0; ///< routed iteration traffic: time / uncontended time (0: not routed)
};

/// A scenario of the report with everything computed for it.
struct ReportScenario {
    engine::Scenario scenario;
    engine::ScenarioAnalysis analysis;
    std::vector<SensitivityRow> sensitivity; ///< subject only (empty for compared scenarios)
    QImage fabricPicture; ///< schematic, or the caller's picture
    double bisectionGbps = 0; ///< Gb/s across the worst-case half split (0: no fabric)
};

/// A measured run of the project (an imported profiler trace set) reported beside the model: its
/// step time and collectives with their tails, and the stragglers ranked by the tail they cause.
struct ReportRun {
    QString name; ///< as the Runs tab names it
    engine::RunAnalysis analysis;
};

/// What a report is made from. The catalog and price book must outlive buildReport().
struct ReportInput {
    std::vector<engine::Scenario> scenarios; ///< [0] the subject; the rest are compared with it
    const engine::Catalog* catalog = nullptr;
    const engine::PriceBook* prices = nullptr;
    QString priceBookName = QStringLiteral("built-in price book");
    QString sourceName; ///< file the scenarios come from (title page)
    /// The project's stored collective calibration, if any (the report states "uncalibrated" otherwise).
    std::optional<engine::CalibrationSet> calibration;
    QString calibrationName;
    /// The project's compute calibration, if any: applied to every scenario fitted on its GPU and
    /// dtype (engine::applyProjectComputeCalibration), as the GUI and evaluate --project apply it.
    std::optional<engine::ProjectComputeCalibration> computeCalibration;
    bool sensitivity = true; ///< compute the sensitivity table (re-runs the analysis)
    /// The project's measured run to report (e.g. the one the Runs tab shows), if any.
    std::optional<ReportRun> run;
    /// Optional picture of a fabric (e.g. the 3D view's snapshot); a null image falls back to the
    /// 2D schematic. Called on the building thread.
    std::function<QImage(const engine::Scenario&, const engine::FabricDesign&)> fabricPicture;
    std::stop_token stop; ///< cancellation: buildReport returns an error
    std::function<void(double fraction)> progress;
};

struct PriceSourceRow {
    QString source;
    QString date;
    QStringList items;
};

/// The assembled report: every number it prints comes from these fields.
struct ReportDocument {
    QString title;
    QDateTime generated;
    QString sourceName;
    QString priceBookName;
    std::vector<ReportScenario> scenarios; ///< [0] the subject
    std::vector<PriceSourceRow> priceSources; ///< distinct (source, date) of the subject's BOM
    std::optional<engine::CalibrationSet> calibration;
    QString calibrationName;
    /// Why the project's compute calibration was not applied to a scenario (another GPU or dtype).
    QStringList computeCalibrationNotes;
    QImage breakdownChart; ///< iteration breakdown of every scenario, stacked bars
    std::optional<ReportRun> run; ///< the measured run section (none without a run)
};

} // namespace clusterscope::app
