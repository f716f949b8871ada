#pragma once

#include <optional>
#include <string>
#include <utility>

namespace clusterscope::engine {

/// Outcome of an operation that can fail. Engine and importers report errors through Status and
/// Result<T> (no exceptions across library boundaries). A failed Status carries one message that
/// names the file and the place (JSON path, line, byte offset) where the problem is.
/// [[nodiscard]]: a returned Status must be looked at (an ignored failure is a silent wrong result).
class [[nodiscard]] Status {
public:
    Status() = default;
    static Status success() { return {}; }
    static Status error(std::string message) { return Status(std::move(message)); }

    bool isOk() const { return !m_failed; }
    explicit operator bool() const { return isOk(); }
    const std::string& message() const { return m_message; }

private:
    explicit Status(std::string message)
        : m_failed(true)
        , m_message(std::move(message))
    {
    }
    bool m_failed = false;
    std::string m_message;
};

/// A value or the Status explaining why there is none. [[nodiscard]] like Status.
template <typename T> class [[nodiscard]] Result {
public:
    Result(T value)
        : m_value(std::move(value))
    {
    }
    Result(Status status)
        : m_status(std::move(status))
    {
        if (m_status.isOk())
            m_status = Status::error("internal error: Result constructed from a successful Status without a value");
    }

    bool isOk() const { return m_value.has_value(); }
    explicit operator bool() const { return isOk(); }
    const Status& status() const { return m_status; }
    const std::string& message() const { return m_status.message(); }

    const T& value() const& { return *m_value; }
    T& value() & { return *m_value; }
    T&& value() && { return std::move(*m_value); }
    const T* operator->() const { return &*m_value; }
    T* operator->() { return &*m_value; }
    const T& operator*() const { return *m_value; }
    T& operator*() { return *m_value; }

private:
    std::optional<T> m_value;
    Status m_status;
};

} // namespace clusterscope::engine
