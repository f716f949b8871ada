#include "app/cli/commandline.h"

namespace clusterscope::app {

using engine::Status;

engine::Result<CommandLine> CommandLine::parse(
    const std::vector<std::string>& args, const std::set<std::string>& flags, const std::set<std::string>& options)
{
    CommandLine cl;
    bool onlyPositionals = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (onlyPositionals || a.size() < 3 || a.rfind("--", 0) != 0) {
            if (a == "--") {
                onlyPositionals = true;
                continue;
            }
            if (!onlyPositionals && a.size() > 1 && a[0] == '-' && a != "-")
                return Status::error("unknown option " + a + " (see --help)");
            cl.m_positionals.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> inlineValue;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (flags.count(name)) {
            if (inlineValue)
                return Status::error("option --" + name + " takes no value");
            cl.m_flags.insert(name);
        } else if (options.count(name)) {
            if (inlineValue) {
                cl.m_values[name] = *inlineValue;
            } else {
                if (i + 1 >= args.size())
                    return Status::error("option --" + name + " needs a value");
                cl.m_values[name] = args[++i];
            }
        } else {
            return Status::error("unknown option --" + name + " (see --help)");
        }
    }
    return cl;
}

std::optional<std::string> CommandLine::value(const std::string& name) const
{
    const auto it = m_values.find(name);
    if (it == m_values.end())
        return std::nullopt;
    return it->second;
}

} // namespace clusterscope::app
