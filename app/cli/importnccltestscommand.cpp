// clusterscope-cli import-nccl-tests: nccl-tests logs -> header facts, measured vs modelled busbw per
// size before and after calibration, and the calibration itself (JSON, --save-calibration).

#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/calibration/calibrationjson.h"
#include "engine/calibration/collectivecalibrator.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/core/atomicfile.h"
#include "engine/store/projectdocuments.h"
#include "importers/nccltests/nccltestsimporter.h"
#include "importers/nccltests/nccltestsiterations.h"
#include "importers/nccltests/nccltestssweep.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace clusterscope::app {

namespace {

    using nlohmann::json;
    using namespace clusterscope::importers;
    constexpr const char* kCommand = "import-nccl-tests";

    std::string format(const char* fmt, auto... values)
    {
        char buffer[512];
        std::snprintf(buffer, sizeof buffer, fmt, values...);
        return buffer;
    }

    /// The cluster to model: --scenario, else one built from the first run's header.
    struct ClusterChoice {
        engine::Scenario scenario;
        bool fromLog = false;
        std::vector<std::string> assumptions;
        /// Assumptions the output flags as warnings (also in `assumptions`): a layout the log does not state.
        std::vector<std::string> warnings;
    };

    /// How the runs sit on nodes. Runs whose device lines name their hosts are "placed"; the others
    /// (table-only excerpts, device lists cut without every host's block) are not: with `capAtServer`
    /// they take nodes of the catalog GPU's server (server.gpus: 8 for an HGX board, 4 for a GB200
    /// tray), never more ranks on one node, and the layout says so.
    struct RunLayout {
        int nodes = 1;
        int perNode = 1;
        int placedPerNode = 0; ///< most ranks on one host of a placed run
        int unplacedRanks = 0; ///< ranks of the widest run that is not placed
        std::string unplacedWhere; ///< "FILE:LINE" of that run
        std::string assumption; ///< the server layout taken (capAtServer), stated as a warning
        std::string error; ///< a run that no number of servers holds evenly (capAtServer)
    };

    RunLayout layoutOfRuns(const std::vector<NcclTestsLog>& logs, const engine::GpuModel* gpu, bool capAtServer)
    {
        RunLayout out;
        for (const auto& l : logs)
            for (const auto& r : l.runs) {
                if (r.nodes() > 0) {
                    out.nodes = std::max(out.nodes, r.nodes());
                    out.placedPerNode = std::max(out.placedPerNode, r.ranksPerNode());
                } else if (r.ranks() > out.unplacedRanks) {
                    out.unplacedRanks = r.ranks();
                    out.unplacedWhere = l.file + ":" + std::to_string(r.firstLine);
                }
            }
        out.perNode = std::max({ 1, out.placedPerNode, out.unplacedRanks });
        const int server = gpu ? std::max(1, gpu->serverGpus) : 0;
        if (!capAtServer || server == 0 || out.unplacedRanks <= server)
            return out;
        const int ranks = out.unplacedRanks;
        if (ranks % server != 0) {
            out.error
                = format("%s: the run has %d ranks and the log does not say on how many nodes (no device lines "
                         "naming its hosts); %d is not a multiple of the %d GPUs of the catalog's %s server: pass "
                         "--nodes N (and --gpus-per-node G)",
                    out.unplacedWhere.c_str(), ranks, ranks, server, gpu->id.c_str());
            return out;
        }
        out.nodes = std::max(out.nodes, ranks / server);
        out.perNode = std::max(out.placedPerNode, server);
        out.assumption = format("%s: the log does not say on how many nodes the run's %d ranks ran (no device lines "
                                "naming its hosts): taken as %d nodes of %d GPUs, the catalog's %s server (pass "
                                "--nodes N or --gpus-per-node G for another layout)",
            out.unplacedWhere.c_str(), ranks, ranks / server, server, gpu->id.c_str());
        return out;
    }

    /// Sizes the cluster of `c` (its GPU set) from the runs' layout; false (message printed) on a layout error.
    bool sizeFromRuns(ClusterChoice& c, const std::vector<NcclTestsLog>& logs, const engine::Catalog& catalog,
        bool capAtServer, CliIo io)
    {
        auto& cl = c.scenario.cluster;
        const RunLayout layout = layoutOfRuns(logs, catalog.findGpu(cl.gpu), capAtServer);
        if (!layout.error.empty()) {
            cliUsageError(io, kCommand, layout.error);
            return false;
        }
        cl.gpusPerNode = layout.perNode;
        cl.gpus = layout.nodes * layout.perNode;
        if (!layout.assumption.empty()) {
            c.assumptions.push_back(layout.assumption);
            c.warnings.push_back(layout.assumption);
        }
        return true;
    }

    /// The NICs of the GPU's reference server (catalog "server": DGX H100 8 x 400 Gb/s, a GB200 tray
    /// 4 x 400, DGX B300 8 x 800, ...), an assumption the output states. `gpusPerNode` > 0: nodes of that
    /// many GPUs, with the reference server's NICs per GPU.
    void assumeNics(const engine::GpuModel& gpu, int gpusPerNode, engine::ClusterSpec& cluster)
    {
        cluster.nic.gbps = gpu.serverNicGbps;
        cluster.nic.perNode = gpusPerNode > 0
            ? std::max(1, static_cast<int>(std::lround(double(gpusPerNode) * gpu.serverNics / gpu.serverGpus)))
            : gpu.serverNics;
    }

    /// Runs that use fewer GPUs per host than the hosts have NICs (nccl-tests node checks with 1, 2 or 4
    /// ranks per host on 8-GPU servers) use only their GPUs' own NICs: NCCL keeps a GPU's traffic on the
    /// NICs nearest to it (src/graph/search.cc, the channel search picks each GPU's closest NIC). Unless
    /// --gpus-per-node says otherwise, such hosts are taken as servers of one scale-up domain, as many
    /// GPUs as NICs (an HGX/DGX board: 8 GPUs, 8 NICs; a GB200 tray: 4 and 4), so that each rank gets its
    /// share of the NICs, not all of them.
    void serverFromNics(ClusterChoice& c, const engine::Catalog& catalog)
    {
        auto& cl = c.scenario.cluster;
        const engine::GpuModel* gpu = catalog.findGpu(cl.gpu);
        const int ranks = std::max(1, cl.gpusPerNode);
        if (!gpu || cl.nic.perNode <= ranks)
            return;
        const int server = std::min(std::max(1, gpu->nvlinkDomainGpus), cl.nic.perNode);
        if (server <= ranks)
            return;
        const int nodes = std::max(1, cl.gpus / ranks);
        cl.gpusPerNode = server;
        cl.gpus = nodes * server;
        c.assumptions.push_back(format("the runs use %d GPU(s) per host, the hosts have %d NICs: hosts taken as "
                                       "%d-GPU servers, each rank on its own GPU's NICs (pass --gpus-per-node "
                                       "for other servers)",
            ranks, cl.nic.perNode, server));
    }

    /// The catalog's GPU ids, for messages that ask for one.
    std::string catalogGpuIds(const engine::Catalog& catalog)
    {
        std::string ids;
        for (const engine::GpuModel& g : catalog.gpus())
            ids += (ids.empty() ? "" : ", ") + g.id;
        return ids;
    }

    /// `capAtServer`: runs whose nodes the log does not state take nodes of the GPU's server (false when
    /// --nodes or --gpus-per-node state the layout).
    std::optional<ClusterChoice> clusterFromLogs(
        const std::vector<NcclTestsLog>& logs, const engine::Catalog& catalog, CliIo io, bool capAtServer = true)
    {
        const NcclTestsLog& log = logs.front();
        const NcclTestsRun& run = log.runs.front();
        const std::string gpuName = run.gpuName();
        if (gpuName.empty()) {
            // rccl-tests on some ROCm versions prints device lines without a name.
            cliUsageError(io, kCommand,
                (run.devices.empty() ? log.file + ": the log has no device lines naming the GPU"
                                     : log.file + ":" + std::to_string(run.devices.front().line)
                            + ": the device lines (from this line on) give no GPU name (rccl-tests prints none on "
                              "some ROCm versions)")
                    + "; pass --gpu ID (with --nodes, --gpus-per-node, --nic) or --scenario FILE describing the "
                      "cluster. Catalog GPUs: "
                    + catalogGpuIds(catalog));
            return std::nullopt;
        }
        const auto gpuId = catalogGpuIdForDeviceName(catalog, gpuName);
        if (!gpuId) {
            cliUsageError(io, kCommand,
                log.file + ":" + std::to_string(run.devices.front().line) + ": cannot map the GPU \"" + gpuName
                    + "\" to a catalog GPU; pass --gpu ID (with --nodes, --gpus-per-node, --nic) or --scenario FILE "
                      "describing the cluster. Catalog GPUs: "
                    + catalogGpuIds(catalog)
                    + " (a stand-in of other links misstates the model: add the GPU to a catalog copy and pass "
                      "--catalog DIR)");
            return std::nullopt;
        }
        ClusterChoice c;
        c.fromLog = true;
        auto& cl = c.scenario.cluster;
        c.scenario.name = "from " + log.file;
        cl.gpu = *gpuId;
        if (!sizeFromRuns(c, logs, catalog, capAtServer, io))
            return std::nullopt;
        const int nodes = cl.gpus / std::max(1, cl.gpusPerNode);
        // The NICs of the GPU's reference server (catalog); only an assumption, stated in the output.
        assumeNics(*catalog.findGpu(*gpuId), 0, cl);
        c.assumptions.push_back("GPU \"" + gpuName + "\" taken as catalog " + *gpuId);
        if (nodes > 1)
            c.assumptions.push_back(
                format("NICs assumed: %d x %.0f Gb/s %s per node (pass --scenario for your cluster)", cl.nic.perNode,
                    cl.nic.gbps, engine::toString(cl.transport)));
        return c;
    }

    /// "8x400" -> 8 NICs of 400 Gb/s; "400" -> one NIC per GPU of 400 Gb/s (count 0: per GPU).
    std::optional<std::pair<int, double>> parseNicOption(const std::string& text)
    {
        const auto x = text.find_first_of("xX");
        try {
            std::size_t used = 0;
            if (x == std::string::npos) {
                const double gbps = std::stod(text, &used);
                if (used != text.size() || !(gbps > 0) || gbps > 1e5)
                    return std::nullopt;
                return std::pair { 0, gbps };
            }
            const int count = std::stoi(text.substr(0, x), &used);
            if (used != x || count < 1 || count > 1024)
                return std::nullopt;
            const std::string rate = text.substr(x + 1);
            const double gbps = std::stod(rate, &used);
            if (used != rate.size() || !(gbps > 0) || gbps > 1e5)
                return std::nullopt;
            return std::pair { count, gbps };
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }

    std::optional<int> positiveOption(const CommandLine& cl, const char* name, CliIo io)
    {
        const auto v = cl.value(name);
        if (!v)
            return 0;
        try {
            std::size_t used = 0;
            const int n = std::stoi(*v, &used);
            if (used == v->size() && n >= 1 && n <= 1'000'000)
                return n;
        } catch (const std::exception&) {
        }
        cliUsageError(io, kCommand, std::string("--") + name + ": expected a positive integer, got \"" + *v + "\"");
        return std::nullopt;
    }

    /// Runs the cluster's inter-node traffic over `net`: its fabric (unless it runs on any) and its id.
    void useNetTransport(const engine::NetTransportModel& net, engine::ClusterSpec& cluster)
    {
        if (net.fabric == "infiniband")
            cluster.transport = engine::Transport::InfiniBand;
        else if (net.fabric == "roce")
            cluster.transport = engine::Transport::RoCE;
        cluster.nic.net = net.id == "ib" || net.id == "roce" ? std::string() : net.id;
    }

    /// The cluster from --gpu/--nodes/--gpus-per-node/--nic/--transport, the log filling what they leave out.
    std::optional<ClusterChoice> clusterFromOptions(
        const CommandLine& cl, const std::vector<NcclTestsLog>& logs, const engine::Catalog& catalog, CliIo io)
    {
        const auto nodesOption = positiveOption(cl, "nodes", io);
        const auto perNodeOption = positiveOption(cl, "gpus-per-node", io);
        if (!nodesOption || !perNodeOption)
            return std::nullopt;
        const bool layoutGiven = *nodesOption > 0 || *perNodeOption > 0;
        std::optional<ClusterChoice> c;
        if (const auto id = cl.value("gpu")) {
            const engine::GpuModel* gpu = catalog.findGpu(*id);
            if (!gpu) {
                cliUsageError(io, kCommand, "--gpu: unknown GPU \"" + *id + "\" (see clusterscope-cli catalog)");
                return std::nullopt;
            }
            c.emplace();
            c->scenario.name = "from the command line";
            c->scenario.cluster.gpu = *id;
            assumeNics(*gpu, 0, c->scenario.cluster);
            if (!sizeFromRuns(*c, logs, catalog, !layoutGiven, io))
                return std::nullopt;
        } else {
            c = clusterFromLogs(logs, catalog, io, !layoutGiven);
            if (!c)
                return std::nullopt;
        }
        // --nodes N alone: the runs whose nodes the log does not state ran on N nodes, their ranks split
        // evenly (not N nodes of the size one node of the log would have); --gpus-per-node G alone: as
        // many nodes of G as their ranks need.
        const RunLayout layout = layoutOfRuns(logs, nullptr, false);
        int nodesNeeded = 0;
        if (layout.unplacedRanks > 0 && *nodesOption > 0 && *perNodeOption == 0) {
            if (layout.unplacedRanks % *nodesOption != 0) {
                cliUsageError(io, kCommand,
                    format("--nodes %d: the run at %s has %d ranks, which %d nodes cannot hold evenly; pass "
                           "--gpus-per-node G as well",
                        *nodesOption, layout.unplacedWhere.c_str(), layout.unplacedRanks, *nodesOption));
                return std::nullopt;
            }
            c->scenario.cluster.gpusPerNode = std::max(layout.placedPerNode, layout.unplacedRanks / *nodesOption);
            c->assumptions.push_back(format("%s: the run's %d ranks taken as %d per node on the %d nodes of --nodes",
                layout.unplacedWhere.c_str(), layout.unplacedRanks, layout.unplacedRanks / *nodesOption, *nodesOption));
        } else if (layout.unplacedRanks > 0 && *perNodeOption > 0 && *nodesOption == 0) {
            nodesNeeded = (layout.unplacedRanks + *perNodeOption - 1) / *perNodeOption;
        }
        c->fromLog = false;
        // Keep the GPU mapping note of a log-built cluster; the NIC assumption is restated below.
        std::erase_if(c->assumptions, [](const std::string& a) { return a.rfind("NICs assumed", 0) == 0; });
        auto& cl_ = c->scenario.cluster;
        const int nodes
            = *nodesOption > 0 ? *nodesOption : std::max({ 1, cl_.gpus / std::max(1, cl_.gpusPerNode), nodesNeeded });
        if (*perNodeOption > 0)
            cl_.gpusPerNode = *perNodeOption;
        cl_.gpus = nodes * cl_.gpusPerNode;
        if (const auto nic = cl.value("nic")) {
            const auto parsed = parseNicOption(*nic);
            if (!parsed) {
                cliUsageError(
                    io, kCommand, "--nic: expected COUNTxGBPS per node (\"8x400\") or GBPS, got \"" + *nic + "\"");
                return std::nullopt;
            }
            cl_.nic.perNode = parsed->first > 0 ? parsed->first : cl_.gpusPerNode;
            cl_.nic.gbps = parsed->second;
        } else {
            // Nodes of a stated size: the reference server's NICs per GPU, as many times as they have GPUs.
            if (*perNodeOption > 0)
                if (const engine::GpuModel* gpu = catalog.findGpu(cl_.gpu))
                    assumeNics(*gpu, cl_.gpusPerNode, cl_);
            c->assumptions.push_back(
                format("NICs assumed: %d x %.0f Gb/s per node (pass --nic COUNTxGBPS)", cl_.nic.perNode, cl_.nic.gbps));
        }
        if (*perNodeOption == 0 && nodes > 1)
            serverFromNics(*c, catalog);
        // --no-gdr: the NIC has no GPUDirect RDMA path to the GPU; NCCL stages through host memory.
        if (cl.flag("no-gdr"))
            cl_.nic.gpuDirectRdma = false;
        if (const auto t = cl.value("transport")) {
            if (*t == "roce")
                cl_.transport = engine::Transport::RoCE;
            else if (*t == "infiniband" || *t == "ib")
                cl_.transport = engine::Transport::InfiniBand;
            else if (const engine::NetTransportModel* net = catalog.findNetTransport(*t)) {
                // A net transport of the catalog (tcpxo, gib, socket, ...): its fabric and its NCCL settings.
                useNetTransport(*net, cl_);
            } else {
                std::string known = "infiniband, roce";
                for (const auto& n : catalog.netTransports())
                    if (n.id != "ib" && n.id != "roce")
                        known += ", " + n.id;
                cliUsageError(io, kCommand, "--transport: expected one of " + known + ", got \"" + *t + "\"");
                return std::nullopt;
            }
        }
        return c;
    }

    /// The log's own word on its net transport ("NCCL INFO Using network FasTrak") when the cluster
    /// does not name one: the first run that names a network the catalog knows.
    void netTransportFromLogs(const std::vector<NcclTestsLog>& logs, const engine::Catalog& catalog, ClusterChoice& c)
    {
        if (!c.scenario.cluster.nic.net.empty())
            return;
        for (const auto& l : logs)
            for (const auto& r : l.runs) {
                if (r.ncclNet.empty())
                    continue;
                const engine::NetTransportModel* net = catalog.netTransportForNcclNet(r.ncclNet);
                if (!net) {
                    c.assumptions.push_back("the log's network \"" + r.ncclNet
                        + "\" is not a catalog net transport: NCCL's defaults assumed (pass --transport)");
                    return;
                }
                // "IB" is NCCL's verbs transport on InfiniBand and RoCE alike: it keeps the fabric.
                if (net->id == "ib" && c.scenario.cluster.transport == engine::Transport::RoCE)
                    return;
                useNetTransport(*net, c.scenario.cluster);
                c.assumptions.push_back(
                    "net transport " + net->id + " (the log says \"Using network " + r.ncclNet + "\")");
                return;
            }
    }

    /// Three significant digits ("0.0123", "1.23", "12.3", "123", "4567").
    std::string sig3(double v)
    {
        if (!(v > 0) || !std::isfinite(v))
            return v == 0 ? "0" : "-";
        if (v >= 100)
            return format("%.0f", v);
        const int decimals = std::min(9, 2 - static_cast<int>(std::floor(std::log10(v))));
        return format("%.*f", decimals, v);
    }

    /// nccl-tests -I 1: per size the iteration spread, and the slowest process of -J output; null without.
    json iterationsJson(const NcclTestsRun& r)
    {
        const NcclTestsIterationReport report = ncclTestsIterationReport(r);
        if (report.sizes.empty())
            return nullptr;
        json sizes = json::array();
        for (const auto& s : report.sizes) {
            json entry = { { "bytes", s.bytes }, { "half", s.outOfPlace ? "out_of_place" : "in_place" },
                { "mean_us", s.meanUs }, { "min_us", s.stats.minUs }, { "max_us", s.stats.maxUs },
                { "p99_us", s.stats.p99Us }, { "cv_pct", s.stats.cvPercent }, { "spike", s.spike },
                { "noisy", s.noisy } };
            if (s.slowestProcess >= 0) {
                entry["slowest_process"] = s.slowestProcess;
                entry["slowest_process_mean_us"] = s.slowestMeanUs;
                entry["fastest_process"] = s.fastestProcess;
                entry["fastest_process_mean_us"] = s.fastestMeanUs;
            }
            sizes.push_back(std::move(entry));
        }
        json straggler = nullptr;
        if (report.straggler >= 0)
            straggler = { { "process", report.straggler }, { "sizes", report.stragglerSizes },
                { "of_sizes", report.sizesWithProcesses }, { "mean_excess", report.stragglerExcess },
                { "host", report.stragglerHost },
                { "first_rank", report.stragglerFirstRank >= 0 ? json(report.stragglerFirstRank) : json(nullptr) } };
        return { { "noisy_cv_pct", kNoisyCvPercent }, { "spike_ratio", kSpikeRatio },
            { "noisy_sizes", report.noisySizes }, { "processes", report.processes }, { "straggler", straggler },
            { "sizes", sizes } };
    }

    void printIterations(const NcclTestsRun& r, std::ostream& out)
    {
        const NcclTestsIterationReport report = ncclTestsIterationReport(r);
        if (report.sizes.empty())
            return;
        out << "  per-iteration timing (-I): " << report.sizes.size() << " sizes, ";
        if (report.noisySizes == 0) {
            const auto worst = std::max_element(report.sizes.begin(), report.sizes.end(),
                [](const auto& a, const auto& b) { return a.stats.cvPercent < b.stats.cvPercent; });
            out << format("none noisy (largest cv %.1f%% at %llu B)", worst->stats.cvPercent,
                static_cast<unsigned long long>(worst->bytes));
        } else {
            out << report.noisySizes << " noisy (cv above " << format("%.0f%%", kNoisyCvPercent)
                << " or slowest iteration above " << format("%.1fx", kSpikeRatio)
                << " the mean, as nccl-tests' tools/analyze_perf_json.py flags them):";
            for (const auto& s : report.sizes)
                if (s.noisy)
                    out << format(" %llu B (cv %.1f%%, slowest %.2fx)", static_cast<unsigned long long>(s.bytes),
                        s.stats.cvPercent, s.spike);
        }
        out << "\n";
        if (report.straggler >= 0) {
            out << "  slowest process: " << report.straggler;
            if (!report.stragglerHost.empty())
                out << " (" << report.stragglerHost << ", ranks from " << report.stragglerFirstRank << ")";
            out << format(" at %d of %d sizes, its mean iteration %.1f%% above the fastest process's there\n",
                report.stragglerSizes, report.sizesWithProcesses, 100 * report.stragglerExcess);
        }
    }

    json runJson(const NcclTestsRun& r)
    {
        auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
        return { { "binary", r.binary }, { "command_binary", r.commandBinary },
            { "collective", r.collective ? toString(*r.collective) : "" },
            { "collective_source", toString(r.collectiveSource) }, { "ranks", r.ranks() }, { "nodes", r.nodes() },
            { "devices_partial", r.devicesPartial() }, { "ranks_per_node", r.ranksPerNode() }, { "gpu", r.gpuName() },
            { "nthreads", opt(r.threads) }, { "ngpus", opt(r.gpusPerThread) }, { "min_bytes", opt(r.minBytes) },
            { "max_bytes", opt(r.maxBytes) }, { "step_factor", opt(r.stepFactor) }, { "step_bytes", opt(r.stepBytes) },
            { "iters", opt(r.iters) }, { "warmup_iters", opt(r.warmupIters) },
            { "nccl_tests_version", r.ncclTestsVersion }, { "nccl_version", opt(r.ncclVersionCode) },
            { "rccl_version", r.rcclVersion.empty() ? json(nullptr) : json(r.rcclVersion) },
            { "data_type", r.rows.empty() ? std::string() : r.rows.front().type },
            { "redop", r.rows.empty() ? std::string() : r.rows.front().redop }, { "nccl_net", r.ncclNet },
            { "nccl_algo", r.ncclAlgo }, { "avg_busbw_gbps", opt(r.avgBusBwGBps) }, { "rows", r.rows.size() },
            { "first_line", r.firstLine }, { "iterations", iterationsJson(r) } };
    }

    /// How the text output says where the collective came from (the JSON keeps toString's tokens).
    const char* sourceWords(NcclTestsCollectiveSource source)
    {
        switch (source) {
        case NcclTestsCollectiveSource::BinaryName:
            return "the benchmark's name";
        case NcclTestsCollectiveSource::CommandLine:
            return "the quoted command";
        case NcclTestsCollectiveSource::ColumnLayout:
            return "the columns";
        case NcclTestsCollectiveSource::Option:
            return "--op";
        }
        return "?";
    }

    void printRun(const NcclTestsLog& log, const NcclTestsRun& r, std::ostream& out)
    {
        const std::string& binary = r.binary.empty() ? r.commandBinary : r.binary;
        out << log.file << ":" << r.firstLine << ": " << (binary.empty() ? "nccl-tests" : binary) << " ("
            << (r.collective ? toString(*r.collective) : "?") << ", from " << sourceWords(r.collectiveSource) << "), "
            << r.ranks() << " ranks";
        if (r.devicesPartial() && r.nodes() == 0)
            out << " (the device lines are an excerpt: nodes from the cluster)";
        else if (r.devices.empty())
            out << " (no device lines: nodes from the cluster)";
        else
            out << (r.devicesPartial() ? " (the device lines are an excerpt naming every host)" : "") << " on "
                << std::max(r.nodes(), 1) << " node(s)";
        if (!r.gpuName().empty())
            out << (r.nodes() == 0 ? std::string() : ", " + std::to_string(r.ranksPerNode()) + " per node") << ", "
                << r.gpuName();
        out << "\n  " << r.rows.size() << " sizes";
        if (r.minBytes && r.maxBytes)
            out << " (" << *r.minBytes << " .. " << *r.maxBytes << " B)";
        if (!r.rows.empty() && !r.rows.front().type.empty())
            out << " of " << r.rows.front().type
                << (r.rows.front().redop.empty() || r.rows.front().redop == "none" ? std::string()
                                                                                   : " " + r.rows.front().redop);
        if (r.threads && r.gpusPerThread)
            out << ", nThread " << *r.threads << " nGpus " << *r.gpusPerThread;
        if (r.iters)
            out << ", " << *r.iters << " iters";
        if (r.avgBusBwGBps)
            out << format(", avg busbw %.2f GB/s", *r.avgBusBwGBps);
        if (!r.ncclNet.empty())
            out << ", network " << r.ncclNet;
        // The NCCL the run used: the model takes that version's tuner constants (collectivemodel.h).
        if (r.ncclVersionCode && *r.ncclVersionCode >= 20900)
            out << ", NCCL " << *r.ncclVersionCode / 10000 << "." << *r.ncclVersionCode / 100 % 100 << "."
                << *r.ncclVersionCode % 100 << " (the model takes its tuner's constants)";
        if (!r.rcclVersion.empty())
            out << ", RCCL " << r.rcclVersion << " (the model costs it with NCCL's tuner, not RCCL's)";
        out << "\n";
    }

    /// Whether the sweep's calibration was checked on sizes it was not fitted on (4-fold cross-validation).
    bool crossValidated(const engine::SweepCalibration& c) { return c.heldOutRmsBefore > 0 || c.heldOutRmsAfter > 0; }

    /// Why a calibration is not cross-validated ("" when it is): one size (a fit through one point is exact
    /// by construction), or too few sizes for the folds.
    std::string validationNote(const engine::SweepCalibration& c)
    {
        if (crossValidated(c))
            return {};
        std::vector<double> sizes;
        for (const auto& r : c.rows)
            if (std::find(sizes.begin(), sizes.end(), r.bytes) == sizes.end())
                sizes.push_back(r.bytes);
        if (sizes.size() == 1)
            return "one size: the calibration cannot be cross-validated (a fit through one point matches it exactly; "
                   "the residual after calibration says nothing about other sizes)";
        return format("%zu sizes: too few for the 4-fold cross-validation (8 needed); the calibration is not "
                      "cross-validated",
            sizes.size());
    }

    json sweepJson(const engine::SweepCalibration& c)
    {
        const double factor = engine::busBandwidthFactor(c.sweep.op, c.sweep.ranks);
        auto busbw = [&](double bytes, double seconds) { return seconds > 0 ? bytes / seconds * factor / 1e9 : 0.0; };
        json sizes = json::array();
        for (const auto& r : c.rows) {
            sizes.push_back({ { "bytes", r.bytes }, { "measured_us", r.measuredSeconds * 1e6 },
                { "measured_busbw_gbps", busbw(r.bytes, r.measuredSeconds) }, { "before_us", r.beforeSeconds * 1e6 },
                { "before_busbw_gbps", busbw(r.bytes, r.beforeSeconds) }, { "after_us", r.afterSeconds * 1e6 },
                { "after_busbw_gbps", busbw(r.bytes, r.afterSeconds) }, { "residual_before", r.residualBefore() },
                { "residual_after", r.residualAfter() }, { "algorithm_before", engine::toString(r.algorithmBefore) },
                { "protocol_before", engine::toString(r.protocolBefore) },
                { "algorithm_after", engine::toString(r.algorithmAfter) },
                { "protocol_after", engine::toString(r.protocolAfter) }, { "outlier", r.outlier },
                { "outlier_reason", r.outlierReason } });
        }
        json corrections = json::array();
        for (const auto& k : c.corrections) {
            json entry = { { "algorithm", engine::toString(k.algorithm) }, { "tier", k.tier },
                { "latency_scale", k.correction.latencyScale },
                { "latency_offset_us", k.correction.latencyOffsetSeconds * 1e6 },
                { "bandwidth_scale", k.correction.bandwidthScale }, { "parameters", k.parameters },
                { "points", k.points } };
            // No latency/bandwidth line was fitted (one size, or times that do not grow): null, not 0.
            const bool law = k.measuredLaw.bytesPerSecond > 0;
            entry["measured_latency_us"] = law ? json(k.measuredLaw.latencySeconds * 1e6) : json(nullptr);
            entry["measured_bandwidth_gbps"] = law ? json(k.measuredLaw.bytesPerSecond / 1e9) : json(nullptr);
            // Only on a protocol's own refinement (absent: the algorithm's correction for all protocols).
            if (k.protocol >= 0)
                entry["protocol"] = engine::toString(static_cast<engine::CollectiveProtocol>(k.protocol));
            corrections.push_back(std::move(entry));
        }
        json doc = { { "op", engine::toString(c.sweep.op) }, { "ranks", c.sweep.ranks }, { "nodes", c.sweep.nodes },
            { "algorithm", engine::toString(c.sweep.algorithm) }, { "sources", c.sweep.sources },
            { "rms_before", c.rmsBefore }, { "rms_after", c.rmsAfter }, { "outliers", c.outliers },
            { "rms_before_kept", c.rmsBeforeKept }, { "rms_after_kept", c.rmsAfterKept },
            { "held_out_rms_before", c.heldOutRmsBefore }, { "held_out_rms_after", c.heldOutRmsAfter },
            { "rejected_by_cross_validation", c.rejectedByCrossValidation }, { "cross_validated", crossValidated(c) },
            { "validation_note", validationNote(c) }, { "sizes", sizes }, { "corrections", corrections } };
        if (!c.sweep.variant.empty())
            doc["variant"] = c.sweep.variant; // "half prod": one sweep of a -d all / -o all table
        return doc;
    }

    void printSweep(const engine::SweepCalibration& c, std::ostream& out)
    {
        const double factor = engine::busBandwidthFactor(c.sweep.op, c.sweep.ranks);
        auto busbw = [&](double bytes, double seconds) { return seconds > 0 ? bytes / seconds * factor / 1e9 : 0.0; };
        out << "\n"
            << engine::toString(c.sweep.op) << (c.sweep.variant.empty() ? "" : " (" + c.sweep.variant + ")") << ", "
            << c.sweep.ranks << " ranks on " << c.sweep.nodes << " node(s), algorithm "
            << engine::toString(c.sweep.algorithm) << ": busbw in GB/s, residual = model / measured time - 1\n";
        out << format("%14s %11s %8s | %11s %8s %8s | %11s %8s %8s  %s\n", "size (B)", "measured us", "busbw",
            "before us", "busbw", "res.", "after us", "busbw", "res.", "model algorithm/protocol before -> after");
        for (const auto& r : c.rows) {
            out << format("%14.0f %11.1f %8s | %11.1f %8s %7.1f%% | %11.1f %8s %7.1f%%  %s/%s -> %s/%s\n", r.bytes,
                r.measuredSeconds * 1e6, sig3(busbw(r.bytes, r.measuredSeconds)).c_str(), r.beforeSeconds * 1e6,
                sig3(busbw(r.bytes, r.beforeSeconds)).c_str(), 100 * r.residualBefore(), r.afterSeconds * 1e6,
                sig3(busbw(r.bytes, r.afterSeconds)).c_str(), 100 * r.residualAfter(),
                engine::toString(r.algorithmBefore), engine::toString(r.protocolBefore),
                engine::toString(r.algorithmAfter), engine::toString(r.protocolAfter));
        }
        for (const auto& r : c.rows)
            if (r.outlier)
                out << format("outlier %.0f B: ", r.bytes) << r.outlierReason << "\n";
        out << format("RMS relative residual: before %.1f%%, after %.1f%%\n", 100 * c.rmsBefore, 100 * c.rmsAfter);
        if (const std::string note = validationNote(c); !note.empty())
            out << note << "\n";
        if (c.outliers > 0)
            out << format(
                "RMS relative residual over the sizes kept (outliers left out): before %.1f%%, after %.1f%%\n",
                100 * c.rmsBeforeKept, 100 * c.rmsAfterKept);
        if (c.heldOutRmsBefore > 0)
            out << format("held-out sizes (4-fold cross-validation): RMS %.1f%% uncalibrated, %.1f%% calibrated%s\n",
                100 * c.heldOutRmsBefore, 100 * c.heldOutRmsAfter,
                c.rejectedByCrossValidation ? " -- calibration rejected, the model is kept as it is" : "");
        for (const auto& k : c.corrections) {
            const std::string protocol = k.protocol >= 0
                ? std::string("/") + engine::toString(static_cast<engine::CollectiveProtocol>(k.protocol))
                : std::string();
            out << format("correction %s%s tier %d: latency x%.3f %+.2f us, bandwidth x%.3f (%d parameter%s, %d size%s "
                          "%.0f..%.0f B)",
                engine::toString(k.algorithm), protocol.c_str(), k.tier, k.correction.latencyScale,
                k.correction.latencyOffsetSeconds * 1e6, k.correction.bandwidthScale, k.parameters,
                k.parameters == 1 ? "" : "s", k.points, k.points == 1 ? "" : "s", k.minBytes, k.maxBytes);
            // No latency/bandwidth line was fitted (one size, or times that do not grow).
            if (k.measuredLaw.bytesPerSecond > 0)
                out << format("; measured t = %.2f us + S / %.2f GB/s", k.measuredLaw.latencySeconds * 1e6,
                    k.measuredLaw.bytesPerSecond / 1e9);
            out << "\n";
        }
        for (int t = 0; t < engine::CollectiveCalibration::kTiers; ++t) {
            if (!c.calibration.hasSizeCorrection(t))
                continue;
            out << format("size correction tier %d (time x, interpolated in log size):", t);
            for (int k = 0; k < engine::CollectiveCalibration::kSizeKnots; ++k)
                out << format(" %.0f B x%.3f", std::exp2(engine::CollectiveCalibration::kSizeKnotLog2Bytes[k]),
                    std::exp(c.calibration.logTimeAtKnot[t][k]));
            out << "\n";
        }
    }

} // namespace

int runImportNcclTestsCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(args, { "json", "no-gdr" },
        { "scenario", "op", "algo", "save-calibration", "catalog", "project", "gpu", "nodes", "gpus-per-node", "nic",
            "transport" });
    if (!cl)
        return cliUsageError(io, kCommand, cl.message());
    if (cl->positionals().empty())
        return cliUsageError(io, kCommand, "expected at least one nccl-tests LOG (see --help)");
    NcclTestsParseOptions options;
    if (const auto op = cl->value("op")) {
        options.collective = ncclTestsCollectiveFromName(*op);
        if (!options.collective)
            return cliUsageError(io, kCommand,
                "--op: unknown collective \"" + *op
                    + "\" (allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv)");
    }
    std::optional<engine::CollectiveAlgorithm> algorithm;
    if (const auto a = cl->value("algo")) {
        algorithm = engine::parseCollectiveAlgorithm(*a);
        if (!algorithm)
            return cliUsageError(io, kCommand, "--algo: unknown algorithm \"" + *a + "\"");
    }
    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    {
        // A run that cannot tell its ranks (a sendrecv table without device lines) takes the stated cluster's.
        const auto nodes = positiveOption(*cl, "nodes", io);
        const auto perNode = positiveOption(*cl, "gpus-per-node", io);
        if (!nodes || !perNode)
            return 1;
        options.ranks = *nodes > 0 && *perNode > 0 ? *nodes * *perNode : 0;
    }

    std::vector<NcclTestsLog> logs;
    for (const auto& path : cl->positionals()) {
        auto log = importNcclTestsFile(path, options);
        if (!log) {
            io.err << log.message() << "\n";
            return 1;
        }
        logs.push_back(std::move(*log));
    }

    // What each run can be compared with, before the hardware is asked for: a log with nothing to compare
    // (one rank, an unmodelled collective) says so first.
    struct Pending {
        const NcclTestsLog* log;
        const NcclTestsRun* run;
        engine::MeasuredSweep sweep;
    };
    std::vector<Pending> pending;
    std::vector<std::string> skipped;
    for (const auto& log : logs)
        for (const auto& run : log.runs) {
            auto sweep = measuredSweepFromRun(log, run);
            if (sweep)
                pending.push_back({ &log, &run, std::move(*sweep) });
            else
                skipped.push_back(sweep.message());
        }
    if (pending.empty()) {
        for (const auto& s : skipped)
            io.err << s << "\n";
        return 1;
    }

    std::optional<ClusterChoice> cluster;
    const bool hardwareOptions = cl->value("gpu") || cl->value("nodes") || cl->value("gpus-per-node")
        || cl->value("nic") || cl->value("transport") || cl->flag("no-gdr");
    if (hardwareOptions && cl->value("scenario"))
        return cliUsageError(io, kCommand,
            "--scenario and --gpu/--nodes/--gpus-per-node/--nic/--transport/--no-gdr both describe the cluster; "
            "pass one (a scenario states GPUDirect RDMA as cluster.nic.gpudirect_rdma)");
    if (hardwareOptions) {
        cluster = clusterFromOptions(*cl, logs, *catalog, io);
        if (!cluster)
            return 1;
    } else if (const auto path = cl->value("scenario")) {
        auto scenario = loadValidScenarioForCli(*path, *catalog, io);
        if (!scenario)
            return 1;
        cluster = ClusterChoice { std::move(*scenario), false, {}, {} };
    } else {
        cluster = clusterFromLogs(logs, *catalog, io);
        if (!cluster)
            return 1;
        if (cluster->scenario.cluster.gpus > cluster->scenario.cluster.gpusPerNode)
            serverFromNics(*cluster, *catalog);
    }
    if (!cl->value("transport"))
        netTransportFromLogs(logs, *catalog, *cluster);
    auto model = engine::CollectiveModel::fromScenario(cluster->scenario, *catalog);
    if (!model) {
        io.err << (cl->value("scenario") ? *cl->value("scenario") + ": " : std::string()) << model.message() << "\n";
        return 1;
    }

    // Calibrate run after run, each starting from what the previous ones fitted.
    engine::CalibrationSet set;
    set.calibration = model->calibration();
    for (auto& [log, run, sweep] : pending) {
        if (algorithm)
            sweep.algorithm = *algorithm;
        // A table-only excerpt (no device lines, or only some of them without every host) does not say its
        // nodes: its ranks fill the cluster's nodes of gpus_per_node.
        if (run->nodes() == 0) {
            const int perNode = std::max(1, cluster->scenario.cluster.gpusPerNode);
            sweep.nodes = std::max(1, (sweep.ranks + perNode - 1) / perNode);
        }
        if (sweep.ranks > cluster->scenario.cluster.gpus) {
            io.err << log->file << ":" << run->firstLine << ": the run has " << sweep.ranks
                   << " ranks but the cluster has " << cluster->scenario.cluster.gpus << " GPUs\n";
            return 1;
        }
        // The NCCL the log states: its tuner's constants (CollectiveHardware::ncclVersionCode).
        const engine::CollectiveModel base = modelAsRunUsed(*model, *run);
        engine::CollectiveModel current = base;
        current.setCalibration(set.calibration);
        auto calibrated = engine::calibrateSweep(current, sweep);
        if (!calibrated) {
            io.err << log->file << ":" << run->firstLine << ": " << calibrated.message() << "\n";
            return 1;
        }
        set.calibration = calibrated->calibration;
        // "before" is the model as the cluster gives it, not as the earlier runs calibrated it.
        engine::restateBefore(base, *calibrated);
        set.sweeps.push_back(std::move(*calibrated));
    }
    if (set.sweeps.empty()) {
        for (const auto& s : skipped)
            io.err << s << "\n";
        return 1;
    }
    const std::string calibrationText = engine::calibrationToJson(set);
    if (const auto out = cl->value("save-calibration")) {
        if (auto status = engine::writeFileAtomically(*out, calibrationText); !status) {
            io.err << status.message() << "\n";
            return 1;
        }
    }

    if (const auto project = cl->value("project")) {
        // The calibration goes into the project in one transaction; evaluate/search --project and
        // the GUI then use it.
        auto store = openOrCreateProjectForCli(*project, io);
        if (!store)
            return 1;
        if (auto status
            = store->putDocument(engine::kCalibrationDocumentKind, engine::kCalibrationDocumentName, calibrationText);
            !status) {
            io.err << status.message() << "\n";
            return 1;
        }
    }

    const auto& cs = cluster->scenario.cluster;
    if (cl->flag("json")) {
        json jlogs = json::array();
        for (const auto& log : logs) {
            json runs = json::array(), diagnostics = json::array();
            for (const auto& r : log.runs)
                runs.push_back(runJson(r));
            for (const auto& d : log.diagnostics)
                diagnostics.push_back(
                    { { "id", d.id }, { "severity", d.severity == NcclTestsSeverity::Error ? "error" : "warning" },
                        { "line", d.line }, { "message", d.message } });
            jlogs.push_back({ { "file", log.file }, { "format", log.json ? "json" : "text" }, { "runs", runs },
                { "diagnostics", diagnostics } });
        }
        json sweeps = json::array();
        for (const auto& s : set.sweeps)
            sweeps.push_back(sweepJson(s));
        const json doc = { { "logs", jlogs },
            { "cluster",
                { { "source",
                      cluster->fromLog      ? "log"
                          : hardwareOptions ? "options"
                                            : "scenario" },
                    { "gpu", cs.gpu }, { "gpus", cs.gpus }, { "gpus_per_node", cs.gpusPerNode },
                    { "nic_gbps", cs.nic.gbps }, { "nics_per_node", cs.nic.perNode },
                    { "transport", engine::toString(cs.transport) },
                    { "net",
                        cs.nic.net.empty() ? (cs.transport == engine::Transport::InfiniBand ? "ib" : "roce")
                                           : cs.nic.net },
                    { "gpudirect_rdma", cs.nic.gpuDirectRdma }, { "assumptions", cluster->assumptions },
                    { "warnings", cluster->warnings } } },
            { "sweeps", sweeps }, { "skipped", skipped }, { "calibration", json::parse(calibrationText) } };
        io.out << doc.dump(2) << "\n";
        return 0;
    }
    for (const auto& log : logs) {
        for (const auto& r : log.runs) {
            printRun(log, r, io.out);
            printIterations(r, io.out);
        }
        for (const auto& d : log.diagnostics)
            io.out << "  " << (d.severity == NcclTestsSeverity::Error ? "error: " : "warning: ") << d.message << "\n";
    }
    io.out << "cluster: " << cs.gpus << " x " << cs.gpu << " (" << cs.gpusPerNode << " per node), " << cs.nic.perNode
           << " x " << cs.nic.gbps << " Gb/s NICs per node"
           << (cs.nic.net.empty() ? std::string() : " (net transport " + cs.nic.net + ")")
           << (cs.nic.gpuDirectRdma ? "" : ", no GPUDirect RDMA (staged through host memory)") << ", "
           << (cluster->fromLog         ? "built from the log header"
                      : hardwareOptions ? "from the command line"
                                        : "from the scenario")
           << "\n";
    for (const auto& a : cluster->assumptions)
        io.out << "  "
               << (std::find(cluster->warnings.begin(), cluster->warnings.end(), a) != cluster->warnings.end()
                          ? "warning: "
                          : "")
               << a << "\n";
    for (const auto& s : skipped)
        io.out << "skipped: " << s << "\n";
    for (const auto& s : set.sweeps)
        printSweep(s, io.out);
    if (const auto out = cl->value("save-calibration"))
        io.out << "\ncalibration written to " << *out << "\n";
    if (const auto project = cl->value("project"))
        io.out << "\ncalibration stored in the project " << *project
               << " (used by evaluate/search --project and the GUI)\n";
    return 0;
}

} // namespace clusterscope::app
