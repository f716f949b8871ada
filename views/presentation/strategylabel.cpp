#include "views/presentation/strategylabel.h"

#include <QStringList>

namespace clusterscope::views {

QString strategyLabel(const engine::TrainingStrategy& s)
{
    const engine::ParallelismSpec& p = s.parallelism;
    QString text = QStringLiteral("TP%1").arg(p.tp);
    if (p.pp > 1)
        text += QStringLiteral(" PP%1").arg(p.pp) + (p.vpp > 1 ? QStringLiteral("x%1").arg(p.vpp) : QString());
    text += QStringLiteral(" DP%1").arg(p.dp);
    if (p.cp > 1)
        text += QStringLiteral(" CP%1").arg(p.cp);
    if (p.ep > 1)
        text += QStringLiteral(" EP%1").arg(p.ep);
    if (p.expertTp() != p.tp) // folded MoE: expert tensor parallelism differs from TP
        text += QStringLiteral(" ETP%1").arg(p.etp);
    if (p.zero > 0)
        text += QStringLiteral(" Z%1").arg(p.zero);
    return text + QStringLiteral(" mb%1").arg(s.microBatch);
}

QString strategyDescription(const engine::TrainingStrategy& s)
{
    const engine::ParallelismSpec& p = s.parallelism;
    QStringList parts { strategyLabel(s) };
    parts << (p.sequenceParallel ? QStringLiteral("sequence parallel") : QStringLiteral("no sequence parallel"));
    if (p.cp > 1)
        parts << QLatin1String(engine::toString(p.cpKind)) + QStringLiteral(" context parallel");
    if (p.pp > 1)
        parts << QLatin1String(engine::toString(p.schedule)) + QStringLiteral(" schedule")
                + (p.vpp > 1 && p.vppMicrobatchGroup > 0
                        ? QStringLiteral(", micro-batch group %1").arg(p.vppMicrobatchGroup)
                        : QString());
    parts << (s.recompute == engine::Recompute::None
            ? QStringLiteral("no recomputation")
            : QString::fromStdString(engine::recomputeText(s)) + QStringLiteral(" recomputation"));
    return parts.join(QStringLiteral(" · "));
}

} // namespace clusterscope::views
