#pragma once

// The distributed import-trace (MPI): every process of an `mpirun -np N` / `srun` job reads its
// share of the rank files (balanced by size), reduces each rank to a compact summary
// (importers/kineto/tracereduction.h) and the summaries are gathered on process 0, which runs the
// cross-rank analyses and writes the results. The MPI code lives in app/cli/mpi/ and is only built
// with -DCLUSTERSCOPE_MPI=ON; this interface is MPI-free (the serial build says "not launched").

#include "app/cli/clicommand.h"
#include "engine/core/status.h"
#include "importers/kineto/tracereduction.h"

#include <string>
#include <vector>

namespace clusterscope::app {

/// True when this build has MPI and the process was started by an MPI launcher (Open MPI's mpirun
/// or a PMI/PMIx launcher such as Slurm's srun). False otherwise: import-trace then runs as one
/// process.
bool launchedUnderMpi();

/// The outcome of a distributed import on this process.
struct DistributedImport {
    bool root = true; ///< this process (MPI rank 0) holds the run and writes the results
    int processes = 1; ///< processes in the job
    engine::Result<importers::ReducedRun> run = engine::Status::error("the distributed import did not run");
};

/// Initialises MPI and imports `paths` across the job's processes (all call it with the same
/// paths). Process 0 reports progress on io.err. Process 0 gets the run or the error (a failed rank
/// file is a diagnostic, not an error); the other processes get root = false.
DistributedImport importTracesDistributed(const std::vector<std::string>& paths, CliIo io);

/// Ends the MPI session (MPI_Finalize); call once on every process after importTracesDistributed.
/// Process 0 reports the peak memory of every process on io.err first.
void endDistributedImport(CliIo io);

} // namespace clusterscope::app
