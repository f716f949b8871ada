#include "views/widgets/wrappingitemdelegate.h"

#include <QApplication>
#include <QHeaderView>
#include <QPainter>
#include <QTextLayout>
#include <QTreeView>

#include <algorithm>
#include <cmath>

namespace clusterscope::views {

namespace {
    QTextOption wrapOption()
    {
        QTextOption option(Qt::AlignLeft | Qt::AlignVCenter);
        option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        return option;
    }

    // The horizontal margin a style leaves on each side of an item's text (as QCommonStyle does).
    int textMargin(const QWidget* widget)
    {
        const QStyle* style = widget ? widget->style() : QApplication::style();
        return style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    }
}

WrappingItemDelegate::WrappingItemDelegate(QTreeView* view)
    : QStyledItemDelegate(view)
    , m_view(view)
{
}

WrappingItemDelegate* WrappingItemDelegate::install(QTreeView* view)
{
    auto* delegate = new WrappingItemDelegate(view);
    view->setItemDelegate(delegate);
    view->setWordWrap(true);
    view->setUniformRowHeights(false);
    view->setTextElideMode(Qt::ElideNone);
    view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Queued: the rows are laid out once the header has its new widths.
    QObject::connect(
        view->header(), &QHeaderView::sectionResized, view, &QTreeView::doItemsLayout, Qt::QueuedConnection);
    return delegate;
}

int WrappingItemDelegate::textWidth(const QModelIndex& index) const
{
    int width = m_view->header()->sectionSize(index.column()) - 2 * textMargin(m_view);
    if (index.column() == 0) {
        int depth = 0;
        for (QModelIndex p = index.parent(); p.isValid(); p = p.parent())
            ++depth;
        width -= m_view->indentation() * (depth + (m_view->rootIsDecorated() ? 1 : 0));
    }
    return std::max(1, width);
}

int WrappingItemDelegate::wrappedHeight(const QString& text, const QFont& font, int width) const
{
    QTextLayout layout(text, font);
    layout.setTextOption(wrapOption());
    qreal height = 0;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        height += line.height();
    }
    layout.endLayout();
    return int(std::ceil(height));
}

int WrappingItemDelegate::textHeight(const QModelIndex& index) const
{
    QStyleOptionViewItem option;
    option.initFrom(m_view);
    initStyleOption(&option, index);
    return wrappedHeight(option.text, option.font, textWidth(index));
}

QSize WrappingItemDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QSize base = QStyledItemDelegate::sizeHint(opt, index);
    return { base.width(), std::max(base.height(), wrappedHeight(text, opt.font, textWidth(index)) + 4) };
}

void WrappingItemDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    // Background, selection and focus as the style draws them; the text wrapped on top.
    const QWidget* widget = opt.widget;
    const QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    const bool selected = opt.state & QStyle::State_Selected;
    const QVariant foreground = index.data(Qt::ForegroundRole);
    QColor color = opt.palette.color(opt.state & QStyle::State_Enabled ? QPalette::Normal : QPalette::Disabled,
        selected ? QPalette::HighlightedText : QPalette::Text);
    if (!selected && foreground.isValid() && foreground.canConvert<QBrush>())
        color = foreground.value<QBrush>().color();
    const int margin = textMargin(widget);
    const QRect textRect = opt.rect.adjusted(margin, 0, -margin, 0);
    painter->save();
    painter->setPen(color);
    painter->setFont(opt.font);
    painter->drawText(QRectF(textRect), text, wrapOption());
    painter->restore();
}

} // namespace clusterscope::views
