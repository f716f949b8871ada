#pragma once

// Spin boxes that say why they refuse input. QSpinBox silently drops a keystroke that takes the
// value out of range (10,000,000 GPUs is truncated, a minus sign ignored) and silently puts back the
// previous value when editing ends below the minimum (0 GPUs); QDoubleSpinBox does the same with
// decimals (a packet loss of 0.7, a negative token budget, "abc"). These emit inputRejected() with
// a sentence the status line can show, and tint the field for a few seconds (a fresh valid edit
// clears it) so the user sees which field refused the input.

#include <QDoubleSpinBox>
#include <QSpinBox>

#include <functional>

class QLineEdit;
class QTimer;

namespace clusterscope::views {

/// The tint and the "what was typed" bookkeeping both spin boxes share.
class SpinRejection : public QObject {
    Q_OBJECT
public:
    /// Watches `box` (its line edit `edit`); `why` says why a text is not a value of the box
    /// (empty: it is one).
    SpinRejection(QAbstractSpinBox* box, QLineEdit* edit, std::function<QString(const QString&)> why);
    /// Tints the box and emits rejected(why).
    void reject(const QString& why);
    void clearTint();
    bool isTinted() const { return m_tinted; }
    /// How long the tint stays (ms).
    static constexpr int kTintMs = 6000;

Q_SIGNALS:
    void rejected(const QString& message);

private:
    QAbstractSpinBox* m_box;
    QTimer* m_tintTimer;
    bool m_tinted = false;
    QString m_typed; ///< the text as last typed (cleared when editing ends)
};

class RangeSpinBox : public QSpinBox {
    Q_OBJECT
public:
    /// `label` names the field in the messages ("GPUs").
    RangeSpinBox(const QString& label, QWidget* parent = nullptr);

    /// Why `text` (as typed, with group separators, suffix) is not a value of this box, or empty
    /// when it is one.
    QString rejectionFor(const QString& text) const;
    /// Whether the field is tinted because input was just refused.
    bool isShowingRejection() const { return m_rejection->isTinted(); }
    /// How long the tint stays (ms).
    static constexpr int kTintMs = SpinRejection::kTintMs;

Q_SIGNALS:
    void inputRejected(const QString& message);

protected:
    QValidator::State validate(QString& input, int& pos) const override;

private:
    QString m_label;
    SpinRejection* m_rejection;
};

/// The same for decimal fields (oversubscription, packet loss, token budget, fractions).
class RangeDoubleSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    /// `label` names the field in the messages ("Packet loss").
    RangeDoubleSpinBox(const QString& label, QWidget* parent = nullptr);

    /// Why `text` (as typed, with group separators, suffix) is not a value of this box, or empty
    /// when it is one.
    QString rejectionFor(const QString& text) const;
    bool isShowingRejection() const { return m_rejection->isTinted(); }
    /// "0 to 0.5": the range as the tooltip and the messages state it.
    QString rangeText() const;

Q_SIGNALS:
    void inputRejected(const QString& message);

protected:
    QValidator::State validate(QString& input, int& pos) const override;

private:
    QString m_label;
    SpinRejection* m_rejection;
};

} // namespace clusterscope::views
