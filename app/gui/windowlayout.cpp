#include "app/gui/windowlayout.h"

#include <algorithm>

namespace clusterscope::app {

FirstLayout firstLayoutFor(QSize available)
{
    FirstLayout l;
    // 92% of the screen leaves the desktop visible around the window; 2400x1500 is as large as a
    // first window usefully gets (4K screens at 100% scaling) before rows of the tables get lost.
    const int width = std::min({ available.width(), std::max(1024, int(available.width() * 0.92)), 2400 });
    const int height = std::min({ available.height(), std::max(700, int(available.height() * 0.92)), 1500 });
    l.window = QSize(width, height);
    // The editor's labels and fields need ~300 px to be readable; the list a little less. Both
    // grow with the screen, never taking more than ~40% from the tabs.
    l.scenariosWidth = std::clamp(int(width * 0.14), 170, 320);
    l.editorWidth = std::clamp(int(width * 0.26), 320, 560);
    return l;
}

} // namespace clusterscope::app
