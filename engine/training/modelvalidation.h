#pragma once

// The built-in validation report: public tables of measured training throughput (and measured
// GEMMs) run through the training model exactly as published, uncalibrated, with per-row errors
// and per-table MAPE and bias. The tables and their manifest live in resources/validation/.

#include "engine/core/status.h"
#include "engine/training/computeefficiency.h"

#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::engine {

class Catalog;

/// One measured row beside the model's prediction.
struct ValidationRow {
    std::string label; ///< model name and GPU count, e.g. "LLAMA3-70B x64"
    std::string metric; ///< CSV column compared, e.g. "measured_tokens_per_s_per_gpu"
    double measured = 0; ///< in the metric's unit (TFLOP/s, tokens/s per GPU, MFU fraction)
    double predicted = 0; ///< same unit
    double error = 0; ///< predicted / measured - 1
    bool evaluated = false; ///< false: the model refused the row (see detail)
    bool fitsMemory = true; ///< false: no recomputation choice fits the GPU memory (still predicted)
    std::string detail; ///< the strategy used, or why the row was refused
    /// The scenario JSON the prediction evaluated (with the strategy chosen: vpp, recompute);
    /// `clusterscope-cli evaluate` of it gives the same figure. Empty when the row was refused.
    std::string scenarioJson;
    std::string gpu; ///< the catalog GPU of that scenario (training rows)
    bool moe = false; ///< its model has MoE layers (model.moe)
};

/// One table's rows and summary statistics over its evaluated rows.
struct ValidationTable {
    std::string id, title, file, kind; ///< kind: "training" | "gemm"
    double mapeLimit = 0; ///< the MAPE the tests hold this table to (fraction)
    double biasLimit = 0; ///< the |bias| the tests hold this table to (fraction)
    std::vector<ValidationRow> rows;
    int refused = 0; ///< rows the model could not evaluate
    double mape = 0; ///< mean |error| (fraction)
    double bias = 0; ///< mean error (fraction; > 0 means predicted too fast)
    double maxError = 0; ///< largest |error|
    bool withinLimits() const { return refused == 0 && mape <= mapeLimit && std::abs(bias) <= biasLimit; }
};

/// The training rows of every table grouped by what a user sizes with: the model kind ("dense", or "MoE"
/// when the row's scenario has model.moe) and the GPU architecture of the catalog ("hopper",
/// "blackwell", ...). MAPE and bias over the group's evaluated rows, every error as a throughput error
/// (> 0: predicted too fast; a step-time row's error e counts as 1 / (1 + e) - 1).
struct ValidationGroup {
    std::string kind; ///< "dense" | "MoE"
    std::string architecture; ///< toString(GpuArch)
    int rows = 0;
    double mape = 0, bias = 0, maxError = 0; ///< fractions
};
std::vector<ValidationGroup> groupByKindAndArchitecture(
    const std::vector<ValidationTable>& tables, const Catalog& catalog);

/// Reads a file named in the manifest (relative to the manifest's folder).
using ValidationFileReader = std::function<Result<std::string>(const std::string& file)>;

/// Runs every table of `manifestJson` (format "clusterscope-validation", see
/// resources/validation/README.md) with the compute-model defaults `params`. Errors name the file and
/// the place (JSON pointer or CSV line and column).
Result<std::vector<ValidationTable>> runModelValidation(std::string_view manifestJson, const ValidationFileReader& read,
    const Catalog& catalog, const ComputeEfficiencyParams& params = {});

/// The tables compiled into the program (resources/validation/tables.json).
Result<std::vector<ValidationTable>> runBuiltinModelValidation(
    const Catalog& catalog, const ComputeEfficiencyParams& params = {});

} // namespace clusterscope::engine
