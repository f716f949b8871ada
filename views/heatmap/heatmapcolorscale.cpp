#include "views/heatmap/heatmapcolorscale.h"

#include <QLocale>

#include <algorithm>
#include <array>
#include <cmath>

namespace clusterscope::views {

namespace {

    // Viridis sampled at entries 0, 32, ..., 224, 255 of matplotlib's 256-entry table (_cm_listed.py,
    // _viridis_data, scaled to 0-255); linear interpolation between the stops follows the full table
    // closely enough for a legend-read heatmap.
    constexpr std::array<std::array<int, 3>, 9> kViridisStops { { { 68, 1, 84 }, { 72, 36, 117 }, { 59, 82, 139 },
        { 44, 114, 142 }, { 33, 145, 140 }, { 34, 168, 132 }, { 94, 201, 98 }, { 173, 220, 48 }, { 253, 231, 37 } } };

    std::array<QRgb, 256> buildTable()
    {
        std::array<QRgb, 256> table {};
        for (int i = 0; i < 256; ++i) {
            const double x = i / 255.0 * 8.0;
            const int k = std::min(7, static_cast<int>(x));
            const double f = x - k;
            int c[3];
            for (int ch = 0; ch < 3; ++ch)
                c[ch] = static_cast<int>(std::lround(kViridisStops[k][ch] * (1.0 - f) + kViridisStops[k + 1][ch] * f));
            table[i] = qRgb(c[0], c[1], c[2]);
        }
        return table;
    }

} // namespace

HeatmapColorScale HeatmapColorScale::forRange(double minPositiveBytes, double maxBytes)
{
    HeatmapColorScale s;
    if (!(maxBytes > 0))
        return s;
    if (!(minPositiveBytes > 0) || minPositiveBytes > maxBytes)
        minPositiveBytes = maxBytes;
    s.m_loDecade = static_cast<int>(std::floor(std::log10(minPositiveBytes)));
    s.m_hiDecade = static_cast<int>(std::ceil(std::log10(maxBytes)));
    if (s.m_hiDecade <= s.m_loDecade)
        s.m_hiDecade = s.m_loDecade + 1;
    return s;
}

double HeatmapColorScale::position(double bytes) const
{
    if (!(bytes > 0) || isEmpty())
        return -1.0;
    const double t = (std::log10(bytes) - m_loDecade) / (m_hiDecade - m_loDecade);
    return std::clamp(t, 0.0, 1.0);
}

QRgb HeatmapColorScale::rgb(double bytes) const
{
    const double t = position(bytes);
    return t < 0 ? zeroRgb() : viridis(t);
}

int HeatmapColorScale::index(double bytes) const
{
    const double t = position(bytes);
    return t < 0 ? -1 : static_cast<int>(std::lround(t * 255.0));
}

QRgb HeatmapColorScale::viridisAt(int index)
{
    static const std::array<QRgb, 256> table = buildTable();
    return table[static_cast<std::size_t>(std::clamp(index, 0, 255))];
}

QRgb HeatmapColorScale::viridis(double t)
{
    return viridisAt(static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * 255.0)));
}

QVector<int> HeatmapColorScale::tickDecades() const
{
    QVector<int> ticks;
    if (isEmpty())
        return ticks;
    const int span = m_hiDecade - m_loDecade;
    const int step = span > 8 ? (span + 7) / 8 : 1;
    for (int d = m_loDecade; d <= m_hiDecade; d += step)
        ticks.append(d);
    return ticks;
}

QString HeatmapColorScale::formatBytes(double bytes)
{
    if (!(bytes > 0))
        return QStringLiteral("0 B");
    static const char* const prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
    int p = 0;
    double v = bytes;
    while (v >= 999.5 && p < 6) {
        v /= 1000.0;
        ++p;
    }
    // Three significant digits: 1.50, 15.0, 150; whole bytes have no decimals.
    const int decimals = p == 0 ? 0 : v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
    QString number = QLocale::c().toString(v, 'f', decimals);
    if (number.contains(QLatin1Char('.'))) {
        while (number.endsWith(QLatin1Char('0')))
            number.chop(1);
        if (number.endsWith(QLatin1Char('.')))
            number.chop(1);
    }
    return number + QLatin1Char(' ') + QLatin1String(prefixes[p]) + QLatin1Char('B');
}

} // namespace clusterscope::views
