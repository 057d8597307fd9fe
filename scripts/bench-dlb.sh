#!/usr/bin/env bash
# `make bench-dlb`: load balancing experiments after the thesis's section 6.2, each run with and
# without the balancer in one script run; per-interval CSV files and gnuplot PNGs in BUILD/bench-dlb.
set -uo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD/bin"
OUT="$BUILD/bench-dlb"
NP=2
PAIRS=${PAIRS:-3}                       # balanced/unbalanced pairs in (a), (b) and (d)
EXPERIMENTS=${EXPERIMENTS:-"a b c d e f g"} # a subset runs only those
# (a) CG on the uneven matrix, equal processors
CG_N=${CG_N:-200000}; CG_IT=${CG_IT:-1500}; CG_SI=${CG_SI:-100}
# (b) Jacobi on a fast class (speed 1) and a slow class
JB_N=${JB_N:-8000}; JB_IT=${JB_IT:-100}; JB_SI=${JB_SI:-10}; JB_SLOW=${JB_SLOW:-0.4}
# (c) Jacobi with xmpi-interfere on the core of rank 1
JC_N=${JC_N:-3000}; JC_IT=${JC_IT:-3000}; JC_SI=${JC_SI:-75}; JC_KS=${JC_KS:-"1 3 5"}; JC_ROUNDS=${JC_ROUNDS:-2}
JC_LOAD=${JC_LOAD:-0.6}; JC_PERIOD=${JC_PERIOD:-2}; JC_DELAY=${JC_DELAY:-1.5}; JC_ON=${JC_ON:-0.5}; JC_OFF=${JC_OFF:-1.5}
# (d) the epidemic
EP_N=${EP_N:-1000000}; EP_D=${EP_D:-150}; EP_SEED=${EP_SEED:-2}; EP_SI=${EP_SI:-5}
# (f) Jacobi with rows of uneven cost (-u: the first quarter costs JF_U times the others), equal processors
JF_N=${JF_N:-3000}; JF_IT=${JF_IT:-1500}; JF_SI=${JF_SI:-50}; JF_U=${JF_U:-4}
# (g) Jacobi beside other programs' load that changes: GJ_U = 1 (equal rows) or 4 (the step of
# (f)); bursts of random length on rank 1's core, and a competitor on each core whose intensity
# wanders every GW_EVERY seconds; G_PAIRS alternated pairs with and without -b
GJ_N=${GJ_N:-3000}; GJ_IT=${GJ_IT:-3000}; GJ_SI=${GJ_SI:-50}; G_PAIRS=${G_PAIRS:-5}
GB_LOAD=${GB_LOAD:-0.7}; GB_PATTERN=${GB_PATTERN:-random:0.5:3:0.5:3}
GW_LOAD=${GW_LOAD:-0.8}; GW_EVERY=${GW_EVERY:-2}; GW_LO=${GW_LO:-0.1}
F_PAIRS=${F_PAIRS:-5}                   # rounds of (f)
# (e) the balancer's cost when nothing moves
LC_N=${LC_N:-100}; LC_IT=${LC_IT:-20000}; LC_PAIRS=${LC_PAIRS:-5}

for b in jacobi cg epidemic xmpi-interfere; do
    if [ ! -x "$BIN/$b" ]; then
        echo "bench-dlb: $BIN/$b is missing; run it through make bench-dlb" >&2
        exit 1
    fi
done
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.png "$OUT"/*.log "$OUT"/*.res "$OUT"/*.gp "$OUT"/*.phases "$OUT"/*.init "$OUT"/*.out
SUM="$OUT/summary.txt"
: >"$SUM"
failed=()
GNUPLOT=$(command -v gnuplot || true)
start=$SECONDS

echo "bench-dlb: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores, load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg), $("${MPIRUN:-mpirun}" --version 2>/dev/null | head -n 1)"
echo "bench-dlb: results in $OUT (runs.csv: one row per run; NAME.csv: one row per interval of a run)"
echo "experiment,run,variant,rep,rc,time,intervals,moves,imbalance_late,extra,others_cpu_s,steal_s,wall_s,disturbed" >"$OUT/runs.csv"

# CPU seconds of every process outside this script's tree (children they waited for included),
# and the hypervisor's steal time: how much other programs took during a run on this shared VM.
HZ=$(getconf CLK_TCK)
cpu_snap() {
    local others steal
    others=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v me=$$ -v hz="$HZ" '
        { i = index($0, ") "); split(substr($0, i + 2), f, " ")
          # after the command: state ppid ... utime (12) stime cutime cstime (15)
          par[$1] = f[2]; t[$1] = f[12] + f[13] + f[14] + f[15] }
        END { for (p in t) { q = p; mine = 0
                             for (d = 0; d < 64 && q > 1; d++) { if (q == me) { mine = 1; break } q = par[q] }
                             if (!mine) s += t[p] }
              printf "%.2f", s / hz }')
    steal=$(awk -v hz="$HZ" '$1 == "cpu" { printf "%.2f", $9 / hz }' /proc/stat)
    SNAP="$others $steal"
}

# run NAME LIMIT ARGS...: one mpirun of NP ranks with a trace; the log keeps all output, the
# interval CSV is extracted. Sets RUN_TIME (the benchmark's own time=), RUN_WALL, RUN_OTHERS and
# RUN_STEAL (CPU seconds other programs and the hypervisor took meanwhile) for record.
# Extra environment: TRACE=0 (no trace), ROWDIV (rows of a rank = work / (ROWDIV * iterations); 0: unknown),
# LAUNCH_PRE (a command run in the background beside mpirun, given the launcher's pid).
run() {
    local name=$1 limit=$2 rc
    shift 2
    local trace=("--xmpi-trace=$OUT/$name.trace.csv")
    [ "${TRACE:-1}" = 0 ] && trace=()
    local pre= snap0 w0
    cpu_snap
    snap0=$SNAP
    w0=$EPOCHREALTIME
    XMPIRUN_TIMEOUT=$limit "$ROOT/scripts/xmpirun" -np $NP "$@" "${trace[@]}" >"$OUT/$name.log" 2>&1 &
    local job=$!
    if [ -n "${LAUNCH_PRE:-}" ]; then
        $LAUNCH_PRE $job &
        pre=$!
    fi
    wait $job
    rc=$?
    [ -n "$pre" ] && { kill $pre 2>/dev/null; wait $pre 2>/dev/null; }
    cpu_snap
    read -r RUN_OTHERS RUN_STEAL < <(echo "$snap0 $SNAP" | awk '{ printf "%.1f %.1f\n", $3 - $1, $4 - $2 }')
    RUN_WALL=$(awk -v a="$w0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    RUN_TIME=$(awk '/^result:/ { for (i = 2; i <= NF; i++) if ($i ~ /^time=/) t = substr($i, 6) }
                    END { print t == "" ? "nan" : t }' "$OUT/$name.log")
    if [ $rc != 0 ] || [ "$RUN_TIME" = nan ]; then
        echo "bench-dlb: $name failed (exit $rc$([ $rc = 124 ] && echo ", timed out after $limit s")); see $OUT/$name.log"
        failed+=("$name")
        RUN_TIME=nan
        return 1
    fi
    [ "${TRACE:-1}" = 0 ] || extract "$OUT/$name.trace.csv" "${ROWDIV:-0}" >"$OUT/$name.csv"
    return 0
}

# extract TRACE ROWDIV: the per-interval CSV. compute = t_real - comm_time per rank; imbalance =
# max / mean of compute; work share per rank; rows per rank when work is ROWDIV x rows.
extract() {
    awk -F, -v rowdiv="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        {
            n = split($col["t_real_ranks"], t, ";"); split($col["comm_time_ranks"], m, ";")
            split($col["work_ranks"], w, ";")
            it = $col["iterations"]; mx = 0; s = 0; ws = 0
            for (i = 1; i <= n; i++) { c[i] = t[i] - m[i]; s += c[i]; if (c[i] > mx) mx = c[i]; ws += w[i] }
            if (!hdr++) {
                h = "interval,iteration,iterations,elapsed,t_real_max,ms_per_iteration,compute_max,compute_mean,imbalance,action"
                for (i = 1; i <= n; i++) h = h ",compute_r" i - 1
                for (i = 1; i <= n; i++) h = h ",work_share_r" i - 1
                for (i = 1; i <= n; i++) h = h ",rows_r" i - 1
                print h
            }
            line = sprintf("%d,%d,%d,%.4f,%.6f,%.4f,%.6f,%.6f,%.4f,%s", $col["interval"], $col["iteration"],
                           it, $col["elapsed"], $col["t_real_max"], 1e3 * $col["t_real_max"] / it, mx, s / n,
                           s > 0 ? mx / (s / n) : 1, $col["action"])
            for (i = 1; i <= n; i++) line = line sprintf(",%.6f", c[i])
            for (i = 1; i <= n; i++) line = line sprintf(",%.4f", ws > 0 ? w[i] / ws : 0)
            for (i = 1; i <= n; i++)
                line = line (rowdiv > 0 ? sprintf(",%.0f", w[i] / (rowdiv * it)) : ",")
            print line
        }' "$1"
}

# late_imbalance CSV: the median imbalance over the second half of the intervals.
late_imbalance() {
    awk -F, 'NR > 1 { v[++n] = $9 } END {
        k = 0; for (i = int(n / 2) + 1; i <= n; i++) a[++k] = v[i]
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
        if (k == 0) print "nan"; else printf "%.3f\n", k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }' "$1"
}
moves() { awk -F, 'NR > 1 && $10 ~ /(^|[+])rebalance([+]|$)/ { n++ } END { print n + 0 }' "$1"; }

# record EXP NAME VARIANT REP EXTRA: one row of runs.csv for the run just made.
record() {
    local csv="$OUT/$2.csv" ni=0 mv=0 li=nan
    if [ "$RUN_TIME" != nan ] && [ -f "$csv" ]; then
        ni=$(($(wc -l <"$csv") - 1)); mv=$(moves "$csv"); li=$(late_imbalance "$csv")
    fi
    local extra=${5:-}
    echo "$1,$2,$3,$4,$([ "$RUN_TIME" = nan ] && echo 1 || echo 0),$RUN_TIME,$ni,$mv,$li,${extra//,//},$RUN_OTHERS,$RUN_STEAL,$RUN_WALL,$(disturbed)" >>"$OUT/runs.csv"
    printf '  %-14s time %7.3f s  intervals %2s  moves %s  late imbalance %-5s  other programs %4s CPU-s, steal %s s%s\n' \
        "$2" "$RUN_TIME" "$ni" "$mv" "$li" "$RUN_OTHERS" "$RUN_STEAL" "$([ "$(disturbed)" = 1 ] && echo "  DISTURBED")"
}

# disturbed: 1 when other programs and the hypervisor took more than DISTURBED (default 10%)
# of the last run's wall time (on 2 cores: a twentieth of the machine).
DISTURBED=${DISTURBED:-0.10}
disturbed() { awk -v o="$RUN_OTHERS" -v s="$RUN_STEAL" -v w="$RUN_WALL" -v d="$DISTURBED" 'BEGIN { print (w > 0 && (o + s) / w > d) ? 1 : 0 }'; }

# median EXP VARIANT COLUMN: the median of a runs.csv column over the runs of one variant that
# were not disturbed (over all its runs when every one was).
median() {
    awk -F, -v e="$1" -v v="$2" -v c="$3" '$1 == e && $3 == v && $5 == 0 { all[++m] = $c; if ($14 == 0) a[++n] = $c }
        END { if (n == 0) { n = m; for (i = 1; i <= m; i++) a[i] = all[i] } for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
              if (n == 0) print "nan"; else printf "%.3f\n", n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }' "$OUT/runs.csv"
}
gain() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || a <= 0) print "n/a"; else printf "%+.1f%%\n", 100 * (1 - b / a) }'; }
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { if (x == "nan") print "n/a"; else print x <= t ? "met" : "missed" }'; }
# pair_ratios EXP A B TARGET each|median [MAX]: the ratio A / B of the times of each pair (the
# same rep, run one after the other; a pair with a disturbed run is left out), in the order of
# the pairs, their median and spread, and the verdict: every pair at
# most TARGET (each), or the median at most TARGET and no pair above MAX (median).
pair_ratios() {
    awk -F, -v e="$1" -v a="$2" -v b="$3" -v t="$4" -v how="$5" -v mx="${6:-inf}" '
        $1 == e && $5 == 0 && $14 != 1 { x[$3, $4] = $6; if ($4 + 0 > top) top = $4 + 0 }
        END { for (p = 1; p <= top; p++) if (((a, p) in x) && ((b, p) in x) && x[b, p] > 0) { q[++n] = x[a, p] / x[b, p]; s = s sprintf("%s%.3f", s == "" ? "" : " ", q[n]) }
              if (!n) { print "pairs: n/a"; exit }
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (q[j] < q[i]) { y = q[i]; q[i] = q[j]; q[j] = y }
              med = n % 2 ? q[(n + 1) / 2] : (q[n / 2] + q[n / 2 + 1]) / 2
              if (how == "each") ok = q[n] <= t
              else ok = med <= t && (mx == "inf" || q[n] <= mx + 0)
              printf "pairs %s: median %.3f, spread %.3f-%.3f (target %s %s%s: %s)", s, med, q[1], q[n],
                     how == "each" ? "every pair <=" : "median <=", t, how == "each" || mx == "inf" ? "" : ", no pair above " mx, ok ? "met" : "missed" }' "$OUT/runs.csv"
}

# plot PNG TITLE XCOL XLABEL PANELS SERIES...: one PNG with a panel per "COLUMN:LABEL" in PANELS
# (space-separated) and one line per SERIES "CSVFILE|TITLE|LINESTYLE" in every panel. BOXES, when
# set, names a file of "start end" rows shaded in every panel (the interference phases).
plot() {
    local png=$1 title=${2//\'/\'\'} xcol=$3 xlabel=$4 panels=$5   # '' is ' in gnuplot's '...'
    shift 5
    [ -n "$GNUPLOT" ] || return 0
    local gp="$OUT/$(basename "$png" .png).gp" np=0 p
    for p in $panels; do np=$((np + 1)); done
    {
        echo "set terminal pngcairo size 1000,$((260 * np + 60)) font ',10'"
        echo "set output '$png'"
        echo "set datafile separator ','"
        echo "set datafile columnheaders"
        echo "set key outside right top"
        echo "set grid"
        echo "set termoption noenhanced"
        echo "set lmargin 10; set rmargin 28"
        echo "set style line 1 lc rgb '#1f77b4' lw 2"
        echo "set style line 2 lc rgb '#1f77b4' lw 2 dt 2"
        echo "set style line 3 lc rgb '#d62728' lw 2"
        echo "set style line 4 lc rgb '#d62728' lw 2 dt 2"
        echo "set style line 5 lc rgb '#2ca02c' lw 2"
        echo "set style line 6 lc rgb '#2ca02c' lw 2 dt 2"
        echo "set style line 7 lc rgb '#9467bd' lw 2"
        echo "set style line 8 lc rgb '#9467bd' lw 2 dt 2"
        echo "set multiplot layout $np,1 title '$title'"
        if [ -n "${BOXES:-}" ] && [ -s "$BOXES" ]; then
            local i=1 a b
            while read -r a b; do
                echo "set object $i rect from first $a, graph 0 to first $b, graph 1 fc rgb '#ffdd88' fs solid 0.5 noborder behind"
                i=$((i + 1))
            done <"$BOXES"
        fi
        for p in $panels; do
            local c=${p%%:*} lab=${p#*:}
            echo "set ylabel '${lab//_/ }'"
            echo "set xlabel '$xlabel'"
            local cmd="plot" sep=" " s
            for s in "$@"; do
                local f=${s%%|*} rest=${s#*|}
                local t=${rest%%|*} ls=${rest##*|}
                [ -s "$f" ] || continue
                cmd="$cmd$sep'$f' using (column('$xcol')):(column('$c')) with linespoints ls $ls pt 7 ps 0.5 title '$t'"
                sep=", "
            done
            [ "$c" = imbalance ] && cmd="$cmd$sep 1.05 with lines lc rgb 'black' dt 3 title 'target 1.05'"
            [ "$cmd" = plot ] && cmd="set label 1 'no data' at graph 0.5, 0.5; plot 0 notitle"
            echo "$cmd"
        done
        echo "unset multiplot"
    } >"$gp"
    if "$GNUPLOT" "$gp" 2>"$OUT/gnuplot.log"; then
        PLOTS+=("$png")
    else
        echo "bench-dlb: gnuplot failed on $gp: $(head -n 3 "$OUT/gnuplot.log")"
    fi
}
PLOTS=()
want() { case " $EXPERIMENTS " in *" $1 "*) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------------------------------------
if want a; then
    echo
    echo "== (a) CG, uneven:$CG_N (hubs: heavy-tailed nonzeros per row), $CG_IT iterations, si $CG_SI," \
         "equal processors: -b --xmpi-lb=nnz against even blocks, $PAIRS pairs"
    for rep in $(seq 1 "$PAIRS"); do
        order="lb none"; [ $((rep % 2)) = 0 ] && order="none lb"
        for v in $order; do
            args=(); [ $v = lb ] && args=(-b --xmpi-lb=nnz)
            run "cg-$v-$rep" 300 "$BIN/cg" -g "uneven:$CG_N" -t 0 -i "$CG_IT" "${args[@]}" "--xmpi-si=$CG_SI"
            record a "cg-$v-$rep" $v $rep
        done
    done
    plot "$OUT/cg.png" "(a) CG uneven:$CG_N on 2 equal ranks: --xmpi-lb=nnz vs even blocks" interval "interval ($CG_SI iterations)" \
        "ms_per_iteration:slowest_rank_ms_per_iteration imbalance:compute_max/mean work_share_r0:work_share_of_rank_0" \
        "$OUT/cg-lb-1.csv|balanced 1|1" "$OUT/cg-lb-2.csv|balanced 2|2" "$OUT/cg-none-1.csv|even blocks 1|3" "$OUT/cg-none-2.csv|even blocks 2|4"
    a_none=$(median a none 6); a_lb=$(median a lb 6)
    a_imb0=$(median a none 9); a_imb=$(median a lb 9)
    printf '(a) CG uneven:%s, 2 equal ranks, --xmpi-lb=nnz: even blocks %s s, balanced %s s: %s; imbalance %s -> %s (target <= 1.05: %s); moves %s\n' \
        "$CG_N" "$a_none" "$a_lb" "$(gain "$a_none" "$a_lb")" "$a_imb0" "$a_imb" "$(verdict "$a_imb" 1.05)" \
        "$(awk -F, '$1 == "a" && $3 == "lb" { printf "%s%s", s, $8; s = "," }' "$OUT/runs.csv")" >>"$SUM"
fi

# ---------------------------------------------------------------------------------------------
# init_time PREFIX JOBPID: the time the trace file appears (rank 0 writes its header in
# MPI_Init), as PREFIX.init: the origin of the trace's elapsed column.
init_time() {
    local i=0
    while [ ! -s "$1.trace.csv" ] && [ $i -lt 3000 ] && kill -0 "$2" 2>/dev/null; do sleep 0.01; i=$((i + 1)); done
    date +%s.%N >"$1.init"
}

if want b; then
    H=$(hostname)
    RES="$OUT/classes.res"
    printf '# hostname:class:PEs:cost:speed\n%s:fast:1:1:1\n%s:slow:1:1:%s\n' "$H" "$H" "$JB_SLOW" >"$RES"
    echo
    echo "== (b) Jacobi order $JB_N, $JB_IT iterations, si $JB_SI, rank 0 on class fast (1), rank 1 on" \
         "class slow ($JB_SLOW of a core, the library's CPU quota): -b against even blocks and against the" \
         "ideal static partition (-p 1,$JB_SLOW: rows in proportion to the declared speeds); -b is the default" \
         "policy (time) with the work declared (lb), with nothing declared (lbw: the speeds are learned from" \
         "the rows that change hands) and --xmpi-lb=rows (rows, the default before), $PAIRS rounds"
    for rep in $(seq 1 "$PAIRS"); do
        case $((rep % 3)) in
        1) order="lb none ideal lbw rows" ;; 2) order="none ideal lbw rows lb" ;; *) order="ideal lbw rows lb none" ;;
        esac
        for v in $order; do
            case $v in
            lb) args=(-b) ;; lbw) args=(-b -w) ;; rows) args=(-b --xmpi-lb=rows) ;;
            ideal) args=(-p "1,$JB_SLOW") ;; *) args=() ;;
            esac
            ROWDIV=$((2 * JB_N)) run "jb-$v-$rep" 300 "$BIN/jacobi" -n "$JB_N" -i "$JB_IT" "${args[@]}" \
                "--xmpi-si=$JB_SI" "--xmpi-resources=$RES" --xmpi-initial=fast:1,slow:1
            record b "jb-$v-$rep" $v $rep "$(grep -o 'rows=[0-9,]*' "$OUT/jb-$v-$rep.log" | tail -n 1)"
        done
    done
    plot "$OUT/jacobi-classes.png" \
        "(b) Jacobi $JB_N, fast 1 + slow $JB_SLOW: -b vs even blocks vs ideal static" interval "interval ($JB_SI iterations)" \
        "ms_per_iteration:slowest_rank_ms_per_iteration imbalance:compute_max/mean rows_r1:rows_of_rank_1_(slow)" \
        "$OUT/jb-lb-1.csv|balanced 1|1" "$OUT/jb-lb-2.csv|balanced 2|2" \
        "$OUT/jb-none-1.csv|even blocks 1|3" "$OUT/jb-ideal-1.csv|ideal static 1|4"
    none_t=$(median b none 6); lb_t=$(median b lb 6); ideal_t=$(median b ideal 6)
    over=$(awk -v a="$lb_t" -v b="$ideal_t" 'BEGIN { if (a == "nan" || b == "nan" || b <= 0) print "nan"; else printf "%+.1f%%\n", 100 * (a / b - 1) }')
    overv=$(awk -v a="$lb_t" -v b="$ideal_t" 'BEGIN { if (a == "nan" || b == "nan" || b <= 0) print "n/a"; else print a / b <= 1.10 ? "met" : "missed" }')
    printf '(b) Jacobi %s, fast 1 + slow %s: even blocks %s s, balanced %s s: %s; imbalance %s -> %s (target <= 1.05: %s); moves %s; rows %s; ideal static partition (-p 1,%s) %s s, imbalance %s, rows %s: balanced is %s over it (target <= +10%%: %s)\n' \
        "$JB_N" "$JB_SLOW" "$none_t" "$lb_t" "$(gain "$none_t" "$lb_t")" "$(median b none 9)" \
        "$(median b lb 9)" "$(verdict "$(median b lb 9)" 1.05)" \
        "$(awk -F, '$1 == "b" && $3 == "lb" { printf "%s%s", s, $8; s = "," }' "$OUT/runs.csv")" \
        "$(awk -F, '$1 == "b" && $3 == "lb" { printf "%s%s", s, substr($10, 6); s = " " }' "$OUT/runs.csv")" \
        "$JB_SLOW" "$ideal_t" "$(median b ideal 9)" \
        "$(awk -F, '$1 == "b" && $3 == "ideal" { print substr($10, 6); exit }' "$OUT/runs.csv")" "$over" "$overv" >>"$SUM"
    for v in lbw rows; do
        t=$(median b $v 6)
        printf '(b) ... %s: balanced %s s: %s against even blocks, %s over the ideal static partition; imbalance %s; moves %s; rows %s\n' \
            "$([ $v = lbw ] && echo "time, no work declared (-w)" || echo "--xmpi-lb=rows")" "$t" "$(gain "$none_t" "$t")" \
            "$(awk -v a="$t" -v b="$ideal_t" 'BEGIN { if (a == "nan" || b == "nan" || b <= 0) print "nan"; else printf "%+.1f%%\n", 100 * (a / b - 1) }')" \
            "$(median b $v 9)" "$(awk -F, -v v=$v '$1 == "b" && $3 == v { printf "%s%s", s, $8; s = "," }' "$OUT/runs.csv")" \
            "$(awk -F, -v v=$v '$1 == "b" && $3 == v { printf "%s%s", s, substr($10, 6); s = " " }' "$OUT/runs.csv")" >>"$SUM"
    done
fi

# ---------------------------------------------------------------------------------------------
if want c; then
    echo
    # Open MPI binds 2 ranks to cores 0 and 1 by default; the load goes to rank 1's core.
    cpu=$(XMPIRUN_TIMEOUT=60 "$ROOT/scripts/xmpirun" --report-bindings -np $NP "$BIN/jacobi" -n 64 -i 1 2>&1 |
          awk '/rank 1 bound to/ { m = $NF; gsub(/[\[\]]/, "", m); n = split(m, s, "/")
               for (i = 1; i <= n; i++) if (s[i] ~ /B/) { print i - 1; exit } }')
    bind_note="rank 1 bound to core $cpu (mpirun --report-bindings)"
    [ -n "$cpu" ] || { cpu=1; bind_note="binding not reported: CPU 1 assumed"; }
    pattern="bursts:3:$JC_ON:$JC_OFF:inf"
    echo "== (c) Jacobi order $JC_N, $JC_IT iterations, si $JC_SI, 2 equal ranks; xmpi-interfere --cpu $cpu --load $JC_LOAD --period $JC_PERIOD" \
         "--delay $JC_DELAY --pattern $pattern ($bind_note); -b with --xmpi-lb-k=${JC_KS// /,}, and without -b;" \
         "$JC_ROUNDS rounds"
    for rep in $(seq 1 "$JC_ROUNDS"); do
        order="$JC_KS none"; [ $((rep % 2)) = 0 ] && order="none $(echo $JC_KS | tr ' ' '\n' | tac | tr '\n' ' ')"
        for k in $order; do
            name="jc-k$k-$rep"
            args=(-b "--xmpi-lb-k=$k"); [ $k = none ] && args=()
            "$BIN/xmpi-interfere" --cpu "$cpu" --load "$JC_LOAD" --period "$JC_PERIOD" --delay "$JC_DELAY" --pattern "$pattern" \
                --log "$OUT/$name.interfere.log" >"$OUT/$name.interfere.out" 2>&1 &
            ipid=$!
            LAUNCH_PRE="init_time $OUT/$name" ROWDIV=$((2 * JC_N)) run "$name" 300 "$BIN/jacobi" -n "$JC_N" \
                -i "$JC_IT" "${args[@]}" "--xmpi-si=$JC_SI"
            kill "$ipid" 2>/dev/null; wait "$ipid" 2>/dev/null
            # Loaded phases in the trace's clock (seconds since MPI_Init, when the trace file
            # appeared): the shaded boxes of the plot, and where the long load begins.
            t0=$(cat "$OUT/$name.init" 2>/dev/null || echo 0)
            awk -v t0="$t0" '!/^#/ { if (on != "") printf "%.2f %.2f\n", on, $1 - t0
                                     on = ($3 == "burst" || $3 == "long") ? $1 - t0 : "" }' \
                "$OUT/$name.interfere.log" >"$OUT/$name.phases"
            long=$(awk -v t0="$t0" '$3 == "long" { printf "%.2f", $1 - t0 }' "$OUT/$name.interfere.log")
            early=nan
            [ "$RUN_TIME" != nan ] && [ -n "$long" ] &&
                early=$(awk -F, -v l="$long" 'NR > 1 && $10 ~ /(^|[+])rebalance([+]|$)/ && $4 < l { n++ } END { print n + 0 }' "$OUT/$name.csv")
            record c "$name" "k$k" "$rep" "moves before the long load $early; final rows $(grep -o 'rows=[0-9,]*' "$OUT/$name.log" | tail -n 1 | cut -d= -f2)"
        done
    done
    series=(); ls=1
    for k in $JC_KS none; do
        series+=("$OUT/jc-k$k-1.csv|$([ $k = none ] && echo 'no balancing' || echo "k = $k")|$ls"); ls=$((ls + 2))
    done
    BOXES="$OUT/jc-knone-1.phases"
    plot "$OUT/jacobi-interference.png" "(c) Jacobi $JC_N, load $JC_LOAD on the core of rank 1 (shaded), round 1: --xmpi-lb-k=${JC_KS// /,} and no balancing" \
        elapsed "seconds since MPI_Init" \
        "ms_per_iteration:slowest_rank_ms_per_iteration imbalance:compute_max/mean rows_r1:rows_of_rank_1" "${series[@]}"
    BOXES=
    none_t=$(median c knone 6)
    line="(c) Jacobi $JC_N + xmpi-interfere $JC_LOAD of every $JC_PERIOD ms on CPU $cpu, $pattern: no balancing $none_t s (late imbalance $(median c knone 9))"
    for k in $JC_KS; do
        kt=$(median c "k$k" 6)
        line="$line; k=$k $kt s ($(gain "$none_t" "$kt"), moves $(awk -F, -v v="k$k" '$3 == v { printf "%s%s", s, $8; s = "," }' "$OUT/runs.csv")"
        line="$line of which before the long load $(awk -F, -v v="k$k" '$3 == v { split($10, a, ";"); n = split(a[1], b, " "); printf "%s%s", s, b[n]; s = "," }' "$OUT/runs.csv")"
        line="$line, late imbalance $(median c "k$k" 9))"
    done
    echo "$line" >>"$SUM"
fi

# ---------------------------------------------------------------------------------------------
if want d; then
    echo
    echo "== (d) epidemic, $EP_N people, $EP_D days, seed $EP_SEED, si $EP_SI days: -L --xmpi-lb=weight," \
         "-L --xmpi-lb=rows, and no -L, $PAIRS rounds"
    for rep in $(seq 1 "$PAIRS"); do
        order="weight rows none"; [ $((rep % 2)) = 0 ] && order="none rows weight"
        for v in $order; do
            args=(-L "--xmpi-lb=$v"); [ $v = none ] && args=()
            run "epi-$v-$rep" 300 "$BIN/epidemic" -n "$EP_N" -d "$EP_D" -s "$EP_SEED" "${args[@]}" "--xmpi-si=$EP_SI"
            record d "epi-$v-$rep" $v $rep
        done
    done
    plot "$OUT/epidemic.png" "(d) epidemic $EP_N people, seed $EP_SEED: --xmpi-lb=weight, rows, no balancing" interval "interval ($EP_SI days)" \
        "ms_per_iteration:slowest_rank_ms_per_day imbalance:compute_max/mean work_share_r0:work_share_of_rank_0" \
        "$OUT/epi-weight-1.csv|weight 1|1" "$OUT/epi-weight-2.csv|weight 2|2" "$OUT/epi-rows-1.csv|rows 1|5" \
        "$OUT/epi-rows-2.csv|rows 2|6" "$OUT/epi-none-1.csv|no -L 1|3" "$OUT/epi-none-2.csv|no -L 2|4"
    n_t=$(median d none 6); w_t=$(median d weight 6); r_t=$(median d rows 6)
    mv_list() { awk -F, -v v="$1" '$1 == "d" && $3 == v { printf "%s%s", s, $8; s = "," }' "$OUT/runs.csv"; }
    printf '(d) epidemic %s people, seed %s: no -L %s s; rows %s s (%s, moves %s); weight %s s (%s, moves %s); late imbalance none %s, rows %s, weight %s\n' \
        "$EP_N" "$EP_SEED" "$n_t" "$r_t" "$(gain "$n_t" "$r_t")" "$(mv_list rows)" "$w_t" "$(gain "$n_t" "$w_t")" \
        "$(mv_list weight)" "$(median d none 9)" "$(median d rows 9)" "$(median d weight 9)" >>"$SUM"
fi

# ---------------------------------------------------------------------------------------------
if want e; then
    echo
    echo "== (e) the balancer's own cost when nothing moves: Jacobi $LC_N, $LC_IT iterations, --xmpi-si=1 (an" \
         "evaluation every iteration), -b --xmpi-lb-th1=100 (never imbalanced enough to move) against no -b," \
         "$LC_PAIRS pairs"
    for rep in $(seq 1 "$LC_PAIRS"); do
        order="lb none"; [ $((rep % 2)) = 0 ] && order="none lb"
        for v in $order; do
            args=(); [ $v = lb ] && args=(-b --xmpi-lb-th1=100)
            TRACE=0 run "cost-$v-$rep" 120 "$BIN/jacobi" -n "$LC_N" -i "$LC_IT" "${args[@]}" --xmpi-si=1
            record e "cost-$v-$rep" $v $rep
        done
    done
    # Per pair: (lb - none) / iterations is the cost of one evaluation; the median over pairs.
    per_eval=$(awk -F, -v it="$LC_IT" '$1 == "e" && $5 == 0 { t[$3, $4] = $6; r[$4] = 1; if ($14) bad[$4] = 1 }
        END { for (p in r) if ((("lb", p) in t) && (("none", p) in t) && !(p in bad)) d[++n] = (t["lb", p] - t["none", p]) / it
              if (!n) for (p in r) if ((("lb", p) in t) && (("none", p) in t)) d[++n] = (t["lb", p] - t["none", p]) / it
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (d[j] < d[i]) { x = d[i]; d[i] = d[j]; d[j] = x }
              if (!n) print "nan"; else printf "%.2f\n", 1e6 * (n % 2 ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2) }' "$OUT/runs.csv")
    moved=$(awk -F, '$1 == "e" && $3 == "lb" { m += $8 } END { print m + 0 }' "$OUT/runs.csv")
    # The shortest interval of the experiments above, as the interval the cost is compared with.
    shortest=$(cat "$OUT"/cg-lb-*.csv "$OUT"/jbb-lb-*.csv "$OUT"/jc-k*.csv "$OUT"/epi-weight-*.csv 2>/dev/null |
               awk -F, '$1 != "interval" && $5 > 0 { if (m == "" || $5 < m) m = $5 } END { print m == "" ? "nan" : m }')
    awk -v c="$per_eval" -v s="$shortest" -v m="$moved" -v it="$LC_IT" 'BEGIN {
        if (c == "nan") { print "(e) balancer cost: n/a (runs failed)"; exit }
        printf "(e) balancer cost when nothing moves (th1 = 100%%): %.1f us per evaluation (median of pair differences over %d iterations)", c, it
        if (s != "nan") { f = 100 * (c > 0 ? c : 0) / (1e6 * s); printf " = %.4f%% of the shortest interval above (%.3f s); target < 1%%: %s", f, s, f < 1 ? "met" : "missed" }
        printf "\n" }' >>"$SUM"
fi

# ---------------------------------------------------------------------------------------------
if want f; then
    echo
    echo "== (f) Jacobi order $JF_N, $JF_IT iterations, si $JF_SI, the first quarter of the rows $JF_U times as" \
         "costly (-u $JF_U), equal processors: even blocks, -b with --xmpi-lb=rows (the default before) and" \
         "the default (time), the work declared; time with no work declared (-w); $F_PAIRS rounds"
    for rep in $(seq 1 "$F_PAIRS"); do
        case $((rep % 4)) in
        1) order="none rows time timew" ;; 2) order="rows time timew none" ;;
        3) order="time timew none rows" ;; *) order="timew none rows time" ;;
        esac
        for v in $order; do
            case $v in
            none) args=() ;; rows) args=(-b --xmpi-lb=rows) ;; time) args=(-b) ;;
            timew) args=(-b -w) ;;
            esac
            run "ju-$v-$rep" 300 "$BIN/jacobi" -n "$JF_N" -i "$JF_IT" -u "$JF_U" "${args[@]}" "--xmpi-si=$JF_SI"
            record f "ju-$v-$rep" $v $rep "$(grep -o 'rows=[0-9,]*' "$OUT/ju-$v-$rep.log" | tail -n 1)"
        done
    done
    plot "$OUT/jacobi-uneven.png" \
        "(f) Jacobi $JF_N, first quarter of the rows x$JF_U, 2 equal ranks" interval "interval ($JF_SI iterations)" \
        "ms_per_iteration:slowest_rank_ms_per_iteration imbalance:compute_max/mean" \
        "$OUT/ju-time-1.csv|time 1|1" "$OUT/ju-timew-1.csv|time, no work declared 1|2" \
        "$OUT/ju-rows-1.csv|rows 1|3" "$OUT/ju-none-1.csv|even blocks 1|5"
    f_none=$(median f none 6)
    for v in rows time timew; do
        t=$(median f $v 6)
        ratio=$(awk -v a="$f_none" -v b="$t" 'BEGIN { if (a == "nan" || b == "nan" || a <= 0) print "nan"; else printf "%.3f\n", b / a }')
        mv=$(awk -F, -v v=$v '$1 == "f" && $3 == v { printf "%s%s", s, $8; s = "," }' "$OUT/runs.csv")
        mmax=$(awk -F, -v v=$v '$1 == "f" && $3 == v && $8 > m { m = $8 } END { print m + 0 }' "$OUT/runs.csv")
        printf '(f) Jacobi %s -u %s, 2 equal ranks, %s: even blocks %s s, balanced %s s: ratio %s; %s; imbalance %s -> %s (target <= 1.10: %s); moves %s (target <= 3: %s); rows %s\n' \
            "$JF_N" "$JF_U" "$v" "$f_none" "$t" "$ratio" "$(pair_ratios f "$v" none 0.80 each)" "$(median f none 9)" \
            "$(median f $v 9)" "$(verdict "$(median f $v 9)" 1.10)" "$mv" "$(verdict "$mmax" 3)" \
            "$(awk -F, -v v=$v '$1 == "f" && $3 == v { printf "%s%s", s, substr($10, 6); s = " " }' "$OUT/runs.csv")" >>"$SUM"
    done
fi

# ---------------------------------------------------------------------------------------------
# loads KIND REP NAME: starts the competing load of a (g) case in the background; LOADS holds the
# pids. bursts: random bursts on rank 1's core; wander: a competitor on each core whose
# intensity changes every GW_EVERY s. The seeds follow the pair, so both runs of a pair meet the
# same sequence of load.
loads() {
    LOADS=()
    case $1 in
    bursts)
        "$BIN/xmpi-interfere" --cpu "$G_CPU" --load "$GB_LOAD" --period 2 --pattern "$GB_PATTERN" \
            --seed "$2" --log "$OUT/$3.interfere.log" >"$OUT/$3.interfere.out" 2>&1 &
        LOADS+=($!) ;;
    wander)
        local c
        for c in 0 1; do
            "$BIN/xmpi-interfere" --cpu "$c" --load "$GW_LOAD" --period 2 \
                --pattern "wander:$GW_EVERY:$GW_LO" --seed $((2 * $2 + c)) \
                --log "$OUT/$3.interfere$c.log" >"$OUT/$3.interfere$c.out" 2>&1 &
            LOADS+=($!)
        done ;;
    esac
}

if want g; then
    echo
    G_CPU=$(XMPIRUN_TIMEOUT=60 "$ROOT/scripts/xmpirun" --report-bindings -np $NP "$BIN/jacobi" -n 64 -i 1 2>&1 |
            awk '/rank 1 bound to/ { m = $NF; gsub(/[\[\]]/, "", m); n = split(m, s, "/")
                 for (i = 1; i <= n; i++) if (s[i] ~ /B/) { print i - 1; exit } }')
    [ -n "$G_CPU" ] || G_CPU=1
    echo "== (g) Jacobi order $GJ_N, $GJ_IT iterations, si $GJ_SI, 2 equal ranks, beside other programs' load" \
         "that changes: eq-bursts (equal rows; xmpi-interfere --cpu $G_CPU --load $GB_LOAD --pattern $GB_PATTERN)," \
         "eq-wander and step-wander (equal rows, and -u 4; a competitor on each core, --load $GW_LOAD" \
         "--pattern wander:$GW_EVERY:$GW_LO); -b against no -b, $G_PAIRS alternated pairs"
    for case_ in eq-bursts eq-wander step-wander; do
        kind=${case_#*-}; u=(); [ "${case_%%-*}" = step ] && u=(-u 4)
        for rep in $(seq 1 "$G_PAIRS"); do
            order="lb none"; [ $((rep % 2)) = 0 ] && order="none lb"
            for v in $order; do
                name="g-$case_-$v-$rep"
                args=(); [ $v = lb ] && args=(-b)
                loads "$kind" "$rep" "$name"
                run "$name" 300 "$BIN/jacobi" -n "$GJ_N" -i "$GJ_IT" "${u[@]}" "${args[@]}" "--xmpi-si=$GJ_SI"
                kill "${LOADS[@]}" 2>/dev/null; wait "${LOADS[@]}" 2>/dev/null
                record "g-$case_" "$name" "$v" "$rep" "$(grep -o 'rows=[0-9,]*' "$OUT/$name.log" | tail -n 1)"
            done
        done
    done
    plot "$OUT/jacobi-changing-load.png" "(g) Jacobi $GJ_N, 2 equal ranks, a load that changes (other programs): pair 1" \
        interval "interval ($GJ_SI iterations)" \
        "ms_per_iteration:slowest_rank_ms_per_iteration imbalance:compute_max/mean" \
        "$OUT/g-eq-bursts-lb-1.csv|bursts, -b|1" "$OUT/g-eq-bursts-none-1.csv|bursts, no -b|2" \
        "$OUT/g-eq-wander-lb-1.csv|wander, -b|3" "$OUT/g-eq-wander-none-1.csv|wander, no -b|4" \
        "$OUT/g-step-wander-lb-1.csv|-u 4 wander, -b|5" "$OUT/g-step-wander-none-1.csv|-u 4 wander, no -b|6"
    for case_ in eq-bursts eq-wander step-wander; do
        kind=${case_#*-}
        mv=$(awk -F, -v e="g-$case_" '$1 == e && $3 == "lb" { printf "%s%s", s, $8; s = "," }' "$OUT/runs.csv")
        if [ "${case_%%-*}" = eq ]; then
            how=$(pair_ratios "g-$case_" lb none 1.02 median 1.05)
        else
            how=$(pair_ratios "g-$case_" lb none 0.85 each)
        fi
        # the runs without -b among themselves: how far apart the same load leaves two runs
        floor=$(awk -F, -v e="g-$case_" '$1 == e && $3 == "none" && $5 == 0 && $14 != 1 { t = $6 + 0
                    if (!n++ || t < lo) lo = t; if (t > hi) hi = t }
                END { if (n > 1) printf "; no -b runs %.3f-%.3f s (max / min %.3f)", lo, hi, hi / lo }' "$OUT/runs.csv")
        printf '(g) Jacobi %s%s, %s: no -b %s s, -b %s s; -b / no -b %s; moves %s%s\n' "$GJ_N" \
            "$([ "${case_%%-*}" = step ] && echo " -u 4")" "$kind" "$(median "g-$case_" none 6)" \
            "$(median "g-$case_" lb 6)" "$how" "$mv" "$floor" >>"$SUM"
    done
fi

# ---------------------------------------------------------------------------------------------
echo
echo "== summary (bench-dlb; $NP ranks; times are the benchmarks' own solve time (time=), median over the"
echo "   runs of a variant; improvement = 1 - balanced / unbalanced; imbalance = max / mean of per-rank"
echo "   compute time (t_real - comm_time), median over the second half of the intervals; $((SECONDS - start)) s in all)"
cat "$SUM"
awk -F, -v d="$DISTURBED" 'NR > 1 && $5 == 0 { n++; o += $11; st += $12; k += $14; if ($11 + $12 > w) { w = $11 + $12; wn = $2; wt = $13 } }
    END { if (!n) exit
          printf "noise: other programs used %.1f CPU-s and the hypervisor stole %.1f s during the %d runs; ", o, st, n
          if (w > 0) printf "worst %s (%.1f s of both in %.1f s); ", wn, w, wt
          printf "%d run(s) over %d%% of their wall time, left out of the medians\n", k, 100 * d }' "$OUT/runs.csv"
echo "thesis 6.2 (its cluster, 4-80 processes): CG up to 44.2% on a homogeneous system; Jacobi up to 32.3%" \
     "and EpiGraph up to 69.2% on a heterogeneous one"
if [ -z "$GNUPLOT" ]; then
    echo "plots: none (gnuplot not found; scripts/install-deps.sh installs gnuplot-nox)"
else
    echo "plots: ${PLOTS[*]:-none}"
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
