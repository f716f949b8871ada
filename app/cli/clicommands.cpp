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
    { "import-trace", "PATH... [--json] [--threads N]", "Import per-rank profiler traces and analyse the run.",
        "Reads PyTorch profiler (Kineto) traces (.json, .json.gz, one file per rank) and Nsight Systems\n"
        "SQLite exports, files or directories of them (parsed in parallel), and prints the per-step,\n"
        "per-rank breakdown (compute, exposed/overlapped communication, memcpy, idle), every collective\n"
        "matched across ranks (bytes, time, algbw/busbw as nccl-tests defines them, last arrival, wait)\n"
        "and the stragglers. A file that cannot be read is reported and the others are kept.\n"
        "  --json       machine-readable output (ranks, steps, collectives, stragglers, diagnostics)\n"
        "  --threads N  parse with N threads (default: all cores)\n",
        runImportTraceCommand },
    { "import-fabric", "FILE [--plan FILE] [--json]", "Import an ibnetdiscover dump: tiers, degraded, missing and self-looped links.",
        "Reads an ibnetdiscover dump (links seen from both ends merged, text before the first node and\n"
        "whitespace-only lines tolerated), infers switch tiers from the distance to the HCAs and flags\n"
        "degraded-width, missing and self-looped links. With --plan, compares it with a planned\n"
        "fabric (.ibnl topology netlist) and flags missing, miswired and extra cables.\n"
        "  --plan FILE  planned fabric (.ibnl)\n"
        "  --json       {switches, hcas, links, tiers, flags [{kind, ports, message}], diagnostics}\n",
        runImportFabricCommand },
};
} // namespace

std::span<const CliCommand> cliCommands() { return kCommands; }

} // namespace clusterscope::app
