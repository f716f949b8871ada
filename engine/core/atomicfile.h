#pragma once

#include "engine/core/status.h"

#include <string>
#include <string_view>

namespace clusterscope::engine {

/// Writes `contents` to `path` so that a reader sees either the old file or the whole new one:
/// the bytes go to a temporary file in the same folder, are flushed to disk (fsync), and the
/// temporary file is renamed over `path` (rename(2) is atomic within a file system).
Status writeFileAtomically(const std::string& path, std::string_view contents);

/// Reads a whole file; errors name the file.
Result<std::string> readWholeFile(const std::string& path);

} // namespace clusterscope::engine
