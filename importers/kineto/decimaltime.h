#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace clusterscope::importers {

/// Parses a JSON number that counts microseconds ("1694128201436304", "4458677009853.422",
/// "68.0", "1.5e3", "-2") into int64 nanoseconds exactly from its decimal text, never through a
/// double (absolute epoch microseconds have more digits than a double holds). Digits below one
/// nanosecond are truncated toward zero. Returns nothing for malformed text or int64 overflow.
std::optional<std::int64_t> parseMicrosecondsAsNs(std::string_view text);

/// Parses a JSON integer exactly; nothing for a fraction, exponent, junk or overflow.
std::optional<std::int64_t> parseInteger(std::string_view text);

} // namespace clusterscope::importers
