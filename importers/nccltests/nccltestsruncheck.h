#pragma once

// Checks shared by the text and JSON parsers once a log is read: which collective each run
// measures, whether its rows agree with nccl-tests' own formulas, and whether anything usable is left.

#include "engine/core/status.h"
#include "importers/nccltests/nccltestslog.h"
#include "importers/nccltests/nccltestsparser.h"

#include <string>
#include <vector>

namespace clusterscope::importers {

/// Drops runs without rows (with a diagnostic), decides each run's collective (binary name, else
/// column layout, else options.collective), and adds per-row diagnostics where algbw, busbw, size
/// and time disagree with nccl-tests' formulas. Fails when no run has a row: with `firstBadRow`
/// ("FILE:LINE: why") when rows were rejected, else with `firstFailure` (an NCCL error line) or a
/// plain "no result rows" message; or when a collective cannot be determined.
engine::Result<NcclTestsLog> finishNcclTestsLog(NcclTestsLog log, const NcclTestsParseOptions& options,
    const std::string& firstBadRow, const std::string& firstFailure);

/// Collectives whose nccl-tests output could have produced `run`'s rows (size/count ratio, redop,
/// root, busbw/algbw factor), given `ranks` (0: unknown).
std::vector<engine::CollectiveOp> ncclTestsCandidates(const NcclTestsRun& run, int ranks);

/// Ranks implied by busbw/algbw of the largest row for `collective` (0 when it cannot tell: factor 1).
int ranksFromBandwidthFactor(const NcclTestsRun& run, engine::CollectiveOp collective);

} // namespace clusterscope::importers
