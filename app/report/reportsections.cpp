#include "app/report/reportsections.h"
#include "views/presentation/tiernames.h"

#include "views/presentation/strategylabel.h"

#include "app/report/reportformat.h"
#include "engine/run/collectivefold.h"
#include "engine/training/transformershape.h"

#include <QStringList>
#include <QTimeZone>

#include <algorithm>

namespace clusterscope::app {

using namespace clusterscope::engine;

namespace {

    QString qs(const std::string& s) { return QString::fromStdString(s); }

    QString transportText(Transport t)
    {
        return t == Transport::InfiniBand ? QStringLiteral("InfiniBand") : QStringLiteral("RoCE");
    }

    QString switchesText(const FabricDesign& d)
    {
        const auto tiers = d.graph.switchesPerTier();
        QStringList parts;
        std::size_t total = 0;
        for (std::size_t t = 0; t < tiers.size(); ++t) {
            total += tiers[t];
            if (tiers[t] > 0)
                parts << formatCount((long long)tiers[t]) + QLatin1Char(' ') + qs(tierName(int(t)));
        }
        if (total == 0)
            return QStringLiteral("none (direct network)");
        return formatCount((long long)total) + QStringLiteral(" × ") + qs(d.switchModel) + QStringLiteral(" (")
            + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
    }

    long long cablesOf(const FabricBom& bom)
    {
        long long n = 0;
        for (const BomLine& line : bom.lines)
            if (line.category == "cable")
                n += line.quantity;
        return n;
    }

    QString modelText(const ModelSpec& m)
    {
        const TransformerShape shape = TransformerShape::fromModel(m);
        QString text = QString::number(shape.totalParams() / 1e9, 'f', 1) + QStringLiteral(" B parameters");
        if (m.moe)
            text += QStringLiteral(" (") + QString::number(shape.activeParams() / 1e9, 'f', 1)
                + QStringLiteral(" B active; ") + QString::number(m.moe->experts) + QStringLiteral(" experts, top-")
                + QString::number(m.moe->topK) + QLatin1Char(')');
        text += QStringLiteral(": ") + QString::number(m.layers) + QStringLiteral(" layers");
        if (!m.hybridPattern.empty()) {
            // A hybrid stack's layers by kind (model.hybrid_pattern).
            QStringList kinds;
            const std::pair<char, const char*> names[]
                = { { 'M', " Mamba-2" }, { 'E', " MoE" }, { '*', " attention" }, { '-', " MLP" } };
            for (const auto& [symbol, name] : names)
                if (const auto n = std::count(m.hybridPattern.begin(), m.hybridPattern.end(), symbol))
                    kinds << QString::number(n) + QLatin1String(name);
            text += QStringLiteral(" (") + kinds.join(QStringLiteral(", ")) + QLatin1Char(')');
        }
        if (m.mtpLayers > 0) {
            // Multi-token prediction (model.mtp_layers; a hybrid stack's MTP layer as model.mtp_pattern).
            text += QStringLiteral(" + ") + QString::number(m.mtpLayers) + QStringLiteral(" MTP layer")
                + (m.mtpLayers > 1 ? QStringLiteral("s") : QString());
            QStringList how;
            if (!m.mtpPattern.empty())
                how << QStringLiteral("blocks ") + QString::fromStdString(m.mtpPattern);
            if (m.mtpSharedWeights)
                how << QStringLiteral("shared weights");
            if (!how.isEmpty())
                text += QStringLiteral(" (") + how.join(QStringLiteral(", ")) + QLatin1Char(')');
        }
        text += QStringLiteral(", hidden ") + formatCount(m.hidden) + QStringLiteral(", ") + QString::number(m.heads)
            + QStringLiteral(" heads (") + QString::number(m.kvHeads) + QStringLiteral(" KV), FFN ")
            + formatCount(m.ffnHidden) + QStringLiteral(", vocabulary ") + formatCount(m.vocab)
            + QStringLiteral(", sequence ") + formatCount(m.seqLen);
        return text;
    }

    /// The training precision with what runs otherwise: modules of their own precision
    /// (training.module_dtypes), BF16 layers and MTP layers of a quantized recipe.
    QString precisionText(const TrainingSpec& t)
    {
        QString text = QString::fromLatin1(toString(t.dtype));
        if (!isQuantized(t.dtype))
            return text;
        QStringList parts;
        // The modules in TrainingSpec::ModuleDtypes::kKeys order, as a reader names them.
        static constexpr const char* names[]
            = { "attention linears", "MoE latent projections", "Mamba in_proj", "Mamba out_proj" };
        static_assert(std::size(names) == std::size(TrainingSpec::ModuleDtypes::kKeys));
        for (std::size_t i = 0; i < std::size(names); ++i)
            if (const auto& dtype = t.moduleDtypes.*TrainingSpec::ModuleDtypes::kKeys[i].dtype)
                parts << QString::fromLatin1(names[i]) + QLatin1Char(' ') + QString::fromLatin1(toString(*dtype));
        QStringList bf16;
        if (t.bf16LayersAtStart > 0)
            bf16 << QStringLiteral("the first ") + QString::number(t.bf16LayersAtStart) + QStringLiteral(" layers");
        if (t.bf16LayersAtEnd > 0)
            bf16 << QStringLiteral("the last ") + QString::number(t.bf16LayersAtEnd) + QStringLiteral(" layers");
        if (t.bf16Mtp)
            bf16 << QStringLiteral("the MTP layers");
        if (!bf16.isEmpty())
            parts << bf16.join(QStringLiteral(" and ")) + QStringLiteral(" bf16");
        if (!parts.isEmpty())
            text += QStringLiteral(" (") + parts.join(QStringLiteral("; ")) + QLatin1Char(')');
        return text;
    }

} // namespace

void appendTitle(HtmlBuilder& html, const ReportDocument& doc)
{
    html.raw(QStringLiteral("<p class=\"kicker\">ClusterScope network procurement report</p>\n"));
    html.heading(1, doc.title);
    QList<QPair<QString, QString>> meta;
    if (!doc.sourceName.isEmpty())
        meta << qMakePair(QStringLiteral("Source"), doc.sourceName);
    meta << qMakePair(QStringLiteral("Generated"), doc.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")));
    meta << qMakePair(QStringLiteral("Prices"), doc.priceBookName);
    meta << qMakePair(QStringLiteral("Calibration"),
        doc.calibration ? QStringLiteral("stored calibration ") + doc.calibrationName + QStringLiteral(" (")
                + QString::number(doc.calibration->sweeps.size())
                + QStringLiteral(" measured sweeps, residuals under Assumptions); estimates use the model defaults")
                        : QStringLiteral("uncalibrated (model defaults; see Assumptions)"));
    html.keyValueTable(meta, 1);
}

void appendSummary(HtmlBuilder& html, const ReportDocument& doc, const ReportImageSources& images)
{
    html.heading(2, QStringLiteral("Summary"));
    const ReportScenario& rs = doc.scenarios.front();
    const Scenario& s = rs.scenario;
    const ScenarioAnalysis& a = rs.analysis;
    const FabricBom& bom = *a.bom;
    const TrainingEstimate& e = *a.estimate;
    const FabricDesign& d = *a.fabric;

    QList<QPair<QString, QString>> facts;
    facts << qMakePair(QStringLiteral("GPUs"),
        formatCount(s.cluster.gpus) + QStringLiteral(" × ") + qs(s.cluster.gpu) + QStringLiteral(" in ")
            + formatCount(d.hosts) + QStringLiteral(" servers of ") + QString::number(s.cluster.gpusPerNode));
    facts << qMakePair(QStringLiteral("Fabric"),
        qs(toString(s.cluster.fabric.type)) + QStringLiteral(", ") + QString::number(d.tiers)
            + QStringLiteral(" tier(s), ") + formatRatio(s.cluster.fabric.oversubscription)
            + QStringLiteral(" oversubscription, ") + transportText(s.cluster.transport)
            + (d.planes > 1 ? QStringLiteral(", ") + QString::number(d.planes) + QStringLiteral(" planes") : QString())
            + QStringLiteral("; switches: ") + switchesText(d));
    facts << qMakePair(QStringLiteral("Links"),
        QString::number(s.cluster.nic.perNode) + QStringLiteral(" × ") + QString::number(s.cluster.nic.gbps, 'f', 0)
            + QStringLiteral(" Gb/s NICs (") + qs(d.nicModel) + QStringLiteral(") per server; ")
            + formatCount(cablesOf(bom)) + QStringLiteral(" cables; bisection ") + formatGbps(rs.bisectionGbps));
    facts << qMakePair(QStringLiteral("Model"), modelText(s.model));
    facts << qMakePair(QStringLiteral("Strategy"),
        views::strategyDescription(e.strategy)
            + (a.estimateSource == engine::EstimateSource::Search ? QStringLiteral(" (fastest found by the search)")
                                                                  : QStringLiteral(" (from the scenario)")));
    facts << qMakePair(QStringLiteral("Training"),
        QStringLiteral("global batch ") + formatCount(s.training.globalBatch) + QStringLiteral(" sequences, ")
            + precisionText(s.training)
            + (s.training.tokens > 0 ? QStringLiteral(", budget ") + QString::number(s.training.tokens / 1e12, 'f', 2)
                        + QStringLiteral(" T tokens")
                                     : QStringLiteral(", no token budget stated")));
    html.keyValueTable(facts, 1);

    html.heading(3,
        doc.scenarios.size() > 1 ? QStringLiteral("Key figures: ") + QString::fromStdString(s.name)
                                 : QStringLiteral("Key figures"));
    QList<QPair<QString, QString>> key;
    key << qMakePair(QStringLiteral("Cluster cost"), formatUsd(bom.clusterCostUsd))
        << qMakePair(QStringLiteral("Iteration time"), formatSeconds(e.iterationSeconds))
        << qMakePair(QStringLiteral("Network cost"), formatUsd(bom.networkCostUsd))
        << qMakePair(QStringLiteral("Tokens per second"), formatCount((long long)std::llround(e.tokensPerSecond)))
        << qMakePair(QStringLiteral("Cost per GPU (cluster / network)"),
               formatUsd(bom.clusterCostPerGpuUsd()) + QStringLiteral(" / ") + formatUsd(bom.networkCostPerGpuUsd()))
        << qMakePair(QStringLiteral("MFU"), formatPercent(e.mfu))
        << qMakePair(QStringLiteral("Network share of cluster cost"), formatPercent(bom.networkShare()))
        << qMakePair(QStringLiteral("Time to train the budget"),
               e.trainingSeconds > 0 ? formatDuration(e.trainingSeconds) : QStringLiteral("no budget"))
        << qMakePair(QStringLiteral("Network power"), formatWatts(bom.networkPowerWatts))
        << qMakePair(QStringLiteral("Cost to train the budget"),
               e.trainingSeconds > 0 ? formatUsd(e.trainingCostUsd) : QStringLiteral("no budget"));
    html.keyValueTable(key, 2);

    if (doc.scenarios.size() > 1) {
        html.heading(3, QStringLiteral("Comparison"));
        QStringList headers { QStringLiteral("") };
        QString align = QStringLiteral("l");
        for (const ReportScenario& other : doc.scenarios) {
            headers << qs(other.scenario.name);
            align += QLatin1Char('r');
        }
        html.beginTable(headers, align);
        const auto addRow = [&](const QString& label, const std::function<QString(const ReportScenario&)>& value) {
            QStringList cells { label };
            for (const ReportScenario& other : doc.scenarios)
                cells << value(other);
            html.row(cells);
        };
        addRow(QStringLiteral("GPUs"), [](const ReportScenario& r) -> QString {
            return formatCount(r.scenario.cluster.gpus) + QLatin1Char(' ') + qs(r.scenario.cluster.gpu);
        });
        addRow(QStringLiteral("Fabric"), [](const ReportScenario& r) -> QString {
            return qs(toString(r.scenario.cluster.fabric.type)) + QLatin1Char(' ')
                + formatRatio(r.scenario.cluster.fabric.oversubscription) + QLatin1Char(' ')
                + transportText(r.scenario.cluster.transport);
        });
        addRow(QStringLiteral("Switches"), [](const ReportScenario& r) -> QString {
            std::size_t n = 0;
            for (const std::size_t c : r.analysis.fabric->graph.switchesPerTier())
                n += c;
            return formatCount((long long)n);
        });
        addRow(QStringLiteral("Cables"),
            [](const ReportScenario& r) -> QString { return formatCount(cablesOf(*r.analysis.bom)); });
        addRow(QStringLiteral("Network cost"),
            [](const ReportScenario& r) -> QString { return formatUsd(r.analysis.bom->networkCostUsd); });
        addRow(QStringLiteral("Network cost per GPU"),
            [](const ReportScenario& r) -> QString { return formatUsd(r.analysis.bom->networkCostPerGpuUsd()); });
        addRow(QStringLiteral("Cluster cost"),
            [](const ReportScenario& r) -> QString { return formatUsd(r.analysis.bom->clusterCostUsd); });
        addRow(QStringLiteral("Network share of cost"),
            [](const ReportScenario& r) -> QString { return formatPercent(r.analysis.bom->networkShare()); });
        addRow(QStringLiteral("Iteration time"),
            [](const ReportScenario& r) -> QString { return formatSeconds(r.analysis.estimate->iterationSeconds); });
        addRow(QStringLiteral("MFU"),
            [](const ReportScenario& r) -> QString { return formatPercent(r.analysis.estimate->mfu); });
        addRow(QStringLiteral("Tokens per second"), [](const ReportScenario& r) -> QString {
            return formatCount((long long)std::llround(r.analysis.estimate->tokensPerSecond));
        });
        addRow(QStringLiteral("Time to train"), [](const ReportScenario& r) -> QString {
            return r.analysis.estimate->trainingSeconds > 0 ? formatDuration(r.analysis.estimate->trainingSeconds)
                                                            : QStringLiteral("-");
        });
        addRow(QStringLiteral("Cost to train"), [](const ReportScenario& r) -> QString {
            return r.analysis.estimate->trainingSeconds > 0 ? formatUsd(r.analysis.estimate->trainingCostUsd)
                                                            : QStringLiteral("-");
        });
        html.endTable();
        html.heading(3, QStringLiteral("Iteration breakdown"));
        html.image(images.breakdown, QStringLiteral("Iteration time breakdown of each scenario"), images.widthPx);
    }
}

void appendFabric(HtmlBuilder& html, const ReportScenario& rs, const QString& imageSource, int widthPx)
{
    const FabricDesign& d = *rs.analysis.fabric;
    const FabricGraph& g = d.graph;
    html.heading(2, QStringLiteral("Fabric"));
    html.image(imageSource, QStringLiteral("Fabric schematic"), widthPx);
    html.paragraph(QStringLiteral("Schematic of the ") + qs(toString(rs.scenario.cluster.fabric.type))
            + QStringLiteral(
                " fabric: switch tiers from the top, GPU servers at the bottom, cable bundles between blocks."),
        QStringLiteral("caption"));

    html.beginTable({ QStringLiteral("Tier boundary"), QStringLiteral("Cables") }, QStringLiteral("lr"));
    for (const LinkLevel level : { LinkLevel::NodeLeaf, LinkLevel::LeafSpine, LinkLevel::SpineCore, LinkLevel::Other })
        if (const std::size_t n = g.countLinks(level); n > 0)
            html.row({ views::capitalised(views::linkLevelLabel(level)), formatCount((long long)n) });
    for (const auto& [medium, count] : rs.analysis.bom->cablesByMedium)
        html.row({ QStringLiteral("Medium: ") + qs(medium), formatCount(count) });
    html.endTable();
    if (!d.notes.empty()) {
        QStringList notes;
        for (const std::string& n : d.notes)
            notes << qs(n);
        html.paragraph(QStringLiteral("Design notes:"));
        html.bullets(notes);
    }
}

void appendBom(HtmlBuilder& html, const ReportScenario& rs, const ReportDocument& doc)
{
    const FabricBom& bom = *rs.analysis.bom;
    html.heading(2, QStringLiteral("Bill of materials"));
    html.beginTable({ QStringLiteral("Category"), QStringLiteral("Item"), QStringLiteral("Description"),
                        QStringLiteral("Length"), QStringLiteral("Qty"), QStringLiteral("Unit price"),
                        QStringLiteral("Total"), QStringLiteral("Unit power"), QStringLiteral("Total power") },
        QStringLiteral("lllrrrrrr"), QStringLiteral("data bom"), { 11, 15, 19, 8, 6, 8, 13, 9, 11 });
    for (const BomLine& line : bom.lines)
        html.row({ qs(line.category), qs(line.item), qs(line.description),
            line.lengthMetres > 0 ? QString::number(line.lengthMetres, 'g', 4) + QStringLiteral(" m") : QString(),
            formatCount(line.quantity), formatUnitPrice(line.unitPriceUsd), formatUsd(line.totalUsd()),
            formatWatts(line.unitPowerWatts), formatWatts(line.totalWatts()) });
    html.row({ QStringLiteral("Network"), QString(), QStringLiteral("switches, NICs, cables, optics"), QString(),
                 QString(), QString(), formatUsd(bom.networkCostUsd), QString(), formatWatts(bom.networkPowerWatts) },
        QStringLiteral("total"));
    html.row({ QStringLiteral("GPUs"), QString(), QString(), QString(), QString(), QString(), formatUsd(bom.gpuCostUsd),
                 QString(), QString() },
        QStringLiteral("total"));
    html.row({ QStringLiteral("Servers"), QString(), QStringLiteral("without GPUs and NICs"), QString(), QString(),
                 QString(), formatUsd(bom.hostCostUsd), QString(), QString() },
        QStringLiteral("total"));
    html.row({ QStringLiteral("Cluster"), QString(), QString(), QString(), QString(), QString(),
                 formatUsd(bom.clusterCostUsd), QString(), QString() },
        QStringLiteral("grand"));
    html.endTable();
    html.paragraph(QStringLiteral("Cost per GPU: ") + formatUsd(bom.clusterCostPerGpuUsd())
        + QStringLiteral(" for the cluster, of which ") + formatUsd(bom.networkCostPerGpuUsd())
        + QStringLiteral(" network. The network is ") + formatPercent(bom.networkShare())
        + QStringLiteral(" of the cluster's cost and draws ") + formatWatts(bom.networkPowerWatts)
        + QStringLiteral(
            " (switches, NICs, optics and active cables; GPU and server power are not part of the network)."));

    if (&rs == &doc.scenarios.front() && !doc.priceSources.empty()) {
        html.heading(3, QStringLiteral("Price sources"));
        html.paragraph(QStringLiteral("Every price comes from the ") + doc.priceBookName
            + QStringLiteral("; each entry names its source and date:"));
        html.beginTable({ QStringLiteral("Items"), QStringLiteral("Source"), QStringLiteral("Date") },
            QStringLiteral("lll"), QStringLiteral("data small"), { 22, 66, 12 });
        for (const PriceSourceRow& row : doc.priceSources)
            html.row({ row.items.join(QStringLiteral(", ")), row.source, row.date });
        html.endTable();
    }
}

namespace {
    QString fixed(double v, int decimals) { return QString::number(v, 'f', decimals); }
    // Mean, p50, p99, max of `stats` times `scale` as four cells.
    QStringList tailCells(const LatencyStats& stats, double scale, int decimals)
    {
        return { fixed(stats.mean * scale, decimals), fixed(stats.p50 * scale, decimals),
            fixed(stats.p99 * scale, decimals), fixed(stats.max * scale, decimals) };
    }
}

void appendRun(HtmlBuilder& html, const ReportRun& run)
{
    const RunAnalysis& a = run.analysis;
    html.heading(2, QStringLiteral("Measured run: ") + run.name, true);
    html.paragraph(formatCount((long long)a.clockOffsetNs.size()) + QStringLiteral(" ranks, ")
        + formatCount((long long)a.steps.size()) + QStringLiteral(" profiled steps, ")
        + formatCount((long long)a.collectives.size())
        + QStringLiteral(" matched collectives. A synchronised operation lasts as long as its slowest participant, "
                         "so the tail (p99, max) is shown beside the mean; percentiles are nearest-rank (every "
                         "figure is a measured duration)."));

    const LatencyStats step = stepDurationStats(a);
    html.heading(3, QStringLiteral("Step time"));
    if (step.count == 0) {
        html.paragraph(QStringLiteral("The traces hold no ProfilerStep: no step time."));
    } else {
        html.beginTable({ QStringLiteral("Steps"), QStringLiteral("Mean (ms)"), QStringLiteral("p50 (ms)"),
                            QStringLiteral("p99 (ms)"), QStringLiteral("Max (ms)") },
            QStringLiteral("rrrrr"));
        html.row(QStringList { formatCount(step.count) } + tailCells(step, 1e3, 2));
        html.endTable();
        html.paragraph(QStringLiteral("A step lasts as long as its slowest rank."), QStringLiteral("caption"));
    }

    std::vector<CollectiveFold> folds = foldCollectives(a.collectives);
    html.heading(3, QStringLiteral("Collectives"));
    if (folds.empty()) {
        html.paragraph(QStringLiteral("No collective was matched across ranks."));
    } else {
        // The kinds that took the most time first (calls x mean duration).
        std::stable_sort(folds.begin(), folds.end(), [](const CollectiveFold& x, const CollectiveFold& y) {
            return x.calls * x.durationUs.mean > y.calls * y.durationUs.mean;
        });
        html.beginTable(
            { QStringLiteral("Operation"), QStringLiteral("Group"), QStringLiteral("Ranks"), QStringLiteral("Calls"),
                QStringLiteral("Bytes"), QStringLiteral("Mean (µs)"), QStringLiteral("p50 (µs)"),
                QStringLiteral("p99 (µs)"), QStringLiteral("Max (µs)"), QStringLiteral("busbw (GB/s)") },
            QStringLiteral("llrrrrrrrr"));
        const int shown = std::min<int>(int(folds.size()), kReportRunCollectiveRows);
        for (int i = 0; i < shown; ++i) {
            const CollectiveFold& f = folds[std::size_t(i)];
            html.row(
                QStringList { qs(toString(f.op)),
                    f.processGroup.empty() ? QStringLiteral("default") : qs(f.processGroup), formatCount(f.groupSize),
                    formatCount(f.calls), f.bytes >= 0 ? formatCount(f.bytes) : QStringLiteral("unknown") }
                + tailCells(f.durationUs, 1.0, 1)
                + QStringList { f.bytes >= 0 ? fixed(f.busbwGbps, 1) : QStringLiteral("–") });
        }
        html.endTable();
        QString note = QStringLiteral("busbw of the mean duration, as nccl-tests computes it.");
        if (int(folds.size()) > shown)
            note = formatCount((long long)folds.size() - shown)
                + QStringLiteral(" more kinds (operation, group, size) with less total time are not listed; ") + note;
        html.paragraph(note, QStringLiteral("caption"));
    }

    html.heading(3, QStringLiteral("Stragglers, by the tail they cause"));
    if (a.stragglers.empty()) {
        html.paragraph(QStringLiteral("No rank arrived last at a collective the others waited for."));
    } else {
        html.beginTable(
            { QStringLiteral("Rank"), QStringLiteral("Last arrivals"), QStringLiteral("Wait caused (ms)"),
                QStringLiteral("p50 wait (ms)"), QStringLiteral("p99 wait (ms)"), QStringLiteral("Max wait (ms)") },
            QStringLiteral("rrrrrr"));
        const int shown = std::min<int>(int(a.stragglers.size()), kReportRunStragglerRows);
        for (int i = 0; i < shown; ++i) {
            const Straggler& s = a.stragglers[std::size_t(i)];
            html.row({ QString::number(s.rank), formatCount(s.lastArrivals), fixed(s.waitCausedUs / 1e3, 3),
                fixed(s.waitTailUs.p50 / 1e3, 3), fixed(s.waitTailUs.p99 / 1e3, 3), fixed(s.waitTailUs.max / 1e3, 3) });
        }
        html.endTable();
        html.paragraph(QStringLiteral("Per collective a rank arrived last at, the wait it caused is its arrival minus "
                                      "the first arrival (p50 / p99 / max over those collectives); wait caused sums "
                                      "what every other rank waited. Ranked by the p99, then the max, then the sum."),
            QStringLiteral("caption"));
    }
}

} // namespace clusterscope::app
