// clusterscope-cli: entry point and command dispatch.

#include "app/cli/clicommand.h"

#include <cstring>
#include <iostream>

using namespace clusterscope::app;

namespace {

void printUsage(std::ostream& os)
{
    os << "Usage: clusterscope-cli COMMAND [ARGS...]\n"
          "       clusterscope-cli COMMAND --help\n\n"
          "ClusterScope sizes and analyses the networks that large-model training runs on.\n\n"
          "Commands:\n";
    for (const CliCommand& c : cliCommands()) {
        std::string name = c.name;
        name.resize(18, ' ');
        os << "  " << name << c.summary << "\n";
    }
    os << "\nOptions:\n  --help       this text\n  --version    print the version\n";
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        printUsage(std::cerr);
        return 1;
    }
    const std::string first = argv[1];
    if (first == "--help" || first == "-h" || first == "help") {
        printUsage(std::cout);
        return 0;
    }
    if (first == "--version") {
        std::cout << "clusterscope-cli " << CLUSTERSCOPE_VERSION << "\n";
        return 0;
    }
    for (const CliCommand& c : cliCommands()) {
        if (first != c.name)
            continue;
        std::vector<std::string> args(argv + 2, argv + argc);
        for (const std::string& a : args) {
            if (a == "--help" || a == "-h") {
                std::cout << "Usage: clusterscope-cli " << c.name << " " << c.synopsis << "\n\n"
                          << c.summary << "\n\n"
                          << c.help;
                return 0;
            }
        }
        return c.run(args, CliIo { std::cout, std::cerr });
    }
    std::cerr << "clusterscope-cli: unknown command \"" << first << "\" (see clusterscope-cli --help)\n";
    return 1;
}
