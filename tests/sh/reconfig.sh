# XMPI_Eval_reconfig: the thesis's SPMD example (xmpi-spmd) grows and shrinks under the smp and
# hpmp policies with nothing but that call, and ends with the static run's vector bit for bit;
# caps; a schedule naming a class outside the pool, or removing processes that cannot leave, is
# refused at MPI_Init.
# The schedule's offer/reclaim lines and a live state file are offered again until taken.
. "$(dirname "$0")/lib.sh"
# Blocking spawns: this test asserts the iteration and interval at which each change happens;
# async.sh covers asynchronous spawns (--xmpi-spawn-async, on by default).
export XMPI_SPAWN_ASYNC=off
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

# Under smp the job spawns only what the schedule asks: a removal with nothing spawned before it
# can never be honoured (mpirun's processes never leave), and is refused before any work.
run initial smp '20 remove 1 local\n'
check "a scheduled removal of mpirun's processes stops the job at MPI_Init" \
    grep -qF "initial.events:1: field count: '1' is not accepted; expected at most 0: the spawn and offer lines before it add up to 0 processes of class local, and the initial processes never leave" "$TMP/initial.out.err"
check "... before any work" test -z "$(sum "$TMP/initial.out")"

printf '20 spawn 1 nosuchclass\n' >"$TMP/unknown.events"
"$LAUNCH" -np 2 "$S" $N $IT --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/unknown.events" \
    >"$TMP/unknown.out" 2>&1
rc=$?
check "a schedule naming a class outside the pool stops the job at MPI_Init" \
    test $rc -ne 0 -a "$(grep -c "unknown.events:1: field class: 'nosuchclass' is not accepted; expected a class of the job's pool: local" "$TMP/unknown.out")" = 1
check "... before any work" test -z "$(sum "$TMP/unknown.out")"

run hpmp hpmp '20 spawn 2 local\n'
check "hpmp: exits 0 with the same checksum" test "$(sum "$TMP/hpmp.out")" = "$ref"
check "hpmp: prints its prediction for every s" grep -q 'hpmp: predicted seconds to the end for s processes more: 0:.* 1:.* 2:' "$TMP/hpmp.out.err"

run static static '20 spawn 1 local\n'
check "static: the schedule changes nothing" test "$(sizes "$TMP/static.csv")" = "2"

# An offer line keeps its PEs free until taken: hpmp, which declines them here (the spawn
# costs more than the run has left), is offered the same PEs again at every interval.
run hpmpoffer hpmp '20 offer 2 local\n'
check "hpmp with an offer line: exits 0 with the same checksum" test "$(sum "$TMP/hpmpoffer.out")" = "$ref"
check "hpmp with an offer line: declines and stays at 2" test "$(sizes "$TMP/hpmpoffer.csv")" = "2"
check "hpmp with an offer line: the declined PEs are offered again at the next interval" \
    test "$(grep -c 'hpmp: predicted seconds' "$TMP/hpmpoffer.out.err")" -gt 1

# offer then reclaim: smp takes the free PE, and the reclaim (nothing free left) asks it back.
run avail smp '20 offer 1 local\n40 reclaim 1 local\n'
check "smp with offer/reclaim lines: exits 0 with the same checksum" test "$(sum "$TMP/avail.out")" = "$ref"
check "smp with offer/reclaim lines: grows to 3 and shrinks back to 2" test "$(sizes "$TMP/avail.csv")" = "2 3 2"
check "smp with offer/reclaim lines: removes for the reclaim" \
    grep -q 'smp: 1 PE(s) reclaimed: removing 1' "$TMP/avail.out.err"

# A schedule whose iterations go down stops the job at MPI_Init with one FILE:LINE message.
printf '20 offer 1 local\n10 reclaim 1 local\n' >"$TMP/back.events"
"$LAUNCH" -np 2 "$S" $N $IT "--xmpi-rms=schedule:$TMP/back.events" >"$TMP/back.out" 2>&1
rc=$?
check "a non-monotone schedule stops the job" test $rc -ne 0 -a $rc -ne 124
check "... with one FILE:LINE message on the iteration" \
    test "$(grep -c "back.events:2: field iteration: '10' is not accepted; expected a whole number from 20" "$TMP/back.out")" = 1
check "... before any work" test "$(grep -c '^result:' "$TMP/back.out")" = 0

# smp follows a live state file made and edited with xmpi-rms: a PE offered once the job holds
# its initial ones (it adopted the file at MPI_Init) is taken at the next interval, and given
# back when reclaimed. The run is long enough at 2 processes for the offer to land; the
# reclaim keeps the slow oversubscribed stretch at 3 short.
RMS="$ROOT/$BUILD/bin/xmpi-rms"
LIT=5000
printf '%s:local:4:1\n' "$(hostname)" >"$TMP/live.res"
"$LAUNCH" -np 2 "$S" $N $LIT >"$TMP/live.static" 2>&1
live_ref=$(sum "$TMP/live.static")
held() { "$RMS" --state "$TMP/live.state" status | awk '$1 == "(total)" && $2 == "local" { print $5 }'; }
# until_held N JOB: waits until the state file says the job holds N PEs, or the job ended.
until_held() {
    for _ in $(seq 3000); do
        [ "$(held 2>/dev/null)" = "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}
live() {
    rm -f "$TMP/live.state" "$TMP/live.csv" "$TMP/live.held3"
    "$RMS" --state "$TMP/live.state" init "$TMP/live.res" >/dev/null || return 1
    XMPIRUN_TIMEOUT=${SPAWN_TIMEOUT:-60} "$LAUNCH" -np 2 "$S" $N $LIT --xmpi-si=10 \
        --xmpi-policy=smp "--xmpi-rms=file:$TMP/live.state" "--xmpi-resources=$TMP/live.res" \
        --xmpi-oversubscribe --xmpi-verbose=1 "--xmpi-trace=$TMP/live.csv" \
        >"$TMP/live.out" 2>"$TMP/live.out.err" &
    local job=$!
    until_held 2 $job
    "$RMS" --state "$TMP/live.state" offer local 1 >/dev/null
    if until_held 3 $job; then
        touch "$TMP/live.held3"
        "$RMS" --state "$TMP/live.state" reclaim local 1 >/dev/null
    fi
    wait $job
}
live
rc=$?
[ $rc = 124 ] && { echo "# the live run timed out; once more"; live; rc=$?; }
check "smp on a live state file: exits 0" test $rc = 0
check "smp on a live state file: grows to 3 when a PE is offered mid-run" \
    test "$(sizes "$TMP/live.csv" | cut -c1-3)" = "2 3"
check "smp on a live state file: the file records the PE the job took" test -e "$TMP/live.held3"
check "smp on a live state file: same checksum as the static run" test "$(sum "$TMP/live.out")" = "$live_ref"

# No process of these runs outlives them.
sleep 0.5
check "no xmpi-spmd process left behind" test -z "$(pgrep -f "^$S " || true)"
