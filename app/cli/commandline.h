#pragma once

#include "engine/core/status.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clusterscope::app {

/// Arguments of one CLI command: positionals, boolean flags (--json) and valued options
/// (--top 5 or --top=5). Options a command does not declare are an error that names them.
class CommandLine {
public:
    /// Parses `args` (the words after the command name). `flags` and `options` list the accepted
    /// names without the leading dashes.
    static engine::Result<CommandLine> parse(
        const std::vector<std::string>& args, const std::set<std::string>& flags, const std::set<std::string>& options);

    bool flag(const std::string& name) const { return m_flags.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    const std::vector<std::string>& positionals() const { return m_positionals; }

private:
    std::set<std::string> m_flags;
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_positionals;
};

} // namespace clusterscope::app
