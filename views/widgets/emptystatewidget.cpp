#include "views/widgets/emptystatewidget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace clusterscope::views {

EmptyStateWidget::EmptyStateWidget(const QString& title, const QString& text, QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(title, this))
    , m_text(new QLabel(text, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->addStretch(1);
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setAlignment(Qt::AlignCenter);
    m_text->setAlignment(Qt::AlignCenter);
    m_text->setWordWrap(true);
    m_text->setMaximumWidth(720);
    m_text->setForegroundRole(QPalette::PlaceholderText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    // A wrapped label placed with an alignment gets the row height the layout computed for the
    // full width, but is drawn narrower (more lines): its text is cut top and bottom. Centring it
    // between stretches instead lets the row's height follow the label's real width.
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_text, 8);
    row->addStretch(1);
    layout->addLayout(row);
    layout->addStretch(2);
}

void EmptyStateWidget::setText(const QString& text) { m_text->setText(text); }
QString EmptyStateWidget::text() const { return m_text->text(); }

} // namespace clusterscope::views
