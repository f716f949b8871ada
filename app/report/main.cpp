// clusterscope-report: writes procurement reports (PDF, HTML, CSV) without a display.
// `clusterscope-cli report` runs this program (the CLI itself links no GUI library).

#include "app/report/reporttool.h"

#include <QGuiApplication>
#include <QTextStream>

#include <cstdio>
#include <cstdlib>

namespace {

QtMessageHandler g_defaultHandler = nullptr;

// Headless runs (no session, no XDG_RUNTIME_DIR) make QStandardPaths warn about a folder the report
// never uses; every other message goes through.
void messageHandler(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        return;
    g_defaultHandler(type, context, message);
}

} // namespace

int main(int argc, char** argv)
{
    g_defaultHandler = qInstallMessageHandler(messageHandler);
    // Reports need fonts and painting, not a screen: without a display use the offscreen platform.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    // Messages name the command the user typed (`clusterscope-cli report` when run through the CLI).
    const QString program = qEnvironmentVariableIsSet("CLUSTERSCOPE_REPORT_PROGRAM")
        ? qEnvironmentVariable("CLUSTERSCOPE_REPORT_PROGRAM")
        : QStringLiteral("clusterscope-report");
    QTextStream out(stdout);
    QTextStream err(stderr);
    if (args.contains(QStringLiteral("--version"))) {
        out << "clusterscope-report " << CLUSTERSCOPE_VERSION << "\n";
        return 0;
    }
    QGuiApplication app(argc, argv);
    return clusterscope::app::runReportTool(args, out, err, program);
}
