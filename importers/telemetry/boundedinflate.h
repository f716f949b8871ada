#pragma once

#include "engine/core/status.h"

#include <string>

namespace clusterscope::importers {

/// Inflates a gzip body (RFC 1952) and refuses to produce more than `limitBytes`: a small compressed
/// answer can expand a thousandfold, and a client must bound its memory whatever the server sends.
engine::Result<std::string> inflateBounded(const std::string& compressed, std::size_t limitBytes);

} // namespace clusterscope::importers
