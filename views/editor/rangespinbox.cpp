#include "views/editor/rangespinbox.h"

#include <QLineEdit>
#include <QLocale>
#include <QTimer>

#include <utility>

namespace clusterscope::views {

RangeSpinBox::RangeSpinBox(const QString& label, QWidget* parent)
    : QSpinBox(parent)
    , m_label(label)
    , m_tintTimer(new QTimer(this))
{
    m_tintTimer->setSingleShot(true);
    m_tintTimer->setInterval(kTintMs);
    connect(m_tintTimer, &QTimer::timeout, this, &RangeSpinBox::clearTint);
    connect(this, &QSpinBox::valueChanged, this, &RangeSpinBox::clearTint);
    // What was typed, to say why it was not taken when editing ends (QSpinBox puts the previous
    // value back without a word when the text is out of range, e.g. 0 below a minimum of 1).
    connect(lineEdit(), &QLineEdit::textEdited, this, [this](const QString& text) { m_typed = text; });
    connect(this, &QAbstractSpinBox::editingFinished, this, [this] {
        const QString typed = std::exchange(m_typed, QString());
        if (typed.isEmpty() || typed == text())
            return;
        if (const QString why = rejectionFor(typed); !why.isEmpty())
            reject(why);
    });
}

void RangeSpinBox::reject(const QString& why)
{
    // A light red field while the status line explains (palette, not a style sheet: the style's
    // frame and arrows stay as they are).
    if (!m_tinted) {
        QPalette p = palette();
        p.setColor(QPalette::Base, QColor(0xff, 0xd8, 0xd8));
        setPalette(p);
        m_tinted = true;
    }
    m_tintTimer->start();
    Q_EMIT inputRejected(why);
}

void RangeSpinBox::clearTint()
{
    if (!m_tinted)
        return;
    m_tinted = false;
    m_tintTimer->stop();
    setPalette(QPalette());
}

QString RangeSpinBox::rejectionFor(const QString& text) const
{
    QString digits = text;
    if (!suffix().isEmpty() && digits.endsWith(suffix()))
        digits.chop(suffix().size());
    if (!prefix().isEmpty() && digits.startsWith(prefix()))
        digits.remove(0, prefix().size());
    digits = digits.trimmed();
    if (digits.isEmpty())
        return {};
    const QLocale l = locale();
    const QString range = tr("%1 to %2").arg(l.toString(minimum()), l.toString(maximum()));
    digits.remove(l.groupSeparator());
    if (digits.startsWith(QLatin1Char('-')) || digits.startsWith(l.negativeSign())) {
        if (minimum() >= 0)
            return tr("%1 cannot be negative (range %2); kept %3.").arg(m_label, range, l.toString(value()));
        digits.remove(0, 1);
        if (digits.isEmpty())
            return {};
        digits.prepend(QLatin1Char('-'));
    }
    bool ok = false;
    const qlonglong v = digits.toLongLong(&ok);
    if (!ok)
        return tr("%1: \"%2\" is not a whole number (range %3); kept %4.")
            .arg(m_label, text.trimmed(), range, l.toString(value()));
    if (v > maximum())
        return tr("%1: %2 is above the maximum %3; kept %4.")
            .arg(m_label, l.toString(v), l.toString(maximum()), l.toString(value()));
    if (v < minimum())
        return tr("%1: %2 is below the minimum %3; kept %4.")
            .arg(m_label, l.toString(v), l.toString(minimum()), l.toString(value()));
    return {};
}

QValidator::State RangeSpinBox::validate(QString& input, int& pos) const
{
    const QValidator::State state = QSpinBox::validate(input, pos);
    // Invalid: the keystroke is refused; say why (QSpinBox would drop it without a word).
    if (state == QValidator::Invalid) {
        const QString why = rejectionFor(input);
        if (!why.isEmpty())
            const_cast<RangeSpinBox*>(this)->reject(why);
    }
    return state;
}

} // namespace clusterscope::views
