#!/usr/bin/env bash
# `make bench-model`: the prediction model against measurement (FLEX-MPI thesis 6.3). Calibrates
# this machine, runs Jacobi and CG growing and shrinking at fixed iterations, and compares the
# model's prediction for the interval after each action with what the trace measured, per phase
# (Table 6.8); then single MPI operations over message sizes (Figs. 6.9-6.12).
#
# usage: [ROUNDS=3] [EXPERIMENTS="jacobi cg ops"] scripts/bench-model.sh BUILD
# Results in BUILD/bench-model: cal.txt, NAME.trace.csv per run, phases.csv (one row per action
# and phase), model-phases.png, ops.csv and ops-*.png, summary.txt.
set -uo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD/bin"
OUT="$BUILD/bench-model"
ROUNDS=${ROUNDS:-3}
EXPERIMENTS=${EXPERIMENTS:-"jacobi cg ops"}
# Each process of the emulated class gets SPEED of a core, so 4 processes fit the 2 cores and a
# process computes as fast whatever the configuration (the model's premise on a real cluster).
SPEED=${SPEED:-0.45}
JB_N=${JB_N:-3000}; JB_SI=${JB_SI:-40}
CG_M=${CG_M:-poisson3d:50}; CG_SI=${CG_SI:-60}
# The actions, in intervals: grow 2 -> 3 -> 4, shrink 4 -> 2, grow 2 -> 4, shrink 4 -> 3;
# each followed by two whole intervals at the new size.
ACTIONS=${ACTIONS:-"2 spawn 1;4 spawn 1;6 remove 2;8 spawn 2;10 remove 1"}
INTERVALS=${INTERVALS:-12}

for b in jacobi cg xmpi-calibrate xmpi-opmodel; do
    if [ ! -x "$BIN/$b" ]; then
        echo "bench-model: $BIN/$b is missing; run it through make bench-model" >&2
        exit 1
    fi
done
want() { [[ " $EXPERIMENTS " == *" $1 "* ]]; }
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.png "$OUT"/*.log "$OUT"/*.gp "$OUT"/events-* "$OUT"/classes.res
SUM="$OUT/summary.txt"
: >"$SUM"
failed=()
start=$SECONDS
GNUPLOT=$(command -v gnuplot || true)
echo "bench-model: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores, load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg), $("${MPIRUN:-mpirun}" --version 2>/dev/null | head -n 1)"

# 1. Calibration of this machine: alpha, beta (ping-pong fit), gamma, spawn and remove costs.
CAL="$OUT/cal.txt"
H=$(hostname)
RES="$OUT/classes.res"
printf '# hostname:class:PEs:cost:speed\n%s:half:4:1:%s\n' "$H" "$SPEED" >"$RES"
# Calibrated on the class the runs use: on shared memory a transfer is a copy by the CPU, so the
# quota slows it as it slows computing.
echo "== calibration: xmpi-calibrate on 2 processes of class half (spawn/remove: 3 cycles)"
if ! XMPIRUN_TIMEOUT=300 "$ROOT/scripts/xmpirun" -np 2 "$BIN/xmpi-calibrate" -o "$CAL" --spawn=3 \
        "--xmpi-resources=$RES" --xmpi-initial=half:2 --xmpi-oversubscribe >"$OUT/calibrate.log" 2>&1; then
    echo "bench-model: xmpi-calibrate failed (see $OUT/calibrate.log); the runs use the library's defaults"
    failed+=(calibrate)
    CAL=""
else
    grep -E '^(alpha|beta|gamma|spawn_single|spawn_group|remove) ' "$OUT/calibrate.log" | sed 's/^/  /'
fi
calopt=(); [ -n "$CAL" ] && calopt=("--xmpi-calibration=$CAL")
echo "phase,program,round,action,interval,nprocs,predicted,measured,rel_error" >"$OUT/phases.csv"

# events SI FILE: the schedule of ACTIONS (interval numbers) in iterations.
events() {
    local si=$1 f=$2
    echo "# iteration action count class" >"$f"
    tr ';' '\n' <<<"$ACTIONS" | while read -r at what n; do
        [ -n "$at" ] && echo "$((at * si)) $what $n half" >>"$f"
    done
}

# phases NAME PROGRAM ROUND: phases.csv rows from the trace's compared rows.
phases() {
    awk -F, -v prog="$2" -v round="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["predicted_for"] != "" {
            split("comp comm reconf redist", ph, " ")
            for (k = 1; k <= 4; k++) {
                p = $c["pred_" ph[k]]; m = $c["meas_" ph[k]]
                e = (m > 0) ? (p - m) / m : "nan"
                printf "%s,%s,%s,%s,%s,%s,%.6g,%.6g,%s\n", ph[k], prog, round, $c["predicted_for"], $c["interval"],
                    $c["nprocs"], p, m, e
            }
        }' "$OUT/$1.trace.csv" >>"$OUT/phases.csv"
}

# run NAME PROGRAM ARGS...: one malleable run on the emulated class under the schedule.
run() {
    local name=$1 si=$2; shift 2
    events "$si" "$OUT/events-$name"
    XMPIRUN_TIMEOUT=600 "$ROOT/scripts/xmpirun" -np 2 "$@" -d "--xmpi-si=$si" \
        "--xmpi-rms=schedule:$OUT/events-$name" "--xmpi-resources=$RES" --xmpi-initial=half:2 \
        --xmpi-oversubscribe "${calopt[@]}" --xmpi-verbose=1 "--xmpi-trace=$OUT/$name.trace.csv" \
        >"$OUT/$name.log" 2>&1
    local rc=$?
    if [ $rc != 0 ] || ! grep -q '^result:' "$OUT/$name.log"; then
        echo "  $name: failed (exit $rc$([ $rc = 124 ] && echo ", timed out")); see $OUT/$name.log"
        failed+=("$name")
        return 1
    fi
    echo "  $name: $(grep -c 'prediction model: after' "$OUT/$name.log") actions compared," \
         "time $(grep -o 'time=[0-9.]*' "$OUT/$name.log" | tail -n 1)"
    return 0
}

IT_J=$((JB_SI * INTERVALS)); IT_C=$((CG_SI * INTERVALS))
for r in $(seq 1 "$ROUNDS"); do
    if want jacobi; then
        [ "$r" = 1 ] && echo "== Jacobi order $JB_N, $IT_J iterations, si $JB_SI, class half ($SPEED of a core), actions at intervals: $ACTIONS"
        run "jacobi-$r" "$JB_SI" "$BIN/jacobi" -n "$JB_N" -i "$IT_J" && phases "jacobi-$r" jacobi "$r"
    fi
    if want cg; then
        [ "$r" = 1 ] && echo "== CG $CG_M, $IT_C iterations, si $CG_SI, the same class and actions"
        run "cg-$r" "$CG_SI" "$BIN/cg" -g "$CG_M" -t 0 -i "$IT_C" && phases "cg-$r" cg "$r"
    fi
done

# The table: per phase, the mean of |relative error| and the standard deviation of the relative
# errors, like thesis Table 6.8; reconfiguration and redistribution per action kind as well.
table() {
    awk -F, '
        NR == 1 || $9 == "nan" { next }
        { k = $1; e = $9 + 0; a = e < 0 ? -e : e
          n[k]++; s[k] += a; s2[k] += e; q[k] += e * e
          kk = $1 " (" $2 ")"; n[kk]++; s[kk] += a; s2[kk] += e; q[kk] += e * e }
        END {
            split("comp comm reconf redist", ph, " ")
            name["comp"] = "computation"; name["comm"] = "communication"
            name["reconf"] = "process reconfiguring"; name["redist"] = "data redistribution"
            thesis["comp"] = "1.47%"; thesis["comm"] = "4.61%"; thesis["reconf"] = "2.23%"; thesis["redist"] = "5.60%"
            printf "%-36s %6s %16s %16s %14s %10s\n", "phase", "cases", "mean |rel err|", "sd of rel err", "mean rel err", "thesis"
            for (i = 1; i <= 4; i++) {
                k = ph[i]
                for (j = 0; j < 3; j++) {
                    kk = j == 0 ? k : k " (" (j == 1 ? "jacobi" : "cg") ")"
                    if (!n[kk]) continue
                    m = s2[kk] / n[kk]; v = q[kk] / n[kk] - m * m; if (v < 0) v = 0
                    label = j == 0 ? name[k] : "  " (j == 1 ? "Jacobi" : "CG")
                    printf "%-36s %6d %15.2f%% %15.2f%% %+13.2f%% %10s\n", label, n[kk], 100 * s[kk] / n[kk], 100 * sqrt(v), 100 * m, j == 0 ? thesis[k] : ""
                }
            }
        }' "$OUT/phases.csv"
}

if want jacobi || want cg; then
    {
        echo "== prediction against measurement for the interval after each action (2 processes at start,"
        echo "   class half = $SPEED of a core each; $ROUNDS round(s); calibration ${CAL:-library defaults})"
        table
    } | tee -a "$SUM"
    if [ -n "$GNUPLOT" ] && [ "$(wc -l <"$OUT/phases.csv")" -gt 1 ]; then
        for ph in comp comm reconf redist; do
            awk -F, -v p="$ph" '$1 == p && $8 > 0 && $7 > 0 { print $8, $7, $2 }' "$OUT/phases.csv" >"$OUT/phase-$ph.dat"
        done
        cat >"$OUT/model.gp" <<EOF
set terminal pngcairo size 1200,900 font ",10"
set output "$OUT/model-phases.png"
set multiplot layout 2,2 title "Prediction model: predicted vs measured time of the interval after each action"
set logscale xy
set grid
set key left top
set xlabel "measured (s)"
set ylabel "predicted (s)"
EOF
        for ph in comp:computation comm:communication reconf:spawn/remove redist:redistribution; do
            f="$OUT/phase-${ph%%:*}.dat"
            if [ -s "$f" ]; then
                cat >>"$OUT/model.gp" <<EOF
set title "${ph#*:}"
plot "$f" using 1:(strcol(3) eq "jacobi" ? \$2 : 1/0) with points pt 7 title "Jacobi", \
     "$f" using 1:(strcol(3) eq "cg" ? \$2 : 1/0) with points pt 5 title "CG", \
     x with lines lc rgb "gray" title "predicted = measured"
EOF
            else
                printf 'set title "%s (no data)"\nunset logscale\nplot 0 notitle\nset logscale xy\n' "${ph#*:}" >>"$OUT/model.gp"
            fi
        done
        echo "unset multiplot" >>"$OUT/model.gp"
        "$GNUPLOT" "$OUT/model.gp" >"$OUT/gnuplot.log" 2>&1 || { echo "bench-model: gnuplot failed (see $OUT/gnuplot.log)"; failed+=(plot); }
    elif [ -z "$GNUPLOT" ]; then
        echo "bench-model: gnuplot is not installed (scripts/install-deps.sh installs it); no plots"
    fi
fi

if want ops; then
    echo
    echo "== single operations: predicted against measured (Figs. 6.9-6.12)"
    CAL="$CAL" "$ROOT/scripts/bench-model-ops.sh" "$BUILD" "$OUT" | tee "$OUT/ops.log"
    [ "${PIPESTATUS[0]}" = 0 ] || failed+=(ops)
    { echo; echo "== single operations (median time of one call, P processes; model: Hockney with MPICH's algorithms)"
      sed -n '/^op  /,/^$/p' "$OUT/ops.log"; } >>"$SUM"
fi

echo
echo "bench-model: $((SECONDS - start)) s; summary in $SUM$([ -f "$OUT/model-phases.png" ] && echo "; plot $OUT/model-phases.png")"
if [ ${#failed[@]} -gt 0 ]; then
    echo "bench-model: failed: ${failed[*]}"
    exit 1
fi
