#include "app/cli/clicommand.h"
#include "app/cli/clisupport.h"
#include "app/cli/commandline.h"
#include "engine/analysis/fabriccontention.h"
#include "engine/analysis/linkleveltext.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/fabric/pricebook.h"
#include "engine/training/computecalibration.h"
#include "engine/training/trainingevaluator.h"
#include "engine/training/trainingjson.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <ostream>
#include <string>

namespace clusterscope::app {

namespace {

    std::string fixed(double value, int decimals)
    {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
        return buffer;
    }

    std::string percent(double share) { return fixed(100.0 * share, 1) + "%"; }
    std::string gigabytes(double bytes) { return fixed(bytes / 1e9, 1) + " GB"; }

} // namespace

/// Human-readable summary of one estimate (shared with the search command).
void printTrainingEstimate(std::ostream& out, const engine::TrainingEstimate& e)
{
    using namespace engine;
    const ParallelismSpec& p = e.strategy.parallelism;
    const IterationBreakdown& b = e.breakdown;
    out << "  parallelism   tp " << p.tp << "  pp " << p.pp << "  dp " << p.dp << "  cp " << p.cp << " ("
        << toString(p.cpKind) << ")  ep " << p.ep
        << (p.expertTp() != p.tp ? "  etp " + std::to_string(p.etp) : std::string()) << "  vpp " << p.vpp
        << (p.vppMicrobatchGroup > 0 ? " (group " + std::to_string(p.vppMicrobatchGroup) + ")" : std::string())
        << "  zero " << p.zero << "  sp " << (p.sequenceParallel ? "on" : "off") << "  " << toString(p.schedule)
        << "  micro-batch " << e.strategy.microBatch << "  recompute " << recomputeText(e.strategy) << "\n";
    out << "  iteration     " << fixed(e.iterationSeconds, 3) << " s   tokens/s " << fixed(e.tokensPerSecond, 0)
        << "   model TFLOP/s per GPU " << fixed(e.tflopsPerGpu, 1) << "   MFU " << percent(e.mfu) << "\n";
    const double t = e.iterationSeconds;
    const std::pair<const char*, double> parts[] = { { "compute", b.compute }, { "recompute", b.recompute },
        { "tp", b.tpExposed }, { "pp", b.ppExposed }, { "dp", b.dpExposed }, { "cp", b.cpExposed },
        { "ep", b.epExposed }, { "bubble", b.bubble }, { "optimizer", b.optimizer }, { "other", b.other } };
    out << "  breakdown    ";
    for (const auto& [name, seconds] : parts)
        if (seconds > 0)
            out << " " << name << " " << fixed(seconds, 3) << " s (" << percent(seconds / t) << ")";
    out << "\n  network share " << percent(e.networkShare) << " of the iteration is exposed communication"
        << (e.networkShareAboveGuideline ? " -- ABOVE the 25% guideline\n" : " (within the 25% guideline)\n");
    const MemoryBreakdown& m = e.memory;
    out << "  memory/GPU    " << gigabytes(m.totalBytes()) << " of " << gigabytes(m.capacityBytes) << ": weights "
        << gigabytes(m.weightsBytes) << ", gradients " << gigabytes(m.gradientsBytes) << ", optimizer "
        << gigabytes(m.optimizerBytes) << ", activations " << gigabytes(m.activationsBytes);
    if (m.compressionBytes > 0)
        out << ", compression " << gigabytes(m.compressionBytes);
    out << ", other " << gigabytes(m.otherBytes) << ", CUDA/NCCL/allocator reserve "
        << gigabytes(m.cudaContextBytes + m.ncclBytes + m.allocatorReserveBytes)
        << (m.fits() ? " -> fits\n" : " -> OUT OF MEMORY\n");
    if (e.offloadedLayers > 0)
        out << "  offloading    activations of " << e.offloadedLayers << " layers per micro-batch in host memory ("
            << gigabytes(m.offloadedActivationsBytes) << "), " << fixed(e.offloadCopySeconds * 1e3, 1)
            << " ms per layer each way, " << fixed(e.offloadExposedSeconds, 3) << " s exposed (in 'other')\n";
}

int runEvaluateCommand(const std::vector<std::string>& args, CliIo io)
{
    using namespace engine;
    auto cl = CommandLine::parse(args, { "json", "no-fabric" }, { "catalog", "traffic", "calibration", "project" });
    if (!cl)
        return cliUsageError(io, "evaluate", cl.message());
    if (cl->positionals().size() != 1)
        return cliUsageError(io, "evaluate", "expected exactly one scenario FILE (see --help)");
    TrafficDetail detail = TrafficDetail::Summary;
    if (auto traffic = cl->value("traffic")) {
        if (*traffic == "nodes")
            detail = TrafficDetail::Nodes;
        else if (*traffic == "racks")
            detail = TrafficDetail::Racks;
        else if (*traffic != "summary")
            return cliUsageError(io, "evaluate", "--traffic expects summary, nodes or racks, got \"" + *traffic + "\"");
    }
    const std::string path = cl->positionals().front();
    // Catalog, validated scenario (with a project's compute calibration applied) and collective calibration.
    auto context = loadTrainingContextForCli(*cl, path, io);
    if (!context)
        return 1;
    const Catalog* catalog = &context->catalog;
    const Scenario* scenario = &context->scenario;
    const std::optional<CollectiveCalibration>& calibration = context->calibration;

    // The analysis the GUI and the report run: the scenario's strategy (else the search's best),
    // the fabric built and the iteration's traffic routed on it, its contention fed back (fabric
    // contention slows the collectives that cross spines and core).
    AnalysisOptions options = cliAnalysisOptions(*cl, *context);
    options.runSearch = false;
    const ScenarioAnalysis a = analyseScenario(*scenario, *catalog, PriceBook {}, options);
    if (!a.estimate) {
        io.err << path << ": " << a.trainingError << "\n";
        return 1;
    }
    const TrainingEstimate& estimate = *a.estimate;
    const std::string source = toString(a.estimateSource);
    const FabricLoad& load = a.load;
    const std::string fabricNote = cl->flag("no-fabric") ? "not computed (--no-fabric)" : a.fabricError;
    BusiestLink busiest; // a plain value: GCC 12 misreads an optional here (-Wmaybe-uninitialized)
    bool haveBusiest = false;
    if (a.fabric && load.routed)
        if (const auto found = busiestLink(a.fabric->graph, load.linkUtilisation)) {
            busiest = *found;
            haveBusiest = true;
        }
    if (cl->flag("json")) {
        nlohmann::json doc = nlohmann::json::parse(trainingEstimateToJson(estimate, *a.evaluator, source, detail));
        nlohmann::json contention
            = { { "routing", toString(scenario->communication.routing) }, { "calibrated", calibration.has_value() } };
        if (a.fabric) {
            contention["spine_slowdown"] = load.spineSlowdown;
            contention["core_slowdown"] = load.coreSlowdown;
            contention["uncontended_iteration_seconds"] = load.uncontendedIterationSeconds;
            contention["core_tier"] = hasLinksAt(a.fabric->graph, LinkLevel::SpineCore);
            if (haveBusiest) {
                contention["busiest_link_utilisation"] = busiest.utilisation;
                contention["busiest_link_level"] = toString(busiest.level);
                // The busiest link outside the servers (NIC-switch and switch-switch links).
                if (const auto network = busiestNetworkLink(a.fabric->graph, load.linkUtilisation)) {
                    contention["busiest_network_link_utilisation"] = network->utilisation;
                    contention["busiest_network_link_level"] = toString(network->level);
                }
            }
            if (!load.error.empty())
                contention["error"] = load.error;
        } else {
            contention["error"] = fabricNote;
        }
        doc["fabric_contention"] = contention;
        io.out << doc.dump(2) << "\n";
        return 0;
    }
    io.out << scenario->name << " (strategy from the " << source << (calibration ? "; collective model calibrated" : "")
           << (computeCalibrationSource(scenario->computeCalibration).empty() ? "" : "; compute model calibrated")
           << ")\n";
    printTrainingEstimate(io.out, estimate);
    if (const std::string from = computeCalibrationSource(scenario->computeCalibration); !from.empty())
        io.out << "  compute       calibrated from " << from << "\n";
    if (a.fabric && load.error.empty()) {
        io.out << "  fabric        " << toString(scenario->communication.routing)
               << " routing: " << describeContention(a.fabric->graph, load.spineSlowdown, load.coreSlowdown)
               << " slower than balanced; "
               << "iteration " << fixed(estimate.iterationSeconds, 3) << " s vs "
               << fixed(load.uncontendedIterationSeconds, 3) << " s without contention\n";
        if (haveBusiest) {
            io.out << "  busiest link  " << describeUtilisation(busiest.utilisation) << " over an iteration ("
                   << linkLevelText(busiest.level) << ")\n";
            if (busiest.level == LinkLevel::Internal)
                if (const auto network = busiestNetworkLink(a.fabric->graph, load.linkUtilisation))
                    io.out << "  busiest network link  " << describeUtilisation(network->utilisation) << " ("
                           << linkLevelText(network->level) << ")\n";
        }
    } else if (a.fabric) {
        io.out << "  fabric        traffic not routed: " << load.error << "\n";
    } else if (!cl->flag("no-fabric")) {
        io.out << "  fabric        not built: " << fabricNote << "\n";
    }
    if (estimate.trainingSeconds > 0)
        io.out << "  training      " << fixed(scenario->training.tokens / 1e12, 2)
               << "T tokens: " << fixed(estimate.trainingSeconds / 86400.0, 1) << " days, "
               << fixed(estimate.trainingCostUsd / 1e6, 2) << " million USD at " << fixed(estimate.gpuHourUsd, 2)
               << " USD per GPU-hour\n";
    const CommunicationBytes& sent = estimate.bytesSent;
    io.out << "  sent per GPU  tp " << gigabytes(sent.tp) << ", cp " << gigabytes(sent.cp) << ", dp "
           << gigabytes(sent.dp + sent.expertDp) << ", ep " << gigabytes(sent.ep) << ", pp " << gigabytes(sent.pp)
           << " per iteration\n";
    return 0;
}

} // namespace clusterscope::app
