#include "views/editor/rangespinbox.h"

#include <QLineEdit>
#include <QLocale>
#include <QTimer>

#include <utility>

namespace clusterscope::views {

namespace {

    /// `text` without the box's prefix, suffix, surrounding blanks and group separators.
    QString bareNumber(QString text, const QString& prefix, const QString& suffix, const QLocale& l)
    {
        if (!suffix.isEmpty() && text.endsWith(suffix))
            text.chop(suffix.size());
        if (!prefix.isEmpty() && text.startsWith(prefix))
            text.remove(0, prefix.size());
        text = text.trimmed();
        text.remove(l.groupSeparator());
        return text;
    }

    bool negative(const QString& number, const QLocale& l)
    {
        return number.startsWith(QLatin1Char('-')) || number.startsWith(l.negativeSign());
    }

} // namespace

SpinRejection::SpinRejection(QAbstractSpinBox* box, QLineEdit* edit, std::function<QString(const QString&)> why)
    : QObject(box)
    , m_box(box)
    , m_tintTimer(new QTimer(this))
{
    m_tintTimer->setSingleShot(true);
    m_tintTimer->setInterval(kTintMs);
    connect(m_tintTimer, &QTimer::timeout, this, &SpinRejection::clearTint);
    // What was typed, to say why it was not taken when editing ends (the spin box puts the
    // previous value back without a word when the text is out of range, e.g. 0 below a minimum of 1).
    connect(edit, &QLineEdit::textEdited, this, [this](const QString& text) { m_typed = text; });
    connect(box, &QAbstractSpinBox::editingFinished, this, [this, why = std::move(why)] {
        const QString typed = std::exchange(m_typed, QString());
        if (typed.isEmpty() || typed == m_box->text())
            return;
        if (const QString message = why(typed); !message.isEmpty())
            reject(message);
    });
}

void SpinRejection::reject(const QString& why)
{
    // A light red field while the status line explains (palette, not a style sheet: the style's
    // frame and arrows stay as they are).
    if (!m_tinted) {
        QPalette p = m_box->palette();
        p.setColor(QPalette::Base, QColor(0xff, 0xd8, 0xd8));
        m_box->setPalette(p);
        m_tinted = true;
    }
    m_tintTimer->start();
    Q_EMIT rejected(why);
}

void SpinRejection::clearTint()
{
    if (!m_tinted)
        return;
    m_tinted = false;
    m_tintTimer->stop();
    m_box->setPalette(QPalette());
}

RangeSpinBox::RangeSpinBox(const QString& label, QWidget* parent)
    : QSpinBox(parent)
    , m_label(label)
    , m_rejection(new SpinRejection(this, lineEdit(), [this](const QString& text) { return rejectionFor(text); }))
{
    connect(m_rejection, &SpinRejection::rejected, this, &RangeSpinBox::inputRejected);
    connect(this, &QSpinBox::valueChanged, m_rejection, &SpinRejection::clearTint);
}

QString RangeSpinBox::rejectionFor(const QString& text) const
{
    const QLocale l = locale();
    QString digits = bareNumber(text, prefix(), suffix(), l);
    if (digits.isEmpty())
        return {};
    const QString range = tr("%1 to %2").arg(l.toString(minimum()), l.toString(maximum()));
    if (negative(digits, l)) {
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
        if (const QString why = rejectionFor(input); !why.isEmpty())
            m_rejection->reject(why);
    }
    return state;
}

RangeDoubleSpinBox::RangeDoubleSpinBox(const QString& label, QWidget* parent)
    : QDoubleSpinBox(parent)
    , m_label(label)
    , m_rejection(new SpinRejection(this, lineEdit(), [this](const QString& text) { return rejectionFor(text); }))
{
    connect(m_rejection, &SpinRejection::rejected, this, &RangeDoubleSpinBox::inputRejected);
    connect(this, &QDoubleSpinBox::valueChanged, m_rejection, &SpinRejection::clearTint);
}

QString RangeDoubleSpinBox::rangeText() const
{
    const QLocale l = locale();
    return tr("%1 to %2").arg(l.toString(minimum(), 'g', 6), l.toString(maximum(), 'g', 6));
}

QString RangeDoubleSpinBox::rejectionFor(const QString& text) const
{
    const QLocale l = locale();
    QString number = bareNumber(text, prefix(), suffix(), l);
    if (number.isEmpty())
        return {};
    const QString range = rangeText();
    const QString kept = l.toString(value(), 'g', 6);
    if (negative(number, l)) {
        if (minimum() >= 0)
            return tr("%1 cannot be negative (range %2); kept %3.").arg(m_label, range, kept);
        number.remove(0, 1);
        if (number.isEmpty())
            return {};
        number.prepend(QLatin1Char('-'));
    }
    // Digits and one decimal point only: QDoubleSpinBox takes no exponent and no other letters.
    const QString point = l.decimalPoint();
    const qsizetype pointAt = number.indexOf(point);
    bool digitsOnly = !number.isEmpty();
    for (qsizetype i = number.startsWith(QLatin1Char('-')) ? 1 : 0; i < number.size(); ++i)
        digitsOnly = digitsOnly && (number[i].isDigit() || i == pointAt);
    bool ok = false;
    const double v = digitsOnly ? l.toDouble(number, &ok) : 0.0;
    if (!ok && !(digitsOnly && number == point))
        return tr("%1: \"%2\" is not a number (range %3); kept %4.").arg(m_label, text.trimmed(), range, kept);
    if (pointAt >= 0 && number.size() - pointAt - 1 > decimals())
        return tr("%1 takes at most %2 decimal places (range %3); kept %4.")
            .arg(m_label, l.toString(decimals()), range, kept);
    if (v > maximum())
        return tr("%1: %2 is above the maximum %3; kept %4.")
            .arg(m_label, l.toString(v, 'g', 6), l.toString(maximum(), 'g', 6), kept);
    if (v < minimum())
        return tr("%1: %2 is below the minimum %3; kept %4.")
            .arg(m_label, l.toString(v, 'g', 6), l.toString(minimum(), 'g', 6), kept);
    return {};
}

QValidator::State RangeDoubleSpinBox::validate(QString& input, int& pos) const
{
    const QValidator::State state = QDoubleSpinBox::validate(input, pos);
    // Invalid: the keystroke is refused; say why (QDoubleSpinBox would drop it without a word).
    if (state == QValidator::Invalid) {
        if (const QString why = rejectionFor(input); !why.isEmpty())
            m_rejection->reject(why);
    }
    return state;
}

} // namespace clusterscope::views
