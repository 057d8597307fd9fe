#!/usr/bin/env bash
# `make bench-cr`: checkpoint and restart throughput (XMPI_Checkpoint, and XMPI_Get_data under
# --xmpi-restart) against a bare collective MPI-IO write and read of the same bytes, alternated
# (issue 19's target: >= 0.8); then a resize 2 -> 3 -> 2 of malleable Jacobi by checkpoint and
# restart against one by dynamic processes. Knobs: SIZES (MiB, default "64 256"), REPS (5), NPS
# ("2"), RESIZE_N (Jacobi's rows, 4000), RESIZE_REPS (3); then a checkpoint every 10 s in Jacobi
# with a 1 GB matrix (CR_JACOBI_N, CR_JACOBI_ITERS, CR_JACOBI_REPS; below). CR_DIR: a directory
# on the file system to measure (default a fresh one under /tmp). About 8 minutes.
set -uo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD/bin/xmpi-crbench"
SIZES=${SIZES:-"64 256"}
REPS=${REPS:-5}
NPS=${NPS:-2}
[ -x "$BIN" ] || { echo "bench-cr: $BIN is missing; run it through make bench-cr" >&2; exit 1; }
DIR=${CR_DIR:-$(mktemp -d /tmp/xmpi-bench-cr.XXXXXX)}
mkdir -p "$DIR"
trap 'rm -rf "$DIR"/crbench-* "$DIR"/bare-* "$DIR"/LATEST "$DIR"/.tmp-* "$DIR"/resize* "$DIR"/jck; [ -z "${CR_DIR:-}" ] && rmdir "$DIR" 2>/dev/null' EXIT
export XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-600}
echo "bench-cr: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores, directory $DIR" \
     "($(df -hT "$DIR" | awk 'NR == 2 { print $2 }'))"
fail=0
sum=()
# med X...: the median (nan for none); verdict R: the 0.8 target met or missed.
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "nan" }'; }
verdict() { awk -v r="$1" 'BEGIN { print (r != "" && r != "nan" && r >= 0.8) ? "met" : "missed" }'; }
for np in $NPS; do
    for mib in $SIZES; do
        rm -rf "$DIR"/crbench-* "$DIR"/bare-last "$DIR"/LATEST
        w=$("$ROOT/scripts/xmpirun" -np "$np" "$BIN" -d "$DIR" -s "$mib" -r "$REPS" \
              "--xmpi-checkpoint=$DIR" 2>&1)
        rc=$?
        echo "$w" | grep -v '^xmpi: work source' | sed 's/^/  /'
        [ $rc = 0 ] || { fail=1; continue; }
        last=$(ls -d "$DIR"/crbench-* | sort -t- -k2 -n | tail -n 1)
        wr=$(echo "$w" | sed -n 's/.*ratio \([0-9.]*\);.*/\1/p')
        rr=() re=()
        for k in $(seq 1 "$REPS"); do
            r=$("$ROOT/scripts/xmpirun" -np "$np" "$BIN" -d "$DIR" -s "$mib" --read -o $((k % 2)) \
                  "--xmpi-restart=$last" 2>&1)
            rc=$?
            echo "$r" | grep '^read' | sed 's/^/  /'
            [ $rc = 0 ] || { fail=1; echo "$r" | tail -n 5 | sed 's/^/  # /'; continue; }
            rr+=("$(echo "$r" | sed -n 's/.*GB\/s), ratio \([0-9.]*\); with the first pass.*/\1/p')")
            re+=("$(echo "$r" | sed -n 's/.*first pass over the data: .* ratio \([0-9.]*\); data.*/\1/p')")
        done
        mr=$(med "${rr[@]}") mre=$(med "${re[@]}")
        sum+=("$np procs, $mib MiB: checkpoint/bare write ratio $wr (target >= 0.8: $(verdict "$wr")); restart/bare read ratio, median of $REPS: $mr (target >= 0.8: $(verdict "$mr")); with the program's first pass over the data: $mre")
    done
done
# A resize by checkpoint and restart against one by dynamic processes, side by side (issue 19):
# malleable Jacobi -d of RESIZE_N rows on 2 processes grows to 3 at iteration 100 and shrinks
# back to 2 at 200 (a schedule), RESIZE_REPS times each way, alternated. Dynamic: the spawn or
# removal and the redistribution as the library measured them (trace). C/R: the checkpoint, the
# gap from the old job's exit to the new job's MPI_Init (mpirun starting), the restart.
RESIZE_N=${RESIZE_N:-4000}
RESIZE_REPS=${RESIZE_REPS:-3}
J="$BUILD/bin/jacobi"
printf '100 spawn 1 local\n200 remove 1 local\n' >"$DIR/resize-ev"
JA=(-n "$RESIZE_N" -i 300 -s 3 -d --xmpi-si=20 --xmpi-policy=smp --xmpi-oversubscribe
    "--xmpi-rms=schedule:$DIR/resize-ev" --xmpi-verbose=1)
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
echo
echo "resize: jacobi -n $RESIZE_N -d, 2 -> 3 at iteration 100, 3 -> 2 at 200, 300 iterations; $RESIZE_REPS runs each way, alternated"
wd=() wc=() dg=() ds=() cg=() cs=()
for k in $(seq 1 "$RESIZE_REPS"); do
    for way in dynamic cr; do
        rm -rf "$DIR/resize-ck" "$DIR/resize.csv"
        t0=$(now)
        if [ $way = dynamic ]; then
            "$ROOT/scripts/xmpirun" -np 2 "$J" "${JA[@]}" --xmpi-resize=spawn \
                "--xmpi-trace=$DIR/resize.csv" >"$DIR/resize.out" 2>&1
        else
            "$ROOT/tools/xmpi-resume" "$ROOT/scripts/xmpirun" -np 2 "$J" "${JA[@]}" \
                --xmpi-resize=restart "--xmpi-checkpoint=$DIR/resize-ck" \
                --xmpi-checkpoint-every=1000000 >"$DIR/resize.out" 2>&1
        fi
        rc=$?
        t1=$(now)
        if [ $rc != 0 ] || ! grep -q '^result:.* ranks=2 ' "$DIR/resize.out"; then
            echo "  $way run $k failed (exit $rc):"; tail -n 5 "$DIR/resize.out" | sed 's/^/  # /'
            fail=1; continue
        fi
        wall=$(secs "$t0" "$t1")
        if [ $way = dynamic ]; then
            # Rows with a prediction of a reconfiguration: meas_reconf ($25) + meas_redist ($27).
            read -r g s < <(awk -F, 'NR > 1 && $24 != "" { c[++n] = $25 + $27 } END { printf "%.3f %.3f\n", c[1], c[2] }' "$DIR/resize.csv")
            wd+=("$wall") dg+=("$g") ds+=("$s")
        else
            w=($(sed -n 's/.*checkpoint .* written in \([0-9.]*\) s$/\1/p' "$DIR/resize.out"))
            gap=($(sed -n 's/.*relaunched at .* \([0-9.]*\) s after the job ended.*/\1/p' "$DIR/resize.out"))
            r=($(sed -n 's/.*restarted from .* in \([0-9.]*\) s$/\1/p' "$DIR/resize.out"))
            g=$(awk -v a="${w[0]:-nan}" -v b="${gap[0]:-nan}" -v c="${r[0]:-nan}" 'BEGIN { printf "%.3f", a + b + c }')
            s=$(awk -v a="${w[1]:-nan}" -v b="${gap[1]:-nan}" -v c="${r[1]:-nan}" 'BEGIN { printf "%.3f", a + b + c }')
            echo "  cr run $k: 2 -> 3: checkpoint ${w[0]:-?} s + relaunch ${gap[0]:-?} s + restart ${r[0]:-?} s; 3 -> 2: ${w[1]:-?} + ${gap[1]:-?} + ${r[1]:-?} s"
            wc+=("$wall") cg+=("$g") cs+=("$s")
        fi
        echo "  $way run $k: wall $wall s; 2 -> 3 cost $g s, 3 -> 2 cost $s s ($(sed -n 's/^result:.*\(checksum=[^ ]*\).*/\1/p' "$DIR/resize.out"))"
    done
done
rm -rf "$DIR/resize-ck" "$DIR/resize.csv" "$DIR/resize.out" "$DIR/resize-ev"
mwd=$(med "${wd[@]}") mwc=$(med "${wc[@]}")
[ "$RESIZE_REPS" -gt 0 ] && sum+=("resize, jacobi -n $RESIZE_N, medians of $RESIZE_REPS: 2 -> 3 dynamic $(med "${dg[@]}") s, by C/R $(med "${cg[@]}") s; 3 -> 2 dynamic $(med "${ds[@]}") s, by C/R $(med "${cs[@]}") s; whole run $mwd s dynamic, $mwc s with C/R (ratio $(awk -v a="$mwd" -v b="$mwc" 'BEGIN { printf "%.2f", b / a }'))")

# A checkpoint every 10 s in a Jacobi with a 1 GB matrix (issue 19's target: < 5% of the run):
# CR_JACOBI_N rows (11585: 1.07 GB of matrix; 0 skips this part), CR_JACOBI_ITERS iterations
# (1250: about a minute here), CR_JACOBI_REPS runs (2) each way, alternated; the cost is the
# difference of Jacobi's own loop time (time=, which includes the library's interval ends).
CR_JACOBI_N=${CR_JACOBI_N:-11585}
CR_JACOBI_ITERS=${CR_JACOBI_ITERS:-1250}
CR_JACOBI_REPS=${CR_JACOBI_REPS:-2}
if [ "$CR_JACOBI_N" -gt 0 ]; then
    echo
    gb=$(awk -v n="$CR_JACOBI_N" 'BEGIN { printf "%.2f", n * n * 8 / 1e9 }')
    echo "jacobi -n $CR_JACOBI_N -d ($gb GB of matrix), $CR_JACOBI_ITERS iterations, 2 processes: without checkpoints and with --xmpi-checkpoint-every=10s, $CR_JACOBI_REPS runs each, alternated"
    ta=() tb=()
    for k in $(seq 1 "$CR_JACOBI_REPS"); do
        for way in none every10s; do
            rm -rf "$DIR/jck"
            extra=()
            [ $way = every10s ] && extra=("--xmpi-checkpoint=$DIR/jck" --xmpi-checkpoint-every=10s --xmpi-verbose=1)
            out=$("$ROOT/scripts/xmpirun" -np 2 "$J" -n "$CR_JACOBI_N" -i "$CR_JACOBI_ITERS" -d \
                  --xmpi-si=5 "${extra[@]}" 2>&1)
            t=$(echo "$out" | sed -n 's/^result:.* time=\([0-9.]*\).*/\1/p')
            if [ -z "$t" ]; then
                echo "  $way run $k failed:"; echo "$out" | tail -n 5 | sed 's/^/  # /'; fail=1; continue
            fi
            n=$(echo "$out" | grep -c 'checkpoint .* written in')
            w=$(echo "$out" | sed -n 's/.*checkpoint .* written in \([0-9.]*\) s$/\1/p' | tr '\n' ' ')
            echo "  $way run $k: loop $t s${w:+; $n checkpoints written in $w s}"
            if [ $way = none ]; then ta+=("$t"); else tb+=("$t"); fi
        done
    done
    rm -rf "$DIR/jck"
    ma=$(med "${ta[@]}") mb=$(med "${tb[@]}")
    pct=$(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.1f", 100 * (b - a) / a }')
    sum+=("jacobi $gb GB, checkpoint every 10 s: loop $mb s against $ma s without (medians of $CR_JACOBI_REPS): $pct% (target < 5%: $(awk -v p="$pct" 'BEGIN { print p < 5 ? "met" : "missed" }'))")
fi

echo
echo "== summary (ratio = bare seconds / library seconds: 1 is as fast as the bare MPI-IO)"
printf '%s\n' "${sum[@]}"
exit $fail
