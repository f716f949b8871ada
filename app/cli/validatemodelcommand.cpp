#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/core/atomicfile.h"
#include "engine/training/modelvalidation.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>

namespace clusterscope::app {

namespace {

    std::string format(const char* pattern, double a, double b = 0, double c = 0)
    {
        char buffer[128];
        std::snprintf(buffer, sizeof buffer, pattern, a, b, c);
        return buffer;
    }

    // The file --scenarios DIR writes for row `index` (0-based) of table `t`: "<table id>-<row, from 01>.json".
    std::string scenarioFileName(const engine::ValidationTable& t, std::size_t index)
    {
        char number[16];
        std::snprintf(number, sizeof number, "%02zu", index + 1);
        return t.id + "-" + number + ".json";
    }

    nlohmann::json tableJson(const engine::ValidationTable& t, bool scenariosWritten)
    {
        nlohmann::json rows = nlohmann::json::array();
        for (std::size_t i = 0; i < t.rows.size(); ++i) {
            const engine::ValidationRow& r = t.rows[i];
            nlohmann::json row = { { "label", r.label }, { "metric", r.metric }, { "measured", r.measured },
                { "predicted", r.evaluated ? nlohmann::json(r.predicted) : nlohmann::json(nullptr) },
                { "error", r.evaluated ? nlohmann::json(r.error) : nlohmann::json(nullptr) },
                { "evaluated", r.evaluated }, { "fits_memory", r.fitsMemory }, { "detail", r.detail } };
            if (scenariosWritten && !r.scenarioJson.empty())
                row["scenario_file"] = scenarioFileName(t, i);
            rows.push_back(std::move(row));
        }
        return { { "id", t.id }, { "title", t.title }, { "file", t.file }, { "kind", t.kind }, { "rows", rows },
            { "evaluated", static_cast<int>(t.rows.size()) - t.refused }, { "refused", t.refused }, { "mape", t.mape },
            { "bias", t.bias }, { "max_error", t.maxError }, { "mape_limit", t.mapeLimit },
            { "bias_limit", t.biasLimit }, { "within_limits", t.withinLimits() } };
    }

} // namespace

int runValidateModelCommand(const std::vector<std::string>& args, CliIo io)
{
    using namespace engine;
    auto cl = CommandLine::parse(args, { "json" }, { "catalog", "tables", "scenarios" });
    if (!cl)
        return cliUsageError(io, "validate-model", cl.message());
    if (!cl->positionals().empty())
        return cliUsageError(io, "validate-model", "takes no positional arguments (see --help)");
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    Result<std::vector<ValidationTable>> tables = Status::error("unset");
    if (auto dir = cl->value("tables")) {
        auto manifest = readWholeFile(*dir + "/tables.json");
        if (!manifest) {
            io.err << manifest.message() << "\n";
            return 1;
        }
        const std::string folder = *dir;
        tables = runModelValidation(
            *manifest, [&folder](const std::string& file) { return readWholeFile(folder + "/" + file); }, *catalog);
    } else {
        tables = runBuiltinModelValidation(*catalog);
    }
    if (!tables) {
        io.err << tables.message() << "\n";
        return 1;
    }
    bool allWithin = true;
    for (const ValidationTable& t : *tables)
        allWithin = allWithin && t.withinLimits();
    // --scenarios DIR: each evaluated row's scenario as the model ran it, for `evaluate` to break down.
    const std::optional<std::string> scenarioDir = cl->value("scenarios");
    int scenariosWritten = 0;
    if (scenarioDir) {
        std::error_code made;
        std::filesystem::create_directories(*scenarioDir, made);
        if (made) {
            io.err << "validate-model --scenarios: cannot create " << *scenarioDir << ": " << made.message() << "\n";
            return 1;
        }
        for (const ValidationTable& t : *tables)
            for (std::size_t i = 0; i < t.rows.size(); ++i) {
                if (t.rows[i].scenarioJson.empty())
                    continue;
                const std::string path = *scenarioDir + "/" + scenarioFileName(t, i);
                if (Status written = writeFileAtomically(path, t.rows[i].scenarioJson + "\n"); !written) {
                    io.err << "validate-model --scenarios: " << written.message() << "\n";
                    return 1;
                }
                ++scenariosWritten;
            }
    }
    if (cl->flag("json")) {
        nlohmann::json j;
        j["calibrated"] = false;
        j["within_limits"] = allWithin;
        j["tables"] = nlohmann::json::array();
        for (const ValidationTable& t : *tables)
            j["tables"].push_back(tableJson(t, scenarioDir.has_value()));
        j["by_kind_and_architecture"] = nlohmann::json::array();
        for (const ValidationGroup& g : groupByKindAndArchitecture(*tables, *catalog))
            j["by_kind_and_architecture"].push_back({ { "kind", g.kind }, { "architecture", g.architecture },
                { "rows", g.rows }, { "mape", g.mape }, { "bias", g.bias }, { "max_error", g.maxError } });
        io.out << j.dump(2) << "\n";
        return 0;
    }
    io.out << "Training model against public measurements (uncalibrated; error = predicted / measured - 1)\n";
    for (const ValidationTable& t : *tables) {
        io.out << "\n" << t.title << "  [" << t.id << ", " << t.file << "]\n";
        for (const ValidationRow& r : t.rows) {
            char line[256];
            if (r.evaluated)
                std::snprintf(line, sizeof line, "  %-26s measured %10.4g  predicted %10.4g  error %+6.1f%%  ",
                    r.label.c_str(), r.measured, r.predicted, 100.0 * r.error);
            else
                std::snprintf(line, sizeof line, "  %-26s measured %10.4g  REFUSED  ", r.label.c_str(), r.measured);
            io.out << line << r.detail << "\n";
        }
        io.out << "  " << t.rows.size() - t.refused << " rows (metric " << (t.rows.empty() ? "" : t.rows.front().metric)
               << ")" << (t.refused ? ", " + std::to_string(t.refused) + " refused" : std::string()) << ": MAPE "
               << format("%.1f%%", 100 * t.mape) << " (limit " << format("%g%%", 100 * t.mapeLimit) << "), bias "
               << format("%+.1f%%", 100 * t.bias) << " (limit +-" << format("%g%%", 100 * t.biasLimit) << "), max "
               << format("%.1f%%", 100 * t.maxError)
               << (t.withinLimits() ? "  -> within limits\n" : "  -> OUTSIDE limits\n");
    }
    // What to expect for a model of a kind on a GPU generation: every training row above, grouped.
    io.out << "\nBy model kind and GPU architecture (every evaluated training row above; errors as throughput, "
              "> 0 = predicted too fast)\n";
    for (const ValidationGroup& g : groupByKindAndArchitecture(*tables, *catalog)) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-6s %-10s %5d rows  MAPE %5.1f%%  bias %+6.1f%%  max %5.1f%%\n",
            g.kind.c_str(), g.architecture.c_str(), g.rows, 100 * g.mape, 100 * g.bias, 100 * g.maxError);
        io.out << line;
    }
    io.out << "\n" << (allWithin ? "every table is within its limits\n" : "some tables are outside their limits\n");
    if (scenarioDir)
        io.out << scenariosWritten << " row scenarios written to " << *scenarioDir
               << " (<table id>-<row>.json; clusterscope-cli evaluate FILE --no-fabric breaks one down)\n";
    return 0;
}

} // namespace clusterscope::app
