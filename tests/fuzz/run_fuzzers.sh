#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, seeds a corpus per target and runs each one in turn.
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET [JOBS]]   (default 60 seconds, 1 job)
#   FUZZ_CORPUS_DIR=dir   keep the corpus there (default: a temporary folder removed at the end)
#   FUZZ_TARGETS="a b"    run only these targets (default: all seven)
#   FUZZ_BUILD_DIR=dir    build the targets in this already configured clang build (CI uses the
#                         `sanitize` preset's build-sanitize, which builds them with -DCLUSTERSCOPE_FUZZ=ON);
#                         default: build-fuzz, configured here
#   FUZZ_TIMEOUT=S        an input running longer than S seconds is a finding (default 30; raise it
#                         on a machine busy with other work, where a starved process can stall that long)
#   FUZZ_RUNS=N           campaign mode: run each target for N executions instead of SECONDS
#                         (the long run reported in tests/fuzz/README.md used FUZZ_RUNS=10000000)
# Seeds: the small real samples, the dictionaries in tests/fuzz/dict and every regression
# input in tests/fuzz/regressions/<target>/ (inputs that once crashed a target: replayed first).
# Prints, per target, the executions done, their rate, the wall time and the coverage reached (cov:
# edges, ft: features); exits non-zero when a target finds a crash, a leak, a timeout or undefined
# behaviour (the input is kept in <build>/crash-<target>-*).
# Needs clang and libFuzzer (Debian: clang libclang-rt-14-dev); .ci/run installs them.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
jobs="${2:-1}"
all_targets="nccltests scenario calibration project kineto ibnetdiscover ibnl"
targets="${FUZZ_TARGETS:-$all_targets}"
build="${FUZZ_BUILD_DIR:-build-fuzz}"
if [ -z "${FUZZ_BUILD_DIR:-}" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCLUSTERSCOPE_BUILD_GUI=OFF -DCLUSTERSCOPE_BUILD_TESTS=ON -DCLUSTERSCOPE_FUZZ=ON >/dev/null
fi
# shellcheck disable=SC2046
cmake --build "$build" --target $(printf 'fuzz_%s ' $targets)
if [ -n "${FUZZ_CORPUS_DIR:-}" ]; then
    corpus="$FUZZ_CORPUS_DIR"
else
    corpus="$(mktemp -d)"
    trap 'rm -rf "$corpus"' EXIT
fi
for t in $all_targets; do
    mkdir -p "$corpus/$t"
    if [ -d "tests/fuzz/regressions/$t" ]; then cp tests/fuzz/regressions/"$t"/* "$corpus/$t/"; fi
done
# Seeds: the small real samples (the big traces would slow every iteration down).
cp tests/data/ibnetdiscover/*.topo tests/data/ibnetdiscover/plan_match.ibnetdiscover "$corpus/ibnetdiscover/"
cp tests/data/ibnetdiscover/*.ibnl "$corpus/ibnl/"
cp tests/data/nccltests/*.log tests/data/nccltests/*.json "$corpus/nccltests/"
cp resources/examples/*.json tests/data/scenarios/*.json "$corpus/scenario/"
printf '%s' '{"distributedInfo": {"rank": 0, "world_size": 2, "pg_config": [{"pg_name": "0", "ranks": [0, 1]}]}, "traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1.5, "dur": 9999}, {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"correlation": 5}}, {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)", "pid": 0, "tid": 7, "ts": 4458677009853.422, "dur": 26.5, "args": {"correlation": 5, "Collective name": "allreduce", "In msg nelems": 10, "Out msg nelems": 10, "dtype": "Float", "Group size": 2, "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "In split size": "[]"}}], "baseTimeNanoseconds": 1711964646000000000}' \
    > "$corpus/kineto/seed.json"
# A calibration as import-nccl-tests writes it (engine/calibration/calibrationjson.h).
printf '%s' '{"format": "clusterscope-calibration", "version": 1, "calibration": [{"algorithm": "ring", "tier": 1, "latency_scale": 1.2, "latency_offset_us": 3.5, "bandwidth_scale": 0.9}], "sweeps": [{"sweep": {"op": "allreduce", "ranks": 16, "nodes": 2, "gpu": "h100-sxm", "algorithm": "ring", "sources": ["a.log"], "measured": [{"bytes": 8, "time_us": 20.5}, {"bytes": 1048576, "time_us": 60.25}, {"bytes": 8589934592, "time_us": 45000}]}, "corrections": [{"algorithm": "ring", "tier": 1, "latency_scale": 1.2, "latency_offset_us": 3.5, "bandwidth_scale": 0.9, "parameters": 3, "points": 3, "min_bytes": 8, "max_bytes": 8589934592, "measured_latency_us": 20, "measured_bandwidth_gbps": 190.5}], "residuals": [{"bytes": 8, "measured_us": 20.5, "before_us": 18, "after_us": 20.4, "algorithm_before": "tree", "protocol_before": "LL", "algorithm_after": "ring", "protocol_after": "LL128"}], "rms_before": 0.12, "rms_after": 0.02}]}' \
    > "$corpus/calibration/seed.json"
# A small real project (an example scenario, a calibration document, a stored run).
if [[ " $targets " == *" project "* ]]; then
    CLUSTERSCOPE_FUZZ_WRITE_SEED="$corpus/project/seed.csproj" "$build"/tests/fuzz/fuzz_project
fi
status=0
for target in $targets; do
    # Projects are whole SQLite files (512-byte pages): allow them a larger input.
    max_len=4096
    [ "$target" = project ] && max_len=16384
    log="$build/fuzz_$target.log"
    rm -f "$build"/crash-"$target"-*
    limit=(-max_total_time="$seconds")
    [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
    # -jobs=1 would still fork a child (and leave fuzz-0.log behind): one job runs in this process.
    parallel=()
    [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
    dict=()
    case "$target" in
    nccltests) dict=(-dict=tests/fuzz/dict/nccltests.dict) ;;
    kineto | scenario | calibration) dict=(-dict=tests/fuzz/dict/json.dict) ;;
    esac
    start=$(date +%s)
    # A 16 MB quarantine (ASan's default is 256 MB) still holds every block freed while one input
    # is parsed, so a use after free within an input is caught, but memory is reused instead of
    # page-faulted in anew: 2-4x more executions per second on the parsers that allocate most.
    ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=16}" TMPDIR=/dev/shm "$build"/tests/fuzz/fuzz_$target "${limit[@]}" "${parallel[@]}" "${dict[@]}" \
        -max_len=$max_len -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-30}" -print_final_stats=1 \
        -artifact_prefix="$build/crash-$target-" "$corpus/$target" >"$log" 2>&1 || true
    wall=$(($(date +%s) - start))
    [ "$wall" -gt 0 ] || wall=1
    if [ "$jobs" -gt 1 ]; then cat fuzz-*.log >>"$log" 2>/dev/null && rm -f fuzz-*.log; fi
    runs=$(grep -hE '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
    rate=$(awk -v r="$runs" -v s="$wall" 'BEGIN {printf "%.0f", r / s}')
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    echo "fuzz_$target: $runs executions in ${wall}s ($rate/s), $coverage, corpus $(ls "$corpus/$target" | wc -l) inputs"
    # libFuzzer exits non-zero on a finding; a kept artifact or a sanitizer report is the evidence.
    if compgen -G "$build/crash-$target-*" >/dev/null || grep -qE '^SUMMARY: ' "$log"; then
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5 >&2 || true
        ls "$build"/crash-$target-* >&2 2>/dev/null || true
        echo "fuzz_$target found a problem: see $log and $build/crash-$target-*" >&2
        status=1
    fi
done
exit $status
