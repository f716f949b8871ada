#pragma once

#include <QStyledItemDelegate>

class QTreeView;

namespace clusterscope::views {

/// Draws each item's text wrapped to the width of its column (at word boundaries, and inside a
/// word only when the word alone is wider than the column: cable names such as
/// "MF0;leaf-5:MQM8700/U1" have no spaces) and makes its row as tall as the wrapped text needs.
/// Made for a tree in a narrow dock, where one line per item would cut every row's text.
class WrappingItemDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    /// Installs a delegate on `view` (which owns it) and lays the rows out again whenever a
    /// column's width changes (the rows' heights depend on it).
    static WrappingItemDelegate* install(QTreeView* view);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    /// The width (px) the text of `index` is wrapped to: its column's width less the tree's
    /// indentation (column 0) and the text margins.
    int textWidth(const QModelIndex& index) const;
    /// The height (px) the text of `index` needs, wrapped to textWidth().
    int textHeight(const QModelIndex& index) const;

private:
    explicit WrappingItemDelegate(QTreeView* view);
    int wrappedHeight(const QString& text, const QFont& font, int width) const;

    QTreeView* m_view;
};

} // namespace clusterscope::views
