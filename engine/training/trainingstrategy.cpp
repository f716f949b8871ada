#include "engine/training/trainingstrategy.h"

namespace clusterscope::engine {

std::string recomputeText(const TrainingStrategy& s)
{
    if (s.recompute != Recompute::Full || (s.recomputeMethod == RecomputeMethod::Uniform && s.recomputeNumLayers == 1))
        return toString(s.recompute);
    return std::string("full (") + toString(s.recomputeMethod) + " " + std::to_string(s.recomputeNumLayers) + ")";
}

} // namespace clusterscope::engine
