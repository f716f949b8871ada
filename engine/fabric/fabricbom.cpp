#include "engine/fabric/fabricbom.h"

#include "engine/catalog/catalog.h"
#include "engine/fabric/fabriclayout.h"
#include "engine/fabric/pricebook.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

namespace clusterscope::engine {

namespace {

    std::string csvField(const std::string& s)
    {
        if (s.find_first_of(",\"\n") == std::string::npos)
            return s;
        std::string out = "\"";
        for (char c : s)
            out += c == '"' ? std::string("\"\"") : std::string(1, c);
        return out + "\"";
    }

    std::string number(double v)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2f", v);
        std::string s = buf;
        if (s.find('.') != std::string::npos) {
            s.erase(s.find_last_not_of('0') + 1);
            if (s.back() == '.')
                s.pop_back();
        }
        return s;
    }

} // namespace

double cableLengthBin(double metres)
{
    static const double bins[]
        = { 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000 };
    for (double b : bins)
        if (metres <= b + 1e-9)
            return b;
    return std::ceil(metres / 100.0) * 100.0;
}

Result<FabricBom> computeBom(const FabricDesign& d, const Catalog& catalog, const PriceBook& prices)
{
    FabricBom bom;
    const FabricGraph& g = d.graph;
    bom.gpus = static_cast<long long>(d.gpus.size());
    const auto add = [&](BomLine line, const std::string& kind) -> Status {
        auto price = prices.require(kind, line.item);
        if (!price)
            return price.status();
        line.unitPriceUsd += price->priceUsd + price->pricePerMetreUsd * line.lengthMetres;
        line.priceSource = price->source;
        line.priceDate = price->date;
        bom.lines.push_back(line);
        return Status::success();
    };

    const GpuModel* gpu = catalog.findGpu(d.gpuModel);
    if (!gpu)
        return Status::error("the catalog has no GPU \"" + d.gpuModel + "\"");
    if (auto s = add({ "gpu", gpu->id, gpu->name, 0, bom.gpus, 0, gpu->tdpWatts, {}, {}, false }, "gpu"); !s)
        return s;
    if (auto s = add({ "host", gpu->id, "server share per GPU slot (CPU, memory, baseboard, chassis)", 0, bom.gpus, 0,
                         0, {}, {}, false },
            "host");
        !s)
        return s;

    const std::size_t switches = g.countNodes(NodeKind::Switch);
    if (switches > 0) {
        const SwitchModel* sw = catalog.findSwitch(d.switchModel);
        if (!sw)
            return Status::error("the catalog has no switch \"" + d.switchModel + "\"");
        if (auto s
            = add({ "switch", sw->id, sw->name, 0, static_cast<long long>(switches), 0, sw->powerWatts, {}, {}, true },
                "switch");
            !s)
            return s;
    }
    const NicModel* nic = catalog.findNic(d.nicModel);
    if (!nic)
        return Status::error("the catalog has no NIC \"" + d.nicModel + "\"");
    if (auto s
        = add({ "nic", nic->id, nic->name, 0, static_cast<long long>(d.nics.size()), 0, nic->powerWatts, {}, {}, true },
            "nic");
        !s)
        return s;

    // Cables by (catalog cable, length bin) and transceivers by id.
    std::map<std::pair<std::string, double>, long long> cables;
    std::map<std::string, long long> modules;
    for (const FabricLink& l : g.links()) {
        if (l.medium == LinkMedium::Pcie || l.medium == LinkMedium::NvLink || (l.flags & kLinkMissing))
            continue;
        const CableModel* c = cableFor(l, catalog);
        if (!c)
            return Status::error(std::string("no catalog cable for a ") + toString(l.medium) + " link of "
                + std::to_string(l.lengthMetres) + " m (run layOutFabric first)");
        ++cables[{ c->id, cableLengthBin(l.lengthMetres) }];
        ++bom.cablesByMedium[toString(l.medium)];
        if (c->needsTransceivers) {
            const TransceiverModel* t = catalog.findTransceiver(c->transceiver);
            if (!t)
                return Status::error("the catalog has no transceiver \"" + c->transceiver + "\"");
            // One module per end per transceiver rate step (an 800G port on 400G-class optics takes two).
            modules[t->id] += 2 * static_cast<long long>(std::ceil(l.gbps / t->gbps - 1e-9));
        }
    }
    for (const auto& [key, count] : cables) {
        const CableModel* c = catalog.findCable(key.first);
        if (auto s
            = add({ "cable", c->id, c->name, key.second, count, 0, 2 * c->powerPerEndWatts, {}, {}, true }, "cable");
            !s)
            return s;
    }
    for (const auto& [id, count] : modules) {
        const TransceiverModel* t = catalog.findTransceiver(id);
        if (auto s = add({ "transceiver", t->id, t->name, 0, count, 0, t->powerWatts, {}, {}, true }, "transceiver");
            !s)
            return s;
    }

    for (const BomLine& line : bom.lines) {
        if (line.category == "gpu")
            bom.gpuCostUsd += line.totalUsd();
        else if (line.category == "host")
            bom.hostCostUsd += line.totalUsd();
        else {
            bom.networkCostUsd += line.totalUsd();
            bom.networkPowerWatts += line.totalWatts();
        }
    }
    bom.clusterCostUsd = bom.gpuCostUsd + bom.hostCostUsd + bom.networkCostUsd;
    return bom;
}

std::string bomCsv(const FabricBom& bom)
{
    std::ostringstream out;
    out << "category,item,description,length_m,quantity,unit_price_usd,total_usd,unit_power_w,total_power_w,price_"
           "source,price_date\n";
    for (const BomLine& l : bom.lines)
        out << l.category << ',' << csvField(l.item) << ',' << csvField(l.description) << ',' << number(l.lengthMetres)
            << ',' << l.quantity << ',' << number(l.unitPriceUsd) << ',' << number(l.totalUsd()) << ','
            << number(l.unitPowerWatts) << ',' << number(l.totalWatts()) << ',' << csvField(l.priceSource) << ','
            << l.priceDate << '\n';
    return out.str();
}

} // namespace clusterscope::engine
