#pragma once

// Parser of the JSON file nccl-tests writes with -J FILE (src/util.cu, "version": 1): "config"
// (nthreads, ngpus, minimum_bytes, ..., "devices"), "results" (size, count, type, redop, root,
// out_of_place / in_place with time or cpu_time, alg_bw, bus_bw, nwrong), "average_bus_bandwidth".

#include "engine/core/status.h"
#include "importers/nccltests/nccltestslog.h"
#include "importers/nccltests/nccltestsparser.h"

#include <string>
#include <string_view>

namespace clusterscope::importers {

class NcclTestsJsonParser {
public:
    /// Parses one -J document into a log with one run. Syntax errors name the line and column;
    /// wrong types name the JSON pointer; unknown keys are ignored (newer nccl-tests add fields).
    static engine::Result<NcclTestsLog> parse(
        std::string_view text, const std::string& fileName, const NcclTestsParseOptions& options = {});
};

} // namespace clusterscope::importers
