#pragma once

#include "engine/core/diagnostickinds.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clusterscope::engine {

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
    /// Adds `count` occurrences of a registered kind (engine/core/diagnostickinds.h); `message`
    /// says where (file, line, first example).
    void add(const DiagnosticKind& kind, const std::string& message, std::int64_t count = 1)
    {
        add(std::string(kind.id), kind.severity, message, count);
    }
    void addSeparate(const DiagnosticKind& kind, const std::string& message)
    {
        addSeparate(std::string(kind.id), kind.severity, message);
    }
    /// By id and severity: for diagnostics read back from a project (use the kinds when raising one).
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
