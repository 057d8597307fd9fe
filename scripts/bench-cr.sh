#!/usr/bin/env bash
# `make bench-cr`: checkpoint and restart throughput (XMPI_Checkpoint, and XMPI_Get_data under
# --xmpi-restart) against a bare collective MPI-IO write and read of the same bytes, alternated
# (issue 19's target: >= 0.8). Knobs: SIZES (MiB, default "64 256"), REPS (5), NPS ("2"),
# CR_DIR (a directory on the file system to measure; default a fresh one under /tmp).
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
trap 'rm -rf "$DIR"/crbench-* "$DIR"/bare-last "$DIR"/LATEST "$DIR"/.tmp-*; [ -z "${CR_DIR:-}" ] && rmdir "$DIR" 2>/dev/null' EXIT
export XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-600}
echo "bench-cr: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores, directory $DIR" \
     "($(df -hT "$DIR" | awk 'NR == 2 { print $2 }'))"
fail=0
sum=()
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
        rr=()
        for k in $(seq 1 "$REPS"); do
            r=$("$ROOT/scripts/xmpirun" -np "$np" "$BIN" -d "$DIR" -s "$mib" --read -o $((k % 2)) \
                  "--xmpi-restart=$last" 2>&1)
            rc=$?
            echo "$r" | grep '^read' | sed 's/^/  /'
            [ $rc = 0 ] || { fail=1; echo "$r" | tail -n 5 | sed 's/^/  # /'; continue; }
            rr+=("$(echo "$r" | sed -n 's/.*ratio \([0-9.]*\),.*/\1/p')")
        done
        med=$(printf '%s\n' "${rr[@]}" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "nan" }')
        verdict() { awk -v r="$1" 'BEGIN { print (r != "" && r != "nan" && r >= 0.8) ? "met" : "missed" }'; }
        sum+=("$np procs, $mib MiB: checkpoint/bare write ratio $wr (target >= 0.8: $(verdict "$wr")); restart/bare read ratio, median of $REPS: $med (target >= 0.8: $(verdict "$med"))")
    done
done
echo
echo "== summary (ratio = bare seconds / library seconds: 1 is as fast as the bare MPI-IO)"
printf '%s\n' "${sum[@]}"
exit $fail
