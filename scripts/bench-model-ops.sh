#!/usr/bin/env bash
# Predicted against measured time of single MPI operations (FLEX-MPI thesis 6.3, Figs. 6.9-6.12):
# xmpi-opmodel on 2, 3 and 4 processes, OUTDIR/ops.csv, one gnuplot PNG per operation, an error table.
#
# usage: [MPIRUN=mpirun] [CAL=calibration-file] [MAXBYTES=4194304] [REPS=11] [PROCS="2 3 4"]
#        [RUN_TIMEOUT=50] scripts/bench-model-ops.sh BUILD OUTDIR
#
# The project's machine has 2 cores, so P = 3 and 4 are oversubscribed (scripts/xmpirun passes
# --oversubscribe to Open MPI's mpirun): those rows measure processes sharing cores, which the
# Hockney model does not know about. They are kept on purpose, as the thesis's Figures mix one and
# several processes per node. Each run is bounded by RUN_TIMEOUT seconds; the whole script takes
# about half a minute here and at most 3 x RUN_TIMEOUT.
#
# Exit status: 0 every run (and plot, if gnuplot is installed) succeeded; 1 a run or a plot failed
# (what did succeed is still written and tabulated); 2 bad arguments, a bad MAXBYTES or REPS, or an
# unreadable or malformed CAL.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
    echo "usage: [CAL=FILE] [MAXBYTES=N] [REPS=N] [PROCS=\"2 3 4\"] $0 BUILD OUTDIR" >&2
    exit 2
fi
BUILD=$1
OUT=$2
PROG="$BUILD/bin/xmpi-opmodel"
MAXBYTES=${MAXBYTES:-4194304}
REPS=${REPS:-11}
PROCS=${PROCS:-"2 3 4"}
RUN_TIMEOUT=${RUN_TIMEOUT:-50}
CAL=${CAL:-}
export MPIRUN=${MPIRUN:-mpirun}

if [ ! -x "$PROG" ]; then
    echo "bench-model-ops: $PROG is missing; build it with make" >&2
    exit 1
fi
if [ -n "$CAL" ] && [ ! -r "$CAL" ]; then
    echo "bench-model-ops: CAL: cannot read calibration file '$CAL'" >&2
    exit 2
fi
mkdir -p "$OUT" || exit 1
rm -f "$OUT"/ops.csv "$OUT"/ops-np*.csv "$OUT"/ops-np*.log "$OUT"/ops-*.png "$OUT"/ops.gp "$OUT"/ops-gnuplot.log
start=$SECONDS
failed=0
opts=(-m "$MAXBYTES" -r "$REPS")
[ -n "$CAL" ] && opts+=(-c "$CAL")

echo "bench-model-ops: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores, load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg), $("$MPIRUN" --version 2>/dev/null | head -n 1)"
echo "bench-model-ops: calibration ${CAL:-(library defaults)}; sizes 8 B to $MAXBYTES B; median of $REPS;" \
     "results in $OUT"

ran=()
for p in $PROCS; do
    note=""
    [ "$p" -gt "$(nproc)" ] && note=" (oversubscribed: $p processes on $(nproc) cores)"
    echo "bench-model-ops: P=$p$note"
    XMPIRUN_TIMEOUT=$RUN_TIMEOUT "$ROOT/scripts/xmpirun" -np "$p" "$PROG" "${opts[@]}" \
        -o "$OUT/ops-np$p.csv" >"$OUT/ops-np$p.log" 2>&1
    rc=$?
    if [ $rc -eq 2 ]; then
        # A refused option (MAXBYTES, REPS, CAL) would be refused on every P alike.
        echo "bench-model-ops: xmpi-opmodel refused its arguments:" >&2
        grep '^xmpi-opmodel:' "$OUT/ops-np$p.log" | sed 's/^/    /' >&2
        exit 2
    fi
    if [ $rc -eq 0 ] && [ -s "$OUT/ops-np$p.csv" ]; then
        ran+=("$OUT/ops-np$p.csv")
    else
        failed=1
        why="exit $rc"
        [ $rc -eq 124 ] && why="timed out after ${RUN_TIMEOUT}s"
        echo "bench-model-ops: P=$p failed ($why); log $OUT/ops-np$p.log:" >&2
        tail -n 5 "$OUT/ops-np$p.log" | sed 's/^/    /' >&2
    fi
done
if [ ${#ran[@]} -eq 0 ]; then
    echo "bench-model-ops: no run succeeded" >&2
    exit 1
fi
awk 'FNR > 1 || NR == 1' "${ran[@]}" >"$OUT/ops.csv"

# The table: per operation and P, then per operation over every P (the thesis's Table 6.8 gives
# the relative error and its relative standard deviation per phase).
echo
awk -F, '
    function pct(x) { return sprintf("%.1f%%", 100 * x) }
    function sd(s, q, n) { v = q / n - (s / n) ^ 2; return v > 0 ? sqrt(v) : 0 }
    NR == 1 { next }
    {
        e = $7 + 0; a = e < 0 ? -e : e; k = $1 SUBSEP $2
        if (!(k in n)) { keys[++nk] = k }
        if (!($1 in on)) { ops[++no] = $1 }
        n[k]++; sa[k] += a; s[k] += e; q[k] += e * e
        if (!(k in w) || a > (w[k] < 0 ? -w[k] : w[k])) { w[k] = e; wb[k] = $3 }
        on[$1]++; osa[$1] += a; os[$1] += e; oq[$1] += e * e
    }
    END {
        printf "%-10s %4s %6s %16s %12s %14s %12s %11s\n", "op", "P", "sizes", "mean |rel err|",
               "sd rel err", "mean rel err", "worst", "at bytes"
        for (i = 1; i <= no; i++) {
            for (j = 1; j <= nk; j++) {
                split(keys[j], kk, SUBSEP); if (kk[1] != ops[i]) continue
                k = keys[j]
                printf "%-10s %4s %6d %16s %12s %14s %12s %11s\n", kk[1], kk[2], n[k],
                       pct(sa[k] / n[k]), pct(sd(s[k], q[k], n[k])), sprintf("%+.1f%%", 100 * s[k] / n[k]),
                       sprintf("%+.1f%%", 100 * w[k]), wb[k]
            }
            o = ops[i]
            printf "%-10s %4s %6d %16s %12s %14s\n", o, "all", on[o], pct(osa[o] / on[o]),
                   pct(sd(os[o], oq[o], on[o])), sprintf("%+.1f%%", 100 * os[o] / on[o])
        }
        print "rel err = (predicted - measured) / measured per size; sd: its standard deviation over" \
              " the sizes; mean: its signed mean (the bias)"
    }' "$OUT/ops.csv"

GNUPLOT=$(command -v gnuplot || true)
if [ -z "$GNUPLOT" ]; then
    echo "bench-model-ops: gnuplot is not installed: no PNG drawn (the data is in $OUT/ops.csv)"
else
    procs=$(awk -F, 'NR > 1 && !seen[$2]++ { printf "%s ", $2 }' "$OUT/ops.csv")
    gp="$OUT/ops.gp"
    {
        echo "set terminal pngcairo size 900,600 font ',10'"
        echo "set datafile separator ','"
        echo "set logscale xy"
        echo "set xtics ('8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' 262144, '2M' 2097152, '16M' 16777216, '128M' 134217728, '1G' 1073741824)"
        echo "set format y '10^{%L}'"
        echo "set xlabel 'message size n (bytes, as the model counts it)'"
        echo "set ylabel 'time (s)'"
        echo "set grid"
        echo "set key left top"
        for op in send bcast gather allreduce; do
            case $op in
                send) what="MPI\\\\_Send/MPI\\\\_Recv ping-pong, one way (ranks 0 and 1 of P)" ;;
                bcast) what="MPI\\\\_Bcast" ;;
                gather) what="MPI\\\\_Gather (n = one rank's block)" ;;
                allreduce) what="MPI\\\\_Allreduce (MPI\\\\_DOUBLE, MPI\\\\_SUM)" ;;
            esac
            echo "set output '$OUT/ops-$op.png'"
            echo "set title \"$what: measured (points) and Hockney-model prediction (lines)\""
            plots=()
            c=0
            for p in $procs; do
                c=$((c + 1))
                sel="(strcol(1) eq '$op' && \$2 == $p)"
                plots+=("'$OUT/ops.csv' every ::1 using 3:($sel ? \$5 : NaN) with linespoints lt $c dt 3 pt 7 title 'measured, P=$p'")
                plots+=("'$OUT/ops.csv' every ::1 using 3:($sel ? \$6 : NaN) with lines lt $c lw 2 title 'predicted, P=$p'")
            done
            (IFS=,; echo "plot ${plots[*]}")
        done
    } >"$gp"
    if "$GNUPLOT" "$gp" >"$OUT/ops-gnuplot.log" 2>&1; then
        echo "bench-model-ops: figures $OUT/ops-send.png, ops-bcast.png, ops-gather.png, ops-allreduce.png"
        rm -f "$OUT/ops-gnuplot.log"
    else
        failed=1
        echo "bench-model-ops: gnuplot failed (script $gp):" >&2
        sed 's/^/    /' "$OUT/ops-gnuplot.log" | head -n 10 >&2
    fi
fi
echo "bench-model-ops: $((SECONDS - start)) s; per-run tables in $OUT/ops-np*.log"
exit $failed
