#include "views/presentation/tiernames.h"

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

QString linkLevelLabel(engine::LinkLevel level)
{
    using engine::LinkLevel;
    switch (level) {
    case LinkLevel::Internal:
        return QStringLiteral("inside a server");
    case LinkLevel::NodeLeaf:
        return QStringLiteral("server to ") + QString::fromStdString(engine::tierName(engine::kTierLeaf));
    case LinkLevel::LeafSpine:
        return QString::fromStdString(engine::tierName(engine::kTierLeaf)) + QStringLiteral(" to ")
            + QString::fromStdString(engine::tierName(engine::kTierSpine));
    case LinkLevel::SpineCore:
        return QString::fromStdString(engine::tierName(engine::kTierSpine)) + QStringLiteral(" to ")
            + QString::fromStdString(engine::tierName(engine::kTierCore));
    case LinkLevel::Other:
        break;
    }
    return QStringLiteral("other (same tier or direct)");
}

QString capitalised(QString text)
{
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

} // namespace clusterscope::views
