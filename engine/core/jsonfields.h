#pragma once

// Strict reading of JSON objects for engine and importer .cpp files (never include from a public
// header: nlohmann/json is a private dependency). Every accessor records the key as known; finish()
// rejects any key that was not read, so typos never pass silently. Problems are thrown as
// JsonFieldError inside the library and turned into a Status at its boundary.

#include "engine/core/status.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace clusterscope::engine {

/// Parses `text` as one JSON document (RFC 8259). Never throws: a syntax error, a number that does
/// not fit a double (`1e99999`, which nlohmann reports as out_of_range.406) or any other parser
/// exception becomes `<fileName>: byte <N>: not valid JSON (line <L>, column <C>: <reason>)`,
/// where N is the 1-based byte offset at which the parser stopped.
Result<nlohmann::json> parseJsonText(std::string_view text, const std::string& fileName);

/// Runs `read` (a reader that may throw JsonFieldError or nlohmann exceptions, e.g. a type_error
/// from an unchecked get<>) and turns every such exception into `<fileName>: <pointer>: <what>`.
/// Use it at each library boundary that reads a parsed JSON document.
template <typename Fn> auto guardJsonRead(const std::string& fileName, Fn&& read) -> decltype(read());

/// A problem at a JSON pointer. Caught at the library boundary and reported as
/// "<file>: <pointer>: <message>".
struct JsonFieldError : std::runtime_error {
    JsonFieldError(std::string pointer, const std::string& message)
        : std::runtime_error(message)
        , pointer(std::move(pointer))
    {
    }
    std::string pointer;
};

/// Short human description of a JSON value, used in messages ("got \"4k\"").
std::string describeJsonValue(const nlohmann::json& value);

class JsonObjectReader {
public:
    /// `pointer` is the JSON pointer of `object` ("" for the root).
    JsonObjectReader(const nlohmann::json& object, std::string pointer);

    const std::string& pointer() const { return m_pointer; }
    std::string pointerOf(const std::string& key) const { return m_pointer + "/" + key; }
    bool has(const std::string& key) const;
    /// The raw value (marks the key as known); nullptr when absent.
    const nlohmann::json* raw(const std::string& key);

    std::string string(const std::string& key, std::optional<std::string> fallback = std::nullopt);
    /// A string that must be one of `allowed`.
    std::string choice(const std::string& key, std::initializer_list<const char*> allowed,
        std::optional<std::string> fallback = std::nullopt);
    /// An integer >= minimum.
    long long integer(const std::string& key, long long minimum, std::optional<long long> fallback = std::nullopt);
    /// An integer in [minimum, maximum] (both within int): a value outside is refused with the range,
    /// never clamped or truncated.
    int boundedInt(const std::string& key, int minimum, int maximum, std::optional<int> fallback = std::nullopt);
    /// A positive integer that fits an int.
    int positiveInt(const std::string& key, std::optional<int> fallback = std::nullopt);
    /// A finite number in [minimum, maximum].
    double number(
        const std::string& key, double minimum, double maximum, std::optional<double> fallback = std::nullopt);
    bool boolean(const std::string& key, std::optional<bool> fallback = std::nullopt);
    /// A nested object (throws if present but not an object).
    std::optional<JsonObjectReader> object(const std::string& key, bool required = false);

    /// Throws for the first key that no accessor asked for.
    void finish() const;

private:
    const nlohmann::json& required(const std::string& key);
    const nlohmann::json& m_object;
    std::string m_pointer;
    std::set<std::string> m_known;
};

/// Message for an nlohmann exception that escaped a reader (no pointer is known, so the reason is
/// given as nlohmann states it, without its "[json.exception...]" prefix).
std::string jsonExceptionMessage(const std::string& fileName, const nlohmann::json::exception& e);

template <typename Fn> auto guardJsonRead(const std::string& fileName, Fn&& read) -> decltype(read())
{
    try {
        return read();
    } catch (const JsonFieldError& e) {
        return Status::error(fileName + ": " + (e.pointer.empty() ? "/" : e.pointer) + ": " + e.what());
    } catch (const nlohmann::json::exception& e) {
        return Status::error(jsonExceptionMessage(fileName, e));
    }
}

} // namespace clusterscope::engine
