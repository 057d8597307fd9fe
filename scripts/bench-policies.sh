#!/usr/bin/env bash
# `make bench-policies`: the malleability policies of XMPI_Eval_reconfig at work (FLEX-MPI
# thesis 6.4.1-6.4.2). (a) SMP follows an availability timeline of offers and reclaims under a
# --xmpi-max-procs cap (Fig. 6.14); (b) SMP replays a predefined schedule on the epidemic code,
# more processes in the peak days (Figs. 6.15-6.16); (c) HPMP against taking the whole offer
# (smp) and taking none (static) on Jacobi and CG, alternated in one run (Figs. 6.18-6.19).
#
# usage: [ROUNDS=2] [EXPERIMENTS="a b c"] scripts/bench-policies.sh BUILD
# Every process runs on an emulated class of SPEED of a core (a CPU quota), so that 4 fit the
# 2 cores and a process computes as fast whatever the configuration. Results in
# BUILD/bench-policies: NAME.trace.csv and NAME.log per run, runs.csv, *.png, summary.txt.
set -uo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD/bin"
OUT="$BUILD/bench-policies"
ROUNDS=${ROUNDS:-2}
EXPERIMENTS=${EXPERIMENTS:-"a b c"}
SPEED=${SPEED:-0.45}
JB_N=${JB_N:-2000}; JB_IT=${JB_IT:-400}; JB_SI=${JB_SI:-40}
CG_M=${CG_M:-poisson3d:40}; CG_IT=${CG_IT:-1200}; CG_SI=${CG_SI:-100}
EPI_N=${EPI_N:-400000}; EPI_D=${EPI_D:-80}; EPI_SI=${EPI_SI:-5}

for b in jacobi cg epidemic; do
    [ -x "$BIN/$b" ] || { echo "bench-policies: $BIN/$b is missing; run it through make bench-policies" >&2; exit 1; }
done
want() { [[ " $EXPERIMENTS " == *" $1 "* ]]; }
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.png "$OUT"/*.log "$OUT"/*.gp "$OUT"/*.dat "$OUT"/events-* "$OUT"/*.res
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }

H=$(hostname)
RES="$OUT/classes.res"
printf '# hostname:class:PEs:cost:speed\n%s:slow:4:1:%s\n' "$H" "$SPEED" >"$RES"
COMMON=(--xmpi-resources="$RES" --xmpi-initial=slow:2 --xmpi-oversubscribe)

# The model prices candidates with a calibration of this setup (the class's speed, the link
# between processes of different spawns): xmpi-calibrate once, as make bench-model does.
calibrate() {
    local cal="$OUT/calibration.txt"
    if XMPIRUN_TIMEOUT=300 "$ROOT/scripts/xmpirun" -np 2 "$BIN/xmpi-calibrate" -o "$cal" --spawn=3 \
        "${COMMON[@]}" >"$OUT/calibrate.log" 2>&1; then
        COMMON+=("--xmpi-calibration=$cal")
        echo "calibration of this setup: $(grep -E '^(alpha|alpha_spawned|spawn_single|remove) ' "$OUT/calibrate.log" | awk '{ printf "%s%s %s", (n++ ? ", " : ""), $1, $2 }')"
    else
        echo "bench-policies: xmpi-calibrate failed (see $OUT/calibrate.log); the model uses the library's defaults"
    fi
}

# run NAME LIMIT PROG ARGS...: one job on 2 processes; a timeout (the known PMIx spawn hang) is
# retried once. Prints the job's own solve time (time=) or the wall time.
run() {
    local name=$1 limit=$2 rc t0 t1
    shift 2
    for attempt in 1 2; do
        t0=$(date +%s.%N)
        XMPIRUN_TIMEOUT=$limit "$ROOT/scripts/xmpirun" -np 2 "$@" \
            "--xmpi-trace=$OUT/$name.trace.csv" >"$OUT/$name.log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        [ $rc -ne 124 ] && break
        echo "  $name: timed out (attempt $attempt; known Open MPI 4.1 + PMIx spawn hang?)"
    done
    RUN_WALL=$(echo "$t1 - $t0" | bc)
    RUN_TIME=$(sed -n 's/^result:.* time=\([0-9.]*\).*/\1/p' "$OUT/$name.log" | tail -n 1)
    [ -n "$RUN_TIME" ] || RUN_TIME=$RUN_WALL
    RUN_SUM=$(grep -oE '(checksum|hash)=[0-9a-f]+' "$OUT/$name.log" | tail -n 1)
    [ $rc -eq 0 ] || echo "  $name: exit $rc (see $OUT/$name.log)"
    return $rc
}

# col TRACE NAME: the column NAME of every row.
col() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }
sizes() { col "$1" nprocs | awk '$1 != last { printf "%s%s", (n++ ? " " : ""), $1; last = $1 }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

plot() {   # plot PNG TITLE XLABEL YLABEL DATAFILE "using-spec|title" ...
    command -v gnuplot >/dev/null || return 0
    local png=$1 title=$2 xl=$3 yl=$4 dat=$5; shift 5
    local plots="" sep=""
    for spec in "$@"; do
        plots+="$sep'$dat' using ${spec%%|*} with linespoints title '${spec#*|}'"
        sep=", "
    done
    gnuplot -e "set terminal png size 900,500; set output '$png'; set title '$title'; set xlabel '$xl'; set ylabel '$yl'; set key outside; set grid; plot $plots" 2>/dev/null
}

echo "bench-policies: $(date '+%Y-%m-%d %H:%M:%S'), $(nproc) cores, processes at $SPEED of a core (--xmpi-emulate=dilate)"
[ -x "$BIN/xmpi-calibrate" ] && calibrate

if want a; then
    say
    say "== (a) SMP and HPMP on an availability timeline, --xmpi-max-procs=3 (thesis Fig. 6.14): Jacobi $JB_N, $JB_IT iterations, si $JB_SI"
    ev="$OUT/events-a"
    # 1 offered (taken), 2 more offered (the cap leaves them free), 3 reclaimed (the 2 free and
    # the spawned process: a removal), 1 offered again.
    printf '%d offer 1 slow\n%d offer 2 slow\n%d reclaim 3 slow\n%d offer 1 slow\n' \
        $((2 * JB_SI)) $((4 * JB_SI)) $((6 * JB_SI)) $((8 * JB_SI)) >"$ev"
    for v in smp hpmp; do
        run "$v-timeline" 600 "$BIN/jacobi" -n "$JB_N" -i "$JB_IT" -d --xmpi-policy=$v --xmpi-max-procs=3 \
            --xmpi-si=$JB_SI --xmpi-rms=schedule:"$ev" "${COMMON[@]}"
    done
    # PEs free for the job per interval: its 2 plus the timeline's offers minus reclaims.
    awk -v si=$JB_SI -v n=$((JB_IT / JB_SI)) 'NR == FNR { at[NR] = $1; d[NR] = ($2 == "offer" ? $3 : -$3); m = NR; next }
         END { for (i = 1; i <= n; i++) { a = 2; for (k = 1; k <= m; k++) if (at[k] < i * si) a += d[k]; print i, a } }' \
        "$ev" /dev/null >"$OUT/a-available.dat"
    paste -d' ' "$OUT/a-available.dat" <(col "$OUT/smp-timeline.trace.csv" nprocs) \
        <(col "$OUT/hpmp-timeline.trace.csv" nprocs) >"$OUT/a.dat"
    plot "$OUT/timeline.png" "(a) SMP and HPMP following offers and reclaims, cap 3" interval processes "$OUT/a.dat" \
        "1:2|PEs available to the job" "1:3|processes (smp, cap 3)" "1:4|processes (hpmp, cap 3)"
    say "  PEs available:          $(cut -d' ' -f2 "$OUT/a-available.dat" | tr '\n' ' ')"
    for v in smp hpmp; do
        say "  $v processes:          $(col "$OUT/$v-timeline.trace.csv" nprocs | tr '\n' ' ')"
        say "  $v decisions: $(col "$OUT/$v-timeline.trace.csv" decision | grep -v '^$' | uniq -c | awk '{ $1 = $1 "x"; print }' | tr '\n' ';')"
    done
fi

if want b; then
    say
    say "== (b) SMP with a predefined schedule on the epidemic ($EPI_N people, $EPI_D days, si $EPI_SI days; thesis Figs. 6.15-6.16): grow to 4 for the peak, back to 2 after"
    ev="$OUT/events-b"
    printf '%d spawn 2 slow\n%d remove 2 slow\n' $((EPI_D / 4)) $((EPI_D * 3 / 5)) >"$ev"
    for r in $(seq 1 "$ROUNDS"); do
        run "epi-static-$r" 600 "$BIN/epidemic" -n "$EPI_N" -d "$EPI_D" --xmpi-si=$EPI_SI "${COMMON[@]}"
        st=$RUN_TIME; ss=$RUN_SUM
        run "epi-smp-$r" 600 "$BIN/epidemic" -n "$EPI_N" -d "$EPI_D" -M --xmpi-policy=smp \
            --xmpi-si=$EPI_SI --xmpi-rms=schedule:"$ev" "${COMMON[@]}"
        say "  round $r: static $st s, smp $RUN_TIME s, sizes $(sizes "$OUT/epi-smp-$r.trace.csv"), same result: $([ "$ss" = "$RUN_SUM" ] && echo yes || echo NO)"
        echo "static $r $st" >>"$OUT/b-times.dat"; echo "smp $r $RUN_TIME" >>"$OUT/b-times.dat"
    done
    paste -d' ' <(col "$OUT/epi-static-1.trace.csv" interval) <(col "$OUT/epi-static-1.trace.csv" t_real_max) \
        <(col "$OUT/epi-smp-1.trace.csv" t_real_max) <(col "$OUT/epi-smp-1.trace.csv" nprocs) >"$OUT/b.dat"
    plot "$OUT/epidemic-smp.png" "(b) epidemic: time per interval, static 2 vs smp schedule" "interval ($EPI_SI days)" seconds \
        "$OUT/b.dat" "1:2|static (2 processes)" "1:3|smp (2 -> 4 -> 2)"
fi

if want c; then
    say
    say "== (c) HPMP against taking the whole offer (smp) and none (static), $ROUNDS rounds alternated (thesis Figs. 6.18-6.19): 2 PEs offered after the first interval"
    for prog in jacobi cg; do
        if [ $prog = jacobi ]; then
            args=(-n "$JB_N" -i "$JB_IT" -d --xmpi-si=$JB_SI); si=$JB_SI
        else
            args=(-g "$CG_M" -t 0 -i "$CG_IT" -d --xmpi-si=$CG_SI); si=$CG_SI
        fi
        ev="$OUT/events-c-$prog"
        printf '%d offer 2 slow\n' "$si" >"$ev"
        for r in $(seq 1 "$ROUNDS"); do
            case $((r % 3)) in 1) order="static smp hpmp" ;; 2) order="hpmp static smp" ;; *) order="smp hpmp static" ;; esac
            for v in $order; do
                run "$prog-$v-$r" 900 "$BIN/$prog" "${args[@]}" --xmpi-policy=$v \
                    --xmpi-rms=schedule:"$ev" --xmpi-verbose "${COMMON[@]}"
                echo "$prog $v $r $RUN_TIME $(sizes "$OUT/$prog-$v-$r.trace.csv" | tr ' ' '>') $RUN_SUM" >>"$OUT/runs.csv"
            done
        done
        for v in static smp hpmp; do
            m=$(awk -v p=$prog -v v=$v '$1 == p && $2 == v { print $4 }' "$OUT/runs.csv" | median)
            eval "med_$v=$m"
            say "  $prog $v: median $m s over $ROUNDS; sizes $(awk -v p=$prog -v v=$v '$1 == p && $2 == v { print $5 }' "$OUT/runs.csv" | sort -u | tr '\n' ' ')"
        done
        best=$(printf '%s\n%s\n' "$med_static" "$med_smp" | sort -g | head -n 1)
        verdict=$(awk -v h="$med_hpmp" -v b="$best" 'BEGIN { print (h <= b * 1.05 ? "met" : "missed") }')
        say "  $prog: hpmp $med_hpmp s against the better of all/none $best s: $(awk -v h="$med_hpmp" -v b="$best" 'BEGIN { printf "%+.1f%%", 100 * (h / b - 1) }') (target hpmp <= better, 5% noise allowance: $verdict)"
        say "  $prog hpmp said: $(grep -h 'hpmp: predicted' "$OUT/$prog-hpmp-1.log" | head -n 1 | sed 's/^xmpi: //')"
        sums=$(awk -v p=$prog '$1 == p { print $6 }' "$OUT/runs.csv" | sort -u | wc -l)
        say "  $prog: $( [ "$sums" = 1 ] && echo "every run gave the same result bits" || echo "RESULTS DIFFER ($sums distinct)")"
    done
fi
# What a decision costs when nothing changes: t_decide against the interval, on the rows of the
# HPMP runs where it kept the configuration (the offer is priced again at every interval end).
if want c; then
    say
    say "== decision cost: rank 0's decide step (t_decide) against the interval (t_real_max), hpmp rows that kept the configuration"
    for prog in jacobi cg; do
        for f in "$OUT/$prog"-hpmp-*.trace.csv; do
            [ -f "$f" ] || continue
            awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
                     $h["decision"] == "keep" && $h["t_decide"] != "" { print $h["t_decide"] / $h["t_real_max"] }' "$f"
        done | sort -g | awk -v p=$prog '{ v[NR] = $1 } END { if (NR) printf "  %s: median %.3f%%, max %.3f%% of the interval over %d interval ends (target < 1%%)\n", p, 100 * v[int((NR + 1) / 2)], 100 * v[NR], NR }' | tee -a "$SUMMARY"
    done
fi
say
say "plots: $(ls "$OUT"/*.png 2>/dev/null | tr '\n' ' ')"
