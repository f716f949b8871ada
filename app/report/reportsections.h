#pragma once

// The sections of the report body, shared by every format (internal to the report library).

#include "app/report/htmlbuilder.h"
#include "app/report/reportdocument.h"

#include <vector>

namespace clusterscope::app {

/// Where the markup finds each picture (resource names or data: URIs).
struct ReportImageSources {
    QString breakdown;
    std::vector<QString> fabric; ///< one per scenario
    int widthPx = 680; ///< printed width of a full-width figure (CSS px)
};

void appendTitle(HtmlBuilder& html, const ReportDocument& doc);
void appendSummary(HtmlBuilder& html, const ReportDocument& doc, const ReportImageSources& images);
void appendFabric(HtmlBuilder& html, const ReportScenario& rs, const QString& imageSource, int widthPx);
void appendBom(HtmlBuilder& html, const ReportScenario& rs, const ReportDocument& doc);
/// `chartSource`: the breakdown chart to show (empty: none).
void appendPerformance(HtmlBuilder& html, const ReportScenario& rs, const QString& chartSource, int widthPx);
void appendFindings(HtmlBuilder& html, const ReportScenario& rs);
void appendSensitivity(HtmlBuilder& html, const ReportScenario& rs);
void appendAssumptions(HtmlBuilder& html, const ReportDocument& doc);
/// The measured run: step time and collectives with p50 / p99 / max beside the mean, stragglers by
/// the tail they cause (engine/run/collectivefold.h, latencystats.h: the Runs tab's figures).
void appendRun(HtmlBuilder& html, const ReportRun& run);
/// Collective kinds the run section lists at most (the longest in total time first).
inline constexpr int kReportRunCollectiveRows = 12;
/// Stragglers the run section lists at most.
inline constexpr int kReportRunStragglerRows = 10;

} // namespace clusterscope::app
