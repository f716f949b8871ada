#pragma once

// Writes a built report to files: PDF (Qt's PDF writer: selectable text, embedded font subsets,
// page header and "Page N of M" footer, table headers repeated when a table breaks across pages),
// self-contained HTML, and the bill of materials as CSV (engine::bomCsv). Each file is written
// through QSaveFile: complete or not at all.

#include "app/report/reportdocument.h"
#include "engine/core/status.h"

namespace clusterscope::app {

/// A4 portrait PDF. Returns the page count, or an error naming `path`.
engine::Result<int> writePdf(const ReportDocument& doc, const QString& path);
engine::Status writeHtml(const ReportDocument& doc, const QString& path);
/// The subject scenario's BOM (engine::bomCsv columns).
engine::Status writeBomCsv(const ReportDocument& doc, const QString& path);

} // namespace clusterscope::app
