#pragma once

// Where GUI tests save the screenshots a developer looks at: a temporary folder per test process
// (removed when the process ends), or CLUSTERSCOPE_SCREENSHOT_DIR when set, to keep them, e.g.
//   CLUSTERSCOPE_SCREENSHOT_DIR=$PWD/shots xvfb-run -a ctest -R tst_heatmapwidget
// Never a fixed /tmp path: parallel runs and other users would overwrite each other's files.

#include <QDir>
#include <QString>
#include <QTemporaryDir>

namespace clusterscope::testsupport {

/// The path to save the screenshot `fileName` (e.g. "gui-heatmap-llama.png") under.
inline QString screenshotPath(const QString& fileName)
{
    const QString keep = qEnvironmentVariable("CLUSTERSCOPE_SCREENSHOT_DIR");
    if (!keep.isEmpty()) {
        QDir().mkpath(keep);
        return QDir(keep).filePath(fileName);
    }
    static QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/clusterscope-screenshots-XXXXXX"));
    return dir.filePath(fileName);
}

} // namespace clusterscope::testsupport
