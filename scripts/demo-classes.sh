#!/usr/bin/env bash
# `make demo-classes`: Jacobi on two emulated node classes, a full-speed one and one limited
# to a quarter of a core by a cgroup quota; the trace's per-rank times show the slow class.
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
H=$(hostname)
RES="$BUILD/demo-classes.res"
TRACE="$BUILD/demo-classes.csv"
printf '# hostname:class:PEs:cost:speed\n%s:fast:1:1.0:1\n%s:slow:1:0.25:0.25\n' "$H" "$H" >"$RES"
echo "== resources ($RES):"; grep -v '^#' "$RES"
echo "== Jacobi, order 1200, 300 iterations, rank 0 on class fast, rank 1 on class slow (0.25 core)"
"$ROOT/scripts/xmpirun" -np 2 "$BUILD/bin/jacobi" -n 1200 -i 300 --xmpi-si=100 \
    "--xmpi-resources=$RES" --xmpi-initial=fast:1,slow:1 "--xmpi-trace=$TRACE"
echo
echo "== per interval and rank: compute = t_real - comm_time (seconds); the slow rank computes"
echo "   about 4x longer and the fast one spends that difference waiting in MPI_Allgatherv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { split($col["t_real_ranks"], t, ";"); split($col["comm_time_ranks"], c, ";")
      printf "interval %d: rank 0 (fast) compute %.3f s, wait %.3f s | rank 1 (slow) compute %.3f s, wait %.3f s\n",
             $1, t[1] - c[1], c[1], t[2] - c[2], c[2] }' "$TRACE"
