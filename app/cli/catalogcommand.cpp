#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/scenario/scenario.h"
#include "engine/training/computeefficiency.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ostream>

namespace clusterscope::app {

namespace {

    std::string format(const char* fmt, auto... values)
    {
        char buffer[512];
        std::snprintf(buffer, sizeof buffer, fmt, values...);
        return buffer;
    }

    nlohmann::json catalogToJson(const engine::Catalog& c)
    {
        using nlohmann::json;
        json gpus = json::array(), nics = json::array(), switches = json::array(), cables = json::array(),
             optics = json::array();
        for (const auto& g : c.gpus())
            gpus.push_back({ { "id", g.id }, { "name", g.name }, { "vendor", g.vendor },
                { "arch", engine::toString(g.arch) }, { "bf16_flops", g.bf16FlopsPerSecond },
                { "fp8_flops", g.fp8FlopsPerSecond ? json(*g.fp8FlopsPerSecond) : json(nullptr) },
                { "fp4_flops", g.fp4FlopsPerSecond ? json(*g.fp4FlopsPerSecond) : json(nullptr) },
                { "hbm_bytes", g.hbmBytes }, { "hbm_bytes_per_second", g.hbmBytesPerSecond }, { "sms", g.sms },
                { "achievable",
                    { { "gemm_bf16", g.gemmBf16Fraction }, { "gemm_fp8", g.gemmFp8Fraction },
                        { "gemm_mxfp8",
                            engine::hasBlockScaledFp8(g) ? json(engine::catalogGemmFraction(g, engine::DType::MXFP8))
                                                         : json(nullptr) },
                        { "gemm_nvfp4",
                            engine::hasNvfp4(g) ? json(engine::catalogGemmFraction(g, engine::DType::NVFP4))
                                                : json(nullptr) },
                        { "attention_bf16", g.attentionFraction } } },
                { "scaleup_link", g.scaleUpLink }, { "scaleup_bytes_per_second", g.scaleUpBytesPerSecond },
                { "scaleup_links", g.scaleUpLinks }, { "nvlink_domain_gpus", g.nvlinkDomainGpus },
                { "server", { { "gpus", g.serverGpus }, { "nics", g.serverNics }, { "nic_gbps", g.serverNicGbps } } },
                { "tdp_w", g.tdpWatts }, { "price_usd", g.priceUsd }, { "source", g.source }, { "date", g.date } });
        for (const auto& n : c.nics())
            nics.push_back({ { "id", n.id }, { "name", n.name }, { "transport", n.transport }, { "gbps", n.gbps },
                { "power_w", n.powerWatts }, { "price_usd", n.priceUsd }, { "source", n.source }, { "date", n.date } });
        for (const auto& s : c.switches())
            switches.push_back({ { "id", s.id }, { "name", s.name }, { "transport", s.transport }, { "radix", s.radix },
                { "port_gbps", s.portGbps }, { "rack_units", s.rackUnits }, { "power_w", s.powerWatts },
                { "price_usd", s.priceUsd }, { "source", s.source }, { "date", s.date } });
        for (const auto& m : c.cables())
            cables.push_back(
                { { "id", m.id }, { "name", m.name }, { "medium", m.medium }, { "max_reach_m", m.maxReachMetres },
                    { "max_gbps", m.maxGbps }, { "power_per_end_w", m.powerPerEndWatts }, { "price_usd", m.priceUsd },
                    { "price_per_m_usd", m.pricePerMetreUsd }, { "transceiver", m.transceiver }, { "source", m.source },
                    { "date", m.date } });
        for (const auto& t : c.transceivers())
            optics.push_back({ { "id", t.id }, { "name", t.name }, { "medium", t.medium },
                { "max_reach_m", t.maxReachMetres }, { "gbps", t.gbps }, { "power_w", t.powerWatts },
                { "price_usd", t.priceUsd }, { "source", t.source }, { "date", t.date } });
        return { { "gpus", gpus }, { "nics", nics }, { "switches", switches }, { "cables", cables },
            { "transceivers", optics } };
    }

} // namespace

int runCatalogCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(args, { "json" }, { "catalog" });
    if (!cl)
        return cliUsageError(io, "catalog", cl.message());
    if (!cl->positionals().empty())
        return cliUsageError(io, "catalog", "takes no positional arguments (see --help)");
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    if (cl->flag("json")) {
        io.out << catalogToJson(*catalog).dump(2) << "\n";
        return 0;
    }
    io.out << "GPUs (dense peak, per-GPU scale-up bandwidth per direction)\n";
    io.out << format("  %-16s %10s %10s %8s %10s %9s %7s %9s\n", "id", "BF16 TF/s", "FP8 TF/s", "HBM GB", "HBM GB/s",
        "up GB/s", "domain", "price $");
    for (const auto& g : catalog->gpus())
        io.out << format("  %-16s %10.0f %10s %8.0f %10.0f %9.0f %7d %9.0f\n", g.id.c_str(),
            g.bf16FlopsPerSecond / 1e12,
            g.fp8FlopsPerSecond ? format("%.0f", *g.fp8FlopsPerSecond / 1e12).c_str() : "-", g.hbmBytes / 1e9,
            g.hbmBytesPerSecond / 1e9, g.scaleUpBytesPerSecond / 1e9, g.nvlinkDomainGpus, g.priceUsd);
    io.out << "\nNICs\n";
    io.out << format("  %-14s %-11s %7s %7s %9s\n", "id", "transport", "Gb/s", "W", "price $");
    for (const auto& n : catalog->nics())
        io.out << format(
            "  %-14s %-11s %7.0f %7.0f %9.0f\n", n.id.c_str(), n.transport.c_str(), n.gbps, n.powerWatts, n.priceUsd);
    io.out << "\nSwitches\n";
    io.out << format("  %-12s %-11s %6s %7s %4s %7s %9s\n", "id", "transport", "radix", "Gb/s", "RU", "W", "price $");
    for (const auto& s : catalog->switches())
        io.out << format("  %-12s %-11s %6d %7.0f %4d %7.0f %9.0f\n", s.id.c_str(), s.transport.c_str(), s.radix,
            s.portGbps, s.rackUnits, s.powerWatts, s.priceUsd);
    io.out << "\nCables\n";
    io.out << format("  %-7s %-15s %8s %9s %9s %10s\n", "id", "medium", "reach m", "W/end", "price $", "$/m");
    for (const auto& m : catalog->cables())
        io.out << format("  %-7s %-15s %8.0f %9.1f %9.0f %10.2f\n", m.id.c_str(), m.medium.c_str(), m.maxReachMetres,
            m.powerPerEndWatts, m.priceUsd, m.pricePerMetreUsd);
    io.out << "\nTransceivers\n";
    io.out << format("  %-5s %-12s %8s %6s %7s %9s\n", "id", "medium", "reach m", "Gb/s", "W", "price $");
    for (const auto& t : catalog->transceivers())
        io.out << format("  %-5s %-12s %8.0f %6.0f %7.1f %9.0f\n", t.id.c_str(), t.medium.c_str(), t.maxReachMetres,
            t.gbps, t.powerWatts, t.priceUsd);
    io.out << "\nSources: every entry carries its source and date (clusterscope-cli catalog --json).\n";
    return 0;
}

} // namespace clusterscope::app
