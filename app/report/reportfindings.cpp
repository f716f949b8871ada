// Report sections about predicted performance, link loads, sensitivity and assumptions.

#include "app/report/breakdownchart.h"
#include "app/report/reportformat.h"
#include "app/report/reportsections.h"
#include "engine/analysis/fabriccontention.h"
#include "engine/analysis/memoryheadroom.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/training/computecalibration.h"
#include "engine/training/computeefficiency.h"
#include "views/presentation/tiernames.h"

#include <algorithm>
#include <numeric>

namespace clusterscope::app {

using namespace clusterscope::engine;

namespace {

    QString qs(const std::string& s) { return QString::fromStdString(s); }

    QString nodeName(const FabricDesign& d, NodeId n)
    {
        const FabricGraph& g = d.graph;
        const FabricNode& node = g.node(n);
        if (!g.label(n).empty())
            return qs(g.label(n));
        switch (node.kind) {
        case NodeKind::Nic:
            return QStringLiteral("server ") + QString::number(node.host + 1) + QStringLiteral(" NIC ")
                + QString::number(node.rail + 1);
        case NodeKind::Gpu:
            return QStringLiteral("server ") + QString::number(node.host + 1) + QStringLiteral(" GPU ")
                + QString::number(node.rail + 1);
        case NodeKind::Switch:
            return qs(tierName(node.tier)) + QStringLiteral(" switch #") + QString::number(n);
        default:
            return qs(toString(node.kind)) + QStringLiteral(" #") + QString::number(n);
        }
    }

    QString levelText(LinkLevel level) { return views::linkLevelLabel(level); }

    // Beside an iteration time: the compute model was calibrated, and from what (nothing when not).
    QString computeCalibrationNote(const Scenario& s)
    {
        const std::string from = computeCalibrationSource(s.computeCalibration);
        return from.empty()
            ? QString()
            : QStringLiteral(" (compute calibrated from ") + QString::fromStdString(from) + QLatin1Char(')');
    }

} // namespace

void appendPerformance(HtmlBuilder& html, const ReportScenario& rs, const QString& chartSource, int widthPx)
{
    const TrainingEstimate& e = *rs.analysis.estimate;
    const Scenario& s = rs.scenario;
    html.heading(2, QStringLiteral("Predicted performance"));
    QList<QPair<QString, QString>> facts;
    facts << qMakePair(QStringLiteral("Iteration time"), formatSeconds(e.iterationSeconds) + computeCalibrationNote(s))
          << qMakePair(QStringLiteral("Tokens per second"), formatCount((long long)std::llround(e.tokensPerSecond)))
          << qMakePair(QStringLiteral("Model TFLOP/s per GPU"), QString::number(e.tflopsPerGpu, 'f', 1))
          << qMakePair(QStringLiteral("MFU"), formatPercent(e.mfu))
          << qMakePair(QStringLiteral("Exposed communication"),
                 formatPercent(e.networkShare)
                     + (e.networkShareAboveGuideline ? QStringLiteral(" (above the 25% guideline)")
                                                     : QStringLiteral(" (within the 25% guideline)")))
          << qMakePair(QStringLiteral("Memory per GPU"),
                 QString::number(e.memory.totalBytes() / 1e9, 'f', 1) + QStringLiteral(" GB of ")
                     + QString::number(e.memory.capacityBytes / 1e9, 'f', 1)
                     + (!e.memory.fits() ? QStringLiteral(" GB: does NOT fit")
                             : lowMemoryHeadroom(e.memory)
                             ? QStringLiteral(" GB: fits with under 5% headroom beyond the modelled CUDA "
                                              "context, NCCL buffers and allocator reserve")
                             : QStringLiteral(" GB: fits")))
          << qMakePair(QStringLiteral("Token budget"),
                 s.training.tokens > 0 ? QString::number(s.training.tokens / 1e12, 'f', 2) + QStringLiteral(" T tokens")
                                       : QStringLiteral("not stated"))
          << qMakePair(QStringLiteral("Time to train"),
                 e.trainingSeconds > 0 ? formatDuration(e.trainingSeconds) : QStringLiteral("-"))
          << qMakePair(QStringLiteral("Cost to train"),
                 e.trainingSeconds > 0 ? formatUsd(e.trainingCostUsd) + QStringLiteral(" at $")
                         + QString::number(e.gpuHourUsd, 'f', 2) + QStringLiteral(" per GPU-hour")
                                       : QStringLiteral("-"))
          << qMakePair(QStringLiteral("Cost per iteration"), formatUsdCents(e.costPerIterationUsd));
    html.keyValueTable(facts, 2);

    html.heading(3, QStringLiteral("Iteration breakdown"));
    if (!chartSource.isEmpty())
        html.image(chartSource, QStringLiteral("Iteration time breakdown"), widthPx);
    html.beginTable(
        { QStringLiteral("Component"), QStringLiteral("Time"), QStringLiteral("Share") }, QStringLiteral("lrr"));
    const double total = e.breakdown.total();
    for (const views::BreakdownSlice& c : views::BreakdownPalette::slices(e.breakdown)) {
        if (c.seconds <= 0)
            continue;
        html.raw(QStringLiteral("<tr><td align=\"left\"><span style=\"color: ") + c.color.name()
            + QStringLiteral("\">■</span> ") + c.name.toHtmlEscaped() + QStringLiteral("</td><td align=\"right\">")
            + formatSeconds(c.seconds) + QStringLiteral("</td><td align=\"right\">")
            + formatPercent(total > 0 ? c.seconds / total : 0) + QStringLiteral("</td></tr>\n"));
    }
    html.row({ QStringLiteral("Iteration"), formatSeconds(total), formatPercent(1.0) }, QStringLiteral("grand"));
    html.endTable();
    const CommunicationBytes& b = e.bytesSent;
    html.paragraph(QStringLiteral("Each GPU sends per iteration: TP ") + QString::number(b.tp / 1e9, 'f', 1)
        + QStringLiteral(" GB, PP ") + QString::number(b.pp / 1e9, 'f', 1) + QStringLiteral(" GB, DP ")
        + QString::number((b.dp + b.expertDp) / 1e9, 'f', 1) + QStringLiteral(" GB, CP ")
        + QString::number(b.cp / 1e9, 'f', 1) + QStringLiteral(" GB, EP ") + QString::number(b.ep / 1e9, 'f', 1)
        + QStringLiteral(" GB."));
}

void appendFindings(HtmlBuilder& html, const ReportScenario& rs)
{
    const ScenarioAnalysis& a = rs.analysis;
    const FabricDesign& d = *a.fabric;
    const FabricGraph& g = d.graph;
    const TrainingEstimate& e = *a.estimate;
    html.heading(2, QStringLiteral("Link utilisation and oversubscription"));
    QStringList findings;
    findings << QStringLiteral("Oversubscription: the scenario asks for ")
            + formatRatio(rs.scenario.cluster.fabric.oversubscription)
            + (d.leafUpPorts > 0 ? QStringLiteral("; the built leaves have ") + QString::number(d.leafDownPorts)
                        + QStringLiteral(" ports down and ") + QString::number(d.leafUpPorts) + QStringLiteral(" up (")
                        + formatRatio(double(d.leafDownPorts) / d.leafUpPorts) + QStringLiteral(").")
                                 : QStringLiteral("."));
    const double injectionGbps = double(d.hosts) * d.nicsPerNode * d.nicGbps;
    findings << QStringLiteral("Bisection bandwidth ") + formatGbps(rs.bisectionGbps)
            + (injectionGbps > 0 ? QStringLiteral(", ") + formatPercent(rs.bisectionGbps / (injectionGbps / 2), 0)
                        + QStringLiteral(" of half the injection bandwidth (") + formatGbps(injectionGbps / 2)
                        + QStringLiteral(").")
                                 : QStringLiteral("."));
    findings << QStringLiteral("Exposed communication is ") + formatPercent(e.networkShare)
            + QStringLiteral(" of the iteration: ")
            + (e.networkShareAboveGuideline ? QStringLiteral("above") : QStringLiteral("within"))
            + QStringLiteral(" the 25% guideline.");
    // One busiest-link figure, the same as the 3D view's and the CLI's (engine::busiestLink), and
    // the contention the iteration time includes, naming only the tiers the fabric has.
    if (const auto busiest = busiestLink(g, a.load.linkUtilisation)) {
        QString text = QStringLiteral("Busiest link: ") + qs(describeUtilisation(busiest->utilisation))
            + QStringLiteral(" averaged over one iteration (") + levelText(busiest->level) + QLatin1Char(')');
        // Inside a server (NVLink, PCIe): the network's own busiest link too, as the table below lists them.
        if (busiest->level == LinkLevel::Internal)
            if (const auto network = busiestNetworkLink(g, a.load.linkUtilisation))
                text += QStringLiteral("; busiest network link: ") + qs(describeUtilisation(network->utilisation))
                    + QStringLiteral(" (") + levelText(network->level) + QLatin1Char(')');
        findings << text + QLatin1Char('.');
        findings << QStringLiteral("Contention (routing ") + QLatin1String(toString(rs.scenario.communication.routing))
                + QStringLiteral("): collectives crossing the switches run ")
                + qs(describeContention(g, a.load.spineSlowdown, a.load.coreSlowdown))
                + QStringLiteral(" slower than on a balanced fabric; the iteration takes ")
                + formatSeconds(e.iterationSeconds) + QStringLiteral(" with it, ")
                + formatSeconds(a.load.uncontendedIterationSeconds) + QStringLiteral(" without.");
        if (a.load.timing && a.load.timing->unroutableFlows > 0)
            findings << formatCount((long long)a.load.timing->unroutableFlows)
                    + QStringLiteral(" transfers have no path on this fabric.");
    } else if (!a.load.error.empty()) {
        findings << QStringLiteral("The iteration's traffic could not be routed: ") + qs(a.load.error);
    }
    html.bullets(findings);

    if (a.load.linkUtilisation.empty())
        return;
    // Utilisation averaged over the iteration, per tier boundary.
    html.heading(3, QStringLiteral("Average utilisation over one iteration"));
    html.beginTable(
        { QStringLiteral("Tier boundary"), QStringLiteral("Links"), QStringLiteral("Mean"), QStringLiteral("Max") },
        QStringLiteral("lrrr"));
    for (const LinkLevel level :
        { LinkLevel::NodeLeaf, LinkLevel::LeafSpine, LinkLevel::SpineCore, LinkLevel::Other }) {
        double sum = 0, max = 0;
        long long n = 0;
        for (LinkId l = 0; l < g.linkCount(); ++l) {
            if (g.level(l) != level || g.link(l).flags & kLinkMissing)
                continue;
            sum += a.load.linkUtilisation[l];
            max = std::max(max, double(a.load.linkUtilisation[l]));
            ++n;
        }
        if (n > 0)
            html.row({ levelText(level), formatCount(n), formatPercent(sum / n),
                max > 1 ? QString::number(max, 'f', 1) + QStringLiteral("× capacity") : formatPercent(max) });
    }
    html.endTable();

    std::vector<LinkId> links(g.linkCount());
    std::iota(links.begin(), links.end(), 0);
    links.erase(std::remove_if(links.begin(), links.end(),
                    [&](LinkId l) { return g.level(l) == LinkLevel::Internal || a.load.linkUtilisation[l] <= 0; }),
        links.end());
    std::stable_sort(links.begin(), links.end(),
        [&](LinkId x, LinkId y) { return a.load.linkUtilisation[x] > a.load.linkUtilisation[y]; });
    if (links.size() > 8)
        links.resize(8);
    if (links.empty())
        return;
    html.heading(3, QStringLiteral("Busiest network links"));
    html.beginTable({ QStringLiteral("Link"), QStringLiteral("Tier boundary"), QStringLiteral("Rate"),
                        QStringLiteral("Utilisation") },
        QStringLiteral("llrr"), QStringLiteral("data"), { 46, 24, 15, 15 });
    for (const LinkId l : links)
        html.row({ nodeName(d, g.link(l).a) + QStringLiteral(" – ") + nodeName(d, g.link(l).b), levelText(g.level(l)),
            QString::number(double(g.link(l).gbps), 'f', 0) + QStringLiteral(" Gb/s"),
            formatPercent(a.load.linkUtilisation[l]) });
    html.endTable();
    html.paragraph(QStringLiteral("Utilisation is the busier direction's bytes over one iteration divided by what the "
                                  "link can carry in the iteration time."),
        QStringLiteral("caption"));
}

void appendSensitivity(HtmlBuilder& html, const ReportScenario& rs)
{
    if (rs.sensitivity.empty())
        return;
    html.heading(2, QStringLiteral("Sensitivity"));
    html.paragraph(QStringLiteral(
        "The scenario analysed again with one change at a time (same model, batch and "
        "price book). Each variant is evaluated twice: with the first row's strategy "
        "(the base strategy: only the fabric or transport changes, the change's own effect) and with its own "
        "strategy (the scenario's, or the best its search finds when the scenario states "
        "none)."));
    html.beginTable(
        { QStringLiteral("Variant"), QStringLiteral("GPUs"), QStringLiteral("Iteration, base strategy"),
            QStringLiteral("Iteration, own strategy"), QStringLiteral("Own strategy"),
            QStringLiteral("Network $ per GPU"), QStringLiteral("Cluster cost"), QStringLiteral("Contention") },
        QStringLiteral("lrrrlrrr"), QStringLiteral("data"), { 19, 6, 10, 10, 20, 9, 14, 12 });
    QStringList why;
    for (const SensitivityRow& row : rs.sensitivity) {
        const QString network
            = row.networkCostPerGpuUsd > 0 ? formatUsd(row.networkCostPerGpuUsd) : QStringLiteral("-");
        const QString cluster = row.clusterCostUsd > 0 ? formatUsd(row.clusterCostUsd) : QStringLiteral("-");
        if (!row.error.isEmpty()) {
            html.row({ row.variant, formatCount(row.gpus),
                row.sameStrategySeconds > 0 ? formatSeconds(row.sameStrategySeconds) : QStringLiteral("-"),
                QStringLiteral("-"), QStringLiteral("not computed: ") + row.error, network, cluster,
                QStringLiteral("-") });
            continue;
        }
        html.row({ row.variant, formatCount(row.gpus),
                     row.sameStrategySeconds > 0 ? formatSeconds(row.sameStrategySeconds) : QStringLiteral("n/a"),
                     formatSeconds(row.iterationSeconds),
                     row.strategy + QStringLiteral(" (") + row.note + QLatin1Char(')'), network, cluster,
                     row.contentionSlowdown > 0 ? QString::number(row.contentionSlowdown, 'f', 3) + QStringLiteral("×")
                                                : QStringLiteral("-") },
            row.base ? QStringLiteral("base") : QString());
        if (!row.sameStrategyWhy.isEmpty())
            why << row.variant + QStringLiteral(" with the base strategy: ") + row.sameStrategyWhy + QLatin1Char('.');
    }
    html.endTable();
    if (!why.isEmpty()) {
        html.paragraph(QStringLiteral("What changes with the base strategy:"));
        html.bullets(why);
    }
    html.paragraph(
        QStringLiteral(
            "Iteration time counts only communication that compute does not hide, so a change "
            "of fabric can leave it unchanged; a fabric with larger leaves or scalable units can place a parallel "
            "group under one leaf and make it faster. n/a: the base strategy does not cover another GPU "
            "count. Contention: the own strategy's iteration time with the contention of its traffic routed on the "
            "variant's fabric, divided by the time without it (1.000× = none). Network $ per GPU is the network's "
            "cost divided by the GPUs. Tokens/s = global batch × sequence length / iteration time."),
        QStringLiteral("caption"));
}

void appendAssumptions(HtmlBuilder& html, const ReportDocument& doc)
{
    html.heading(2, QStringLiteral("Assumptions and calibration"));
    const Scenario& s = doc.scenarios.front().scenario;
    const TrainingEstimate& e = *doc.scenarios.front().analysis.estimate;

    html.heading(3, QStringLiteral("Calibration status"));
    if (!doc.calibration) {
        html.paragraph(QStringLiteral("Uncalibrated. No measured collective sweeps (nccl-tests) are stored with this "
                                      "scenario: communication times come from the NCCL-faithful collective model "
                                      "with its default latencies and bandwidths. Import nccl-tests logs of the target "
                                      "cluster (clusterscope-cli import-nccl-tests) to check them."));
    } else {
        const CalibrationSet& c = *doc.calibration;
        html.paragraph(QStringLiteral("Calibration \"") + doc.calibrationName
            + QStringLiteral("\" is stored in the "
                             "project: ")
            + QString::number(c.sweeps.size())
            + QStringLiteral(
                " measured sweep(s). The residuals "
                "below compare the collective model with the measurements before and after the fit (relative RMS). "
                "Every estimate in this report (performance, findings, sensitivity) uses the calibrated collective "
                "model; the residuals before calibration show how far NCCL's defaults were from this cluster."));
        html.beginTable({ QStringLiteral("Sweep"), QStringLiteral("Ranks"), QStringLiteral("Nodes"),
                            QStringLiteral("Sizes"), QStringLiteral("RMS before"), QStringLiteral("RMS after") },
            QStringLiteral("lrrrrr"));
        for (const SweepCalibration& sw : c.sweeps)
            html.row({ QLatin1String(toString(sw.sweep.op)) + QStringLiteral(" (")
                    + QLatin1String(toString(sw.sweep.algorithm)) + QStringLiteral(") on ") + qs(sw.sweep.gpuName),
                QString::number(sw.sweep.ranks), QString::number(sw.sweep.nodes), QString::number(sw.rows.size()),
                formatPercent(sw.rmsBefore), formatPercent(sw.rmsAfter) });
        html.endTable();
        html.beginTable({ QStringLiteral("Algorithm"), QStringLiteral("Tier"), QStringLiteral("Latency scale"),
                            QStringLiteral("Latency offset"), QStringLiteral("Bandwidth scale") },
            QStringLiteral("llrrr"));
        for (const SweepCalibration& sw : c.sweeps)
            for (const AlgorithmCorrection& k : sw.corrections) {
                // A protocol's own refinement names its protocol (ring / LL128).
                QString algorithm = QLatin1String(toString(k.algorithm));
                if (k.protocol >= 0) {
                    algorithm += QStringLiteral(" / ");
                    algorithm += QLatin1String(toString(static_cast<CollectiveProtocol>(k.protocol)));
                }
                html.row({ algorithm, k.tier == 0 ? QStringLiteral("intra-node") : QStringLiteral("inter-node"),
                    QString::number(k.correction.latencyScale, 'f', 3),
                    QString::number(k.correction.latencyOffsetSeconds * 1e6, 'f', 2) + QStringLiteral(" µs"),
                    QString::number(k.correction.bandwidthScale, 'f', 3) });
            }
        html.endTable();
    }

    html.heading(3, QStringLiteral("Compute efficiency model"));
    const ComputeEfficiencyParams defaults;
    const ComputeCalibrationSpec& cc = s.computeCalibration;
    const QString calibratedFrom = QString::fromStdString(computeCalibrationSource(cc));
    html.paragraph(calibratedFrom.isEmpty()
            ? QStringLiteral("Uncalibrated: the documented defaults and the catalog's achievable fractions of peak. "
                             "Calibrate with clusterscope-cli calibrate-compute or the Runs tab's \"Calibrate from "
                             "this run\".")
            : QStringLiteral("Calibrated from ") + calibratedFrom + QStringLiteral("."));
    for (const QString& note : doc.computeCalibrationNotes)
        html.paragraph(QStringLiteral("Project compute calibration: ") + note + QLatin1Char('.'));
    const auto param = [&calibratedFrom](const QString& name, double value, const std::optional<double>& override) {
        return QStringList { name, QString::number(override.value_or(value), 'g', 4),
            override ? (calibratedFrom.isEmpty() ? QStringLiteral("scenario calibration.compute") : calibratedFrom)
                     : QStringLiteral("documented default") };
    };
    html.beginTable(
        { QStringLiteral("Parameter"), QStringLiteral("Value"), QStringLiteral("Source") }, QStringLiteral("lrl"));
    // 0 for the two fractions of peak means "the GPU's own catalog figure" (ComputeEfficiencyParams):
    // said so, never printed as a zero efficiency.
    const auto fraction = [&param](const QString& name, double value, const std::optional<double>& override) {
        QStringList row = param(name, value, override);
        if (override.value_or(value) == 0.0)
            row = QStringList { name, QStringLiteral("per GPU and dtype"),
                QStringLiteral("the GPU's catalog entry (achievable fraction of its dense peak)") };
        return row;
    };
    html.row(fraction(QStringLiteral("GEMM fraction of peak"), defaults.gemmPeakFraction, cc.gemmPeakFraction));
    html.row(param(QStringLiteral("GEMM half-efficiency dimension"), defaults.gemmHalfDimension, cc.gemmHalfDimension));
    html.row(
        param(QStringLiteral("HBM bandwidth fraction"), defaults.memoryBandwidthFraction, cc.memoryBandwidthFraction));
    html.row({ QStringLiteral("Flash attention"),
        cc.flashAttention.value_or(defaults.flashAttention) ? QStringLiteral("yes") : QStringLiteral("no"),
        cc.flashAttention ? QStringLiteral("scenario calibration.compute") : QStringLiteral("documented default") });
    html.row(
        fraction(QStringLiteral("Flash attention fraction of peak"), defaults.flashPeakFraction, cc.flashPeakFraction));
    html.row(param(
        QStringLiteral("Overlap interference"), defaults.overlapInterferenceFraction, cc.overlapInterferenceFraction));
    html.endTable();

    html.heading(3, QStringLiteral("Other assumptions"));
    const CommunicationSpec& comm = s.communication;
    QStringList items;
    items << QStringLiteral("Routing ") + QLatin1String(toString(comm.routing)) + QStringLiteral(", packet loss rate ")
            + QString::number(comm.lossRate, 'g', 3) + QStringLiteral("; data-parallel overlap ")
            + (comm.dpOverlap ? QStringLiteral("on") : QStringLiteral("off")) + QStringLiteral(" with ")
            + QString::number(comm.dpBucketBytes / 1e6, 'f', 0) + QStringLiteral(" MB buckets; ")
            + formatPercent(comm.tpOverlapFraction, 0)
            + QStringLiteral(" of tensor-parallel traffic hidden; collective algorithm ") + qs(comm.algorithm)
            + QLatin1Char('.');
    items << (s.training.gpuHourUsd > 0 ? QStringLiteral("GPU-hour price $") + QString::number(e.gpuHourUsd, 'f', 2)
                + QStringLiteral(" from the scenario.")
                                        : QStringLiteral("GPU-hour price $") + QString::number(e.gpuHourUsd, 'f', 2)
                + QStringLiteral(" derived from the catalog: GPU price over 4 years plus its power at PUE 1.3 and "
                                 "$0.10/kWh (GPU only: no servers, network or staff)."));
    items << (s.layout ? QStringLiteral("Rack layout from the scenario (cable lengths follow it).")
                       : QStringLiteral("Default rack layout for the design (cable lengths follow it)."));
    items << QStringLiteral("Prices: ") + doc.priceBookName + QStringLiteral(", dated ") + [&doc] {
        QStringList dates;
        for (const PriceSourceRow& r : doc.priceSources)
            if (!dates.contains(r.date))
                dates << r.date;
        dates.sort();
        return dates.join(QStringLiteral(", "));
    }() + QStringLiteral("; list and street prices vary, quotes replace them.");
    items << QStringLiteral("Iteration times are model predictions (compute from FLOPs and GEMM shapes, "
                            "communication from the collective model on the placed groups), not measurements.");
    html.bullets(items);
}

} // namespace clusterscope::app
