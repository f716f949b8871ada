#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::engine {

enum class DiagnosticSeverity : std::uint8_t { Info, Warning, Error };

const char* toString(DiagnosticSeverity severity);

/// One kind of per-record problem met during an import: a stable id ("kineto.unknown_nccl_kernel"),
/// a severity, one sentence (with the first place it happened) and how many records it affected.
struct Diagnostic {
    std::string id;
    DiagnosticSeverity severity = DiagnosticSeverity::Warning;
    std::string message;
    std::int64_t count = 0;
};

/// Diagnostics of an import, merged by id (the first message of an id is kept, later ones count).
class Diagnostics {
public:
    void add(const std::string& id, DiagnosticSeverity severity, const std::string& message, std::int64_t count = 1);
    /// Adds an entry that is never merged with others of its id (e.g. one per failed file).
    void addSeparate(const std::string& id, DiagnosticSeverity severity, const std::string& message);
    void merge(const Diagnostics& other);
    /// Appends `item` as it is, never merged (restores a list read back from storage or a message).
    void append(const Diagnostic& item) { m_items.push_back(item); }
    const std::vector<Diagnostic>& items() const { return m_items; }
    const Diagnostic* find(const std::string& id) const;
    bool empty() const { return m_items.empty(); }

private:
    std::vector<Diagnostic> m_items;
};

} // namespace clusterscope::engine
