#pragma once

// What the Live tab shows, filled by the app's live controller from a telemetry report: one row per
// measured link direction and the chart's series. Utilisations are fractions of the link's rate per
// direction; NaN means "not measured" (a gap), never zero.

#include <QString>

#include <limits>
#include <vector>

namespace clusterscope::views {

struct LiveLinkRow {
    int link = -1; ///< LinkId in the fabric graph
    int direction = 0; ///< 0: a -> b (up), 1: b -> a (down)
    QString name; ///< "leaf-5 port 40 <-> spine-3 port 6"
    QString tier; ///< "leaf_spine"
    double average = std::numeric_limits<double>::quiet_NaN();
    double p99 = std::numeric_limits<double>::quiet_NaN();
    double peak = std::numeric_limits<double>::quiet_NaN(); ///< largest per-interval ("1-s") utilisation
    double errors = 0.0; ///< error, discard and link-down events over the window, both ends summed
    double pfcPaused = std::numeric_limits<double>::quiet_NaN(); ///< fraction of the window paused by PFC
    double modelled = std::numeric_limits<double>::quiet_NaN(); ///< the scenario model's utilisation
    bool alert = false; ///< an alert names this link
};

struct LiveChartData {
    QString linkLabel; ///< "leaf-5 port 40 -> spine-3 (up)"
    QString tierLabel; ///< "leaf to spine up" (engine::linkLevelText and the direction)
    double startS = 0.0; ///< time of bin 0 (seconds since the epoch)
    double stepS = 1.0;
    std::vector<double> link; ///< per-bin utilisation of the selected link direction (NaN: gap)
    std::vector<double> tierAverage; ///< mean over the tier's links per bin
    std::vector<double> tierPeak; ///< largest of the tier's links per bin
};

} // namespace clusterscope::views
