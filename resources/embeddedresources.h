#pragma once

#include <span>
#include <string_view>

namespace clusterscope::resources {

/// One resource file compiled into the binary; `path` is relative to resources/
/// (e.g. "catalog/gpus.json", "examples/llama3-70b-1024-h100.json").
struct EmbeddedFile {
    std::string_view path;
    std::string_view contents;
};

/// Every embedded file, in a stable order (sorted by path).
std::span<const EmbeddedFile> embeddedFiles();

/// The contents of one embedded file, or an empty view when there is no such file.
std::string_view embeddedFile(std::string_view path);

} // namespace clusterscope::resources
