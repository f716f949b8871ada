#include "app/cli/clicommand.h"

namespace clusterscope::app {

namespace {
const CliCommand kCommands[] = {
    { "validate", "FILE [--catalog DIR] [--json]", "Check a scenario file and report every problem.",
        "Reads a scenario JSON file, checks every key, type and range, then the cross-field rules\n"
        "(parallelism sizes, batch divisibility, catalog ids). Prints 'valid' or each problem as\n"
        "FILE: /json/pointer: message. Exit 0 when valid, 1 otherwise.\n"
        "  --catalog DIR  use the catalog JSON files in DIR instead of the built-in catalog\n"
        "  --json         print {\"valid\": bool, \"issues\": [{\"pointer\", \"message\"}]}\n",
        runValidateCommand },
    { "catalog", "[--catalog DIR] [--json]", "List the hardware catalog (GPUs, NICs, switches, cables, optics).",
        "Prints the catalog with each entry's key figures, price and source.\n"
        "  --catalog DIR  read the catalog JSON files from DIR\n"
        "  --json         machine-readable output\n",
        runCatalogCommand },
    { "collective", "FILE --op OP (--bytes N | --sweep MIN:MAX) [--ranks R] [--algo A] [--catalog DIR] [--json]",
        "Model one collective (time, algbw, busbw, algorithm) on the scenario's cluster.",
        "Evaluates a collective with the NCCL-faithful model: time, algbw and busbw as nccl-tests defines\n"
        "them, the algorithm and protocol used, and the bytes each rank sends per link class.\n"
        "  --op OP         allreduce|allgather|reducescatter|broadcast|reduce|alltoall|sendrecv\n"
        "  --bytes N       nccl-tests size S (suffixes K, M, G = powers of 1024)\n"
        "  --sweep MIN:MAX sizes from MIN to MAX in factor-2 steps; prints an nccl-tests-shaped table\n"
        "  --ranks R       ranks in the group (default: all GPUs), placed consecutively, filling nodes first\n"
        "  --algo A        auto|ring|tree|nvls|nvlstree|collnet|pat|hierarchical|direct|halving_doubling|\n"
        "                  parameter_server (default: the scenario's communication.algorithm, else auto)\n"
        "  --catalog DIR   read the catalog JSON files from DIR\n"
        "  --json          print time_us, algbw_gbps, busbw_gbps, algorithm, protocol, bytes_per_rank\n",
        runCollectiveCommand },
    { "import-nccl-tests", "LOG... [--scenario FILE] [--op OP] [--algo A] [--save-calibration OUT] [--catalog DIR] [--json]",
        "Read nccl-tests logs, compare them with the collective model and calibrate it.",
        "Parses nccl-tests output (text, --tag-output/srun prefixes, gzip, or the -J JSON file), prints the\n"
        "header facts (ranks, nodes, GPU), then per size the measured busbw beside the model's busbw before\n"
        "and after calibration with the relative residuals. The calibration (latency scale and offset,\n"
        "bandwidth scale per algorithm and tier) is fitted by weighted least squares over the sweep.\n"
        "  --scenario FILE        the cluster to model (default: built from the log header: the GPU name\n"
        "                         mapped to a catalog GPU, ranks and nodes from the device lines)\n"
        "  --op OP                the collective when the log does not name its binary (allreduce, allgather,\n"
        "                         reducescatter, broadcast, reduce, alltoall, sendrecv)\n"
        "  --algo A               the algorithm the runs were pinned to (NCCL_ALGO), default auto\n"
        "  --save-calibration OUT write the calibration JSON to OUT\n"
        "  --catalog DIR          read the catalog JSON files from DIR\n"
        "  --json                 print logs, cluster, sweeps (per-size residuals, corrections) and calibration\n",
        runImportNcclTestsCommand },
};
} // namespace

std::span<const CliCommand> cliCommands() { return kCommands; }

} // namespace clusterscope::app
