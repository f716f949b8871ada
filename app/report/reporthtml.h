#pragma once

// The report as HTML: a self-contained file (images as data: URIs, print CSS) or the markup of a
// QTextDocument (images as document resources) for the PDF and the GUI's preview.

#include "app/report/reportdocument.h"

#include <QString>

#include <utility>
#include <vector>

class QTextDocument;

namespace clusterscope::app {

enum class ReportImageMode {
    Resources, ///< <img src="breakdown.png">: names registered with QTextDocument::addResource
    DataUris, ///< <img src="data:image/png;base64,...">: self-contained file
};

/// The report's pictures by the names the markup uses ("breakdown.png", "fabric-0.png", ...).
std::vector<std::pair<QString, QImage>> reportImages(const ReportDocument& doc);

/// The whole report as one well-formed HTML document (UTF-8 text).
QString reportHtml(const ReportDocument& doc, ReportImageMode mode);

/// Loads the report into `text` (images as resources, fonts, page-friendly style): what the PDF
/// prints and what a QTextBrowser shows as the export preview (`browser->document()`).
void fillTextDocument(const ReportDocument& doc, QTextDocument& text);

} // namespace clusterscope::app
