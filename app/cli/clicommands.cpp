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
    { "fabric", "FILE [--json] [--bom-csv OUT] [--catalog DIR] [--prices FILE]",
        "Build the scenario's fabric: switches, cables, bisection, bill of materials and cost.",
        "Builds the network the scenario describes (cluster.fabric, nic, gpus; layout if given), lays it\n"
        "out in racks, chooses each cable's medium by length and rate, and prices it from the price book.\n"
        "Prints switches per tier, cables per tier boundary and medium, bisection bandwidth, network cost,\n"
        "cost per GPU, the network's share of cluster cost, power and the bill of materials.\n"
        "  --json          print switches, cables, cables_by_medium, bisection_gbps, cost_usd (network),\n"
        "                  power_w (network), cost_per_gpu_usd (network cost / GPUs), bom, notes\n"
        "  --bom-csv OUT   also write the bill of materials as CSV to OUT\n"
        "  --catalog DIR   use the catalog JSON files in DIR\n"
        "  --prices FILE   use this price book instead of the built-in one\n",
        runFabricCommand },
    { "evaluate", "FILE [--json] [--traffic summary|nodes|racks] [--calibration FILE | --project P] [--no-fabric] [--catalog DIR]",
        "Estimate one training iteration: time breakdown, throughput, memory, cost and traffic.",
        "Evaluates the scenario's parallelism (or, when the scenario has none, the fastest strategy the\n"
        "search finds): iteration time split into compute, recomputation, exposed TP/PP/DP/CP/EP\n"
        "communication, pipeline bubble, optimizer and other; model TFLOP/s per GPU, MFU, tokens/s, the\n"
        "network share (flagged above 25%), memory per GPU by component with an out-of-memory verdict,\n"
        "time and cost of the training.tokens budget and the bytes each GPU sends per dimension.\n"
        "The iteration's traffic is then routed on the scenario's fabric (communication.routing: ecmp,\n"
        "adaptive or spray) and the contention found on spine and core links slows the collectives\n"
        "that cross them (reported as fabric_contention).\n"
        "  --json             machine-readable output (the scenario's keys and more)\n"
        "  --traffic LEVEL    with --json: add the GPU-pair traffic matrix aggregated to nodes or racks\n"
        "  --calibration FILE use a collective calibration (import-nccl-tests --save-calibration)\n"
        "  --project P        use the calibration stored in project P (import-nccl-tests --project)\n"
        "  --no-fabric        skip routing on the fabric (no contention feedback)\n"
        "  --catalog DIR      use the catalog JSON files in DIR\n",
        runEvaluateCommand },
    { "search", "FILE [--top K] [--json] [--calibration FILE | --project P] [--catalog DIR]",
        "Search every training strategy exhaustively; rank them and give the Pareto front.",
        "Enumerates TP, PP, virtual stages, DP, CP (ring and Ulysses), EP, micro-batch, ZeRO stage and\n"
        "recomputation; drops invalid strategies and those that do not fit in GPU memory; prints the\n"
        "K fastest (default 10) and the Pareto front of iteration time, memory per GPU and cost.\n"
        "Exit 1 when no strategy fits.\n"
        "  --top K            strategies to rank (default 10)\n"
        "  --json             machine-readable output: ranked and pareto, each with the evaluate fields\n"
        "  --calibration FILE use a collective calibration (import-nccl-tests --save-calibration)\n"
        "  --project P        use the calibration stored in project P (import-nccl-tests --project)\n"
        "  --catalog DIR      use the catalog JSON files in DIR\n",
        runSearchCommand },
    { "import-nccl-tests", "LOG... [--scenario FILE] [--op OP] [--algo A] [--save-calibration OUT] [--project P] [--catalog DIR] [--json]",
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
        "  --project P            store the calibration in project P (created if absent); evaluate, search\n"
        "                         and the GUI then use it\n"
        "  --catalog DIR          read the catalog JSON files from DIR\n"
        "  --json                 print logs, cluster, sweeps (per-size residuals, corrections) and calibration\n",
        runImportNcclTestsCommand },
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
    { "import-trace", "PATH... [--json] [--threads N] [--project P] [--compare SCENARIO]", "Import per-rank profiler traces and analyse the run.",
        "Reads PyTorch profiler (Kineto) traces (.json, .json.gz, one file per rank) and Nsight Systems\n"
        "SQLite exports, files or directories of them (parsed in parallel), and prints the per-step,\n"
        "per-rank breakdown (compute, exposed/overlapped communication, memcpy, idle), every collective\n"
        "matched across ranks (bytes, time, algbw/busbw as nccl-tests defines them, last arrival, wait)\n"
        "and the stragglers. A file that cannot be read is reported and the others are kept.\n"
        "  --json              machine-readable output (ranks, steps, collectives, stragglers, diagnostics)\n"
        "  --threads N         parse with N threads (default: all cores)\n"
        "  --project P         store the run in project P (created if absent); the GUI's Runs tab shows it\n"
        "  --compare SCENARIO  measured vs modelled: each collective's bus bandwidth against the collective\n"
        "                      model on the scenario's cluster, and (when the ranks match its GPUs) the\n"
        "                      per-step time split against the model's iteration, with the differences named\n",
        runImportTraceCommand },
    { "import-fabric", "FILE [--plan FILE] [--json]", "Import an ibnetdiscover dump: tiers, degraded, missing and self-looped links.",
        "Reads an ibnetdiscover dump (links seen from both ends merged, text before the first node and\n"
        "whitespace-only lines tolerated), infers switch tiers from the distance to the HCAs and flags\n"
        "degraded-width, missing and self-looped links. With --plan, compares it with a planned\n"
        "fabric (.ibnl topology netlist) and flags missing, miswired and extra cables.\n"
        "  --plan FILE  planned fabric (.ibnl)\n"
        "  --json       {switches, hcas, links, tiers, flags [{kind, ports, message}], diagnostics}\n",
        runImportFabricCommand },
    { "report", "FILE [--scenario NAME] [--compare NAME...] [--pdf OUT] [--html OUT] [--bom-csv OUT]",
        "Write the procurement report of a scenario (PDF, self-contained HTML, BOM as CSV).",
        "Runs clusterscope-report (installed beside clusterscope-cli; the CLI links no GUI library), which\n"
        "analyses the scenario and writes: summary, fabric schematic, bill of materials with unit prices,\n"
        "totals, power and price sources, cost per GPU and the network's share, predicted iteration time,\n"
        "MFU, tokens/s, time and cost of the token budget with the iteration breakdown chart, link\n"
        "utilisation and oversubscription findings, a sensitivity table (1:1, 2:1, 3:1, InfiniBand vs RoCE,\n"
        "next GPU count up), assumptions and calibration status. Runs without a display.\n"
        "  FILE              a scenario JSON file or a project (.csproj)\n"
        "  --scenario NAME   the project's scenario (needed when the project holds several)\n"
        "  --compare NAME... scenarios compared with it (project: names; scenario file: other files)\n"
        "  --pdf OUT         A4 PDF   --html OUT  one HTML file   --bom-csv OUT  bill of materials\n"
        "  --calibration NAME  the project's calibration to report (default: the first stored)\n"
        "  --catalog DIR     catalog JSON files   --prices FILE  price book   --no-sensitivity\n"
        "Exit 0 on success, 1 on bad input, an unwritable OUT or when clusterscope-report is missing.\n",
        runReportCommand },
};
} // namespace

std::span<const CliCommand> cliCommands() { return kCommands; }

} // namespace clusterscope::app
