#pragma once

// PFC (IEEE 802.1Qbb priority flow control) pauses per link direction, from the pause-duration
// counters NIC drivers export in microseconds (mlx5 ethtool rx_prio<p>_pause_duration /
// tx_prio<p>_pause_duration, Linux Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
// counters.rst). Direction d of a link is paused when its SENDER receives pause frames; both ends
// are compared: the pause time the sender received (its rx pause duration) and the pause time the
// receiver sent (its tx pause duration). A "PFC storm" is pausing that persists: Guo et al., "RDMA
// over Commodity Ethernet at Scale" (SIGCOMM 2016, section 4.3) describe a NIC that sends pauses
// continuously and stalls the fabric upstream; they stop it with a watchdog after a sustained
// pause. Counters sampled at >= 1 s see fractions of time paused, not individual frames.

#include "engine/fabric/fabricgraph.h"
#include "engine/telemetry/telemetrydata.h"

#include <vector>

namespace clusterscope::engine {

struct LinkPfc {
    LinkId link = kNoId;
    int direction = 0; ///< the direction whose sender was paused (0: a -> b, 1: b -> a)
    bool receivedMeasured = false; ///< the sender's received-pause counter exists
    bool sentMeasured = false; ///< the receiver's sent-pause counter exists
    double receivedFraction = 0.0; ///< pause time the sender received / covered time (0..1)
    double sentFraction = 0.0; ///< pause time the receiver sent / covered time (0..1)
    double peakFraction = 0.0; ///< largest per-interval paused fraction, either end
    double longestAboveS = 0.0; ///< longest run of intervals paused >= the threshold, either end
};

/// Link directions with any pause time in the window (either end), in link order. `thresholdFraction`
/// sets what counts for `longestAboveS`.
std::vector<LinkPfc> analysePfc(const FabricGraph& graph, const TelemetryData& data, double thresholdFraction);

} // namespace clusterscope::engine
