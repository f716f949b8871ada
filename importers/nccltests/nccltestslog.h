#pragma once

// What an nccl-tests log holds once parsed: header facts, one row per message size, and the
// per-row problems met on the way. Plain data; produced by NcclTestsParser / NcclTestsJsonParser.

#include "importers/nccltests/nccltestscollective.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clusterscope::importers {

enum class NcclTestsSeverity { Warning, Error };

/// A problem with one line or record that did not stop the import.
struct NcclTestsDiagnostic {
    std::string id; ///< stable identifier, e.g. "row-columns", "row-number", "bandwidth-mismatch"
    NcclTestsSeverity severity = NcclTestsSeverity::Warning;
    int line = 0; ///< 1-based line in the file (0: not tied to a line)
    std::string message; ///< one sentence, starting with "FILE:LINE: "
};

/// One "#  Rank  N Group G Pid P on HOST device D [bus] NAME" line (the Group field is absent in
/// older builds).
struct NcclTestsDevice {
    int rank = 0;
    int group = 0;
    long long pid = 0;
    std::string host;
    int device = 0; ///< CUDA device index on its host
    std::string busId; ///< text between the brackets ("0000:04:00", older "0x07")
    std::string name; ///< CUDA device name, e.g. "NVIDIA H100 80GB HBM3"
    int line = 0;
};

/// Per-iteration CUDA-event timing of one half of a row (nccl-tests -I 1, 2.19 on: src/common.cu
/// BenchTime, src/util.cu writePerIterReport). Each iteration's time is the maximum over the GPUs and
/// processes; the text columns i_min, i_max, i_p99, i_cv% summarise them, -J output adds the mean and
/// one row of times per process.
struct NcclTestsIterationStats {
    double minUs = 0, maxUs = 0, p99Us = 0;
    double cvPercent = 0; ///< standard deviation / mean of the iteration times, in percent
    std::optional<double> avgUs; ///< -J "avg_us"
    /// -J "per_process_max_times_us": per MPI process, its iteration times (max over its own GPUs).
    std::vector<std::vector<double>> perProcessUs;
};

/// One half (out-of-place or in-place) of a result row. Missing or "N/A" values are empty.
struct NcclTestsMeasurement {
    std::optional<double> timeUs; ///< average time per iteration (us); cputime with -C
    std::optional<double> algbwGBps; ///< GB/s (1e9 B/s) as printed
    std::optional<double> busbwGBps; ///< GB/s (1e9 B/s) as printed
    std::optional<double> wrong; ///< "#wrong" count, or the older "error" (max abs error)
    std::vector<std::pair<std::string, double>> extra; ///< other columns by header name
    std::optional<NcclTestsIterationStats> iterations; ///< -I 1: i_min i_max i_p99 i_cv% (-J: *_per_iter)
};

struct NcclTestsRow {
    int line = 0; ///< 1-based line of a text log (0 for JSON)
    std::string pointer; ///< JSON pointer of the record in -J output ("/results/3"), empty for text
    std::uint64_t bytes = 0; ///< "size" column: S of NVIDIA/nccl-tests doc/PERFORMANCE.md (bytes)
    std::uint64_t count = 0; ///< "count" column (elements per rank as nccl-tests passes them)
    std::string type; ///< "float", "bfloat16", ...
    std::string redop; ///< "sum", "none", ... (empty when the binary prints none)
    std::optional<int> root; ///< absent when the layout has no root column
    std::optional<NcclTestsMeasurement> outOfPlace; ///< absent in trace-replay rows
    NcclTestsMeasurement inPlace;
};

struct NcclTestsRun;
/// Takes one NAME=VALUE of a run's environment, as the -J "env" lists it or the quoted command sets it
/// (a value in quotes is unquoted): NCCL_ALGO, NCCL_TESTS_ALLTOALLV_SPREAD, NCCL_TESTS_ALLTOALLV_MATRIX_FILE;
/// anything else is ignored.
void readNcclTestsEnvironment(std::string_view assignment, NcclTestsRun& run);

/// How the collective of a run was found.
enum class NcclTestsCollectiveSource { BinaryName, CommandLine, ColumnLayout, Option };
const char* toString(NcclTestsCollectiveSource source);

/// One benchmark run (a log may hold several, e.g. a script running every binary in turn).
struct NcclTestsRun {
    int firstLine = 0;
    std::string binary; ///< "all_reduce_perf" when the log names it
    /// "all_reduce_perf" when the log quotes the command that started the run ("mpirun -np 16
    /// ./build/all_reduce_perf -b 8 ...") and does not name its binary otherwise.
    std::string commandBinary;
    /// Ranks the quoted command starts: the launcher's processes (mpirun -np / -n, srun -n / --ntasks; 1
    /// when the binary runs alone) x -t (threads) x -g (GPUs per thread), nccl-tests' own count
    /// (src/common.cu: nProcs x nThreads x nGpus); 0 when no command is quoted.
    int commandRanks = 0;
    /// Ranks the user stated (--nodes x --gpus-per-node) for a run that says nothing of its own
    /// (NcclTestsParseOptions::ranks), with a warning.
    int assumedRanks = 0;
    std::optional<engine::CollectiveOp> collective;
    NcclTestsCollectiveSource collectiveSource = NcclTestsCollectiveSource::BinaryName;
    std::string ncclTestsVersion; ///< "2.13.10" from "# nccl-tests version ..."
    std::optional<int> ncclVersionCode; ///< nccl-library=21903
    /// "2.22.3" from rccl-tests' "RCCL version : 2.22.3-HEAD:7d8d67c" (ROCm's fork of NCCL, numbered after the
    /// NCCL release it follows); empty otherwise. The model does not take it as an NCCL version.
    std::string rcclVersion;
    // "# nThread 1 nGpus 1 minBytes 8 maxBytes ... step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 ..."
    std::optional<int> threads, gpusPerThread, warmupIters, iters, aggIters, validation, graph;
    std::optional<std::uint64_t> minBytes, maxBytes, stepBytes, stepFactor;
    std::vector<NcclTestsDevice> devices;
    std::vector<std::string> columns; ///< header column names in order ("size", "count", ...)
    bool errorColumnIsCount = true; ///< "#wrong" (true) or the older float "error" (false)
    bool timeIsCpuTime = false; ///< header says "cputime" (-C 1)
    std::optional<double> avgBusBwGBps; ///< "# Avg bus bandwidth : X" (GB/s)
    std::optional<int> outOfBounds; ///< "# Out of bounds values : N"
    std::string ncclAlgo; ///< NCCL_ALGO of the run when known (-J "env", the quoted command), else empty
    /// alltoallv_perf's traffic pattern when the -J "env" states it: NCCL_TESTS_ALLTOALLV_SPREAD (0 uniform
    /// .. 1 distance-weighted, the default) and whether NCCL_TESTS_ALLTOALLV_MATRIX_FILE was set
    /// (NVIDIA/nccl-tests src/alltoallv.cu, AlltoAllvParseEnv).
    std::optional<double> alltoallvSpread;
    bool alltoallvMatrixFile = false;
    /// "half prod" when the run was one of several sweeps of a table that went through data types or
    /// reductions in turn (nccl-tests -d all / -o all): its rows' type and reduction; empty otherwise.
    std::string variant;
    std::vector<NcclTestsRow> rows;
    int bandwidthRanks = 0; ///< ranks implied by busbw/algbw when there are no device lines, or only an excerpt
    /// NCCL operations named by "NCCL INFO <Op>: opCount ..." lines inside the run (NCCL_DEBUG=INFO
    /// with the COLL subsystem; NCCL src/enqueue.cc), e.g. "AllGather", "Send"; distinct, in order seen.
    std::vector<std::string> ncclInfoOps;
    /// The net transport NCCL used, X of "NCCL INFO Using network X" (src/init.cc: "IB", "Socket",
    /// or a plugin's name: "FasTrak", "gIB", "GPUDirectTCPX_v7", "AWS Libfabric"); empty when not logged.
    std::string ncclNet;
    bool elidedRows = false; ///< the table has a literal "..." line (rows left out)
    /// The column titles have a redop column that the rows leave empty: before nccl-tests 2.13 only
    /// alltoall_perf printed that (src/alltoall.cu, an empty op name; all_gather_perf, sendrecv_perf and
    /// hypercube_perf had no redop column, v2.10.0-v2.11.0); since, hypercube_perf (with a root column).
    bool emptyRedopColumn = false;
    /// Lines of banners ("====== 2-node ======", "-----") met after the run's first row: where an excerpt
    /// of several runs without headers of their own may change run (splitHeaderlessRuns).
    std::vector<int> separatorLines;

    /// Ranks: distinct rank numbers of the device lines, else those implied by busbw/algbw, else
    /// nThread x nGpus (right for one process), else 0. An excerpt of the device list (see
    /// devicesPartial) has at least its highest rank number + 1 ranks: that, or busbw/algbw if it says more.
    int ranks() const;
    /// Whether the device lines are an excerpt: nccl-tests prints one line per rank, numbered from 0
    /// (src/common.cu), so a highest "Rank N" above the count of distinct ranks listed minus one means
    /// lines were left out (e.g. a page quoting only the last device line of a 72-rank run).
    bool devicesPartial() const;
    /// Distinct rank numbers the device lines list (0 without device lines).
    int listedRanks() const;
    /// Distinct host names of the device lines (0 without device lines, or when they are an excerpt
    /// that does not show every host's block, see excerptRanksPerHost: the hosts of the left-out ranks
    /// are unknown).
    int nodes() const;
    /// Largest number of ranks on one host (0 without device lines, or when they are such an excerpt).
    int ranksPerNode() const;
    /// For an excerpt of the device list that names every host's first and last rank (ranks 0 and 7 on
    /// host -0, 8 and 15 on host -1 of a 16-rank run; launchers place ranks on hosts in blocks): the ranks
    /// of each host's block, when the blocks are equally large and cover ranks 0 .. ranks()-1. 0 otherwise.
    int excerptRanksPerHost() const;
    /// The device name most ranks report ("" without device lines).
    std::string gpuName() const;
};

struct NcclTestsLog {
    std::string file;
    /// Runs whose collective could not be told and that were left out because other runs of the
    /// file could (their messages are Error diagnostics); empty when every run was kept.
    int unresolvedRuns = 0;
    bool json = false; ///< read from -J JSON output
    std::vector<NcclTestsRun> runs;
    std::vector<NcclTestsDiagnostic> diagnostics;
};

} // namespace clusterscope::importers
