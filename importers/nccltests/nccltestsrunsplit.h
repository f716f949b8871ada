#pragma once

// Several runs pasted as one table: an excerpt of a script that ran a benchmark on 1, 2, 4 and 8
// nodes, kept without the runs' headers ("====== 2-node ======" banners and three rows each). Read as
// one run, its rows would be compared (and their busbw recomputed) with one rank count they contradict.

#include "engine/core/status.h"
#include "importers/nccltests/nccltestslog.h"

#include <vector>

namespace clusterscope::importers {

/// Cuts the rows of `run` (its collective decided) where a sweep starts again: a row smaller than the
/// one before it; or a banner line or a repeated size between two rows whose parts' busbw/algbw imply
/// different rank counts (a banner inside one sweep, e.g. an Open MPI warning frame, or a row pasted
/// twice does not cut). One part: `run` unchanged. Several: one run per part, in order, each with
/// the header facts of `run`, its own rows and (without device lines) its own ranks from busbw/algbw;
/// a "run-split" diagnostic names the line ranges and rank counts. Fails (naming them) when the parts'
/// rank counts differ and the run has device lines: they cannot say which part they describe.
engine::Result<std::vector<NcclTestsRun>> splitHeaderlessRuns(NcclTestsRun run, NcclTestsLog& log);

} // namespace clusterscope::importers
