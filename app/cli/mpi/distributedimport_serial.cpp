// The build without MPI (-DCLUSTERSCOPE_MPI=OFF): import-trace always runs as one process.

#include "app/cli/distributedimport.h"

namespace clusterscope::app {

bool launchedUnderMpi() { return false; }

DistributedImport importTracesDistributed(const std::vector<std::string>&, CliIo)
{
    DistributedImport out;
    out.run = engine::Status::error("this clusterscope-cli was built without MPI (-DCLUSTERSCOPE_MPI=OFF)");
    return out;
}

void endDistributedImport(CliIo) { }

} // namespace clusterscope::app
