#!/usr/bin/env bash
# ClusterScope bootstrap: install what the build needs (Debian 12), configure, build, then
#   run      open the GUI on the built-in example (or, without a display, run the CLI on it)
#   test     run the whole ctest suite under xvfb-run; exit non-zero on any failure
#   package  build the .deb (CPack)
#   deps     only install the Debian packages (add names as further arguments to install more)
# Idempotent: packages already present are not reinstalled; apt-get update runs once per machine.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-run}
build_dir=${CLUSTERSCOPE_BUILD_DIR:-$here/build}

packages=(build-essential cmake ninja-build pkg-config ccache
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6sql6-sqlite libqt6opengl6-dev
    libvtk9-dev libsqlite3-dev libboost-dev libssl-dev nlohmann-json3-dev libsimdjson-dev zlib1g-dev
    xvfb xauth libgl1-mesa-dri fonts-dejavu-core imagemagick x11-apps poppler-utils
    dpkg-dev file appstream desktop-file-utils
    prometheus prometheus-node-exporter openssl
    libopenmpi-dev openmpi-bin
    clang libclang-rt-14-dev clang-format clang-tidy)

say() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*"; }

install_packages() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        say "all ${#packages[@]} Debian packages are present"
        return
    fi
    say "installing ${#missing[@]} Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    local stamp=/var/lib/apt/periodic/clusterscope-update-stamp
    if [ ! -e "$stamp" ]; then
        $sudo apt-get update -qq
        $sudo mkdir -p "$(dirname "$stamp")" && $sudo touch "$stamp"
    fi
    # A stale package list makes the install fail: refresh once and retry.
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        || { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
            --no-install-recommends "${missing[@]}"; }
}

configure_and_build() {
    say "configuring in $build_dir"
    cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    say "building (ninja, $(nproc) cores; ccache $(command -v ccache >/dev/null && echo on || echo off))"
    cmake --build "$build_dir" "$@"
}

case "$mode" in
deps)
    shift
    packages+=("$@")
    install_packages
    ;;
run)
    install_packages
    configure_and_build --target clusterscope clusterscope-cli
    example="$here/resources/examples/llama3-70b-1024-h100.json"
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
        say "opening the GUI on the built-in example project"
        exec "$build_dir/app/gui/clusterscope"
    fi
    say "no display (DISPLAY is not set): running the CLI on the built-in example instead"
    cli="$build_dir/app/clusterscope-cli"
    "$cli" validate "$example"
    echo
    "$cli" evaluate "$example"
    echo
    "$cli" fabric "$example"
    echo
    say "more: $cli --help (search, collective, import-nccl-tests, catalog, ...)"
    ;;
test)
    install_packages
    configure_and_build
    say "running the test suite under xvfb-run"
    cd "$build_dir"
    # -noreset: an X server resets when its last client disconnects, and a GUI test that connects
    # during the reset fails with "could not connect to display" (seen with two tests at a time,
    # between one test's exit and the next one's start). See Xserver(1), option -noreset.
    xvfb-run -a -s "-screen 0 1600x1000x24 -noreset" ctest --output-on-failure --timeout 600 -j "$(nproc)"
    ;;
package)
    install_packages
    configure_and_build
    (cd "$build_dir" && cpack -G DEB)
    say "package: $(ls "$build_dir"/clusterscope_*_amd64.deb)"
    ;;
*)
    echo "usage: packaging/bootstrap.sh run|test|package|deps [PACKAGE...]" >&2
    exit 1
    ;;
esac
