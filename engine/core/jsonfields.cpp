#include "engine/core/jsonfields.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace clusterscope::engine {

namespace {

    // A SAX consumer that accepts everything and remembers where the parser gave up and why. Used only
    // after a failed parse, to locate the error whatever exception type nlohmann would have thrown.
    struct ErrorLocator : nlohmann::json_sax<nlohmann::json> {
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t&) override { return true; }
        bool string(string_t&) override { return true; }
        bool binary(binary_t&) override { return true; }
        bool start_object(std::size_t) override { return true; }
        bool key(string_t&) override { return true; }
        bool end_object() override { return true; }
        bool start_array(std::size_t) override { return true; }
        bool end_array() override { return true; }
        bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override
        {
            failed = true;
            byte = position;
            reason = ex.what();
            return false;
        }
        bool failed = false;
        std::size_t byte = 0;
        std::string reason;
    };

    // nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 5: syntax
    // error ..."; keep the part after the location (or after the bracket) for our own message.
    std::string reasonOf(const std::string& what)
    {
        std::string reason = what;
        if (const auto bracket = reason.find("] ");
            reason.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
            reason.erase(0, bracket + 2);
        if (reason.rfind("parse error", 0) == 0)
            if (const auto colon = reason.find(": "); colon != std::string::npos)
                reason.erase(0, colon + 2);
        return reason;
    }

} // namespace

Result<nlohmann::json> parseJsonText(std::string_view text, const std::string& fileName)
{
    nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (!doc.is_discarded())
        return doc;
    ErrorLocator locator;
    try {
        nlohmann::json::sax_parse(text.begin(), text.end(), &locator);
    } catch (const nlohmann::json::exception& e) {
        locator.failed = true;
        locator.reason = e.what();
    }
    // position is the number of bytes read when the parser stopped, i.e. the 1-based offset of the
    // offending byte (one past the end when the text ends too early).
    const std::size_t byte = locator.byte;
    const std::size_t at = std::min(byte > 0 ? byte - 1 : 0, text.size());
    const std::size_t line
        = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    const std::size_t lineStart = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
    const std::size_t column = at - (lineStart == std::string_view::npos ? 0 : lineStart + 1) + 1;
    return Status::error(fileName + ": byte " + std::to_string(byte) + ": not valid JSON (line " + std::to_string(line)
        + ", column " + std::to_string(column) + ": "
        + (locator.failed ? reasonOf(locator.reason) : std::string("rejected by the parser")) + ")");
}

std::string jsonExceptionMessage(const std::string& fileName, const nlohmann::json::exception& e)
{
    return fileName + ": " + reasonOf(e.what());
}

std::string describeJsonValue(const nlohmann::json& value)
{
    std::string text = value.dump();
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    return text;
}

JsonObjectReader::JsonObjectReader(const nlohmann::json& object, std::string pointer)
    : m_object(object)
    , m_pointer(std::move(pointer))
{
    if (!m_object.is_object())
        throw JsonFieldError(
            m_pointer.empty() ? "/" : m_pointer, "expected an object, got " + describeJsonValue(m_object));
}

bool JsonObjectReader::has(const std::string& key) const
{
    const auto it = m_object.find(key);
    return it != m_object.end() && !it->is_null();
}

const nlohmann::json* JsonObjectReader::raw(const std::string& key)
{
    m_known.insert(key);
    const auto it = m_object.find(key);
    return it == m_object.end() ? nullptr : &*it;
}

namespace {
    // Levenshtein distance, for "did you mean" hints on misspelt keys.
    std::size_t editDistance(const std::string& a, const std::string& b)
    {
        std::vector<std::size_t> row(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j)
            row[j] = j;
        for (std::size_t i = 1; i <= a.size(); ++i) {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                const std::size_t above = row[j];
                row[j] = std::min({ row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1) });
                diagonal = above;
            }
        }
        return row[b.size()];
    }
    bool looksLike(const std::string& a, const std::string& b) { return editDistance(a, b) <= 2; }
} // namespace

const nlohmann::json& JsonObjectReader::required(const std::string& key)
{
    const nlohmann::json* value = raw(key);
    if (!value) {
        // A misspelt key is the likely cause: report it where it is rather than the missing one.
        for (const auto& [other, v] : m_object.items())
            if (!m_known.count(other) && looksLike(other, key))
                throw JsonFieldError(pointerOf(other), "unknown key \"" + other + "\" (did you mean \"" + key + "\"?)");
        throw JsonFieldError(pointerOf(key), "required key is missing");
    }
    return *value;
}

std::string JsonObjectReader::string(const std::string& key, std::optional<std::string> fallback)
{
    if (fallback && !has(key)) {
        m_known.insert(key);
        return *fallback;
    }
    const auto& value = required(key);
    if (!value.is_string())
        throw JsonFieldError(pointerOf(key), "expected a string, got " + describeJsonValue(value));
    return value.get<std::string>();
}

std::string JsonObjectReader::choice(
    const std::string& key, std::initializer_list<const char*> allowed, std::optional<std::string> fallback)
{
    std::string value = string(key, std::move(fallback));
    std::string list;
    for (const char* a : allowed) {
        if (value == a)
            return value;
        list += list.empty() ? "" : ", ";
        list += a;
    }
    throw JsonFieldError(pointerOf(key), "expected one of " + list + ", got \"" + value + "\"");
}

long long JsonObjectReader::integer(const std::string& key, long long minimum, std::optional<long long> fallback)
{
    if (fallback && !has(key)) {
        m_known.insert(key);
        return *fallback;
    }
    const auto& value = required(key);
    long long result = 0;
    if (value.is_number_integer()) {
        result = value.get<long long>();
    } else if (value.is_number_float() && std::isfinite(value.get<double>())
        && std::floor(value.get<double>()) == value.get<double>() && std::fabs(value.get<double>()) < 9e15) {
        result = static_cast<long long>(value.get<double>());
    } else {
        throw JsonFieldError(pointerOf(key),
            std::string(minimum > 0 ? "expected a positive integer" : "expected an integer") + ", got "
                + describeJsonValue(value));
    }
    if (result < minimum)
        throw JsonFieldError(pointerOf(key),
            (minimum == 1 ? std::string("expected a positive integer")
                          : "expected an integer >= " + std::to_string(minimum))
                + ", got " + std::to_string(result));
    return result;
}

int JsonObjectReader::boundedInt(const std::string& key, int minimum, int maximum, std::optional<int> fallback)
{
    const long long v = integer(key, minimum, fallback ? std::optional<long long>(*fallback) : std::nullopt);
    if (v > maximum)
        throw JsonFieldError(pointerOf(key),
            "expected an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum) + ", got "
                + std::to_string(v));
    return static_cast<int>(v);
}

int JsonObjectReader::positiveInt(const std::string& key, std::optional<int> fallback)
{
    const long long v = integer(key, 1, fallback ? std::optional<long long>(*fallback) : std::nullopt);
    if (v > std::numeric_limits<int>::max())
        throw JsonFieldError(pointerOf(key), "value " + std::to_string(v) + " is too large");
    return static_cast<int>(v);
}

double JsonObjectReader::number(const std::string& key, double minimum, double maximum, std::optional<double> fallback)
{
    if (fallback && !has(key)) {
        m_known.insert(key);
        return *fallback;
    }
    const auto& value = required(key);
    if (!value.is_number())
        throw JsonFieldError(pointerOf(key), "expected a number, got " + describeJsonValue(value));
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < minimum || v > maximum) {
        char range[128];
        std::snprintf(range, sizeof range, "expected a number in [%g, %g], got %g", minimum, maximum, v);
        throw JsonFieldError(pointerOf(key), range);
    }
    return v;
}

bool JsonObjectReader::boolean(const std::string& key, std::optional<bool> fallback)
{
    if (fallback && !has(key)) {
        m_known.insert(key);
        return *fallback;
    }
    const auto& value = required(key);
    if (!value.is_boolean())
        throw JsonFieldError(pointerOf(key), "expected true or false, got " + describeJsonValue(value));
    return value.get<bool>();
}

std::optional<JsonObjectReader> JsonObjectReader::object(const std::string& key, bool isRequired)
{
    const nlohmann::json* value = raw(key);
    if (!value || value->is_null()) {
        if (isRequired)
            throw JsonFieldError(pointerOf(key), "required object is missing");
        return std::nullopt;
    }
    return JsonObjectReader(*value, pointerOf(key));
}

void JsonObjectReader::finish() const
{
    for (const auto& [key, value] : m_object.items()) {
        if (m_known.count(key))
            continue;
        for (const std::string& known : m_known)
            if (looksLike(key, known) && !m_object.contains(known))
                throw JsonFieldError(pointerOf(key), "unknown key \"" + key + "\" (did you mean \"" + known + "\"?)");
        throw JsonFieldError(pointerOf(key), "unknown key \"" + key + "\"");
    }
}

} // namespace clusterscope::engine
