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
        { "evaluate",
            "FILE [--json] [--traffic summary|nodes|racks] [--calibration FILE | --project P] [--no-fabric] [--catalog "
            "DIR]",
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
        { "search", "FILE [--top K] [--json] [--no-fabric] [--calibration FILE | --project P] [--catalog DIR]",
            "Search every training strategy exhaustively; rank them and give the Pareto front.",
            "Enumerates TP, PP, virtual stages, DP, CP (ring and Ulysses), EP, micro-batch, ZeRO stage and\n"
            "recomputation; drops invalid strategies and those that do not fit in GPU memory; prints the\n"
            "K fastest (default 10) and the Pareto front of iteration time, memory per GPU and cost.\n"
            "The ranking is on the model's time without fabric contention; the first 5 are also timed with\n"
            "contention (each one's traffic routed on the scenario's fabric, as evaluate times a strategy):\n"
            "the GUI's Strategies columns \"Iteration, no contention (s)\" and \"With contention (s)\".\n"
            "Exit 1 when no strategy fits.\n"
            "  --top K            strategies to rank (default 10)\n"
            "  --json             machine-readable output: ranked and pareto, each with the evaluate fields;\n"
            "                     the first ranked also with iteration_seconds_with_contention\n"
            "  --no-fabric        skip the fabric (no time with contention)\n"
            "  --calibration FILE use a collective calibration (import-nccl-tests --save-calibration)\n"
            "  --project P        use the calibration stored in project P (import-nccl-tests --project)\n"
            "  --catalog DIR      use the catalog JSON files in DIR\n",
            runSearchCommand },
        { "import-nccl-tests",
            "LOG... [--scenario FILE | --gpu ID [--nodes N] [--gpus-per-node G] [--nic COUNTxGBPS] [--transport T] "
            "[--no-gdr]] "
            "[--op OP] [--algo A] [--save-calibration OUT] [--project P] [--catalog DIR] [--json]",
            "Read nccl-tests logs, compare them with the collective model and calibrate it.",
            "Parses nccl-tests output (text, --tag-output/srun prefixes, gzip, or the -J JSON file), prints the\n"
            "header facts (ranks, nodes, GPU), then per size the measured busbw beside the model's busbw before\n"
            "and after calibration with the relative residuals. The calibration (latency scale and offset,\n"
            "bandwidth scale per algorithm and tier) is fitted by robust (Huber) least squares on relative\n"
            "residuals; sizes far off the others are left out as outliers (with the reason), and a 4-fold\n"
            "cross-validation over the sizes rejects a calibration that predicts held-out sizes worse.\n"
            "  --scenario FILE        the cluster to model (default: built from the log header: the GPU name\n"
            "                         mapped to a catalog GPU, ranks and nodes from the device lines)\n"
            "  --gpu ID               the catalog GPU (instead of --scenario; needed for table-only excerpts)\n"
            "  --nodes N              nodes of the cluster (default: the log's hosts; a log that names none\n"
            "                         takes servers of the GPU's catalog size, said as a warning); alone, a run\n"
            "                         without hosts is split evenly over the N nodes\n"
            "  --gpus-per-node G      GPUs per node (default: the log's ranks per host; across nodes, hosts\n"
            "                         with more NICs than ranks are taken as servers of one NIC per GPU);\n"
            "                         with --nodes, the ranks of a run that cannot tell its own (a sendrecv\n"
            "                         table without device lines or the command that ran it)\n"
            "  --nic COUNTxGBPS       NICs per node and their rate, e.g. 8x400 (GBPS alone: one per GPU)\n"
            "  --transport T          infiniband (default), roce, or a catalog net transport (gib, tcpxo, tcpx,\n"
            "                         socket: its NCCL settings); default: what the log's \"Using network\" says.\n"
            "                         NCCL's tuner costs InfiniBand and RoCE alike: they differ in the model\n"
            "                         only where SHARP / CollNet (InfiniBand) enters\n"
            "  --no-gdr               the NICs have no GPUDirect RDMA to the GPUs (NIC reached through the CPU, or\n"
            "                         no GPU memory registration): NCCL stages network data through host memory\n"
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
        { "import-trace", "PATH... [--json] [--threads N] [--project P] [--compare SCENARIO]",
            "Import per-rank profiler traces and analyse the run.",
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
            "                      per-step time split against the model's iteration, with the differences named\n"
            "Under mpirun or srun (a build with MPI) every process of the job reads a share of the rank files\n"
            "balanced by size and process 0 prints the results and writes the project (atomically), e.g.\n"
            "  mpirun -np 64 clusterscope-cli import-trace /lustre/run/traces --project run.csproj\n",
            runImportTraceCommand },
        { "import-fabric", "FILE [--plan FILE | --plan-scenario S.json] [--project P] [--details] [--json]",
            "Import an ibnetdiscover dump: parts, tiers, pods, chassis; missing, miswired, degraded links.",
            "Reads an ibnetdiscover dump (links seen from both ends merged; CRLF, text before the first node,\n"
            "a trailing shell prompt and lost tabs tolerated). Switch-embedded CAs (SHARP aggregation nodes,\n"
            "switch management ports) are set apart from the hosts. Infers separate fabrics (compute,\n"
            "management, storage), switch tiers (distance from the host-facing switches, with a confidence from\n"
            "up/down consistency and tier names in descriptions), pods (switches sharing their up-neighbours)\n"
            "and director chassis. Flags, each against its own pod's pattern: missing, miswired (swapped) and\n"
            "extra cables, switches with fewer uplinks than their group, links narrower or slower than their\n"
            "level, ends reporting different widths, self-loops; one line per pattern.\n"
            "  --plan FILE           planned fabric (.ibnl): cabling is judged against it instead\n"
            "  --plan-scenario FILE  the fabric a scenario builds is the plan: switches matched by name, cables\n"
            "                        port by port; when the dump names switches its own way, switches per tier\n"
            "                        and cables per level are compared instead\n"
            "  --catalog DIR         catalog for --plan-scenario\n"
            "  --project P           store the dump in project P (created if absent) beside its scenarios\n"
            "  --details             every flag, not one line per pattern\n"
            "  --json                {switches, hcas, links, tiers, structure {embedded_cas, tier_confidence, parts,\n"
            "                        groups, chassis}, flags [{kind, severity, pattern, ports, switches, message}],\n"
            "                        flag_groups [{kind, severity, pattern, count}], plan, diagnostics}\n",
            runImportFabricCommand },
        { "export-fabric",
            "FILE --ibnetdiscover OUT [--sharp] [--management-switches N] [--management-hosts N] [--crlf]",
            "Write the fabric a scenario builds as an ibnetdiscover dump (what the cabled fabric should report).",
            "Builds the scenario's fabric and writes it in ibnetdiscover's format (switches "
            "\"MF0;<name>:MQM8700/U1\",\n"
            "hosts \"node00001 mlx5_0\"): a reference to diff a real dump against, or input for import-fabric.\n"
            "  --ibnetdiscover OUT       the dump to write\n"
            "  --sharp                   every switch also lists its SHARP aggregation node (as Quantum switches do)\n"
            "  --management-switches N   add a separate management fabric of N switches\n"
            "  --management-hosts N      hosts on the management fabric\n"
            "  --crlf                    CRLF line ends\n",
            runExportFabricCommand },
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
        { "telemetry",
            "--url URL (--scenario S | --fabric DUMP) (--start T --end T | --live SECONDS [--every N] [--count K]) "
            "[--json] | --snapshot FILE "
            "| --rules OUT",
            "Read live counters (Prometheus API) onto the fabric: utilisation, errors, imbalance, period, alerts.",
            "Reads a window of counters from a Prometheus-compatible server (Prometheus, Thanos, Mimir) using the\n"
            "source profiles in resources/telemetry (node_exporter infiniband/ethtool, UFM, dcgm-exporter, SNMP),\n"
            "attaches them to the fabric's link ends and prints per tier the average, p99 and 1-interval peak\n"
            "utilisation (guideline: average 60-80%, peaks < 95%), errors and discards with both ends compared,\n"
            "uplink imbalance, peer outliers, counter resets, scrape health, the iteration period and the alerts.\n"
            "Links without data are reported as gaps, never as zeros.\n"
            "  --url URL              http[s]://host:port[/prefix] (https: the system's CAs or SSL_CERT_FILE)\n"
            "  --insecure             https without certificate and host-name checks (self-signed lab servers)\n"
            "  --scenario S           the fabric built from a scenario; hosts named --host-names (default node:3:1)\n"
            "  --fabric DUMP          an ibnetdiscover dump (CAs matched by node description, switches by GUID/name)\n"
            "  --start T --end T      window in Unix seconds     --live SECONDS  the last SECONDS until now\n"
            "  --every N  --count K   follow: analyse the last SECONDS every N s (default 5) until interrupted or K\n"
            "                         rounds, printing the alerts raised and cleared each round (JSON lines with "
            "--json)\n"
            "  --snapshot FILE        a saved /metrics page (text 0.0.4 or OpenMetrics): non-zero error counters\n"
            "  --rules OUT            write Prometheus recording and alerting rules generated from the fabric\n"
            "  --profile FILE         an extra or edited source profile (replaces the built-in of the same name)\n"
            "  --host-names P:W:F     built fabrics: host h is P + (h + F) padded to W digits (node:3:1 -> node001)\n"
            "  --device-prefix P      built fabrics: NIC rail r is P + r (default mlx5_)\n"
            "  --bearer-token-file F  --user U --password-file F   authentication     --timeout S  per request\n"
            "  --json                 machine-readable output\n",
            runTelemetryCommand },
        { "validate-model", "[--json] [--tables DIR] [--scenarios DIR] [--catalog DIR]",
            "Check the training model against public measurements (per-row errors, per-table MAPE and bias).",
            "Runs the public tables shipped with ClusterScope (A100: SC21 Table 1, Korthikanti et al. 2022\n"
            "Table 5, vTrain's multi-node and one-node Megatron-DeepSpeed runs; H100: Megatron-LM's scaling\n"
            "table, NeMo 24.07's fp8 summary; GB200/B200/H100: NeMo 25.02, 25.04 and 25.07 (GPT-3, Llama 3,\n"
            "Nemotron-4, Mixtral, Llama 4 Scout), Megatron-Bridge 25.09, 25.11 and 26.04.01 dense and MoE\n"
            "rows, and 26.04.01's GB300/B300 rows, bf16, fp8, MXFP8 and NVFP4, with the hybrid\n"
            "Mamba-2 Nemotron 3 Nano / Super and Kimi K2 (Muon); a cuBLAS GEMM sweep on H200) through the\n"
            "training model exactly as published, uncalibrated, and prints per row the measured and\n"
            "predicted figure and the error (predicted / measured - 1; on step-time tables negative means\n"
            "too fast), and per table the MAPE, the bias and the limits the tests hold; then every training\n"
            "row grouped by model kind (dense, MoE) and GPU architecture, errors as throughput (> 0 = too\n"
            "fast). Tables titled HELD OUT were added after the model was built.\n"
            "  --json         {calibrated, within_limits, tables: [{id, title, rows: [{label, metric, measured,\n"
            "                 predicted, error, detail}], mape, bias, max_error, mape_limit, bias_limit}],\n"
            "                 by_kind_and_architecture: [{kind, architecture, rows, mape, bias, max_error}]}\n"
            "  --tables DIR   run the tables of DIR/tables.json instead (same format as resources/validation/)\n"
            "  --scenarios DIR  write each evaluated row's scenario, with the strategy the prediction used, to\n"
            "                 DIR/<table id>-<row>.json (rows from 01; JSON rows gain scenario_file):\n"
            "                 clusterscope-cli evaluate FILE --no-fabric gives the same figure and its breakdown\n"
            "  --catalog DIR  read the catalog JSON files from DIR\n",
            runValidateModelCommand },
        { "calibrate-compute",
            "[--gemm-csv FILE [--gpu ID] [--dtype D]] [--scenario FILE (--step-seconds S | --tokens-per-second T)] "
            "[--run RUN [--scenario FILE|NAME]] [--project P] [--save OUT] [--json]",
            "Fit the training compute model to your GEMM sweep, a measured step or a profiled run.",
            "Fits calibration.compute constants to your own measurements and shows the residuals before and\n"
            "after: a GEMM sweep CSV (columns m, n, k, seconds; '#' comments) fits the GEMM fraction of peak,\n"
            "per-GEMM latency and half-efficiency K dimension; a measured step (the scenario as it ran, with its\n"
            "parallelism, and its seconds per iteration or tokens/s) fits one efficiency scale shared by GEMMs\n"
            "and attention. A profiled run stored in the project (import-trace DIR --project P) gives the\n"
            "measured step: its median step's compute-kernel time when the trace has one, else its step time,\n"
            "fitted the same way; the run and the scenario must have the same GPU type and count. The sweep\n"
            "is fitted first, then the step. evaluate --project P, the GUI and the report then use the fit on\n"
            "scenarios of the same GPU and dtype, and say calibrated (compute_calibration.calibrated = true).\n"
            "  --gemm-csv FILE        GEMM sweep (e.g. from torch.matmul timed with CUDA events)\n"
            "  --gpu ID / --dtype D   the sweep's catalog GPU and dtype (default: the scenario's, bf16)\n"
            "  --scenario FILE        the scenario a measured step ran (with --run: a file or a scenario of P;\n"
            "                         default: P's only scenario)\n"
            "  --step-seconds S       measured seconds per iteration   --tokens-per-second T  or its throughput\n"
            "  --run RUN              a run stored in P (its id or name, see the Runs tab)\n"
            "  --project P            store the fit in project P (created if absent)\n"
            "  --save OUT             write the fit as JSON ({format: clusterscope-compute-calibration, compute})\n"
            "  --json                 {fits: [{what, quantity, residuals, mean_abs_error_before/after,\n"
            "                         iteration_seconds_before/after}], calibration}\n",
            runCalibrateComputeCommand },
    };
} // namespace

std::span<const CliCommand> cliCommands() { return kCommands; }

} // namespace clusterscope::app
