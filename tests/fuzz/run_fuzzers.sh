#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a short time (CI smoke run).
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET]   (default 60)
# Needs clang and libFuzzer (Debian: clang libclang-rt-14-dev); .ci/run installs them.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCLUSTERSCOPE_BUILD_GUI=OFF -DCLUSTERSCOPE_FUZZ=ON >/dev/null
cmake --build build-fuzz --target fuzz_kineto fuzz_ibnetdiscover fuzz_ibnl fuzz_nccltests
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
mkdir -p "$corpus/kineto" "$corpus/ibnetdiscover" "$corpus/ibnl" "$corpus/nccltests"
# Seeds: the small real samples (the big traces would slow every iteration down).
cp tests/data/ibnetdiscover/*.topo tests/data/ibnetdiscover/plan_match.ibnetdiscover "$corpus/ibnetdiscover/"
cp tests/data/ibnetdiscover/*.ibnl "$corpus/ibnl/"
cp tests/data/nccltests/*.log tests/data/nccltests/*.json "$corpus/nccltests/"
printf '%s' '{"distributedInfo": {"rank": 0, "world_size": 2, "pg_config": [{"pg_name": "0", "ranks": [0, 1]}]}, "traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1.5, "dur": 9999}, {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"correlation": 5}}, {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)", "pid": 0, "tid": 7, "ts": 4458677009853.422, "dur": 26.5, "args": {"correlation": 5, "Collective name": "allreduce", "In msg nelems": 10, "Out msg nelems": 10, "dtype": "Float", "Group size": 2, "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "In split size": "[]"}}], "baseTimeNanoseconds": 1711964646000000000}' \
    > "$corpus/kineto/seed.json"
rm -f build-fuzz/crash-*
for target in kineto ibnetdiscover ibnl nccltests; do
    echo "== fuzz_$target (${seconds}s)"
    build-fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=1024 \
        -artifact_prefix="build-fuzz/crash-$target-" "$corpus/$target" 2>&1 | grep -E '^Done|SUMMARY|ERROR' || true
    # libFuzzer exits non-zero on a finding; the grep above hides that, so check for artifacts.
    if compgen -G "build-fuzz/crash-$target-*" >/dev/null; then
        ls build-fuzz/crash-$target-* >&2
        echo "fuzz_$target found a problem: build-fuzz/crash-$target-*" >&2
        exit 1
    fi
done
