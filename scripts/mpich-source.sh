#!/usr/bin/env bash
# Fetches and unpacks the source of Debian's mpich package into DIR/mpich (Debian's patches
# applied), for scripts/install-deps.sh --mpich (MPICH with ch3:nemesis) and for
# scripts/conformance.sh (MPICH's own test suite, test/mpi). A second call with the same DIR
# returns at once: a stamp in DIR/mpich names the version unpacked.
#
# usage: scripts/mpich-source.sh DIR [LOG]
#   prints the unpacked tree's path (DIR/mpich) on stdout; apt's and dpkg-source's output goes
#   to LOG (default DIR/fetch.log). Exit 1, with the log's last lines, when a step fails.
# The source comes through apt with a private list of deb-src entries made from the system's
# Debian entries, so that neither /etc/apt nor the system's package lists change.
set -euo pipefail
DIR=${1:?usage: scripts/mpich-source.sh DIR [LOG]}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
LOG=${2:-$DIR/fetch.log}
STAMP=$DIR/mpich/.xmpi-source
if [ -f "$STAMP" ]; then
    echo "$DIR/mpich"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO=sudo; else SUDO=; fi
fail() {
    echo "mpich-source: $* failed; the last lines of $LOG:" >&2
    tail -25 "$LOG" | sed 's/^/    /' >&2
    exit 1
}
for t in apt-get apt-cache dpkg-source; do
    command -v $t >/dev/null || { echo "mpich-source: $t is missing (package dpkg-dev, apt)" >&2; exit 1; }
done

APT=$DIR/apt
rm -rf "$APT" && mkdir -p "$APT/parts" "$APT/lists/partial"
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822 stanzas of Debian's archive, as deb-src ("Enabled: no" ones left out).
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*deb/ && /(^|\n)URIs:[^\n]*debian/ && !/(^|\n)Enabled: *no/ {
             sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >>"$APT/parts/debian-src.sources"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -n -E '/debian/s/^[[:space:]]*deb[[:space:]]+/deb-src /p' "$f" >>"$APT/parts/debian-src.list"
done
[ -s "$APT/parts/debian-src.sources" ] || rm -f "$APT/parts/debian-src.sources"
[ -s "$APT/parts/debian-src.list" ] || rm -f "$APT/parts/debian-src.list"
ls "$APT/parts" | grep -q . ||
    { echo "mpich-source: no Debian archive in /etc/apt/sources.list{,.d} to take the source from" >&2; exit 1; }
apt_src=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$APT/parts"
         -o "Dir::State::Lists=$APT/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
$SUDO apt-get "${apt_src[@]}" update >>"$LOG" 2>&1 || fail "apt-get update (deb-src)"
version=$(apt-cache "${apt_src[@]}" showsrc mpich 2>>"$LOG" | sed -n 's/^Version: //p' | sort -V | tail -1) ||
    fail "apt-cache showsrc mpich"
[ -n "$version" ] || fail "finding the mpich source package"
SRC=$DIR/download
rm -rf "$SRC" "$DIR/mpich" && mkdir -p "$SRC"
# The download as the invoking user: apt's _apt user may not write there.
(cd "$SRC" && $SUDO apt-get "${apt_src[@]}" -o APT::Sandbox::User=root source --download-only "mpich=$version") \
    >>"$LOG" 2>&1 || fail "apt-get source mpich=$version"
$SUDO chown -R "$(id -u):$(id -g)" "$SRC"
(cd "$SRC" && dpkg-source -x ./*.dsc "$DIR/mpich") >>"$LOG" 2>&1 ||
    fail "dpkg-source -x (unpacking mpich $version)"
# dpkg-source leaves a copy of the upstream tarball beside the tree: not needed once unpacked.
rm -rf "$SRC" "$APT" "$DIR"/mpich_*.orig.tar.*
echo "$version" >"$STAMP"
echo "$DIR/mpich"
