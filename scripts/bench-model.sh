#!/usr/bin/env bash
# `make bench-model`: the prediction model against measurement (FLEX-MPI thesis 6.3). Calibrates
# this machine, runs Jacobi and CG growing and shrinking at fixed iterations, and compares the
# model's prediction for the interval after each action with what the trace measured, per phase
# (Table 6.8); then single MPI operations over message sizes (Figs. 6.9-6.12).
#
# usage: [ROUNDS=3] [EXPERIMENTS="jacobi cg ops"] [SETUPS="half full"] scripts/bench-model.sh BUILD
# Two setups: "half" runs 2 -> 3 -> 4 -> 2 -> 4 -> 3 processes, each confined to SPEED of a core
# so that 4 fit the 2 cores; "full" runs 1 -> 2 -> 1 -> 2 processes on whole cores, where neither
# quotas nor oversubscription stand between the model and the machine.
# Results in BUILD/bench-model: cal-SETUP.txt, NAME.trace.csv per run, phases.csv (one row per
# action and phase), model-phases.png, ops.csv and ops-*.png, summary.txt.
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
# The actions, in intervals, each followed by two whole intervals at the new size. half: grow
# 2 -> 3 -> 4, shrink 4 -> 2, grow 2 -> 4, shrink 4 -> 3; full: 1 -> 2 -> 1 -> 2 -> 1.
ACTIONS_HALF=${ACTIONS_HALF:-"2 spawn 1;4 spawn 1;6 remove 2;8 spawn 2;10 remove 1"}
ACTIONS_FULL=${ACTIONS_FULL:-"2 spawn 1;4 remove 1;6 spawn 1;8 remove 1"}
INTERVALS=${INTERVALS:-12}
SETUPS=${SETUPS:-"half full"}

for b in jacobi cg xmpi-calibrate xmpi-opmodel; do
    if [ ! -x "$BIN/$b" ]; then
        echo "bench-model: $BIN/$b is missing; run it through make bench-model" >&2
        exit 1
    fi
done
want() { [[ " $EXPERIMENTS " == *" $1 "* ]]; }
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.png "$OUT"/*.log "$OUT"/*.gp "$OUT"/*.dat "$OUT"/events-* "$OUT"/*.res "$OUT"/cal*.txt
SUM="$OUT/summary.txt"
: >"$SUM"
failed=()
start=$SECONDS
GNUPLOT=$(command -v gnuplot || true)
echo "bench-model: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores, load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg), $("${MPIRUN:-mpirun}" --version 2>/dev/null | head -n 1)"

H=$(hostname)
# One class per setup: half (SPEED of a core, 4 PEs) and full (whole cores, 2 PEs).
printf '# hostname:class:PEs:cost:speed\n%s:half:4:1:%s\n' "$H" "$SPEED" >"$OUT/half.res"
printf '# hostname:class:PEs:cost:speed\n%s:full:2:1:1\n' "$H" >"$OUT/full.res"

# 1. Calibration of this machine, once per setup on its class (on shared memory a transfer is a
# copy by the CPU, so a quota slows it as it slows computing): alpha, beta (ping-pong fit),
# gamma, spawn and remove costs.
for setup in $SETUPS; do
    echo "== calibration ($setup): xmpi-calibrate on 2 processes of class $setup (spawn/remove: 3 cycles)"
    # A calibration takes under 30 s; one that runs into the known spawn hang is stopped after
    # 180 s and made once more, as the runs below are (exit 124, or 137 where mpirun ignored
    # the TERM and xmpirun's timeout killed it).
    for attempt in 1 2; do
        XMPIRUN_TIMEOUT=180 "$ROOT/scripts/xmpirun" -np 2 "$BIN/xmpi-calibrate" -o "$OUT/cal-$setup.txt" \
            --spawn=3 "--xmpi-resources=$OUT/$setup.res" --xmpi-initial=$setup:2 --xmpi-oversubscribe \
            >"$OUT/calibrate-$setup.log" 2>&1
        rc=$?
        [ $rc != 124 ] && [ $rc != 137 ] && break
        echo "  calibration ($setup): timed out after 180 s (attempt $attempt; the known spawn hang?)"
    done
    if [ $rc = 0 ]; then
        grep -E '^(alpha|beta|gamma|spawn_single|remove) ' "$OUT/calibrate-$setup.log" | sed 's/^/  /'
    else
        echo "bench-model: xmpi-calibrate failed (see $OUT/calibrate-$setup.log); $setup uses the library's defaults"
        failed+=("calibrate-$setup")
        rm -f "$OUT/cal-$setup.txt"
    fi
done

echo "phase,setup,program,round,action,interval,nprocs,predicted,measured,rel_error" >"$OUT/phases.csv"

# events SETUP SI FILE: the setup's actions (interval numbers) as a schedule in iterations.
events() {
    local setup=$1 si=$2 f=$3 actions
    actions=$([ "$1" = half ] && echo "$ACTIONS_HALF" || echo "$ACTIONS_FULL")
    echo "# iteration action count class" >"$f"
    tr ';' '\n' <<<"$actions" | while read -r at what n; do
        [ -n "$at" ] && echo "$((at * si)) $what $n $setup" >>"$f"
    done
}

# phases NAME SETUP PROGRAM ROUND: phases.csv rows from the trace's compared rows.
phases() {
    awk -F, -v setup="$2" -v prog="$3" -v round="$4" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["predicted_for"] != "" {
            split("comp comm reconf redist", ph, " ")
            for (k = 1; k <= 4; k++) {
                p = $c["pred_" ph[k]]; m = $c["meas_" ph[k]]
                e = (m > 0) ? (p - m) / m : "nan"
                printf "%s,%s,%s,%s,%s,%s,%s,%.6g,%.6g,%s\n", ph[k], setup, prog, round, $c["predicted_for"],
                    $c["interval"], $c["nprocs"], p, m, e
            }
        }' "$OUT/$1.trace.csv" >>"$OUT/phases.csv"
}

# run NAME SETUP SI PROGRAM ARGS...: one malleable run of a setup under its schedule.
run() {
    local name=$1 setup=$2 si=$3 np=2; shift 3
    [ "$setup" = full ] && np=1
    events "$setup" "$si" "$OUT/events-$name"
    local cal=(); [ -f "$OUT/cal-$setup.txt" ] && cal=("--xmpi-calibration=$OUT/cal-$setup.txt")
    local rc attempt
    # Spawns block (--xmpi-spawn-async=off): the schedule acts every 2 intervals, and an
    # asynchronous spawn joins an interval or more after its start, while the policy skips
    # the schedule's next actions (3 actions per run compared instead of 5).
    # A run that hangs is stopped after RUN_TIMEOUT seconds and made once more: Open MPI 4.1
    # with PMIx 4 now and then hangs a spawned process in PMIx_Init (README, "Known platform
    # problem"); a hang of our own would hang both times.
    for attempt in 1 2; do
        XMPIRUN_TIMEOUT=${RUN_TIMEOUT:-180} "$ROOT/scripts/xmpirun" -np $np "$@" -d --xmpi-policy=smp "--xmpi-si=$si" \
            "--xmpi-rms=schedule:$OUT/events-$name" "--xmpi-resources=$OUT/$setup.res" \
            "--xmpi-initial=$setup:$np" --xmpi-oversubscribe "${cal[@]}" --xmpi-verbose=1 \
            --xmpi-spawn-async=off \
            "--xmpi-trace=$OUT/$name.trace.csv" >"$OUT/$name.log" 2>&1
        rc=$?
        [ $rc != 124 ] && [ $rc != 137 ] && break
        echo "  $name: timed out after ${RUN_TIMEOUT:-180} s (attempt $attempt; the known spawn hang?)"
    done
    if [ $rc != 0 ] || ! grep -q '^result:' "$OUT/$name.log"; then
        echo "  $name: failed (exit $rc$([ $rc = 124 ] && echo ", timed out")); see $OUT/$name.log"
        failed+=("$name")
        return 1
    fi
    echo "  $name: $(grep -c 'prediction model: after' "$OUT/$name.log") actions compared," \
         "solve time $(grep -o ' time=[0-9.]*' "$OUT/$name.log" | tail -n 1 | cut -d= -f2) s"
    return 0
}

IT_J=$((JB_SI * INTERVALS)); IT_C=$((CG_SI * INTERVALS))
for setup in $SETUPS; do
    echo "== setup $setup: $([ "$setup" = half ] && echo "2 processes at start, each $SPEED of a core; actions at intervals: $ACTIONS_HALF" || echo "1 process at start on a whole core; actions at intervals: $ACTIONS_FULL")"
    echo "   Jacobi order $JB_N, $IT_J iterations, si $JB_SI; CG $CG_M, $IT_C iterations, si $CG_SI"
    for r in $(seq 1 "$ROUNDS"); do
        if want jacobi; then
            run "jacobi-$setup-$r" "$setup" "$JB_SI" "$BIN/jacobi" -n "$JB_N" -i "$IT_J" &&
                phases "jacobi-$setup-$r" "$setup" jacobi "$r"
        fi
        if want cg; then
            run "cg-$setup-$r" "$setup" "$CG_SI" "$BIN/cg" -g "$CG_M" -t 0 -i "$IT_C" &&
                phases "cg-$setup-$r" "$setup" cg "$r"
        fi
    done
done

# The table: per phase, the mean of |relative error| and the standard deviation of the relative
# errors (thesis Table 6.8), over every action; then per setup and program, per kind of action,
# and a run's first spawn (onto a link the job has never measured) apart from the others.
table() {
    awk -F, '
        NR == 1 || $10 == "nan" { next }
        { e = $10 + 0; a = e < 0 ? -e : e; run = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
          first = $5 == "spawn" && !(run in spawned) ? "yes" : "no"
          if ($5 == "spawn") spawned[run] = 1
          ks[1] = $1; ks[2] = $1 SUBSEP $2 SUBSEP $3; ks[3] = $1 SUBSEP "after" SUBSEP $5
          ks[4] = $1 SUBSEP "first" SUBSEP first
          for (j = 1; j <= 4; j++) { k = ks[j]; if (!(k in n)) order[++no] = k; n[k]++; s[k] += a; s2[k] += e; q[k] += e * e } }
        END {
            split("comp comm reconf redist", ph, " ")
            name["comp"] = "computation"; name["comm"] = "communication"
            name["reconf"] = "process reconfiguring"; name["redist"] = "data redistribution"
            thesis["comp"] = "1.47%"; thesis["comm"] = "4.61%"; thesis["reconf"] = "2.23%"; thesis["redist"] = "5.60%"
            printf "%-28s %6s %15s %14s %13s %8s\n", "phase", "cases", "mean |rel err|", "sd rel err", "mean rel err", "thesis"
            for (i = 1; i <= 4; i++) {
                if (!(ph[i] in n)) continue
                k = ph[i]; m = s2[k] / n[k]; v = q[k] / n[k] - m * m; if (v < 0) v = 0
                printf "%-28s %6d %14.1f%% %13.1f%% %+12.1f%% %8s\n", name[k], n[k], 100 * s[k] / n[k], 100 * sqrt(v), 100 * m, thesis[k]
                for (pass = 1; pass <= 3; pass++)
                    for (o = 1; o <= no; o++) {
                        k = order[o]; if (split(k, f, SUBSEP) < 3 || f[1] != ph[i]) continue
                        if ((f[2] == "after" ? 2 : f[2] == "first" ? 3 : 1) != pass) continue
                        m = s2[k] / n[k]; v = q[k] / n[k] - m * m; if (v < 0) v = 0
                        if (f[2] == "after") label = "  after a " f[3]
                        else if (f[2] == "first") label = f[3] == "yes" ? "  a run'"'"'s first spawn" : "  every other action"
                        else label = "  " f[2] ", " (f[3] == "cg" ? "CG" : "Jacobi")
                        printf "%-28s %6d %14.1f%% %13.1f%% %+12.1f%%\n", label, n[k], 100 * s[k] / n[k], 100 * sqrt(v), 100 * m
                    }
            }
        }' "$OUT/phases.csv"
}

# The targets of issue 13 are on whole cores (the full setup): per phase, its mean |rel err|
# there against the target, met or not; the emulated class (half) is reported beside it.
verdict() {
    awk -F, '
        NR == 1 || $10 == "nan" { next }
        { e = $10 + 0; a = e < 0 ? -e : e; n[$1, $2]++; s[$1, $2] += a }
        END {
            split("comp comm reconf redist", ph, " ")
            name["comp"] = "computation"; name["comm"] = "communication"
            name["reconf"] = "process reconfiguring"; name["redist"] = "data redistribution"
            target["comp"] = 10; target["comm"] = 25; target["reconf"] = 15; target["redist"] = 10
            printf "%-24s %16s %8s %8s %20s\n", "phase", "whole cores", "target", "", "emulated class (half)"
            for (i = 1; i <= 4; i++) {
                k = ph[i]
                if (!((k, "full") in n) && !((k, "half") in n)) continue
                full = (k, "full") in n ? sprintf("%.1f%% (%d)", 100 * s[k, "full"] / n[k, "full"], n[k, "full"]) : "-"
                half = (k, "half") in n ? sprintf("%.1f%% (%d)", 100 * s[k, "half"] / n[k, "half"], n[k, "half"]) : "-"
                met = !((k, "full") in n) ? "" : 100 * s[k, "full"] / n[k, "full"] <= target[k] ? "met" : "NOT met"
                printf "%-24s %16s %7s%% %8s %20s\n", name[k], full, "<= " target[k], met, half
            }
        }' "$OUT/phases.csv"
}

if want jacobi || want cg; then
    {
        echo "== prediction against measurement for the first whole interval after each action"
        echo "   (setups: $SETUPS; $ROUNDS round(s) each; every setup calibrated on its own class)"
        table
        echo
        echo "== against issue 13's targets (mean |rel err| on whole cores, cases in parentheses)"
        verdict
    } | tee -a "$SUM"
    if [ -n "$GNUPLOT" ] && [ "$(wc -l <"$OUT/phases.csv")" -gt 1 ]; then
        for ph in comp comm reconf redist; do
            awk -F, -v p="$ph" '$1 == p && $9 > 0 && $8 > 0 { print $9, $8, $3 "-" $2 }' "$OUT/phases.csv" >"$OUT/phase-$ph.dat"
        done
        {
            echo 'set terminal pngcairo size 1200,900 font ",10"'
            echo "set output \"$OUT/model-phases.png\""
            echo 'set multiplot layout 2,2 title "Prediction model: predicted vs measured, first whole interval after each action"'
            echo 'set logscale xy'
            echo 'set grid'
            echo 'set key left top'
            echo 'set xlabel "measured (s)"'
            echo 'set ylabel "predicted (s)"'
            for ph in comp:computation comm:communication reconf:spawn/remove redist:redistribution; do
                f="$OUT/phase-${ph%%:*}.dat"
                if [ -s "$f" ]; then
                    echo "set title \"${ph#*:}\""
                    series=()
                    for sp in "jacobi-half:7:Jacobi, half" "cg-half:5:CG, half" "jacobi-full:6:Jacobi, full" "cg-full:4:CG, full"; do
                        IFS=: read -r key pt title <<<"$sp"
                        series+=("\"$f\" using 1:(strcol(3) eq \"$key\" ? \$2 : 1/0) with points pt $pt title \"$title\"")
                    done
                    series+=('x with lines lc rgb "gray" title "predicted = measured"')
                    (IFS=,; echo "plot ${series[*]}")
                else
                    printf 'set title "%s (no data)"\nunset logscale\nplot 0 notitle\nset logscale xy\n' "${ph#*:}"
                fi
            done
            echo 'unset multiplot'
        } >"$OUT/model.gp"
        "$GNUPLOT" "$OUT/model.gp" >"$OUT/gnuplot.log" 2>&1 || { echo "bench-model: gnuplot failed (see $OUT/gnuplot.log)"; failed+=(plot); }
    elif [ -z "$GNUPLOT" ]; then
        echo "bench-model: gnuplot is not installed (scripts/install-deps.sh installs it); no plots"
    fi
fi

if want ops; then
    echo
    echo "== single operations: predicted against measured (Figs. 6.9-6.12)"
    # Whole cores: the full setup's calibration, else the defaults.
    opscal=; [ -f "$OUT/cal-full.txt" ] && opscal="$OUT/cal-full.txt"
    CAL="$opscal" "$ROOT/scripts/bench-model-ops.sh" "$BUILD" "$OUT" | tee "$OUT/ops.log"
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
