#include "app/gui/analysisnotes.h"

#include "engine/analysis/memoryheadroom.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/scenario/scenario.h"

#include <QCoreApplication>
#include <QLocale>

namespace clusterscope::app {

namespace {

    QString tr(const char* text) { return QCoreApplication::translate("AnalysisNotes", text); }

    // "/cluster/fabric: message" -> the pointer and the message; `fallback` when there is no pointer.
    views::EditorNote noteFrom(const std::string& text, const QString& fallback, bool error = true)
    {
        const QString s = QString::fromStdString(text);
        const int colon = s.indexOf(QStringLiteral(": "));
        if (s.startsWith(QLatin1Char('/')) && colon > 0 && !s.left(colon).contains(QLatin1Char(' ')))
            return { s.left(colon), s.mid(colon + 2), error };
        return { fallback, s, error };
    }

} // namespace

QList<views::EditorNote> editorNotesFor(const engine::Scenario& scenario, const engine::ScenarioAnalysis& a)
{
    QList<views::EditorNote> notes;
    const QLocale l;
    bool clusterProblem = false;
    for (const engine::ValidationIssue& issue : a.issues)
        clusterProblem = clusterProblem || issue.pointer.rfind("/cluster", 0) == 0;
    // The validator's problems are already in the editor; these are the ones only building reveals.
    if (!a.fabric && !a.fabricError.empty() && !clusterProblem) {
        views::EditorNote n = noteFrom(a.fabricError, QStringLiteral("/cluster/fabric"));
        // "one switch of radix 64 cannot connect 1028 NIC ports; use 2 or 3 tiers": the tiers field.
        if (n.pointer == QLatin1String("/cluster/fabric") && n.message.contains(QLatin1String(" tier")))
            n.pointer = QStringLiteral("/cluster/fabric/tiers");
        n.message = tr("the fabric cannot be built: %1").arg(n.message);
        notes << n;
    }
    if (a.fabric) {
        if (!a.bomError.empty())
            notes << noteFrom(a.bomError, QStringLiteral("/cluster/fabric"));
        for (const std::string& n : a.fabric->notes) {
            const bool tiers = n.find("tier") != std::string::npos;
            notes << views::EditorNote { tiers ? QStringLiteral("/cluster/fabric/tiers")
                                               : QStringLiteral("/cluster/fabric"),
                QString::fromStdString(n), false };
        }
        if (a.fabric->tiers > 0 && scenario.cluster.fabric.tiers > 0 && a.fabric->tiers != scenario.cluster.fabric.tiers
            && (scenario.cluster.fabric.type == engine::FabricType::FatTree
                || scenario.cluster.fabric.type == engine::FabricType::LeafSpine)) {
            bool said = false;
            for (const std::string& n : a.fabric->notes)
                said = said || n.find("tier") != std::string::npos;
            if (!said)
                notes << views::EditorNote { QStringLiteral("/cluster/fabric/tiers"),
                    tr("%1 tier(s) of radix-%2 switches cannot connect %3 servers: the fabric is built with %4 tiers.")
                        .arg(scenario.cluster.fabric.tiers)
                        .arg(scenario.cluster.fabric.switchRadix)
                        .arg(l.toString(a.fabric->hosts))
                        .arg(a.fabric->tiers),
                    false };
        }
    }
    if (!a.invalidStrategy.empty() && a.search && !a.search->ranked.empty())
        notes << views::EditorNote { QStringLiteral("/parallelism"),
            tr("the views show the best valid strategy the search found instead; Strategies > \"Apply the best valid "
               "strategy\" makes it the scenario's."),
            false };
    if (a.issues.empty() && a.search && a.search->ranked.empty() && !a.cancelled) {
        const engine::SearchResult& r = *a.search;
        QString why;
        if (r.candidates == 0)
            why = tr("no layout of TP x PP x DP x CP covers %1 GPUs with this model and batch (DP x micro-batch must "
                     "divide the global batch of %2 sequences, TP the %3 heads, PP the %4 layers).")
                      .arg(l.toString(scenario.cluster.gpus), l.toString(scenario.training.globalBatch))
                      .arg(scenario.model.heads)
                      .arg(scenario.model.layers);
        else if (r.valid == 0)
            why = tr("none of the %1 layouts enumerated is valid for this model and batch.")
                      .arg(l.toString(r.candidates));
        else
            why = tr("none of the %1 valid strategies (of %2 enumerated) fits in GPU memory.")
                      .arg(l.toString(r.valid), l.toString(r.candidates));
        notes << views::EditorNote { QStringLiteral("/training/global_batch"), tr("no strategy can run: %1").arg(why),
            true };
    } else if (a.issues.empty() && !a.estimate && !a.trainingError.empty() && !a.cancelled) {
        notes << noteFrom(a.trainingError, QStringLiteral("/parallelism"));
    }
    if (a.estimate) {
        const double used = a.estimate->memory.totalBytes();
        const double capacity = a.estimate->memory.capacityBytes;
        if (engine::lowMemoryHeadroom(a.estimate->memory))
            notes << views::EditorNote { QStringLiteral("/training/micro_batch"),
                tr("memory %1 of %2 GB per GPU leaves %3 GB (under %4%) beyond the modelled CUDA context, NCCL "
                   "buffers and allocator reserve: more fragmentation or larger NCCL buffers than modelled would not "
                   "fit. A smaller micro-batch, recomputation or more sharding (ZeRO, PP) makes room.")
                    .arg(l.toString(used / 1e9, 'f', 1), l.toString(capacity / 1e9, 'f', 1),
                        l.toString((capacity - used) / 1e9, 'f', 1))
                    .arg(qRound((1 - engine::kMemoryHeadroomWarningFraction) * 100)),
                false };
    }
    if (!a.load.error.empty())
        notes << views::EditorNote { QStringLiteral("/communication/routing"),
            tr("the iteration's traffic could not be routed: %1").arg(QString::fromStdString(a.load.error)), false };
    return notes;
}

} // namespace clusterscope::app
