#pragma once

#include "engine/core/status.h"

#include <string>

namespace clusterscope::importers {

/// Reads a whole input file into memory, transparently inflating gzip (detected by its magic bytes,
/// not the file name, so "trace.json" that is really gzipped still works). Errors name the file and,
/// for a damaged gzip stream, the compressed byte offset where inflating stopped.
engine::Result<std::string> readInputFile(const std::string& path);

/// Inflates a gzip buffer; `name` is used in error messages.
engine::Result<std::string> gunzip(const std::string& compressed, const std::string& name);

} // namespace clusterscope::importers
