#!/usr/bin/env bash
# `make bench-halo`: what cg3d's halo exchange moves, and what rebuilding the halo views costs
# against the move that made it necessary.
#   (a) bytes per process and iteration at 2, 4, 8 and 16 processes (oversubscribed,
#       --xmpi-yield=on), from the trace's comm_bytes_sum (summed over the ranks; the trace has
#       no per-rank bytes column, so the mean over the ranks), against what the program says it
#       exchanges: its halo (the first line's sum over the ranks, 8 bytes a value, counted
#       sent and received) and two dot products of 552 bytes. Counts, not times: they are the
#       same on any machine.
#   (b) each move's time and the part of it that rebuilt the halo views, laid the registered
#       arrays out again and ran the program's rebuild (--xmpi-verbose=2's note "moved N
#       structure(s) in X s (...; halo views, layouts and the program's rebuild Y s of it, the
#       rebuild Z s)"), for random partitions (--cg3d-shuffle) and a spawn and a removal
#       (--xmpi-policy=smp). Times: on a shared or small machine they say that it works, not
#       what it costs.
# Environment: GRID (default 32: a GRID^3 grid, whole planes for up to GRID processes), PROCS
# (default "2 4 8 16"), ITERS (default 40, in intervals of 20).
set -uo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$ROOT/$BUILD/bin/cg3d"
GRID=${GRID:-32}
PROCS=${PROCS:-2 4 8 16}
ITERS=${ITERS:-40}
SI=20
if [ ! -x "$BIN" ]; then
    echo "bench-halo: $BIN is missing; run it through make bench-halo" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

echo "bench-halo: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores," \
     "$("${MPIRUN:-mpirun}" --version 2>/dev/null | head -n 1)"
echo "cg3d: ${GRID}^3 grid, 27-point, -t 0 -i $ITERS, --xmpi-si=$SI, --xmpi-yield=on"
echo
echo "(a) bytes per process and iteration (trace) against the halo and the dot products"
printf '%6s %10s %14s %14s %12s %12s %8s\n' procs halo bytes/proc/it halo/proc dots/proc interior same
for p in $PROCS; do
    out="$tmp/a$p"
    XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-300} "$ROOT/scripts/xmpirun" -np "$p" "$BIN" -x "$GRID" -y "$GRID" \
        -z "$GRID" -t 0 -i "$ITERS" --xmpi-si=$SI --xmpi-yield=on "--xmpi-trace=$out.csv" >"$out" 2>&1
    rc=$?
    halo=$(sed -n 's/^cg3d: .* halo \([0-9]*\),.*/\1/p' "$out")
    if [ $rc != 0 ] || [ -z "$halo" ] || [ ! -s "$out.csv" ]; then
        echo "bench-halo: $p processes failed (exit $rc)"; sed 's/^/#   /' "$out" | tail -5
        failed=1
        continue
    fi
    # Every whole interval: comm_bytes_sum / (nprocs x iterations); they must all agree.
    awk -F, -v p="$p" -v halo="$halo" -v plane=$((GRID * GRID)) '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["iterations"] > 0 { b = $c["comm_bytes_sum"] / ($c["nprocs"] * $c["iterations"])
                               if (n++ && b != first) odd = 1; if (n == 1) first = b }
        END {
            h = 16 * halo / p; d = 2 * 552
            # An interior process: two whole planes in, two out (p <= GRID: blocks of planes).
            printf "%6d %10d %14.1f %14.1f %12d %12d %8s\n", p, halo, first, h, d, 16 * 2 * plane,
                   (!odd && first == h + d) ? "yes" : "NO"
            exit (odd || first != h + d)
        }' "$out.csv" || failed=1
done
echo "  halo: values in the halo summed over the ranks (cg3d's first line); bytes/proc/it: the"
echo "  trace's comm_bytes_sum / (nprocs x iterations), the same in every interval; halo/proc:"
echo "  16 x halo / procs (8-byte values, received and sent); dots/proc: two MPI_Allreduce of 69"
echo "  words; interior: an interior process's halo bytes (two planes), which do not depend on the"
echo "  number of processes; same: bytes/proc/it = halo/proc + dots/proc exactly."

echo
echo "(b) moves: the whole move, and the halo views, layouts and program's rebuild inside it"
notes() { # notes OUT: the registry's notes of OUT as "call structures move_s views_s rebuild_s"
    sed -n 's/^xmpi: \([A-Za-z_]*\): moved \([0-9]*\) structure(s) in \([0-9.e+-]*\) s (.*halo views, layouts and the program.s rebuild \([0-9.e+-]*\) s of it, the rebuild \([0-9.e+-]*\) s)$/\1 \2 \3 \4 \5/p' "$1"
}
out="$tmp/shuffle"
XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-300} "$ROOT/scripts/xmpirun" -np 4 "$BIN" -x "$GRID" -y "$GRID" -z "$GRID" \
    -t 0 -i "$ITERS" --cg3d-shuffle=5 --xmpi-si=$SI --xmpi-verbose=2 >"$out" 2>&1 || failed=1
printf 'random partitions on 4 processes (--cg3d-shuffle=5; the first move records the start'"'"'s planes):\n'
printf '  %-24s %10s %12s %12s %12s\n' call structures move_s views_s rebuild_s
notes "$out" | awk '{ printf "  %-24s %10d %12s %12s %12s\n", $1, $2, $3, $4, $5 }'
[ -n "$(notes "$out")" ] || { echo "bench-halo: no move notes from --cg3d-shuffle"; failed=1; }
printf '20 spawn 1 local\n%d remove 1 local\n' $((ITERS / 2 + SI / 2)) >"$tmp/events"
out="$tmp/grow"
for attempt in 1 2; do
    XMPI_SPAWN_ASYNC=off XMPIRUN_TIMEOUT=120 "$ROOT/scripts/xmpirun" -np 2 "$BIN" -x "$GRID" -y "$GRID" \
        -z "$GRID" -t 0 -i "$ITERS" -d --xmpi-si=10 --xmpi-policy=smp "--xmpi-rms=schedule:$tmp/events" \
        --xmpi-oversubscribe --xmpi-verbose=2 >"$out" 2>&1
    rc=$?
    [ $rc != 124 ] && break
    echo "bench-halo: the spawn run timed out (the known Open MPI 4.1 + PMIx 4 spawn hang?); once more"
done
[ $rc = 0 ] || { echo "bench-halo: the spawn run failed (exit $rc)"; failed=1; }
printf 'a spawn 2 -> 3 and a removal 3 -> 2 (smp; the first move records the start'"'"'s planes):\n'
notes "$out" | awk '{ printf "  %-24s %10d %12s %12s %12s\n", $1, $2, $3, $4, $5 }'
echo "  move_s: the whole call's move on rank 0; views_s: the part that rebuilt the halo views and"
echo "  exchange plans, laid the wrapped arrays out again and ran the program's rebuild (cg3d's"
echo "  resizes A p's scratch); rebuild_s: the program's rebuild alone."
echo
if [ $failed != 0 ]; then
    echo "bench-halo: FAILED"
    exit 1
fi
echo "bench-halo: done"
