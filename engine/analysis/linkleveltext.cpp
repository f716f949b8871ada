#include "engine/analysis/linkleveltext.h"

namespace clusterscope::engine {

std::string linkLevelText(LinkLevel level)
{
    switch (level) {
    case LinkLevel::Internal:
        return "inside a server";
    case LinkLevel::NodeLeaf:
        return "server to " + tierName(kTierLeaf);
    case LinkLevel::LeafSpine:
        return tierName(kTierLeaf) + " to " + tierName(kTierSpine);
    case LinkLevel::SpineCore:
        return tierName(kTierSpine) + " to " + tierName(kTierCore);
    case LinkLevel::Other:
        break;
    }
    return "other (same tier or direct)";
}

} // namespace clusterscope::engine
