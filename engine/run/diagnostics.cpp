#include "engine/run/diagnostics.h"

namespace clusterscope::engine {

void Diagnostics::add(
    const std::string& id, DiagnosticSeverity severity, const std::string& message, std::int64_t count)
{
    for (auto& d : m_items) {
        if (d.id == id) {
            d.count += count;
            if (severity > d.severity)
                d.severity = severity;
            return;
        }
    }
    m_items.push_back({ id, severity, message, count });
}

void Diagnostics::addSeparate(const std::string& id, DiagnosticSeverity severity, const std::string& message)
{
    m_items.push_back({ id, severity, message, 1 });
}

void Diagnostics::merge(const Diagnostics& other)
{
    for (const auto& d : other.m_items)
        add(d.id, d.severity, d.message, d.count);
}

const Diagnostic* Diagnostics::find(const std::string& id) const
{
    for (const auto& d : m_items)
        if (d.id == id)
            return &d;
    return nullptr;
}

} // namespace clusterscope::engine
