#pragma once

// Parser of nccl-tests text output (all_reduce_perf, all_gather_perf, ... from NVIDIA/nccl-tests).
// Reads the lines NcclTestsTokenizer classifies; accepts every layout NVIDIA/nccl-tests src/common.cu has printed:
// with or without the root column, "#wrong" or the older float "error", -I statistics columns,
// mpirun --tag-output and srun --label prefixes, numbers in %.2f/%.1f/%.0f/%e, "N/A" values, several
// runs in one file. Columns are located by the column-title line when the log has one.

#include "engine/core/status.h"
#include "importers/nccltests/nccltestslog.h"

#include <optional>
#include <string>
#include <string_view>

namespace clusterscope::importers {

struct NcclTestsParseOptions {
    /// The collective to assume when the log neither names its binary nor has a column layout
    /// that tells (the CLI's --op). A log that names its binary wins (with a diagnostic on conflict).
    std::optional<engine::CollectiveOp> collective;
    /// The ranks to assume for a run that cannot tell its own (no device lines, header or quoted command,
    /// and a busbw/algbw ratio that holds for any count, as sendrecv's): the CLI's --nodes x --gpus-per-node.
    /// 0: none. A run that tells its ranks keeps them.
    int ranks = 0;
};

class NcclTestsParser {
public:
    /// Parses the text of one log. `fileName` prefixes every message ("FILE:LINE: ..."). Fails when
    /// the text holds no usable result row, when a column header cannot be read, or when the
    /// collective cannot be determined; problems with single rows become diagnostics.
    static engine::Result<NcclTestsLog> parse(
        std::string_view text, const std::string& fileName, const NcclTestsParseOptions& options = {});
};

/// Parses one printed number: %f, %e and %g forms, "N/A" (returns an engaged optional holding an empty
/// optional), nan/inf (empty). Returns nothing when the text is not a number at all.
std::optional<std::optional<double>> parseNcclTestsNumber(std::string_view text);

} // namespace clusterscope::importers
