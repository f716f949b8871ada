#pragma once

#include "engine/core/status.h"
#include "importers/nccltests/nccltestslog.h"
#include "importers/nccltests/nccltestsparser.h"

#include <string>
#include <string_view>

namespace clusterscope::importers {

/// Reads an nccl-tests log (text output, possibly gzipped, or the -J JSON file) and parses it.
/// JSON is recognised by its first non-blank character being '{'.
engine::Result<NcclTestsLog> importNcclTestsFile(const std::string& path, const NcclTestsParseOptions& options = {});

/// Same for text already in memory; `fileName` names it in messages.
engine::Result<NcclTestsLog> parseNcclTestsText(
    std::string_view text, const std::string& fileName, const NcclTestsParseOptions& options = {});

} // namespace clusterscope::importers
