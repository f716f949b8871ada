#pragma once

// Writes the report's markup: well-formed XHTML-style HTML that both QTextDocument (PDF, preview)
// and browsers read. Every text given is escaped; every element is closed.

#include <QString>
#include <QStringList>

namespace clusterscope::app {

class HtmlBuilder {
public:
    /// `pageBreak`: the heading starts a new printed page.
    void heading(int level, const QString& text, bool pageBreak = false);
    void paragraph(const QString& text, const QString& cssClass = {});
    /// A paragraph from markup the caller built (already escaped).
    void paragraphHtml(const QString& html, const QString& cssClass = {});
    void bullets(const QStringList& items);
    /// A table with a header row repeated on every printed page. `alignments` has one letter per
    /// column: 'l' left, 'r' right, 'c' centre.
    /// `widths`: optional column widths in percent of the table width.
    void beginTable(const QStringList& headers, const QString& alignments,
        const QString& cssClass = QStringLiteral("data"), const QList<int>& widths = {});
    void row(const QStringList& cells, const QString& cssClass = {});
    /// One cell spanning the whole row.
    void spanRow(const QString& text, const QString& cssClass = {});
    void endTable();
    /// Label/value pairs in `columns` pairs per row, no header.
    void keyValueTable(const QList<QPair<QString, QString>>& pairs, int columns = 1);
    void image(const QString& source, const QString& alt, int widthPx);
    void raw(const QString& html) { m_html += html; }
    const QString& html() const { return m_html; }

private:
    QString m_html;
    QString m_alignments;
};

} // namespace clusterscope::app
