#pragma once

// Runs the real clusterscope-cli binary for the CLI tests, as a user would: exit code, stdout,
// stderr. Header-only; each tst_cli_*.cpp includes it.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace clitest {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

/// Runs clusterscope-cli with `args`; exit code -1 and "timeout" on err when it does not finish
/// within two minutes.
inline Run runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(CLUSTERSCOPE_CLI_PATH), args);
    if (!p.waitForFinished(120000))
        return { -1, {}, QStringLiteral("timeout") };
    return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()) };
}

/// A file under tests/data.
inline QString data(const char* path) { return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/") + QLatin1String(path); }

/// A built-in example scenario.
inline QString example(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + QLatin1String(name);
}

} // namespace clitest
