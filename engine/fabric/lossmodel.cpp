#include "engine/fabric/lossmodel.h"

#include <algorithm>

namespace clusterscope::engine {

double windowPackets(double gbps, double rttSeconds, double mtuBytes)
{
    return gbps * 1e9 / 8.0 * rttSeconds / mtuBytes;
}

double goBackNEfficiency(double lossRate, double window)
{
    return 1.0 / (1.0 + std::max(0.0, lossRate) * std::max(0.0, window));
}

double rttForEfficiency(double lossRate, double efficiency, double gbps, double mtuBytes)
{
    if (lossRate <= 0 || efficiency <= 0 || efficiency >= 1)
        return 0;
    const double w = (1.0 / efficiency - 1.0) / lossRate;
    return w * mtuBytes / (gbps * 1e9 / 8.0);
}

double bufferBytes(double gbps, double seconds) { return gbps * 1e9 / 8.0 * seconds; }

double pfcHeadroomBytes(double gbps, double cableMetres, double mtuBytes)
{
    return (301.0 + 2.16 * cableMetres) * gbps + 2.72 * mtuBytes;
}

double effectiveRateFraction(double ccEfficiency, double lossRate, double window)
{
    return std::clamp(ccEfficiency, 0.0, 1.0) * goBackNEfficiency(lossRate, window);
}

} // namespace clusterscope::engine
