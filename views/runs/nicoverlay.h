#pragma once

// Host NIC throughput drawn on a run's timeline axis: one line per host (the chosen host bold, the
// others faint), time mapped exactly as the timeline maps it (the visible window in ns on the run's
// wall clock and the x-range of its lanes), so traffic bursts line up with the GPU steps and
// collectives above. Points without samples break the line: gaps are gaps, never zeros. Without
// data it states why (no wall-clock time in the run, no telemetry source connected, ...).

#include <QString>
#include <QWidget>

#include <vector>

namespace clusterscope::views {

struct NicOverlayHost {
    QString host;
    std::vector<double> bytesPerS; ///< per step, NaN = no samples
};

class NicOverlay : public QWidget {
    Q_OBJECT
public:
    explicit NicOverlay(QWidget* parent = nullptr);

    /// Throughput from `startS` (seconds since the epoch) every `stepS` seconds.
    void setThroughput(double startS, double stepS, std::vector<NicOverlayHost> hosts);
    /// Shows `text` instead of lines (why there is nothing to draw).
    void setMessage(const QString& text);
    QString message() const { return m_message; }
    /// The host drawn bold (empty: all alike).
    void setHighlightedHost(const QString& host);
    QString highlightedHost() const { return m_highlighted; }
    /// The lines drawn (empty while a message is shown).
    const std::vector<NicOverlayHost>& hosts() const { return m_hosts; }
    /// The timeline's visible window (ns, the run's clock) and the x-range of its lanes (pixels).
    void setTimeAxis(double viewStartNs, double viewEndNs, int plotLeft, int plotRight);
    /// x of time `timeS` (seconds since the epoch) in this widget.
    double xOf(double timeS) const;
    /// y of a throughput in this widget (the scale runs to the largest value).
    double yOf(double bytesPerS) const;
    /// With lines 110 px high; with a message only a strip of two text lines (it takes no room
    /// from the timeline when there is nothing to draw).
    QSize sizeHint() const override;
    /// kMinimumLinesHeight with lines, else none: a message gives way first on a small screen.
    QSize minimumSizeHint() const override;
    static constexpr int kMinimumLinesHeight = 56;
    bool hasLines() const { return m_message.isEmpty() && !m_hosts.empty(); }

Q_SIGNALS:
    /// Lines replaced a message or the reverse (the strip's minimum height changed).
    void linesShownChanged(bool shown);

public:
protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void fitHeight();

    double m_startS = 0.0;
    double m_stepS = 1.0;
    std::vector<NicOverlayHost> m_hosts;
    double m_maxBytesPerS = 0.0;
    QString m_message;
    QString m_highlighted;
    double m_viewStartNs = 0.0;
    double m_viewEndNs = 1.0;
    int m_plotLeft = 0;
    int m_plotRight = -1; ///< -1: the widget's right edge
    bool m_linesShown = false;
};

} // namespace clusterscope::views
