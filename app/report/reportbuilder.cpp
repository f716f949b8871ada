#include "app/report/reportbuilder.h"

#include "app/report/breakdownchart.h"
#include "app/report/fabricschematic.h"
#include "app/report/sensitivity.h"
#include "engine/fabric/bisection.h"

#include <QTimeZone>

#include <map>

namespace clusterscope::app {

using namespace clusterscope::engine;

namespace {

    std::vector<PriceSourceRow> priceSourcesOf(const FabricBom& bom)
    {
        std::vector<PriceSourceRow> rows;
        std::map<std::pair<std::string, std::string>, std::size_t> index;
        for (const BomLine& line : bom.lines) {
            const auto key = std::make_pair(line.priceSource, line.priceDate);
            auto it = index.find(key);
            if (it == index.end()) {
                it = index.emplace(key, rows.size()).first;
                rows.push_back(
                    { QString::fromStdString(line.priceSource), QString::fromStdString(line.priceDate), {} });
            }
            const QString item = QString::fromStdString(line.item);
            if (!rows[it->second].items.contains(item))
                rows[it->second].items << item;
        }
        return rows;
    }

} // namespace

Result<ReportDocument> buildReport(const ReportInput& input)
{
    if (input.scenarios.empty())
        return Status::error("the report has no scenario");
    if (!input.catalog || !input.prices)
        return Status::error("the report needs a catalog and a price book");
    const auto progress = [&input](double f) {
        if (input.progress)
            input.progress(f);
    };
    ReportDocument doc;
    doc.generated = QDateTime::currentDateTimeUtc();
    doc.sourceName = input.sourceName;
    doc.priceBookName = input.priceBookName;
    doc.calibration = input.calibration;
    doc.calibrationName = input.calibrationName;
    doc.run = input.run;

    const double share = 1.0 / double(input.scenarios.size() + (input.sensitivity ? 1 : 0));
    std::vector<BreakdownBar> bars;
    for (std::size_t i = 0; i < input.scenarios.size(); ++i) {
        Scenario scenario = input.scenarios[i];
        std::string notApplied;
        if (input.computeCalibration
            && !engine::applyProjectComputeCalibration(*input.computeCalibration, scenario, &notApplied))
            doc.computeCalibrationNotes << QString::fromStdString(notApplied);
        const QString name = QString::fromStdString(scenario.name);
        AnalysisOptions options;
        options.searchTopK = 3;
        options.calibration = input.calibration ? &input.calibration->calibration : nullptr;
        options.stop = input.stop;
        options.progress = [&](double f) { progress(share * (double(i) + f)); };
        ReportScenario rs;
        rs.scenario = scenario;
        rs.analysis = analyseScenario(scenario, *input.catalog, *input.prices, options);
        if (rs.analysis.cancelled || input.stop.stop_requested())
            return Status::error("the report was cancelled");
        const ScenarioAnalysis& a = rs.analysis;
        if (!a.issues.empty())
            return Status::error("scenario \"" + scenario.name + "\": " + engine::issuesText(a.issues, true));
        if (!a.fabric)
            return Status::error("scenario \"" + scenario.name + "\": the fabric cannot be built: " + a.fabricError);
        if (!a.bom)
            return Status::error("scenario \"" + scenario.name + "\": no bill of materials: " + a.bomError);
        if (!a.estimate)
            return Status::error("scenario \"" + scenario.name + "\": no training estimate: " + a.trainingError);
        rs.bisectionGbps = bisectionGbps(*a.fabric);
        if (input.fabricPicture)
            rs.fabricPicture = input.fabricPicture(scenario, *a.fabric);
        if (rs.fabricPicture.isNull())
            rs.fabricPicture = drawFabricSchematic(*a.fabric, a.load.linkUtilisation);
        bars.push_back({ name, a.estimate->breakdown });
        doc.scenarios.push_back(std::move(rs));
    }
    ReportScenario& subject = doc.scenarios.front();
    if (input.sensitivity) {
        subject.sensitivity = computeSensitivity(subject.scenario, subject.analysis, *input.catalog, *input.prices,
            input.stop, input.calibration ? &input.calibration->calibration : nullptr);
        if (input.stop.stop_requested())
            return Status::error("the report was cancelled");
    }
    doc.priceSources = priceSourcesOf(*subject.analysis.bom);
    doc.breakdownChart = drawBreakdownChart(bars);
    doc.title = QString::fromStdString(subject.scenario.name);
    for (std::size_t i = 1; i < doc.scenarios.size(); ++i)
        doc.title += QStringLiteral(" vs ") + QString::fromStdString(doc.scenarios[i].scenario.name);
    progress(1.0);
    return doc;
}

} // namespace clusterscope::app
