// clusterscope: the desktop application.
//   clusterscope [PROJECT.csproj | SCENARIO.json]   open a project or import a scenario (none: the
//                                                    project open at the last exit, else the example)
//   clusterscope --screenshot OUT.png [...]          render the window once, save it, exit
//   clusterscope --export-views DIR [...]            render every tab of the current scenario to DIR/*.png, exit

#include "app/gui/mainwindow.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    // VTK needs its surface format before the first QApplication exists.
    clusterscope::views::VtkOpenGLWidget::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("ClusterScope"));
    QApplication::setOrganizationName(QStringLiteral("ClusterScope"));
    QApplication::setApplicationVersion(QStringLiteral(CLUSTERSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Size and analyse the networks of large-model training."));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Render the main window once, save it as a PNG to <file> and exit."), QStringLiteral("file"));
    parser.addOption(screenshot);
    QCommandLineOption exportViews(QStringLiteral("export-views"),
        QStringLiteral("Render every tab of the current scenario to PNG files in <dir> and exit."),
        QStringLiteral("dir"));
    parser.addOption(exportViews);
    QCommandLineOption scenario(QStringLiteral("scenario"),
        QStringLiteral("Select the scenario named <name> (or its 1-based number) after opening."),
        QStringLiteral("name"));
    parser.addOption(scenario);
    parser.addPositionalArgument(
        QStringLiteral("file"), QStringLiteral("A project (.csproj) or scenario (.json) to open."));
    parser.process(app);

    const bool batch = parser.isSet(screenshot) || parser.isSet(exportViews);
    clusterscope::app::MainWindow window;
    const QStringList files = parser.positionalArguments();
    // Interactive starts carry on where the user left off; batch runs are reproducible.
    // The example project comes with an example run (the Runs tab's post-mortem) and an imported
    // fabric (Fabric 3D's flags).
    if (files.isEmpty() && (batch || !window.reopenLastProject())) {
        window.showExampleRun();
        window.showExampleFabric();
    }
    for (const QString& f : files) {
        if (auto error = window.openPath(f, batch)) {
            std::fprintf(stderr, "%s\n", qPrintable(*error));
            if (batch)
                return 1;
        }
    }
    if (parser.isSet(scenario) && !window.selectScenarioByName(parser.value(scenario))) {
        std::fprintf(stderr, "no scenario named \"%s\" in the project\n", qPrintable(parser.value(scenario)));
        return 1;
    }
    window.show();

    if (parser.isSet(exportViews)) {
        const QString dir = parser.value(exportViews);
        QTimer::singleShot(300, &window, [&window, dir] {
            const auto written = window.exportViews(dir);
            if (!written) {
                std::fprintf(stderr, "%s: cannot write the pictures\n", qPrintable(dir));
                QCoreApplication::exit(1);
                return;
            }
            for (const QString& f : *written)
                std::printf("%s\n", qPrintable(f));
            QCoreApplication::exit(0);
        });
    }
    if (parser.isSet(screenshot)) {
        const QString out = parser.value(screenshot);
        // Give the GL widget two event-loop turns to initialise and paint, then grab.
        QTimer::singleShot(600, &window, [&window, out] {
            const QImage image = window.grab().toImage();
            if (image.isNull() || !image.save(out, "PNG")) {
                std::fprintf(stderr, "%s: cannot write the screenshot\n", qPrintable(out));
                QCoreApplication::exit(1);
                return;
            }
            QCoreApplication::exit(0);
        });
    }
    return app.exec();
}
