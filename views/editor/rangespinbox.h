#pragma once

// A QSpinBox that says why it refuses input. QSpinBox silently drops a keystroke that takes the
// value out of range (10,000,000 GPUs is truncated, a minus sign ignored) and silently puts back the
// previous value when editing ends below the minimum (0 GPUs): this one emits inputRejected() with a
// sentence the status line can show, and tints the field for a few seconds (a fresh valid edit
// clears it) so the user sees which field refused the input.

#include <QSpinBox>

class QTimer;

namespace clusterscope::views {

class RangeSpinBox : public QSpinBox {
    Q_OBJECT
public:
    /// `label` names the field in the messages ("GPUs").
    RangeSpinBox(const QString& label, QWidget* parent = nullptr);

    /// Why `text` (as typed, with group separators, suffix) is not a value of this box, or empty
    /// when it is one.
    QString rejectionFor(const QString& text) const;
    /// Whether the field is tinted because input was just refused.
    bool isShowingRejection() const { return m_tinted; }
    /// How long the tint stays (ms).
    static constexpr int kTintMs = 6000;

Q_SIGNALS:
    void inputRejected(const QString& message);

protected:
    QValidator::State validate(QString& input, int& pos) const override;

private:
    void reject(const QString& why);
    void clearTint();

    QString m_label;
    QTimer* m_tintTimer;
    bool m_tinted = false;
    QString m_typed; ///< the text as last typed (cleared when editing ends)
};

} // namespace clusterscope::views
