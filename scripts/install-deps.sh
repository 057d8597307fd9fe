#!/usr/bin/env bash
# Installs with apt whatever libxmpi needs to build, test and benchmark on Debian 12.
# Idempotent: quiet and quick when everything is already there.
set -euo pipefail

pkgs=(build-essential pkg-config openmpi-bin libopenmpi-dev libpapi-dev libpfm4-dev papi-tools
      libglpk-dev glpk-utils libhwloc-dev libudev-dev hwloc check gnuplot-nox valgrind zlib1g-dev)
[ "${LIBXMPI_WITH_MPICH:-0}" = 1 ] && pkgs+=(mpich libmpich-dev)

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else
        echo "install-deps: missing packages: ${missing[*]}; run this script as root" >&2; exit 1
    fi
else SUDO=; fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
