#pragma once

// Number formatting shared by every report format (PDF, HTML, preview) and by the tests that
// check a report against the engine's numbers: one spelling per quantity.

#include <QString>

namespace clusterscope::app {

/// "$8,379,928": US dollars rounded to the dollar, thousands separated by commas.
QString formatUsd(double usd);
/// "$2.07": with cents (for small amounts).
QString formatUsdCents(double usd);
/// A unit price: whole dollars as formatUsd, else with cents ("$52.50") so that quantity x unit
/// price visibly equals the line total.
QString formatUnitPrice(double usd);
/// "$48.32 M" above a million, else formatUsd.
QString formatUsdShort(double usd);
/// "1,024": an integer with thousands separators.
QString formatCount(long long n);
/// "8.466 s" (3 decimals; "ms" below 0.1 s: "56.2 ms").
QString formatSeconds(double seconds);
/// "47.1%" of a fraction 0..1.
QString formatPercent(double fraction, int decimals = 1);
/// "107.1 kW" (W below 1 kW, MW above 1 MW).
QString formatWatts(double watts);
/// "175.2 days" (hours below two days).
QString formatDuration(double seconds);
/// "204.8 Tb/s" from Gb/s.
QString formatGbps(double gbps);
/// "3:1" of a down:up ratio (one decimal when not whole: "1.5:1").
QString formatRatio(double ratio);
/// Text escaped for HTML/XHTML element content and attribute values.
QString escapeHtml(const QString& text);

} // namespace clusterscope::app
