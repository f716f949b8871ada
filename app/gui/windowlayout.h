#pragma once

// The first window on a screen nobody has laid out yet: how large the main window opens and how
// wide its docks start, from the screen's available area. A laptop (1366x768) gets a window that
// fits with a readable editor; a 4K screen gets more room instead of a small window in a corner.

#include <QSize>

namespace clusterscope::app {

struct FirstLayout {
    QSize window; ///< the main window's size (pixels)
    int scenariosWidth = 0; ///< the scenario list dock (pixels)
    int editorWidth = 0; ///< the scenario editor dock (pixels)
};

/// The layout for a screen whose available geometry (without panels) is `available` pixels.
FirstLayout firstLayoutFor(QSize available);

} // namespace clusterscope::app
