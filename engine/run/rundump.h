#pragma once

#include "engine/run/runanalysis.h"

#include <string>

namespace clusterscope::engine {

/// Canonical text dump of a run and its analysis for golden-file regression tests: one line per
/// rank, step breakdown, collective and straggler, fixed formatting (times in ns or us with three
/// decimals), file paths reduced to their file names. Stable across platforms.
std::string dumpRunCanonical(const Run& run, const RunAnalysis& analysis);

} // namespace clusterscope::engine
