#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace clusterscope::app {

/// Streams a command writes to: results to `out`, messages about bad input to `err`.
struct CliIo {
    std::ostream& out;
    std::ostream& err;
};

/// One `clusterscope-cli <name>` command. run() gets the words after the name and returns the
/// exit code: 0 success, 1 bad input (with a message on err naming the file and the place).
struct CliCommand {
    const char* name;
    const char* synopsis; ///< one line: arguments, e.g. "FILE [--json]"
    const char* summary; ///< one sentence for the command list
    const char* help; ///< full --help text after the synopsis
    int (*run)(const std::vector<std::string>& args, CliIo io);
};

/// Every command, in the order `--help` lists them.
std::span<const CliCommand> cliCommands();

// Commands, one file each.
int runValidateCommand(const std::vector<std::string>& args, CliIo io);
int runCatalogCommand(const std::vector<std::string>& args, CliIo io);
int runFabricCommand(const std::vector<std::string>& args, CliIo io);
int runCollectiveCommand(const std::vector<std::string>& args, CliIo io);
int runEvaluateCommand(const std::vector<std::string>& args, CliIo io);
int runSearchCommand(const std::vector<std::string>& args, CliIo io);
int runImportNcclTestsCommand(const std::vector<std::string>& args, CliIo io);
int runImportTraceCommand(const std::vector<std::string>& args, CliIo io);
int runImportFabricCommand(const std::vector<std::string>& args, CliIo io);
int runExportFabricCommand(const std::vector<std::string>& args, CliIo io);
int runReportCommand(const std::vector<std::string>& args, CliIo io);
int runTelemetryCommand(const std::vector<std::string>& args, CliIo io);
int runValidateModelCommand(const std::vector<std::string>& args, CliIo io);
int runCalibrateComputeCommand(const std::vector<std::string>& args, CliIo io);

} // namespace clusterscope::app
