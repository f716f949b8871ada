#!/usr/bin/env bash
# Checks that every C++ source in the repository is formatted as .clang-format says (WebKit base,
# 120 columns, 4 spaces). Lists the files that differ and exits 1; changes nothing.
# To format the tree (what a developer runs before committing):
#   git ls-files -z '*.cpp' '*.h' | xargs -0 clang-format -i
# Usage: packaging/check-format.sh [FILE...]   (default: every tracked *.cpp and *.h)
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format}
command -v "$format" >/dev/null || { echo "check-format: $format not found (Debian: clang-format)" >&2; exit 2; }
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -d '' files < <(git ls-files -z '*.cpp' '*.h')
fi
bad=()
for f in "${files[@]}"; do
    "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    printf '%s\n' "${bad[@]}" >&2
    echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted ($("$format" --version | head -1));" \
        "run: git ls-files -z '*.cpp' '*.h' | xargs -0 $format -i" >&2
    exit 1
fi
echo "check-format: all ${#files[@]} files are formatted"
