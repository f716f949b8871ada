// clusterscope-cli collective: one collective (or an nccl-tests-shaped size sweep) on a scenario's
// cluster, evaluated by engine::CollectiveModel.

#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/core/linkclass.h"
#include "engine/core/units.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace clusterscope::app {

namespace {

    using engine::CollectiveOp;

    constexpr const char* kCommand = "collective";
    constexpr double kFloatBytes = 4.0; // nccl-tests -d float (the default)

    const char* redopOf(CollectiveOp op)
    {
        return op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::Reduce
            ? "sum"
            : "none";
    }

    int rootOf(CollectiveOp op) { return op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce ? 0 : -1; }

    // nccl-tests rounds the element count down to a multiple of the ranks for collectives that split
    // the buffer across ranks.
    double alignedCount(CollectiveOp op, double bytes, int ranks)
    {
        double count = std::floor(bytes / kFloatBytes);
        if (op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllToAll)
            count = std::floor(count / ranks) * ranks;
        return count;
    }

    nlohmann::json linkBytesJson(const engine::LinkClassBytes& b)
    {
        using namespace engine;
        return { { "scale_up", b.scaleUpBytes }, { "nic", b.nicBytes },
            { linkClassName(kLinkClassLeaf), b.tierBytes[kLinkClassLeaf] },
            { linkClassName(kLinkClassSpine), b.tierBytes[kLinkClassSpine] },
            { linkClassName(kLinkClassCore), b.tierBytes[kLinkClassCore] } };
    }

    nlohmann::json estimateJson(const engine::CollectiveEstimate& e, double bytes)
    {
        nlohmann::json j { { "bytes", bytes }, { "time_us", e.seconds * 1e6 },
            { "algbw_gbps", e.algbwBytesPerSecond / 1e9 }, { "busbw_gbps", e.busbwBytesPerSecond / 1e9 },
            { "algorithm", engine::toString(e.algorithm) }, { "protocol", engine::toString(e.protocol) },
            { "latency_us", e.latencySeconds * 1e6 }, { "bytes_per_rank", linkBytesJson(e.perRankBytes) },
            { "flows", e.flows } };
        if (e.algorithm == engine::CollectiveAlgorithm::ParameterServer)
            j["hub_bytes"] = e.hubBytes;
        return j;
    }

    std::string formatBytes(double b)
    {
        char buf[64];
        if (b >= 1e9)
            std::snprintf(buf, sizeof buf, "%.3g GB", b / 1e9);
        else if (b >= 1e6)
            std::snprintf(buf, sizeof buf, "%.3g MB", b / 1e6);
        else if (b >= 1e3)
            std::snprintf(buf, sizeof buf, "%.3g kB", b / 1e3);
        else
            std::snprintf(buf, sizeof buf, "%.0f B", b);
        return buf;
    }

    void printSweepTable(std::ostream& out, CollectiveOp op, int ranks, const std::vector<double>& sizes,
        const std::vector<engine::CollectiveEstimate>& rows)
    {
        // Column layout of nccl-tests (src/common.cu), one modelled result set per row.
        char line[256];
        out << "#                                                      modelled\n";
        std::snprintf(line, sizeof line, "#%12s %12s %8s %6s %6s %9s %7s %7s  %s\n", "size", "count", "type", "redop",
            "root", "time", "algbw", "busbw", "algorithm");
        out << line;
        std::snprintf(line, sizeof line, "#%12s %12s %8s %6s %6s %9s %7s %7s\n", "(B)", "(elements)", "", "", "",
            "(us)", "(GB/s)", "(GB/s)");
        out << line;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const auto& e = rows[i];
            const std::string algo = std::string(engine::toString(e.algorithm)) + "/" + engine::toString(e.protocol);
            std::snprintf(line, sizeof line, " %12.0f %12.0f %8s %6s %6d %9.2f %7.2f %7.2f  %s\n", sizes[i],
                alignedCount(op, sizes[i], ranks), "float", redopOf(op), rootOf(op), e.seconds * 1e6,
                e.algbwBytesPerSecond / 1e9, e.busbwBytesPerSecond / 1e9, algo.c_str());
            out << line;
        }
    }

} // namespace

int runCollectiveCommand(const std::vector<std::string>& args, CliIo io)
{
    auto cl = CommandLine::parse(args, { "json" }, { "catalog", "op", "bytes", "ranks", "algo", "sweep" });
    if (!cl)
        return cliUsageError(io, kCommand, cl.message());
    if (cl->positionals().size() != 1)
        return cliUsageError(io, kCommand, "expected exactly one scenario FILE (see --help)");
    const std::string path = cl->positionals().front();

    const auto opText = cl->value("op");
    if (!opText)
        return cliUsageError(
            io, kCommand, "--op is required (allreduce|allgather|reducescatter|broadcast|reduce|alltoall|sendrecv)");
    const auto op = engine::parseCollectiveOp(*opText);
    if (!op)
        return cliUsageError(io, kCommand,
            "--op: unknown collective \"" + *opText
                + "\" (expected allreduce|allgather|reducescatter|broadcast|reduce|alltoall|sendrecv)");

    std::vector<double> sizes;
    if (const auto sweep = cl->value("sweep")) {
        const auto colon = sweep->find(':');
        const auto lo = colon == std::string::npos ? std::nullopt : engine::parseByteSize(sweep->substr(0, colon));
        const auto hi = colon == std::string::npos ? std::nullopt : engine::parseByteSize(sweep->substr(colon + 1));
        if (!lo || !hi || *lo < 1 || *lo > *hi)
            return cliUsageError(io, kCommand,
                "--sweep: expected MIN:MAX sizes with MIN >= 1 and MIN <= MAX (e.g. 8:8G), got \"" + *sweep + "\"");
        for (double s = double(*lo); s <= double(*hi); s *= 2.0)
            sizes.push_back(s);
    }
    if (const auto bytesText = cl->value("bytes")) {
        const auto bytes = engine::parseByteSize(*bytesText);
        if (!bytes)
            return cliUsageError(
                io, kCommand, "--bytes: expected a size such as 1048576, 128K, 1M or 8G, got \"" + *bytesText + "\"");
        if (sizes.empty())
            sizes.push_back(double(*bytes));
    }
    if (sizes.empty())
        return cliUsageError(io, kCommand, "--bytes N or --sweep MIN:MAX is required");

    auto catalog = loadCatalogForCli(*cl, io);
    if (!catalog)
        return 1;
    auto scenario = loadValidScenarioForCli(path, *catalog, io);
    if (!scenario)
        return 1;

    int ranks = scenario->cluster.gpus;
    if (const auto ranksText = cl->value("ranks")) {
        long long parsed = 0;
        const char* end = ranksText->data() + ranksText->size();
        const auto [ptr, ec] = std::from_chars(ranksText->data(), end, parsed);
        if (ec != std::errc() || ptr != end || parsed < 1 || parsed > scenario->cluster.gpus)
            return cliUsageError(io, kCommand,
                "--ranks: expected an integer from 1 to the scenario's " + std::to_string(scenario->cluster.gpus)
                    + " GPUs, got \"" + *ranksText + "\"");
        ranks = int(parsed);
    }
    // The scenario's communication.algorithm is the default; --algo overrides it.
    std::string algoText = cl->value("algo").value_or(scenario->communication.algorithm);
    const auto algorithm = engine::parseCollectiveAlgorithm(algoText);
    if (!algorithm)
        return cliUsageError(io, kCommand,
            (cl->value("algo") ? std::string("--algo") : path + ": /communication/algorithm") + ": unknown algorithm \""
                + algoText
                + "\" (expected "
                  "auto|ring|tree|nvls|nvlstree|collnet|pat|hierarchical|direct|halving_doubling|parameter_server)");

    auto model = engine::CollectiveModel::fromScenario(*scenario, *catalog);
    if (!model) {
        io.err << path << ": " << model.message() << "\n";
        return 1;
    }
    engine::CollectiveRequest request;
    request.op = *op;
    request.group = model->placementFor(ranks);
    request.algorithm = *algorithm;
    std::vector<engine::CollectiveEstimate> rows;
    for (double s : sizes) {
        request.bytes = s;
        if (auto status = model->check(request); !status)
            return cliUsageError(io, kCommand,
                (cl->value("algo") ? path + ": --algo " + algoText
                                   : path + ": /communication/algorithm \"" + algoText + "\"")
                    + ": " + status.message());
        rows.push_back(model->estimate(request));
    }

    const auto& g = request.group;
    const int nodes = (g.ranks + g.ranksPerNode - 1) / g.ranksPerNode;
    if (cl->flag("json")) {
        nlohmann::json j { { "op", engine::toString(*op) }, { "ranks", g.ranks }, { "ranks_per_node", g.ranksPerNode },
            { "nodes", nodes }, { "nics_per_node", g.nicsPerNode }, { "span_tier", g.spanTier },
            { "requested_algorithm", engine::toString(*algorithm) } };
        if (cl->value("sweep")) {
            nlohmann::json list = nlohmann::json::array();
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                nlohmann::json row = estimateJson(rows[i], sizes[i]);
                row["count"] = alignedCount(*op, sizes[i], g.ranks);
                row["type"] = "float";
                row["redop"] = redopOf(*op);
                row["root"] = rootOf(*op);
                list.push_back(row);
            }
            j["rows"] = list;
        } else {
            j.update(estimateJson(rows.front(), sizes.front()));
        }
        io.out << j.dump(2) << "\n";
        return 0;
    }
    io.out << "# " << engine::toString(*op) << " on " << g.ranks << " ranks (" << g.ranksPerNode << " per node, "
           << nodes << (nodes == 1 ? " node" : " nodes") << ", " << g.nicsPerNode << " NICs per node) of " << path
           << "\n";
    if (cl->value("sweep")) {
        printSweepTable(io.out, *op, g.ranks, sizes, rows);
        return 0;
    }
    const auto& e = rows.front();
    char line[256];
    std::snprintf(line, sizeof line,
        "size %.0f B: time %.2f us, algbw %.2f GB/s, busbw %.2f GB/s, algorithm %s, protocol %s\n", sizes.front(),
        e.seconds * 1e6, e.algbwBytesPerSecond / 1e9, e.busbwBytesPerSecond / 1e9, engine::toString(e.algorithm),
        engine::toString(e.protocol));
    io.out << line;
    const auto& b = e.perRankBytes;
    io.out << "bytes sent per rank: scale-up " << formatBytes(b.scaleUpBytes) << ", NIC " << formatBytes(b.nicBytes)
           << " (leaf " << formatBytes(b.tierBytes[1]) << ", spine " << formatBytes(b.tierBytes[2]) << ", core "
           << formatBytes(b.tierBytes[3]) << ")\n";
    if (e.algorithm == engine::CollectiveAlgorithm::ParameterServer)
        io.out << "parameter-server hub load: " << formatBytes(e.hubBytes) << " (2N x " << formatBytes(sizes.front())
               << ")\n";
    return 0;
}

} // namespace clusterscope::app
