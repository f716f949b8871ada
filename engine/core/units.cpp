#include "engine/core/units.h"

#include <charconv>

namespace clusterscope::engine {

std::optional<std::uint64_t> parseByteSize(std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    std::uint64_t multiplier = 1;
    switch (text.back()) {
    case 'K':
    case 'k':
        multiplier = 1ull << 10;
        break;
    case 'M':
    case 'm':
        multiplier = 1ull << 20;
        break;
    case 'G':
    case 'g':
        multiplier = 1ull << 30;
        break;
    case 'T':
    case 't':
        multiplier = 1ull << 40;
        break;
    default:
        break;
    }
    if (multiplier != 1)
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    std::uint64_t number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    if (number > UINT64_MAX / multiplier)
        return std::nullopt;
    return number * multiplier;
}

} // namespace clusterscope::engine
