#include "importers/kineto/decimaltime.h"

namespace clusterscope::importers {

std::optional<std::int64_t> parseMicrosecondsAsNs(std::string_view text)
{
    std::size_t i = 0;
    const std::size_t n = text.size();
    bool negative = false;
    if (i < n && (text[i] == '-' || text[i] == '+'))
        negative = text[i++] == '-';
    // Value = mantissa x 10^exponent, collected digit by digit in 128-bit arithmetic.
    __int128 mantissa = 0;
    int exponent = 0;
    int digits = 0;
    bool any = false;
    const auto addDigit = [&](int d) {
        if (digits < 30) {
            mantissa = mantissa * 10 + d;
            if (mantissa != 0)
                ++digits;
            return true;
        }
        return false; // more significant digits than we keep: later ones are below a nanosecond
    };
    while (i < n && text[i] >= '0' && text[i] <= '9') {
        if (!addDigit(text[i] - '0'))
            ++exponent;
        ++i;
        any = true;
    }
    if (i < n && text[i] == '.') {
        ++i;
        while (i < n && text[i] >= '0' && text[i] <= '9') {
            if (addDigit(text[i] - '0'))
                --exponent;
            ++i;
            any = true;
        }
    }
    if (!any)
        return std::nullopt;
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < n && (text[i] == '-' || text[i] == '+'))
            expNegative = text[i++] == '-';
        int e = 0;
        bool expAny = false;
        while (i < n && text[i] >= '0' && text[i] <= '9') {
            if (e < 100000)
                e = e * 10 + (text[i] - '0');
            ++i;
            expAny = true;
        }
        if (!expAny)
            return std::nullopt;
        exponent += expNegative ? -e : e;
    }
    if (i != n)
        return std::nullopt;
    exponent += 3; // microseconds -> nanoseconds
    constexpr __int128 kLimit = __int128(INT64_MAX);
    if (mantissa == 0)
        return 0;
    while (exponent > 0) {
        mantissa *= 10;
        --exponent;
        if (mantissa > kLimit)
            return std::nullopt;
    }
    while (exponent < 0 && mantissa != 0) {
        mantissa /= 10; // truncation toward zero
        ++exponent;
    }
    if (mantissa > kLimit)
        return std::nullopt;
    const auto v = static_cast<std::int64_t>(mantissa);
    return negative ? -v : v;
}

std::optional<std::int64_t> parseInteger(std::string_view text)
{
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && text[i] == '-')
        negative = text[i++] == '-';
    if (i == text.size())
        return std::nullopt;
    __int128 v = 0;
    for (; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9')
            return std::nullopt;
        v = v * 10 + (text[i] - '0');
        if (v > __int128(INT64_MAX))
            return std::nullopt;
    }
    return negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

} // namespace clusterscope::importers
