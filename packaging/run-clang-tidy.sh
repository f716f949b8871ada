#!/usr/bin/env bash
# Runs clang-tidy with the repository's .clang-tidy over the engine and the importers (the Qt-free
# core that the CLI, the GUI and the report share). Exits 1 on any finding.
# Usage: packaging/run-clang-tidy.sh [BUILD_DIR [FILE...]]
#   BUILD_DIR holds compile_commands.json; default build-tidy, configured here without the GUI (only
#   configured: clang-tidy parses the sources itself, nothing is compiled).
# The checks and why each was chosen or left out are listed in .clang-tidy.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-tidy}
shift || true
tidy=${CLANG_TIDY:-clang-tidy}
command -v "$tidy" >/dev/null || { echo "run-clang-tidy: $tidy not found (Debian: clang-tidy)" >&2; exit 2; }
if [ ! -f "$build/compile_commands.json" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLUSTERSCOPE_BUILD_GUI=OFF \
        -DCLUSTERSCOPE_BUILD_TESTS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
fi
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(git ls-files 'engine/*.cpp' 'importers/*.cpp')
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# One clang-tidy per file, two at a time; --quiet keeps only the findings.
printf '%s\0' "${files[@]}" | xargs -0 -n 1 -P "${TIDY_JOBS:-2}" "$tidy" -p "$build" --quiet --warnings-as-errors='*' \
    >"$log" 2>&1 || true
if grep -qE '(warning|error): ' "$log"; then
    grep -E '(warning|error): ' "$log" | sort -u >&2
    echo "run-clang-tidy: $(grep -cE '(warning|error): ' "$log") findings in ${#files[@]} files (see .clang-tidy)" >&2
    exit 1
fi
echo "run-clang-tidy: no findings in ${#files[@]} files"
