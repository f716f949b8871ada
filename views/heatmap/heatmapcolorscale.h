#pragma once

// The heatmap's logarithmic colour scale: bytes per iteration mapped to viridis over whole decades
// (the range of the cells on screen, rounded out to powers of ten), with SI byte labels.

#include <QColor>
#include <QString>
#include <QVector>

namespace clusterscope::views {

class HeatmapColorScale {
public:
    /// Scale covering [minPositiveBytes, maxBytes] rounded out to decades (at least one decade).
    /// Both 0 (no traffic) gives an empty scale: every value maps to the zero colour.
    static HeatmapColorScale forRange(double minPositiveBytes, double maxBytes);

    bool isEmpty() const { return m_hiDecade <= m_loDecade; }
    int lowDecade() const { return m_loDecade; } ///< the scale starts at 10^lowDecade bytes
    int highDecade() const { return m_hiDecade; } ///< and ends at 10^highDecade bytes
    /// Position of `bytes` on the scale in [0, 1]; -1 for zero (no traffic).
    double position(double bytes) const;
    QRgb rgb(double bytes) const;
    /// Colour index of `bytes` (0 .. 255, monotonic in bytes); -1 for zero.
    int index(double bytes) const;
    static QRgb viridisAt(int index); ///< index 0 .. 255
    /// Viridis at `t` in [0, 1] (matplotlib's colormap, van der Walt and Smith 2015), from a
    /// 256-entry table; dark purple at 0, yellow at 1, luminance rising monotonically.
    static QRgb viridis(double t);
    static QRgb zeroRgb() { return qRgb(244, 244, 246); }
    /// Decades to label on the legend (every one, or every n-th when there are more than 8).
    QVector<int> tickDecades() const;

    /// "0 B", "512 B", "1.5 kB", "8.8 GB", "616 TB": SI prefixes of 1000 (units.h), three significant digits.
    static QString formatBytes(double bytes);

private:
    int m_loDecade = 0;
    int m_hiDecade = 0;
};

} // namespace clusterscope::views
