#include "app/report/reportwriter.h"

#include "app/report/reporthtml.h"
#include "engine/fabric/fabricbom.h"

#include <QAbstractTextDocumentLayout>
#include <QFontMetricsF>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

namespace clusterscope::app {

using engine::Status;

namespace {

    Status openFailure(const QString& path, const QSaveFile& file)
    {
        return Status::error("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    }

    /// Keeps headings with what follows them: a heading whose next block starts on a later page moves
    /// to that page (QTextDocument has no page-break-after: avoid). Repeated until the layout is stable.
    void keepHeadingsWithNext(QTextDocument& text, double pageHeight)
    {
        QAbstractTextDocumentLayout* layout = text.documentLayout();
        for (int pass = 0; pass < 100; ++pass) {
            bool changed = false;
            for (QTextBlock block = text.begin(); block.isValid(); block = block.next()) {
                const QTextBlock next = block.next();
                if (block.blockFormat().headingLevel() == 0 || !next.isValid()
                    || block.blockFormat().pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore)
                    continue;
                const int headingPage = int(layout->blockBoundingRect(block).top() / pageHeight);
                // A block moved past a page boundary keeps its top; its first line carries the move.
                double nextTop = layout->blockBoundingRect(next).top();
                if (next.layout() && next.layout()->lineCount() > 0)
                    nextTop += next.layout()->lineAt(0).y();
                const int nextPage = int(nextTop / pageHeight);
                if (nextPage > headingPage) {
                    QTextBlockFormat format;
                    format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
                    QTextCursor(block).mergeBlockFormat(format);
                    // An edit re-lays out the document lazily (the rest on a timer, which a headless run
                    // never gets): changing the page size lays it all out again, now.
                    const QSizeF pageSize = text.pageSize();
                    text.setPageSize(pageSize + QSizeF(0, 1));
                    text.setPageSize(pageSize);
                    changed = true;
                    break; // the layout below changed: measure again
                }
            }
            if (!changed)
                return;
        }
    }

    Status writeBytes(const QString& path, const QByteArray& bytes)
    {
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return openFailure(path, file);
        if (file.write(bytes) != bytes.size() || !file.commit())
            return openFailure(path, file);
        return Status::success();
    }

} // namespace

engine::Result<int> writePdf(const ReportDocument& doc, const QString& path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return openFailure(path, file);
    int pages = 0;
    {
        QPdfWriter writer(&file);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(16, 12, 16, 12), QPageLayout::Millimeter);
        // 96 dpi: the text layout's CSS pixels are device pixels. Text stays vector text and images
        // keep their full resolution (they are drawn scaled into their rectangles).
        writer.setResolution(96);
        writer.setTitle(doc.title);
        writer.setCreator(QStringLiteral("ClusterScope"));

        QTextDocument text;
        text.documentLayout()->setPaintDevice(&writer);
        fillTextDocument(doc, text);
        const QSizeF paint = writer.pageLayout().paintRectPixels(writer.resolution()).size();
        const double headerHeight = 26, footerHeight = 26;
        const QSizeF body(paint.width(), paint.height() - headerHeight - footerHeight);
        text.setPageSize(body);
        keepHeadingsWithNext(text, body.height());
        pages = text.pageCount();

        QPainter painter;
        if (!painter.begin(&writer))
            return Status::error("cannot write " + path.toStdString() + ": the PDF writer did not start");
        QFont small(QStringLiteral("DejaVu Sans"));
        small.setPointSizeF(7.5);
        const QColor grey(0x66, 0x66, 0x66);
        for (int page = 0; page < pages; ++page) {
            if (page > 0)
                writer.newPage();
            painter.setFont(small);
            painter.setPen(grey);
            const QFontMetricsF fm(small, &writer);
            painter.drawText(QRectF(0, 0, paint.width() * 0.7, headerHeight - 8), Qt::AlignLeft | Qt::AlignBottom,
                fm.elidedText(
                    QStringLiteral("ClusterScope report · ") + doc.title, Qt::ElideRight, paint.width() * 0.7));
            painter.drawText(QRectF(paint.width() * 0.7, 0, paint.width() * 0.3, headerHeight - 8),
                Qt::AlignRight | Qt::AlignBottom, doc.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")));
            painter.setPen(QPen(QColor(0x1a, 0x4d, 0x80), 0.8));
            painter.drawLine(QPointF(0, headerHeight - 4), QPointF(paint.width(), headerHeight - 4));

            painter.save();
            painter.translate(0, headerHeight);
            painter.setClipRect(QRectF(QPointF(0, 0), body));
            painter.translate(0, -page * body.height());
            QAbstractTextDocumentLayout::PaintContext context;
            context.clip = QRectF(0, page * body.height(), body.width(), body.height());
            text.documentLayout()->draw(&painter, context);
            painter.restore();

            const double footerTop = paint.height() - footerHeight;
            painter.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 0.6));
            painter.drawLine(QPointF(0, footerTop + 4), QPointF(paint.width(), footerTop + 4));
            painter.setPen(grey);
            painter.setFont(small);
            painter.drawText(QRectF(0, footerTop + 6, paint.width() * 0.75, footerHeight - 6),
                Qt::AlignLeft | Qt::AlignTop,
                fm.elidedText(QStringLiteral("Prices: ") + doc.priceBookName
                        + (doc.calibration ? QStringLiteral(" · calibration stored: ") + doc.calibrationName
                                           : QStringLiteral(" · uncalibrated model")),
                    Qt::ElideRight, paint.width() * 0.75));
            painter.drawText(QRectF(paint.width() * 0.75, footerTop + 6, paint.width() * 0.25, footerHeight - 6),
                Qt::AlignRight | Qt::AlignTop,
                QStringLiteral("Page ") + QString::number(page + 1) + QStringLiteral(" of ") + QString::number(pages));
        }
        painter.end();
    }
    if (!file.commit())
        return openFailure(path, file);
    return pages;
}

Status writeHtml(const ReportDocument& doc, const QString& path)
{
    return writeBytes(path, reportHtml(doc, ReportImageMode::DataUris).toUtf8());
}

Status writeBomCsv(const ReportDocument& doc, const QString& path)
{
    const auto& bom = doc.scenarios.front().analysis.bom;
    if (!bom)
        return Status::error("cannot write " + path.toStdString() + ": the report has no bill of materials");
    return writeBytes(path, QByteArray::fromStdString(engine::bomCsv(*bom)));
}

} // namespace clusterscope::app
