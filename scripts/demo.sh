#!/usr/bin/env bash
# `make demo`: Jacobi on 2 ranks with libxmpi monitoring, one progress line per
# sampling interval, and the trace printed as a table at the end.
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRACE="$BUILD/demo-trace.csv"
echo "== Jacobi, order 1500, 500 iterations, 2 ranks, sampling interval 100 iterations"
echo "== $ROOT/scripts/xmpirun -np 2 $BUILD/bin/jacobi -n 1500 -i 500 --xmpi-si=100 --xmpi-verbose=1 --xmpi-trace=$TRACE"
"$ROOT/scripts/xmpirun" -np 2 "$BUILD/bin/jacobi" -n 1500 -i 500 \
    --xmpi-si=100 --xmpi-verbose=1 "--xmpi-trace=$TRACE"
echo
echo "== trace ($TRACE), the columns are described in README.md"
if command -v column >/dev/null; then cut -d, -f1-12 "$TRACE" | column -s, -t; else cut -d, -f1-12 "$TRACE"; fi
