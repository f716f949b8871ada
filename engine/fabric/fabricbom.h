#pragma once

// Bill of materials of a laid-out fabric: switches, NICs, cables by type and length bin, optics,
// with cost from the price book and power from the catalog; cluster cost and the network's share.

#include "engine/core/status.h"
#include "engine/fabric/fabricdesign.h"

#include <map>
#include <string>
#include <vector>

namespace clusterscope::engine {

class Catalog;
class PriceBook;

struct BomLine {
    std::string category; ///< switch | nic | cable | transceiver | gpu | host
    std::string item; ///< catalog id
    std::string description;
    double lengthMetres = 0; ///< cables: length bin (m); 0 otherwise
    long long quantity = 0;
    double unitPriceUsd = 0;
    double unitPowerWatts = 0; ///< W per unit (transceiver: per module; cable: both ends)
    std::string priceSource;
    std::string priceDate;
    bool network = true; ///< counts towards the network cost (false for GPUs and hosts)
    double totalUsd() const { return unitPriceUsd * quantity; }
    double totalWatts() const { return unitPowerWatts * quantity; }
};

struct FabricBom {
    std::vector<BomLine> lines;
    double networkCostUsd = 0; ///< switches + NICs + cables + optics
    double networkPowerWatts = 0; ///< switches + NICs + optics + active cables
    double gpuCostUsd = 0;
    double hostCostUsd = 0; ///< servers without GPUs and NICs
    double clusterCostUsd = 0; ///< GPUs + hosts + network
    long long gpus = 0;
    double networkCostPerGpuUsd() const { return gpus ? networkCostUsd / gpus : 0; }
    double clusterCostPerGpuUsd() const { return gpus ? clusterCostUsd / gpus : 0; }
    double networkShare() const { return clusterCostUsd > 0 ? networkCostUsd / clusterCostUsd : 0; }
    std::map<std::string, long long> cablesByMedium; ///< medium name -> cables
};

/// Standard cable lengths (m) a run is rounded up to: 0.5 1 1.5 2 2.5 3 4 5 7 10 15 20 30 50 70 100
/// 150 200 300 500 1000 2000.
double cableLengthBin(double metres);

/// Counts and prices every part of `design` (which must be laid out: layOutFabric). Errors name the
/// item the catalog or price book lacks.
Result<FabricBom> computeBom(const FabricDesign& design, const Catalog& catalog, const PriceBook& prices);

/// CSV with a header row: category,item,description,length_m,quantity,unit_price_usd,total_usd,
/// unit_power_w,total_power_w,price_source,price_date (RFC 4180 quoting).
std::string bomCsv(const FabricBom& bom);

} // namespace clusterscope::engine
