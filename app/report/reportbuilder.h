#pragma once

// Assembles a report: analyses every scenario with the engine, draws the pictures and computes the
// sensitivity table. Synchronous; the GUI runs it on a worker (the QImages it draws are safe to
// create off the GUI thread).

#include "app/report/reportdocument.h"
#include "engine/core/status.h"

namespace clusterscope::app {

/// Builds the report of `input`. Fails when there is no scenario, no catalog or price book, the
/// subject's fabric or training estimate cannot be computed (the message names the scenario), or
/// the build is cancelled.
engine::Result<ReportDocument> buildReport(const ReportInput& input);

} // namespace clusterscope::app
