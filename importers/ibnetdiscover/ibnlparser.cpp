#include "importers/ibnetdiscover/ibnlparser.h"

#include "importers/common/inputfile.h"

#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace clusterscope::importers {

using engine::Status;

namespace {
    std::vector<std::string> words(std::string_view line)
    {
        std::vector<std::string> out;
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
            const std::size_t start = i;
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
            if (i > start)
                out.emplace_back(line.substr(start, i - start));
        }
        return out;
    }

    bool portNumber(const std::string& w, int& port)
    {
        if (w.size() < 2 || (w[0] != 'P' && w[0] != 'p') || w.size() > 7)
            return false;
        port = 0;
        for (std::size_t i = 1; i < w.size(); ++i) {
            if (!std::isdigit(static_cast<unsigned char>(w[i])))
                return false;
            port = port * 10 + (w[i] - '0');
        }
        return true;
    }
}

engine::Result<PlannedFabric> parseIbnl(std::string_view text, const std::string& name)
{
    PlannedFabric plan;
    std::set<std::pair<std::pair<std::string, int>, std::pair<std::string, int>>> seen;
    std::string current;
    std::vector<PlannedFabric::System> referenced; // peers named only in port lines (HCAs)
    int number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++number;
        if (const auto hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        const auto w = words(line);
        if (w.empty())
            continue;
        const std::string where = name + ": line " + std::to_string(number) + ": ";
        const bool indented = std::isspace(static_cast<unsigned char>(line[0]));
        if (!indented) {
            if (w.size() < 2)
                return Status::error(where + "expected a system line \"TYPE NAME\", got \"" + std::string(line) + "\"");
            current = w[1];
            plan.systems.push_back({ w[0], w[1], number });
            continue;
        }
        int localPort = 0, peerPort = 0;
        const bool arrow
            = w.size() >= 2 && w[1].size() >= 2 && w[1].front() == '-' && w[1].substr(w[1].size() - 2) == "->";
        if (w.size() != 5 || !portNumber(w[0], localPort) || !arrow || !portNumber(w[4], peerPort))
            return Status::error(where + "expected \"P<n> -> TYPE NAME P<m>\", got \"" + std::string(line) + "\"");
        if (current.empty())
            return Status::error(where + "a port line before the first system line");
        std::pair<std::string, int> a { current, localPort }, b { w[3], peerPort };
        if (b < a)
            std::swap(a, b);
        if (seen.insert({ a, b }).second)
            plan.cables.push_back({ a.first, a.second, b.first, b.second, number });
        referenced.push_back({ w[2], w[3], number });
    }
    if (plan.systems.empty())
        return Status::error(name + ": line 1: no system line: not an ibnl topology netlist");
    std::set<std::string> declared;
    for (const auto& s : plan.systems)
        declared.insert(s.name);
    for (const auto& r : referenced)
        if (declared.insert(r.name).second)
            plan.systems.push_back(r);
    return plan;
}

engine::Result<PlannedFabric> importIbnlFile(const std::string& path)
{
    auto text = readInputFile(path);
    if (!text)
        return text.status();
    return parseIbnl(*text, path);
}

} // namespace clusterscope::importers
