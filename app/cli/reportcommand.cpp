// `clusterscope-cli report`: runs clusterscope-report, the Qt program that draws and writes the
// reports, so that the CLI itself links no GUI library. The program is looked up beside
// this executable first (installed together in bin/, and in the build tree), then on PATH.

#include "app/cli/clicommand.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include <unistd.h>

namespace clusterscope::app {

namespace {

    constexpr const char* kProgram = "clusterscope-report";

    bool isExecutable(const std::filesystem::path& p)
    {
        std::error_code ec;
        return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
    }

    /// The report program's path, or "" when neither beside the CLI nor on PATH; `searched` lists where.
    std::string findReportProgram(std::string& searched)
    {
        std::error_code ec;
        const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
        if (!ec) {
            const std::filesystem::path beside = self.parent_path() / kProgram;
            searched = self.parent_path().string();
            if (isExecutable(beside))
                return beside.string();
        }
        const char* path = std::getenv("PATH");
        searched += searched.empty() ? "PATH" : " and PATH";
        const std::string dirs = path ? path : "";
        std::size_t start = 0;
        while (start <= dirs.size()) {
            const std::size_t end = std::min(dirs.find(':', start), dirs.size());
            const std::string dir = dirs.substr(start, end - start);
            if (!dir.empty() && isExecutable(std::filesystem::path(dir) / kProgram))
                return (std::filesystem::path(dir) / kProgram).string();
            start = end + 1;
        }
        return {};
    }

} // namespace

int runReportCommand(const std::vector<std::string>& args, CliIo io)
{
    std::string searched;
    const std::string program = findReportProgram(searched);
    if (program.empty()) {
        io.err << "clusterscope-cli report: " << kProgram << " is not installed (looked in " << searched
               << "); it comes with the ClusterScope package (the GUI build), see README \"Installing\"\n";
        return 1;
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // Messages of the report program then name the command the user typed.
    ::setenv("CLUSTERSCOPE_REPORT_PROGRAM", "clusterscope-cli report", 1);
    io.out.flush();
    io.err.flush();
    std::cout.flush();
    std::cerr.flush();
    ::execv(program.c_str(), argv.data());
    io.err << "clusterscope-cli report: cannot run " << program << ": " << std::strerror(errno) << "\n";
    return 1;
}

} // namespace clusterscope::app
