#include "importers/nccltests/nccltestssweep.h"

#include "importers/nccltests/nccltestsiterations.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace clusterscope::importers {

engine::Result<engine::MeasuredSweep> measuredSweepFromRun(const NcclTestsLog& log, const NcclTestsRun& run)
{
    const std::string where = log.file + ":" + std::to_string(run.firstLine) + ": ";
    if (!run.collective)
        return engine::Status::error(where + "the run's collective is unknown");
    const engine::CollectiveOp op = *run.collective;
    if (!engine::isCostModelled(op))
        return engine::Status::error(where + "the collective model has no counterpart for " + toString(*run.collective)
            + " (it models allreduce, reducescatter, allgather, broadcast, reduce, alltoall and sendrecv)");
    engine::MeasuredSweep sweep;
    sweep.op = op;
    sweep.ranks = run.ranks();
    sweep.nodes = std::max(run.nodes(), 1);
    sweep.gpuName = run.gpuName();
    // "nGpus G": one thread of the test launches the kernels of G GPUs in turn on every call.
    if (run.gpusPerThread && *run.gpusPerThread >= 1)
        sweep.gpusPerThread = std::min(*run.gpusPerThread, std::max(1, sweep.ranks));
    sweep.sources.push_back(log.file);
    sweep.variant = run.variant;
    if (sweep.ranks == 1 && !run.devices.empty()) {
        const NcclTestsDevice& d = run.devices.front();
        return engine::Status::error(log.file + ":" + std::to_string(d.line) + ": the run has one rank (Rank "
            + std::to_string(d.rank) + " on " + d.host + ", device " + std::to_string(d.device)
            + "): a single GPU moves no data to other GPUs, so there is nothing to compare with the collective model");
    }
    if (sweep.ranks < 2)
        return engine::Status::error(where + "the run has " + std::to_string(sweep.ranks)
            + " rank(s): no device lines, header, quoted command (mpirun -np N ... -g G) or busbw/algbw ratio tell "
              "how many ranks took part, and a collective needs at least 2; give the cluster it ran on with --nodes N "
              "--gpus-per-node G");
    if (!run.ncclAlgo.empty()) {
        std::string algo = run.ncclAlgo;
        std::transform(algo.begin(), algo.end(), algo.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        // NCCL_ALGO may list several ("Ring,Tree"): only a single one pins the algorithm.
        if (const auto a = engine::parseCollectiveAlgorithm(algo))
            sweep.algorithm = *a;
    }
    for (const auto& row : run.rows) {
        const NcclTestsMeasurement& m = row.outOfPlace ? *row.outOfPlace : row.inPlace;
        if (row.bytes == 0 || !m.timeUs || !(*m.timeUs > 0))
            continue;
        sweep.points.push_back({ static_cast<double>(row.bytes), *m.timeUs * 1e-6 });
        double spike = 0;
        if (ncclTestsNoisy(m, nullptr, &spike)) {
            // nccl-tests -I: the size's own iterations vary (flags of nccl-tests tools/analyze_perf_json.py).
            char reason[240];
            std::snprintf(reason, sizeof reason,
                "its own iterations vary (nccl-tests -I: cv %.1f%%, slowest %.2fx the mean; noisy above %.0f%% "
                "or %.1fx): a noisy size, left out of the fit",
                m.iterations->cvPercent, spike, kNoisyCvPercent, kSpikeRatio);
            sweep.noisySizes.emplace_back(static_cast<double>(row.bytes), reason);
        }
    }
    if (sweep.points.empty())
        return engine::Status::error(where + "no row has a positive size and time to calibrate with");
    std::stable_sort(sweep.points.begin(), sweep.points.end(),
        [](const engine::SweepPoint& a, const engine::SweepPoint& b) { return a.bytes < b.bytes; });
    return sweep;
}

std::optional<std::string> catalogGpuIdForDeviceName(const engine::Catalog& catalog, std::string_view deviceName)
{
    std::string key;
    for (char c : deviceName) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            key.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
    auto has = [&](const char* s) { return key.find(s) != std::string::npos; };
    std::string id;
    if (has("PCIE") || has("NVL") || key.empty())
        return std::nullopt; // PCIe and NVL boards: different links from the SXM entries
    if (has("GB300"))
        id = "GB300";
    else if (has("B300"))
        id = "B300";
    else if (has("GB200"))
        id = "GB200";
    else if (has("B200"))
        id = "B200";
    else if (has("H200"))
        id = "H200-SXM-141GB";
    else if (has("H100") && (has("HBM3") || has("SXM")))
        id = "H100-SXM-80GB";
    else if (has("H800")) // "NVIDIA H800": the China-market H100 with 8 NVLinks
        id = "H800-SXM-80GB";
    else if (has("H20")) // "NVIDIA H20" (H200 is matched above)
        id = "H20";
    else if (has("A100SXM"))
        id = "A100-SXM-80GB";
    else if (has("A800SXM")) // "NVIDIA A800-SXM4-80GB": the China-market A100 with 8 NVLinks
        id = "A800-SXM-80GB";
    else if (has("V100SXM2"))
        id = "V100-SXM2-32GB";
    else if (has("MI300X"))
        id = "MI300X";
    else if (has("MI325X"))
        id = "MI325X";
    else if (has("MI355X"))
        id = "MI355X";
    if (id.empty() || !catalog.findGpu(id))
        return std::nullopt;
    return id;
}

engine::CollectiveModel modelAsRunUsed(engine::CollectiveModel model, const NcclTestsRun& run)
{
    if (run.ncclVersionCode)
        model.setNcclVersionCode(*run.ncclVersionCode);
    return model;
}

} // namespace clusterscope::importers
