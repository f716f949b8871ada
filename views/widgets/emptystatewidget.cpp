#include "views/widgets/emptystatewidget.h"

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
    m_text->setMaximumWidth(640);
    m_text->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_title);
    layout->addWidget(m_text, 0, Qt::AlignHCenter);
    layout->addStretch(2);
}

void EmptyStateWidget::setText(const QString& text) { m_text->setText(text); }
QString EmptyStateWidget::text() const { return m_text->text(); }

} // namespace clusterscope::views
