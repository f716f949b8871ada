#pragma once

// The command line of clusterscope-report (also run by `clusterscope-cli report`):
//   FILE [--scenario NAME] [--compare NAME...] [--pdf OUT] [--html OUT] [--bom-csv OUT]
//   [--calibration NAME] [--catalog DIR] [--prices FILE] [--no-sensitivity]
// FILE is a scenario JSON file or a project (.csproj). Needs a QGuiApplication (offscreen is fine).

#include <QStringList>

class QTextStream;

namespace clusterscope::app {

/// Runs the tool on `args` (without the program name). Exit code: 0 success, 1 bad input or a file
/// that cannot be written (message on `err` prefixed with `program`).
int runReportTool(const QStringList& args, QTextStream& out, QTextStream& err, const QString& program);

/// The --help text.
QString reportToolUsage(const QString& program);

} // namespace clusterscope::app
