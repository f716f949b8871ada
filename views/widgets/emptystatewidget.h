#pragma once

#include <QWidget>

class QLabel;

namespace clusterscope::views {

/// A plain, labelled empty state: what the tab will show and why it shows nothing now.
class EmptyStateWidget : public QWidget {
    Q_OBJECT
public:
    EmptyStateWidget(const QString& title, const QString& text, QWidget* parent = nullptr);
    void setText(const QString& text);
    QString text() const;

private:
    QLabel* m_title;
    QLabel* m_text;
};

} // namespace clusterscope::views
