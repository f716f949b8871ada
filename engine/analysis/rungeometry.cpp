#include "engine/analysis/rungeometry.h"

#include <algorithm>

namespace clusterscope::engine {

ClusterGeometry measuredRunGeometry(int ranks, int gpusPerNode)
{
    ClusterGeometry g;
    g.gpus = std::max(1, ranks);
    g.gpusPerNode = std::clamp(gpusPerNode, 1, g.gpus);
    g.scaleUpDomainGpus = g.gpusPerNode;
    g.nicsPerDomain = g.gpusPerNode;
    g.nodesPerLeaf = std::max(1, (g.gpus + g.gpusPerNode - 1) / g.gpusPerNode);
    g.nodesPerPod = g.nodesPerLeaf;
    return g;
}

} // namespace clusterscope::engine
