#include "app/report/htmlbuilder.h"

namespace clusterscope::app {

namespace {

    QString alignAttribute(QChar a)
    {
        if (a == QLatin1Char('r'))
            return QStringLiteral(" align=\"right\"");
        if (a == QLatin1Char('c'))
            return QStringLiteral(" align=\"center\"");
        return QStringLiteral(" align=\"left\"");
    }

    QString classAttribute(const QString& cssClass)
    {
        return cssClass.isEmpty() ? QString()
                                  : QStringLiteral(" class=\"") + cssClass.toHtmlEscaped() + QLatin1Char('"');
    }

} // namespace

void HtmlBuilder::heading(int level, const QString& text, bool pageBreak)
{
    const QString tag = QLatin1Char('h') + QString::number(level);
    m_html += QLatin1Char('<') + tag
        + (pageBreak ? QStringLiteral(" class=\"newpage\" style=\"page-break-before: always\"") : QString())
        + QLatin1Char('>') + text.toHtmlEscaped() + QStringLiteral("</") + tag + QStringLiteral(">\n");
}

void HtmlBuilder::paragraph(const QString& text, const QString& cssClass)
{
    paragraphHtml(text.toHtmlEscaped(), cssClass);
}

void HtmlBuilder::paragraphHtml(const QString& html, const QString& cssClass)
{
    m_html += QStringLiteral("<p") + classAttribute(cssClass) + QLatin1Char('>') + html + QStringLiteral("</p>\n");
}

void HtmlBuilder::bullets(const QStringList& items)
{
    m_html += QStringLiteral("<ul>\n");
    for (const QString& item : items)
        m_html += QStringLiteral("<li>") + item.toHtmlEscaped() + QStringLiteral("</li>\n");
    m_html += QStringLiteral("</ul>\n");
}

void HtmlBuilder::beginTable(
    const QStringList& headers, const QString& alignments, const QString& cssClass, const QList<int>& widths)
{
    m_alignments = alignments;
    m_html += QStringLiteral("<table") + classAttribute(cssClass)
        + QStringLiteral(" width=\"100%\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n<thead><tr>");
    for (qsizetype i = 0; i < headers.size(); ++i)
        m_html += QStringLiteral("<th") + alignAttribute(i < alignments.size() ? alignments[i] : QLatin1Char('l'))
            + (i < widths.size() ? QStringLiteral(" width=\"") + QString::number(widths[i]) + QStringLiteral("%\"")
                                 : QString())
            + QLatin1Char('>') + headers[i].toHtmlEscaped() + QStringLiteral("</th>");
    m_html += QStringLiteral("</tr></thead>\n<tbody>\n");
}

void HtmlBuilder::row(const QStringList& cells, const QString& cssClass)
{
    m_html += QStringLiteral("<tr") + classAttribute(cssClass) + QLatin1Char('>');
    for (qsizetype i = 0; i < cells.size(); ++i) {
        const QChar align = i < m_alignments.size() ? m_alignments[i] : QLatin1Char('l');
        // Right-aligned cells hold numbers: a number broken over two lines ("$121,083,46" / "4")
        // reads as another number.
        m_html += QStringLiteral("<td") + alignAttribute(align)
            + (align == QLatin1Char('r') ? QStringLiteral(" nowrap=\"nowrap\"") : QString()) + QLatin1Char('>')
            + cells[i].toHtmlEscaped() + QStringLiteral("</td>");
    }
    m_html += QStringLiteral("</tr>\n");
}

void HtmlBuilder::spanRow(const QString& text, const QString& cssClass)
{
    m_html += QStringLiteral("<tr") + classAttribute(cssClass) + QStringLiteral("><td colspan=\"")
        + QString::number(std::max<qsizetype>(1, m_alignments.size())) + QStringLiteral("\">") + text.toHtmlEscaped()
        + QStringLiteral("</td></tr>\n");
}

void HtmlBuilder::endTable() { m_html += QStringLiteral("</tbody>\n</table>\n"); }

void HtmlBuilder::keyValueTable(const QList<QPair<QString, QString>>& pairs, int columns)
{
    m_html += QStringLiteral(
        "<table class=\"kv\" width=\"100%\" border=\"0\" cellspacing=\"0\" cellpadding=\"3\">\n<tbody>\n");
    for (qsizetype i = 0; i < pairs.size(); i += columns) {
        m_html += QStringLiteral("<tr>");
        for (int c = 0; c < columns; ++c) {
            if (i + c < pairs.size())
                m_html += QStringLiteral("<td class=\"key\">") + pairs[i + c].first.toHtmlEscaped()
                    + QStringLiteral("</td><td class=\"value\"")
                    // Short values are figures ("$121,083,464"): never broken inside.
                    + (pairs[i + c].second.size() <= 24 ? QStringLiteral(" nowrap=\"nowrap\"") : QString())
                    + QLatin1Char('>') + pairs[i + c].second.toHtmlEscaped() + QStringLiteral("</td>");
            else
                m_html += QStringLiteral("<td></td><td></td>");
        }
        m_html += QStringLiteral("</tr>\n");
    }
    m_html += QStringLiteral("</tbody>\n</table>\n");
}

void HtmlBuilder::image(const QString& source, const QString& alt, int widthPx)
{
    m_html += QStringLiteral("<p class=\"figure\"><img class=\"figure\" src=\"") + source.toHtmlEscaped()
        + QStringLiteral("\" alt=\"") + alt.toHtmlEscaped() + QStringLiteral("\" width=\"") + QString::number(widthPx)
        + QStringLiteral("\" /></p>\n");
}

} // namespace clusterscope::app
