#include "app/report/reporthtml.h"

#include "app/report/htmlbuilder.h"
#include "app/report/reportsections.h"

#include <QBuffer>
#include <QTextDocument>
#include <QUrl>

namespace clusterscope::app {

namespace {

    // Understood by QTextDocument (a subset of CSS 2) and by browsers; the @media rules only by browsers.
    const char* const kStyle = R"(
body { font-family: 'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif; font-size: 9pt; color: #222222; }
h1 { font-size: 18pt; color: #15324f; margin-top: 2pt; margin-bottom: 8pt; }
h2 { font-size: 13pt; color: #1a4d80; margin-top: 16pt; margin-bottom: 6pt; }
h3 { font-size: 10.5pt; color: #333333; margin-top: 10pt; margin-bottom: 4pt; }
p { margin-top: 3pt; margin-bottom: 3pt; }
p.kicker { color: #1a4d80; font-size: 9pt; font-weight: bold; margin-bottom: 0pt; }
p.caption { color: #666666; font-size: 7.5pt; }
p.figure { margin-top: 4pt; margin-bottom: 2pt; }
table.data { border-collapse: collapse; border-color: #b8c4d0; margin-top: 2pt; margin-bottom: 6pt; font-size: 8pt; }
table.data th { background-color: #1a4d80; color: #ffffff; font-weight: bold; }
table.small { font-size: 7pt; }
table.bom { font-size: 7.5pt; }
tr.total td { background-color: #eef3f8; }
tr.grand td { background-color: #d7e3f0; font-weight: bold; }
tr.base td { background-color: #f1f6ea; }
table.kv { margin-bottom: 4pt; }
td.key { color: #4a5a6a; font-weight: bold; }
ul { margin-top: 2pt; margin-bottom: 4pt; }
)";

    const char* const kBrowserStyle = R"(
body { max-width: 60em; margin: 2em auto; padding: 0 1em; line-height: 1.35; }
h2 { border-bottom: 2px solid #1a4d80; padding-bottom: 2px; }
table.data, table.data th, table.data td { border: 1px solid #b8c4d0; }
table.data th, table.data td { padding: 3px 6px; }
td.key { width: 22%; vertical-align: top; }
img.figure { width: 100%; height: auto; }
@media print {
  body { max-width: none; margin: 0; font-size: 8.5pt; }
  h2.newpage { page-break-before: always; }
  tr, img { page-break-inside: avoid; }
  thead { display: table-header-group; }
}
@page { size: A4; margin: 16mm 14mm; }
)";

    QString sourceOf(const QString& name, const QImage& image, ReportImageMode mode)
    {
        if (mode == ReportImageMode::Resources)
            return name;
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "PNG");
        return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
    }

    QString body(const ReportDocument& doc, ReportImageMode mode)
    {
        const auto images = reportImages(doc);
        ReportImageSources sources;
        sources.breakdown = sourceOf(images[0].first, images[0].second, mode);
        for (std::size_t i = 1; i < images.size(); ++i)
            sources.fabric.push_back(sourceOf(images[i].first, images[i].second, mode));

        HtmlBuilder html;
        appendTitle(html, doc);
        appendSummary(html, doc, sources);
        const bool comparison = doc.scenarios.size() > 1;
        for (std::size_t i = 0; i < doc.scenarios.size(); ++i) {
            const ReportScenario& rs = doc.scenarios[i];
            if (comparison)
                html.heading(2, QStringLiteral("Scenario: ") + QString::fromStdString(rs.scenario.name), true);
            appendFabric(html, rs, sources.fabric[i], sources.widthPx);
            appendBom(html, rs, doc);
            appendPerformance(html, rs, comparison ? QString() : sources.breakdown, sources.widthPx);
            appendFindings(html, rs);
            appendSensitivity(html, rs);
        }
        if (doc.run)
            appendRun(html, *doc.run);
        appendAssumptions(html, doc);
        return html.html();
    }

} // namespace

std::vector<std::pair<QString, QImage>> reportImages(const ReportDocument& doc)
{
    std::vector<std::pair<QString, QImage>> images;
    images.emplace_back(QStringLiteral("breakdown.png"), doc.breakdownChart);
    for (std::size_t i = 0; i < doc.scenarios.size(); ++i)
        images.emplace_back(
            QStringLiteral("fabric-") + QString::number(i) + QStringLiteral(".png"), doc.scenarios[i].fabricPicture);
    return images;
}

QString reportHtml(const ReportDocument& doc, ReportImageMode mode)
{
    QString style = QString::fromLatin1(kStyle);
    if (mode == ReportImageMode::DataUris)
        style += QString::fromLatin1(kBrowserStyle);
    return QStringLiteral("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                          "<meta charset=\"utf-8\" />\n<meta name=\"generator\" content=\"ClusterScope\" />\n<title>")
        + doc.title.toHtmlEscaped() + QStringLiteral("</title>\n<style type=\"text/css\">") + style
        + QStringLiteral("</style>\n</head>\n<body>\n") + body(doc, mode) + QStringLiteral("</body>\n</html>\n");
}

void fillTextDocument(const ReportDocument& doc, QTextDocument& text)
{
    text.clear();
    for (const auto& [name, image] : reportImages(doc))
        text.addResource(QTextDocument::ImageResource, QUrl(name), image);
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(9);
    // No ligatures: "fi" stays two letters that search and copy find in the PDF.
    font.setStyleStrategy(QFont::PreferNoShaping);
    text.setDefaultFont(font);
    text.setDocumentMargin(2);
    text.setHtml(reportHtml(doc, ReportImageMode::Resources));
    text.setMetaInformation(QTextDocument::DocumentTitle, doc.title);
}

} // namespace clusterscope::app
