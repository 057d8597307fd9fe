# Heat: the library changes no bit of the grid. heat-plain (MPI_Sendrecv of the ghost lines) is
# the reference; heat (XMPI_Register_ghost, XMPI_Exchange) gives its checksum on 1 to 4
# processes, with its lines moved to random partitions (--heat-shuffle: blocks out of rank order,
# empty and one line thin), balanced (-b), and malleable (-d) under every policy: static, smp
# growing 2 -> 3 -> 4 and shrinking to 2 (blocking and asynchronous spawns), hpmp weighing
# offers, amp aiming at a goal; and restarted at another size from a checkpoint. Removed
# processes print nothing and leave nothing running. Bad input exits 2 with one message.
. "$(dirname "$0")/lib.sh"
H="$ROOT/$BUILD/bin/heat"
HP="$ROOT/$BUILD/bin/heat-plain"
ARGS=(-n 40 -m 36 -i 160)

# field NAME FILE: a key=value from the result line.
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
# sizes TRACE: the nprocs column with repeats folded, e.g. "2 3 4 2".
sizes() { awk -F, 'NR > 1 && $3 != last { printf "%s%s", (n++ ? " " : ""), $3; last = $3 }' "$1"; }
# actions TRACE WORD: the rows whose action includes WORD.
actions() { grep -Ec ",([a-z]+[+])*$2([+][a-z]+)*," "$1"; }

# start OUT NP PROG ARGS...: one job in the background, with a TMPDIR of its own (Open MPI's
# mpiruns started together race for their session directory otherwise); status in OUT.rc.
start() {
    local out=$1 np=$2; shift 2
    mkdir -p "$out.tmp"
    ( TMPDIR="$out.tmp" "$LAUNCH" -np "$np" "$@" >"$out" 2>"$out.err"; echo $? >"$out.rc" ) &
}

# same NAME REF OUT: OUT exited 0 with REF's checksum and mean, bit for bit.
same() {
    local rc
    rc=$(cat "$3.rc" 2>/dev/null || echo "${4:-?}")
    check "$1: exits 0 with the plain run's checksum" \
        test "$rc" = 0 -a -n "$(field checksum "$2")" -a "$(field checksum "$2")" = "$(field checksum "$3")"
    check "$1: ... and mean" test -n "$(field mean "$3")" -a "$(field mean "$2")" = "$(field mean "$3")"
    [ "$rc" = 0 ] || sed 's/^/#   /' "$3" "$3.err" | tail -6
}

start "$TMP/plain1" 1 "$HP" "${ARGS[@]}"
start "$TMP/plain2" 2 "$HP" "${ARGS[@]}"
start "$TMP/plain3" 3 "$HP" "${ARGS[@]}"
for np in 1 2 3 4; do start "$TMP/x$np" $np "$H" "${ARGS[@]}"; done
wait
start "$TMP/shuffle3" 3 "$H" "${ARGS[@]}" --heat-shuffle=7 --xmpi-si=20 "--xmpi-trace=$TMP/shuffle3.csv"
start "$TMP/shuffle4" 4 "$H" "${ARGS[@]}" --heat-shuffle=3
start "$TMP/static" 2 "$H" "${ARGS[@]}" -d --xmpi-si=20
# -b on a full-speed and a 0.3-speed class (dilation): whether the balancer moves lines depends
# on what it measures, so only the bits are asserted; the count of moves is said.
printf '%s:fast:1:1:1\n%s:slow:1:1:0.3\n' "$(hostname)" "$(hostname)" >"$TMP/classes"
start "$TMP/lb" 2 "$H" "${ARGS[@]}" -b --xmpi-si=10 --xmpi-lb-th1=0 --xmpi-lb-k=1 "--xmpi-resources=$TMP/classes" \
    --xmpi-initial=fast:1,slow:1 "--xmpi-trace=$TMP/lb.csv"
wait
REF="$TMP/plain2"
check "heat-plain printed a result" test -n "$(field checksum "$REF")"
same "heat-plain on 1 process" "$REF" "$TMP/plain1"
same "heat-plain on 3 processes" "$REF" "$TMP/plain3"
for np in 1 2 3 4; do same "heat on $np process(es)" "$REF" "$TMP/x$np"; done
same "heat --heat-shuffle=7 on 3" "$REF" "$TMP/shuffle3"
check "--heat-shuffle=7 moved the lines (trace: redistribute)" test "$(actions "$TMP/shuffle3.csv" redistribute)" -ge 5
same "heat --heat-shuffle=3 on 4 (blocks one line thin, empty, out of rank order)" "$REF" "$TMP/shuffle4"
same "heat -d under the static policy" "$REF" "$TMP/static"
same "heat -b on a fast and a slow class" "$REF" "$TMP/lb"
echo "# heat -b: $(actions "$TMP/lb.csv" rebalance) interval(s) after a rebalance, rows=$(field rows "$TMP/lb")"

# Checkpoint on 2 processes, restart on 3 from the one at iteration 80: every process joins with
# NULL pointers and takes the grid's size from the checkpoint's app data.
"$LAUNCH" -np 2 "$H" "${ARGS[@]}" --xmpi-si=20 "--xmpi-checkpoint=$TMP/ck" --xmpi-checkpoint-every=40 \
    --xmpi-checkpoint-keep=10 >"$TMP/ck.out" 2>&1
echo $? >"$TMP/ck.out.rc"
same "checkpointed every 40 iterations on 2" "$REF" "$TMP/ck.out"
"$LAUNCH" -np 3 "$H" "${ARGS[@]}" --xmpi-si=20 "--xmpi-restart=$TMP/ck/ckpt-000000000080" >"$TMP/rs.out" 2>&1
echo $? >"$TMP/rs.out.rc"
same "restarted on 3 from iteration 80" "$REF" "$TMP/rs.out"

require_spawn "malleable heat (-d)"
# malleable NAME EVENTS ARGS...: heat -d on 2 processes under --xmpi-rms=schedule:EVENTS (or
# none), against the plain run; output in $TMP/NAME.
malleable() {
    local name=$1 events=$2; shift 2
    local out="$TMP/$name" rms=()
    [ -n "$events" ] && rms=("--xmpi-rms=schedule:$events")
    RETRY_HOOK="rm -f '$out.csv'" launch_retry "$out" -np 2 "$H" "${ARGS[@]}" -d --xmpi-si=20 "${rms[@]}" \
        --xmpi-oversubscribe "--xmpi-trace=$out.csv" "$@"
    local rc=$?
    same "$name" "$REF" "$out" "$rc"
    check "$name: one result line (removed processes print none)" test "$(grep -c '^result:' "$out")" = 1
    local left
    left=$(leftovers "$H")
    check "$name: no process left behind${left:+ (pids $left)}" test -z "$left"
}
printf '20 spawn 1 local\n40 spawn 1 local\n100 remove 2 local\n' >"$TMP/events"
XMPI_SPAWN_ASYNC=off malleable smp "$TMP/events" --xmpi-policy=smp
check "smp: the trace shows 2, 3, 4, then 2 processes" test "$(sizes "$TMP/smp.csv")" = "2 3 4 2"
XMPI_SPAWN_ASYNC=off malleable "smp -b" "$TMP/events" --xmpi-policy=smp -b --xmpi-lb-th1=0 --xmpi-lb-k=1
check "smp -b: the trace shows 2, 3, 4, then 2 processes" test "$(sizes "$TMP/smp -b.csv")" = "2 3 4 2"
# Asynchronous spawns (the default): the new process joins at a later interval end and takes the
# grid's size from the job then. A longer run leaves the spawn time to end before the removal;
# whether it did depends on the machine's pace, so only the bits are asserted and the sizes said.
ARGS=(-n 300 -m 200 -i 12000)
"$LAUNCH" -np 2 "$HP" "${ARGS[@]}" >"$TMP/plain-long" 2>&1
REF="$TMP/plain-long"
printf '500 spawn 1 local\n10000 remove 1 local\n' >"$TMP/events-async"
malleable "smp, asynchronous spawn" "$TMP/events-async" --xmpi-policy=smp --xmpi-si=500
echo "# smp, asynchronous spawn: sizes $(sizes "$TMP/smp, asynchronous spawn.csv")"
ARGS=(-n 40 -m 36 -i 160)
REF="$TMP/plain2"
# hpmp spawns what the model says pays (possibly nothing); the bits hold either way.
printf '20 offer 2 local\n' >"$TMP/offer"
XMPI_SPAWN_ASYNC=off malleable hpmp "$TMP/offer" --xmpi-policy=hpmp
check "hpmp: the policy decided at interval ends (trace)" grep -q ',hpmp,' "$TMP/hpmp.csv"
echo "# hpmp: sizes $(sizes "$TMP/hpmp.csv")"
# amp over a pool of a slow class (where the job starts) and a fast one it may grow onto.
printf '%s:fast:2:4\n%s:slow:4:1:0.15\n' "$(hostname)" "$(hostname)" >"$TMP/pool"
XMPI_SPAWN_ASYNC=off malleable amp "" --xmpi-policy=amp --xmpi-goal=40% "--xmpi-resources=$TMP/pool" \
    --xmpi-initial=slow:2
check "amp: the policy decided at interval ends (trace)" grep -q ',amp,' "$TMP/amp.csv"
echo "# amp: sizes $(sizes "$TMP/amp.csv")"

# Bad input: exit status 2, one message naming the problem, no result, no hang.
bad() { # bad DESCRIPTION PATTERN NP PROG ARGS...
    local d=$1 p=$2 np=$3; shift 3
    "$LAUNCH" -np "$np" "$@" >"$TMP/bad" 2>&1
    local rc=$?
    if [ $rc = 2 ] && [ "$(grep -c -- "^heat: .*$p" "$TMP/bad")" = 1 ] && ! grep -q '^result:' "$TMP/bad"; then
        ok "$d"
    else
        notok "$d (exit $rc)"; sed 's/^/#   /' "$TMP/bad" | head -10
    fi
}
bad "a line of 2 points refused" "'-n 2'" 2 "$H" -n 2
bad "a non-numeric line count refused" "'-m abc'" 2 "$H" -m abc
bad "negative iterations refused" "'-i -1'" 2 "$H" -i -1
bad "an unknown long option refused" "'--long'" 2 "$H" --long
bad "--heat-shuffle=0 refused" "--heat-shuffle=0" 2 "$H" --heat-shuffle=0
bad "fewer lines than ranks refused" "3 grid lines (-m) for 4 ranks" 4 "$H" -m 3
bad "-b refused by heat-plain" "-b needs libxmpi" 2 "$HP" -b
bad "-d refused by heat-plain" "-d needs libxmpi.*heat-plain cannot" 2 "$HP" -d
bad "--heat-shuffle refused by heat-plain" "heat-plain" 2 "$HP" --heat-shuffle=3
