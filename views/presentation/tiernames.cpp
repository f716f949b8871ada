#include "views/presentation/tiernames.h"

#include "engine/analysis/linkleveltext.h"
#include "engine/core/linkclass.h"

namespace clusterscope::views {

QString linkClassLabel(int linkClass)
{
    if (linkClass == engine::kLinkClassScaleUp)
        return QStringLiteral("scale-up");
    return QString::fromLatin1(engine::linkClassName(linkClass));
}

QString switchTierLabel(int tier)
{
    if (tier >= engine::kTierLeaf && tier <= engine::kTierCore)
        return capitalised(QString::fromStdString(engine::tierName(tier))) + QStringLiteral(" switches");
    return QStringLiteral("Tier %1 switches").arg(tier + 1);
}

QString linkLevelLabel(engine::LinkLevel level) { return QString::fromStdString(engine::linkLevelText(level)); }

QString capitalised(QString text)
{
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

} // namespace clusterscope::views
