#include "engine/core/linkclass.h"

namespace clusterscope::engine {

const char* linkClassName(int linkClass)
{
    static const char* const names[] = { "scale_up", "leaf", "spine", "core" };
    return linkClass >= 0 && linkClass < kLinkClassCount ? names[linkClass] : "?";
}

} // namespace clusterscope::engine
