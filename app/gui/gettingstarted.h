#pragma once

// Help > Getting Started: a short guide to the window and the command-line examples of the README.

#include <QString>

class QWidget;

namespace clusterscope::app {

/// The guide as HTML (also what the dialog shows).
QString gettingStartedHtml();
/// Shows the guide in a non-modal dialog owned by `parent`.
void showGettingStarted(QWidget* parent);

} // namespace clusterscope::app
