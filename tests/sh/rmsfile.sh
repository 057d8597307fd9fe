# A job on --xmpi-rms=file:STATE grows when `xmpi-rms offer` runs and gives PEs back when
# `xmpi-rms reclaim` runs, recording in the state file what it holds.
. "$(dirname "$0")/lib.sh"
require_spawn "following the resource manager"
RMS="$ROOT/$BUILD/bin/xmpi-rms"
H=$(hostname)
S="$TMP/state"
printf '%s:fast:2:1\n%s:slow:3:1\n' "$H" "$H" >"$TMP/res"
"$RMS" --state "$S" init "$TMP/res" >/dev/null

# allocated CLASS: what the state file says the job holds of CLASS.
allocated() { "$RMS" --state "$S" status | awk -v c="$1" '$1 == "(total)" && $2 == c { print $5 }'; }
# wait_for DESCRIPTION COMMAND...: polls for up to 60 s (the job checks every 5 iterations),
# and gives up at once if the job has ended.
wait_for() {
    local d=$1; shift
    for _ in $(seq 300); do
        "$@" && { ok "$d"; return 0; }
        kill -0 "$job" 2>/dev/null || break
        sleep 0.2
    done
    "$@" && { ok "$d"; return 0; }
    notok "$d"; sed 's/^/#   /' "$TMP/out" "$TMP/err" | tail -5; return 1
}

"$LAUNCH" -np 2 "$ROOT/$BUILD/tests/test_rmsfollow" "$TMP/stop" "--xmpi-resources=$TMP/res" \
    "--xmpi-rms=file:$S" --xmpi-si=10 >"$TMP/out" 2>"$TMP/err" &
job=$!
wait_for "the job starts on 2 processes and the state shows 2 fast PEs held" \
    sh -c "grep -q 'size 2 at' '$TMP/out' && test \"\$($RMS --state '$S' status | awk '\$1 == \"(total)\" && \$2 == \"fast\" { print \$5 }')\" = 2"
"$RMS" --state "$S" offer slow 2 >/dev/null
wait_for "after 'offer slow 2' the job grows to 4" grep -q 'size 4 at' "$TMP/out"
wait_for "... and the state shows 2 slow PEs held" sh -c "test \"\$($RMS --state '$S' status | awk '\$1 == \"(total)\" && \$2 == \"slow\" { print \$5 }')\" = 2"
"$RMS" --state "$S" reclaim slow 1 >/dev/null
wait_for "after 'reclaim slow 1' the job shrinks to 3" grep -q 'size 3 at' "$TMP/out"
wait_for "... and the state shows 1 slow PE held, nothing left to reclaim" \
    sh -c "$RMS --state '$S' status | awk '\$1 == \"(total)\" && \$2 == \"slow\" && \$5 == 1 && \$6 == 0 { f = 1 } END { exit !f }'"
touch "$TMP/stop"
wait $job
rc=$?
check "the job ends cleanly (exit 0)" test $rc = 0
check "sizes seen in order 2, 4, 3" test "$(awk '{ printf "%s ", $2 }' "$TMP/out")" = "2 4 3 "
check "fast PEs still held by the initial processes at the end" test "$(allocated fast)" = 2

# --xmpi-rms=schedule:FILE replays predefined events (FLEX-MPI's SMP configuration file),
# due once the job has done that many monitored iterations.
printf '# iteration action count class\n10 spawn 2 slow\n30 remove 1 slow\n' >"$TMP/events"
rm -f "$TMP/stop"
"$LAUNCH" -np 2 "$ROOT/$BUILD/tests/test_rmsfollow" "$TMP/stop" "--xmpi-resources=$TMP/res" \
    "--xmpi-rms=schedule:$TMP/events" >"$TMP/out" 2>"$TMP/err" &
job=$!
wait_for "schedule: the job grows to 4 after iteration 10" grep -q 'size 4 at' "$TMP/out"
wait_for "schedule: and shrinks to 3 after iteration 30" grep -q 'size 3 at' "$TMP/out"
touch "$TMP/stop"
wait $job
rc=$?
check "schedule: the job ends cleanly" test $rc = 0
check "schedule: grew at iteration 10 and shrank at 30 (events are due by iteration)" \
    test "$(awk '{ printf "%s@%s ", $2, $5 }' "$TMP/out")" = "2@0 4@10 3@30 "
printf '10 spawn 2 slow\n30 shrink 1 slow\n' >"$TMP/badevents"
"$LAUNCH" -np 2 "$ROOT/$BUILD/tests/test_rmsfollow" "$TMP/stop" "--xmpi-resources=$TMP/res" \
    "--xmpi-rms=schedule:$TMP/badevents" >"$TMP/bad" 2>&1
rc=$?
check "schedule: a malformed events file stops the job at start-up, naming line and field" \
    sh -c "test $rc -ne 0 -a $rc -ne 124 && grep -q 'badevents:2: field action' '$TMP/bad'"
