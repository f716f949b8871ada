#!/usr/bin/env bash
# Builds the .deb with CPack into a scratch folder and checks its metadata, contents and desktop
# files, then runs the packaged CLI from the unpacked tree (a smoke run without installing).
# Usage: check_deb.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/out/clusterscope_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no .deb produced"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = clusterscope ] || fail "Package field"
version=$(field Version)
[ -n "$version" ] || fail "Version field"
depends=$(field Depends)
for lib in libqt6core6 libqt6widgets6 libqt6openglwidgets6 libvtk9.1 libsqlite3-0 qt6-qpa-plugins; do
    grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
[ "$(field Section)" = science ] || fail "Section field"

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/clusterscope ./usr/bin/clusterscope-cli \
         ./usr/share/applications/org.clusterscope.ClusterScope.desktop \
         ./usr/share/metainfo/org.clusterscope.ClusterScope.metainfo.xml \
         ./usr/share/icons/hicolor/scalable/apps/org.clusterscope.ClusterScope.svg \
         ./usr/share/mime/packages/clusterscope-mime.xml \
         ./usr/share/clusterscope/catalog/gpus.json; do
    grep -qx "$f" <<<"$contents" || fail "package lacks $f"
done

dpkg-deb -x "$deb" "$work/root"
appstreamcli validate --no-net "$work/root/usr/share/metainfo/org.clusterscope.ClusterScope.metainfo.xml" >/dev/null \
    || fail "metainfo does not validate"
desktop-file-validate "$work/root/usr/share/applications/org.clusterscope.ClusterScope.desktop" || fail "desktop file"
file "$work/root/usr/bin/clusterscope-cli" | grep -q stripped || true
out=$("$work/root/usr/bin/clusterscope-cli" --version)
[ "$out" = "clusterscope-cli $version" ] || fail "packaged CLI says '$out', package version $version"
"$work/root/usr/bin/clusterscope-cli" validate "$work/root/usr/share/clusterscope/examples/llama3-70b-1024-h100.json" >/dev/null \
    || fail "packaged CLI cannot validate the packaged example"
echo "deb ok: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB, depends: $depends"
