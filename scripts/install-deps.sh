#!/usr/bin/env bash
# Installs with apt whatever libxmpi needs to build, test and benchmark on Debian 12.
# Idempotent: quiet and quick when everything is already there.
#
# usage: scripts/install-deps.sh [--mpich]
#   --mpich  also builds MPICH from Debian's source package with the ch3:nemesis device (Debian's
#            own MPICH 4.0.2 uses ch4:ucx, which cannot spawn processes) and installs it into
#            MPICH_PREFIX (default /opt/xmpi-mpich), for `make MPI=mpich ...`. About 8-18 minutes
#            on 2 cores the first time; afterwards a stamp file in the prefix makes it return at
#            once (remove the prefix, or its share/xmpi-mpich.stamp, to build again). The build
#            log stays in the prefix's share/; a failed build keeps its tree and log in
#            MPICH_BUILD_DIR (default /var/tmp/xmpi-mpich-build).
# OTF2 (libotf2-trace-dev) builds --xmpi-otf2; make check reads its archives with otf2-tools and
# opens xmpi-report's page in headless Chromium.
# Always installed beside Open MPI (which stays Debian's default mpicc/mpirun): Debian's own MPICH,
# an MPI that cannot spawn (make check resizes a job by checkpoint and restart on it), and Slurm
# with munge (make check-slurm starts a Slurm of its own in a temporary directory and does not use
# the packages' services: where systemd runs, Debian enables munge, slurmctld and slurmd, and the
# last two fail to start without an /etc/slurm/slurm.conf; disable them if that is unwanted).
set -euo pipefail

build_mpich=0
for a in "$@"; do
    case $a in
    --mpich) build_mpich=1 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument '$a'; accepted: --mpich (or none)" >&2; exit 2 ;;
    esac
done

pkgs=(build-essential pkg-config openmpi-bin libopenmpi-dev libpapi-dev libpfm4-dev papi-tools
      libglpk-dev glpk-utils libhwloc-dev libudev-dev hwloc check gnuplot-nox valgrind zlib1g-dev libisal-dev
      mpich libmpich-dev slurmctld slurmd slurm-client munge
      libotf2-trace-dev otf2-tools chromium)
# What building MPICH from source needs (dpkg-source unpacks it; hwloc is Debian's).
[ $build_mpich = 1 ] && pkgs+=(dpkg-dev xz-utils gfortran)

if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else SUDO=; fi
else SUDO=; fi

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
        echo "install-deps: missing packages: ${missing[*]}; run this script as root" >&2; exit 1
    fi
    echo "install-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "install-deps: done"
fi
[ $build_mpich = 1 ] || exit 0

# --- MPICH with ch3:nemesis, from Debian's source package ----------------------------------
MPICH_PREFIX=${MPICH_PREFIX:-/opt/xmpi-mpich}
case $MPICH_PREFIX in /*) ;; *) echo "install-deps: MPICH_PREFIX must be an absolute path (got '$MPICH_PREFIX')" >&2; exit 2 ;; esac
# ch3:nemesis spawns (MPI_Comm_spawn); Hydra is the launcher; ROMIO stays (checkpoints use
# MPI-IO); Fortran with the mpi_f08 module (the xmpi_f08 module and its tests build on it);
# no C++ bindings and no static libraries, which shortens the build.
CONFIGURE="--with-device=ch3:nemesis --with-pm=hydra --with-hwloc=/usr --enable-fortran=all --disable-cxx --disable-static"
STAMP=$MPICH_PREFIX/share/xmpi-mpich.stamp
if [ -f "$STAMP" ] && [ -x "$MPICH_PREFIX/bin/mpicc" ] && [ -x "$MPICH_PREFIX/bin/mpiexec" ] &&
   grep -qxF "configure: $CONFIGURE" "$STAMP"; then
    echo "install-deps: MPICH is installed in $MPICH_PREFIX: $(sed -n 's/^source: //p' "$STAMP"), ch3:nemesis"
    exit 0
fi

WORK=${MPICH_BUILD_DIR:-/var/tmp/xmpi-mpich-build}
mkdir -p "$WORK"
exec 8>"$WORK/.lock"
flock -n 8 || { echo "install-deps: another build of MPICH holds $WORK/.lock" >&2; exit 1; }
LOG=$WORK/build.log
: >"$LOG"
t0=$SECONDS
step() { printf 'install-deps: [%s] %s (%ds)\n' "$1" "$2" $((SECONDS - t0)); }
fail() {
    echo "install-deps: $* failed; the last lines of $LOG:" >&2
    tail -25 "$LOG" | sed 's/^/    /' >&2
    exit 1
}

step 1/5 "fetching the source of Debian's mpich package"
# scripts/mpich-source.sh: apt with a private deb-src list (neither /etc/apt nor the system's
# package lists change); scripts/conformance.sh takes MPICH's test suite from it too.
SRC=$("$(dirname "$0")/mpich-source.sh" "$WORK" "$LOG") || fail "fetching the mpich source"
version=$(cat "$SRC/.xmpi-source")

step 2/5 "configuring mpich $version: $CONFIGURE"
cd "$SRC"
# Debian's configure flags for the system's MPICH would only get in the way: none set here.
# gfortran 10 and later refuse MPICH's Fortran 77 bindings (one routine called with buffers of
# different types) unless told to accept them.
env -u CFLAGS -u CPPFLAGS -u LDFLAGS FFLAGS=-fallow-argument-mismatch FCFLAGS=-fallow-argument-mismatch \
    ./configure --prefix="$MPICH_PREFIX" $CONFIGURE >>"$LOG" 2>&1 ||
    fail "configure"

step 3/5 "compiling (make -j$(nproc); the long step)"
make -j"$(nproc)" >>"$LOG" 2>&1 || fail "make"

step 4/5 "installing into $MPICH_PREFIX"
if [ -w "$(dirname "$MPICH_PREFIX")" ] || [ -w "$MPICH_PREFIX" ]; then INST=; else INST=$SUDO; fi
$INST make install >>"$LOG" 2>&1 || fail "make install"

step 5/5 "checking the installed MPICH"
"$MPICH_PREFIX/bin/mpichversion" >>"$LOG" 2>&1 || fail "$MPICH_PREFIX/bin/mpichversion"
"$MPICH_PREFIX/bin/mpichversion" | grep -q 'Device:.*ch3:nemesis' || fail "the device check (expected ch3:nemesis)"
printf 'source: mpich %s (Debian source package)\nconfigure: %s\nbuilt: %s\n' \
    "$version" "$CONFIGURE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" | $INST tee "$STAMP" >/dev/null
$INST cp "$LOG" "$MPICH_PREFIX/share/xmpi-mpich-build.log"
cd /
rm -rf "$WORK"
echo "install-deps: mpich $version (ch3:nemesis, Hydra) installed in $MPICH_PREFIX in $((SECONDS - t0))s;" \
     "use it with: make MPI=mpich check"
