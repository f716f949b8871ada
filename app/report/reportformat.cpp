#include "app/report/reportformat.h"

#include <cmath>

namespace clusterscope::app {

namespace {

    QString groupThousands(const QString& digits)
    {
        QString out;
        const bool negative = digits.startsWith(QLatin1Char('-'));
        const QString body = negative ? digits.mid(1) : digits;
        for (qsizetype i = 0; i < body.size(); ++i) {
            out += body[i];
            const qsizetype left = body.size() - i - 1;
            if (left > 0 && left % 3 == 0)
                out += QLatin1Char(',');
        }
        return negative ? QLatin1Char('-') + out : out;
    }

} // namespace

QString formatUsd(double usd)
{
    const double rounded = std::round(usd);
    const QString digits = QString::number(std::fabs(rounded), 'f', 0);
    return (rounded < 0 ? QStringLiteral("-$") : QStringLiteral("$")) + groupThousands(digits);
}

QString formatUsdCents(double usd)
{
    const double whole = std::floor(std::fabs(usd));
    const int cents = int(std::lround((std::fabs(usd) - whole) * 100.0));
    const QString dollars = formatUsd(whole + (cents == 100 ? 1 : 0)).mid(1);
    return (usd < 0 ? QStringLiteral("-$") : QStringLiteral("$")) + dollars + QLatin1Char('.')
        + QStringLiteral("%1").arg(cents == 100 ? 0 : cents, 2, 10, QLatin1Char('0'));
}

QString formatUnitPrice(double usd)
{
    return std::fabs(usd - std::round(usd)) < 0.005 ? formatUsd(usd) : formatUsdCents(usd);
}

QString formatUsdShort(double usd)
{
    if (std::fabs(usd) >= 1e6)
        return QStringLiteral("$") + QString::number(usd / 1e6, 'f', 2) + QStringLiteral(" M");
    return formatUsd(usd);
}

QString formatCount(long long n) { return groupThousands(QString::number(n)); }

QString formatSeconds(double seconds)
{
    if (seconds > 0 && seconds < 0.1)
        return QString::number(seconds * 1e3, 'f', 1) + QStringLiteral(" ms");
    return QString::number(seconds, 'f', 3) + QStringLiteral(" s");
}

QString formatPercent(double fraction, int decimals)
{
    return QString::number(fraction * 100.0, 'f', decimals) + QLatin1Char('%');
}

QString formatWatts(double watts)
{
    if (watts >= 1e6)
        return QString::number(watts / 1e6, 'f', 2) + QStringLiteral(" MW");
    if (watts >= 1e3)
        return QString::number(watts / 1e3, 'f', 1) + QStringLiteral(" kW");
    return QString::number(watts, 'f', 0) + QStringLiteral(" W");
}

QString formatDuration(double seconds)
{
    const double hours = seconds / 3600.0;
    if (hours < 48.0)
        return QString::number(hours, 'f', 1) + QStringLiteral(" hours");
    return QString::number(hours / 24.0, 'f', 1) + QStringLiteral(" days");
}

QString formatGbps(double gbps)
{
    if (gbps >= 1e3)
        return QString::number(gbps / 1e3, 'f', 1) + QStringLiteral(" Tb/s");
    return QString::number(gbps, 'f', 0) + QStringLiteral(" Gb/s");
}

QString formatRatio(double ratio)
{
    const bool whole = std::fabs(ratio - std::round(ratio)) < 1e-9;
    return QString::number(ratio, 'f', whole ? 0 : 1) + QStringLiteral(":1");
}

QString escapeHtml(const QString& text) { return text.toHtmlEscaped(); }

} // namespace clusterscope::app
