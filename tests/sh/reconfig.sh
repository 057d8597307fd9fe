# XMPI_Eval_reconfig: the thesis's SPMD example (xmpi-spmd) grows and shrinks under the smp and
# hpmp policies with nothing but that call, and ends with the static run's vector bit for bit;
# caps, reclaims of processes that cannot leave, and offers for unknown classes change nothing.
. "$(dirname "$0")/lib.sh"
require_spawn "XMPI_Eval_reconfig (xmpi-spmd)"
S="$ROOT/$BUILD/bin/xmpi-spmd"
N=200 IT=60

sum() { sed -n 's/^result:.* checksum=\([0-9a-f]*\).*/\1/p' "$1"; }
# sizes TRACE: the nprocs column with repeats folded, e.g. "2 3 2".
sizes() { awk -F, 'NR > 1 && $3 != last { printf "%s%s", (n++ ? " " : ""), $3; last = $3 }' "$1"; }

"$LAUNCH" -np 2 "$S" $N $IT >"$TMP/static" 2>&1
ref=$(sum "$TMP/static")
check "static run prints a checksum" test -n "$ref"
"$LAUNCH" -np 1 "$S" $N $IT >"$TMP/one" 2>&1
check "1 process gives the same checksum" test "$(sum "$TMP/one")" = "$ref"

# run NAME POLICY EVENTS [OPTIONS...]: xmpi-spmd on 2 processes under the policy and schedule.
run() {
    local name=$1 policy=$2 events=$3; shift 3
    printf '%b' "$events" >"$TMP/$name.events"
    RETRY_HOOK="rm -f '$TMP/$name.csv'" launch_retry "$TMP/$name.out" -np 2 "$S" $N $IT \
        --xmpi-si=10 "--xmpi-policy=$policy" "--xmpi-rms=schedule:$TMP/$name.events" \
        --xmpi-oversubscribe --xmpi-verbose=1 "--xmpi-trace=$TMP/$name.csv" "$@"
}

run smp smp '20 spawn 1 local\n40 remove 1 local\n'
check "smp: exits 0" test $? = 0
check "smp: same checksum as the static run" test "$(sum "$TMP/smp.out")" = "$ref"
check "smp: grows to 3 and shrinks back to 2" test "$(sizes "$TMP/smp.csv")" = "2 3 2"
check "smp: the decision is explained" grep -q 'smp: 1 PE(s) offered: spawning 1' "$TMP/smp.out.err"
check "smp: the trace records the spawn and the move" grep -q ',spawn+redistribute,' "$TMP/smp.csv"
# col TRACE NAME: the column NAME of every row, one per line.
col() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }
check "smp: the trace says what was offered and decided" \
    test "$(paste -d'|' <(col "$TMP/smp.csv" event) <(col "$TMP/smp.csv" decision) | sed -n 2p)" = "offer 1 local|spawn 1"
check "smp: the trace counts the processes per class" \
    test "$(col "$TMP/smp.csv" procs_by_class | tr '\n' ' ')" = "local=2 local=2 local=3 local=3 local=2 local=2 "
check "smp: the trace names the policy" test "$(col "$TMP/smp.csv" policy | sort -u)" = "smp"

run cap smp '20 spawn 2 local\n' --xmpi-max-procs=3
check "smp with --xmpi-max-procs=3: takes 1 of 2 offered" test "$(sizes "$TMP/cap.csv")" = "2 3"
check "smp with --xmpi-max-procs=3: says why" grep -q 'spawning 1 (--xmpi-max-procs=3)' "$TMP/cap.out.err"
check "smp with a cap: same checksum" test "$(sum "$TMP/cap.out")" = "$ref"

run initial smp '20 remove 1 local\n'
check "a reclaim of mpirun's processes removes nothing" test "$(sizes "$TMP/initial.csv")" = "2"
check "... and says the initial processes stay" grep -q 'initial processes stay' "$TMP/initial.out.err"

run unknown smp '20 spawn 1 nosuchclass\n'
check "an offer for a class outside the pool is ignored with a message" \
    grep -q "class 'nosuchclass', which the job's pool does not have" "$TMP/unknown.out.err"
check "... and the run is unchanged" test "$(sum "$TMP/unknown.out")" = "$ref"

run hpmp hpmp '20 spawn 2 local\n'
check "hpmp: exits 0 with the same checksum" test "$(sum "$TMP/hpmp.out")" = "$ref"
check "hpmp: prints its prediction for every s" grep -q 'hpmp: predicted seconds to the end for s processes more: 0:.* 1:.* 2:' "$TMP/hpmp.out.err"

run static static '20 spawn 1 local\n'
check "static: the schedule changes nothing" test "$(sizes "$TMP/static.csv")" = "2"

# No process of these runs outlives them.
sleep 0.5
check "no xmpi-spmd process left behind" test -z "$(pgrep -f "^$S " || true)"
