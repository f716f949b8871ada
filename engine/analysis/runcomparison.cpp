#include "engine/analysis/runcomparison.h"

#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/run/collectivefold.h"
#include "engine/run/collectiveop.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace clusterscope::engine {

namespace {

    std::string percent(double ratio)
    {
        char text[32];
        std::snprintf(text, sizeof text, "%.0f%%", ratio * 100.0);
        return text;
    }

    std::string fixed(double value, int decimals)
    {
        char text[48];
        std::snprintf(text, sizeof text, "%.*f", decimals, value);
        return text;
    }

    TimeSplit measuredSplit(const RunAnalysis& run)
    {
        TimeSplit t;
        int samples = 0;
        for (const StepBreakdown& step : run.steps) {
            for (const RankStepBreakdown& r : step.ranks) {
                t.total += r.durationSeconds;
                t.compute += r.computeSeconds;
                t.exposedComm += r.commExposedSeconds;
                t.overlappedComm += r.commOverlappedSeconds;
                t.other += r.memcpySeconds + r.idleSeconds;
                ++samples;
            }
        }
        if (samples > 0) {
            t.total /= samples;
            t.compute /= samples;
            t.exposedComm /= samples;
            t.overlappedComm /= samples;
            t.other /= samples;
        }
        return t;
    }

    TimeSplit modelledSplit(const TrainingEstimate& e)
    {
        const IterationBreakdown& b = e.breakdown;
        TimeSplit t;
        t.total = b.total();
        t.compute = b.compute + b.recompute + b.optimizer;
        t.exposedComm = b.exposedCommunication();
        t.other = b.bubble + b.other;
        return t;
    }

    // Bytes with an SI unit (1 kB = 1e3 B).
    std::string siBytes(double bytes)
    {
        const char* units[] = { "B", "kB", "MB", "GB", "TB" };
        int u = 0;
        while (bytes >= 1000.0 && u < 4) {
            bytes /= 1000.0;
            ++u;
        }
        return fixed(bytes, u == 0 ? 0 : 1) + " " + units[u];
    }

} // namespace

RunComparison compareRunWithScenario(
    const RunAnalysis& run, const Scenario& scenario, const Catalog& catalog, const ScenarioAnalysis* scenarioAnalysis)
{
    RunComparison out;
    out.measured = measuredSplit(run);

    // Collectives: fold calls of the same (op, group, bytes, ranks), then model each fold.
    auto model = CollectiveModel::fromScenario(scenario, catalog);
    if (!model) {
        out.notes.push_back("the scenario's cluster cannot be modelled: " + model.message());
    } else {
        // The Runs tab's folds, with its measured busbw (engine/run/collectivefold.h).
        int unknown = 0, unsupported = 0;
        for (const CollectiveFold& f : foldCollectives(run.collectives)) {
            const CollectiveOp op = f.op;
            if (f.bytes <= 0 || f.groupSize < 2 || f.busbwGbps <= 0) {
                unknown += f.calls;
                continue;
            }
            if (!isCostModelled(op) || f.groupSize > scenario.cluster.gpus) {
                unsupported += f.calls;
                continue;
            }
            CollectiveComparison row;
            row.op = toString(op);
            row.processGroup = f.processGroup;
            row.bytes = f.bytes;
            row.ranks = f.groupSize;
            row.calls = f.calls;
            row.measuredBusbwGbps = f.busbwGbps;
            row.measuredDurationUs = f.durationUs;
            // nccl-tests placement: the fewest nodes that hold the group.
            const int nodes
                = std::max(1, (f.groupSize + scenario.cluster.gpusPerNode - 1) / scenario.cluster.gpusPerNode);
            const CollectiveEstimate e = model->evaluateNcclTests(op, double(f.bytes), f.groupSize, nodes);
            row.modelledBusbwGbps = e.valid ? e.busbwBytesPerSecond / 1e9 : 0.0;
            row.algorithm = std::string(toString(e.algorithm)) + "/" + toString(e.protocol);
            row.ratio = row.modelledBusbwGbps > 0 ? row.measuredBusbwGbps / row.modelledBusbwGbps : 0.0;
            out.collectives.push_back(row);
        }
        std::stable_sort(out.collectives.begin(), out.collectives.end(),
            [](const CollectiveComparison& a, const CollectiveComparison& b) {
                return a.bytes * a.calls > b.bytes * b.calls;
            });
        if (unknown > 0)
            out.notes.push_back(
                std::to_string(unknown) + " collective call(s) without a known size or group were not compared");
        if (unsupported > 0)
            out.notes.push_back(std::to_string(unsupported)
                + " collective call(s) of operations the model does not cover "
                  "(gather, scatter, barrier) or larger than the scenario's cluster were not compared");
        // Findings: the largest collectives far from the model.
        for (const CollectiveComparison& row : out.collectives) {
            if (row.ratio <= 0 || out.findings.size() >= 5)
                continue;
            if (row.ratio < 0.7 || row.ratio > 1.3)
                out.findings.push_back(row.op + " of " + siBytes(double(row.bytes)) + " on " + std::to_string(row.ranks)
                    + " ranks reaches " + percent(row.ratio) + " of the modelled bus bandwidth ("
                    + fixed(row.measuredBusbwGbps, 2) + " vs " + fixed(row.modelledBusbwGbps, 2) + " GB/s"
                    + (row.ratio < 0.7 ? "): slower than the cluster allows"
                                       : "): faster than modelled, calibrate the model"));
        }
    }

    // The iteration: only meaningful when the run is the scenario's job.
    int rankCount = 0;
    for (const StepBreakdown& s : run.steps)
        rankCount = std::max(rankCount, int(s.ranks.size()));
    const ScenarioAnalysis* a = scenarioAnalysis;
    if (a && a->estimate && rankCount == scenario.cluster.gpus) {
        out.modelled = modelledSplit(*a->estimate);
        const TimeSplit& m = out.measured;
        const TimeSplit& p = *out.modelled;
        const auto compare = [&out](const char* what, double measured, double modelled) {
            if (modelled <= 0 || measured <= 0)
                return;
            const double r = measured / modelled;
            if (r > 1.25 || r < 0.8)
                out.findings.push_back(std::string(what) + ": measured " + fixed(measured, 3) + " s per step, modelled "
                    + fixed(modelled, 3) + " s (" + fixed(r, 2) + "x)");
        };
        compare("iteration", m.total, p.total);
        compare("compute", m.compute, p.compute);
        compare("exposed communication", m.exposedComm, p.exposedComm);
        compare("other (idle, memcpy vs bubble, other)", m.other, p.other);
    } else if (a && a->estimate) {
        out.notes.push_back("the run has " + std::to_string(rankCount) + " ranks and the scenario "
            + std::to_string(scenario.cluster.gpus) + " GPUs: only the collectives are compared, not the iteration");
    } else {
        out.notes.push_back("the scenario has no model estimate: only the collectives are compared");
    }
    if (out.findings.empty())
        out.findings.push_back("the measurements are within 30% of the model everywhere they can be compared");
    return out;
}

} // namespace clusterscope::engine
