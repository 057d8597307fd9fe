# cg3d: the library changes no bit of the solution. cg3d-plain (its own halo lists, MPI_Isend and
# MPI_Irecv) is the reference; cg3d (the matrix registered with global columns, XMPI_Get_halo,
# XMPI_Exchange) gives its checksum and residual on 1 to 4 processes, with its rows moved to
# random partitions (--cg3d-shuffle: planes split, blocks out of rank order and empty), balanced
# (-b), and malleable (-d) under every policy: static, smp growing 2 -> 3 -> 4 and shrinking to 2
# (blocking and asynchronous spawns), hpmp weighing offers, amp aiming at a goal; and restarted
# at another size from a checkpoint. The new processes go on with CG's scalars from
# XMPI_Get_app_data. It converges to the known solution; the trace's bytes are the halo's and
# the dot products'. Removed processes print nothing and leave nothing running. Bad input exits
# 2 with one message.
. "$(dirname "$0")/lib.sh"
H="$ROOT/$BUILD/bin/cg3d"
HP="$ROOT/$BUILD/bin/cg3d-plain"
# -t 0: every iteration runs, so that every change comes before the end.
ARGS=(-x 6 -y 5 -z 8 -t 0 -i 160)

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

# same NAME REF OUT: OUT exited 0 with REF's checksum and residual, bit for bit.
same() {
    local rc
    rc=$(cat "$3.rc" 2>/dev/null || echo "${4:-?}")
    check "$1: exits 0 with the plain run's checksum" \
        test "$rc" = 0 -a -n "$(field checksum "$2")" -a "$(field checksum "$2")" = "$(field checksum "$3")"
    check "$1: ... and residual" test -n "$(field residual "$3")" -a "$(field residual "$2")" = "$(field residual "$3")"
    [ "$rc" = 0 ] || sed 's/^/#   /' "$3" "$3.err" | tail -6
}

start "$TMP/plain1" 1 "$HP" "${ARGS[@]}"
start "$TMP/plain2" 2 "$HP" "${ARGS[@]}"
start "$TMP/plain3" 3 "$HP" "${ARGS[@]}"
for np in 1 2 3 4; do start "$TMP/x$np" $np "$H" "${ARGS[@]}"; done
wait
start "$TMP/shuffle3" 3 "$H" "${ARGS[@]}" --cg3d-shuffle=7 --xmpi-si=20 "--xmpi-trace=$TMP/shuffle3.csv"
start "$TMP/shuffle4" 4 "$H" "${ARGS[@]}" --cg3d-shuffle=3
start "$TMP/seven" 3 "$HP" -x 6 -y 5 -z 2 -s 7 -t 0 -i 60
start "$TMP/seven4" 4 "$H" -x 6 -y 5 -z 2 -s 7 -t 0 -i 60 --cg3d-shuffle=5
start "$TMP/tiny-plain" 4 "$HP" -x 3 -y 1 -z 1
start "$TMP/tiny" 4 "$H" -x 3 -y 1 -z 1
start "$TMP/conv" 2 "$H" -x 6 -y 5 -z 8 --xmpi-si=10 "--xmpi-trace=$TMP/conv.csv"
start "$TMP/static" 2 "$H" "${ARGS[@]}" -d --xmpi-si=20
# -b on a full-speed and a 0.3-speed class (dilation): whether the balancer moves rows depends
# on what it measures, so only the bits are asserted; the count of moves is said.
printf '%s:fast:1:1:1\n%s:slow:1:1:0.3\n' "$(hostname)" "$(hostname)" >"$TMP/classes"
start "$TMP/lb" 2 "$H" "${ARGS[@]}" -b --xmpi-si=10 --xmpi-lb-th1=0 --xmpi-lb-k=1 "--xmpi-resources=$TMP/classes" \
    --xmpi-initial=fast:1,slow:1 "--xmpi-trace=$TMP/lb.csv"
wait
REF="$TMP/plain2"
check "cg3d-plain printed a result" test -n "$(field checksum "$REF")"
same "cg3d-plain on 1 process" "$REF" "$TMP/plain1"
same "cg3d-plain on 3 processes" "$REF" "$TMP/plain3"
for np in 1 2 3 4; do same "cg3d on $np process(es)" "$REF" "$TMP/x$np"; done
same "cg3d --cg3d-shuffle=7 on 3" "$REF" "$TMP/shuffle3"
check "--cg3d-shuffle=7 moved the rows (trace: redistribute)" test "$(actions "$TMP/shuffle3.csv" redistribute)" -ge 5
same "cg3d --cg3d-shuffle=3 on 4 (planes split, blocks empty, out of rank order)" "$REF" "$TMP/shuffle4"
same "7-point, 2 planes on 3 and 4 processes (blocks of rows), rows moved every 5" "$TMP/seven" "$TMP/seven4"
same "3 rows on 4 processes (a block empty from the start)" "$TMP/tiny-plain" "$TMP/tiny"
same "cg3d -d under the static policy" "$REF" "$TMP/static"
same "cg3d -b on a fast and a slow class" "$REF" "$TMP/lb"
echo "# cg3d -b: $(actions "$TMP/lb.csv" rebalance) interval(s) after a rebalance"
# b = A x* with a known x*: the error is measured against it, not against another run.
check "converges to x* (error < 1e-8) before -i" awk -v e="$(field error "$TMP/conv")" \
    -v i="$(field iterations "$TMP/conv")" 'BEGIN { exit !(e != "" && e + 0 < 1e-8 && i + 0 < 160) }'
# Per process and iteration: the halo, sent and received (8 bytes a value, from the first line's
# halo summed over the ranks), and two dot products of 69 64-bit words: 2 x 552 bytes.
halo=$(sed -n 's/^cg3d: .* halo \([0-9]*\),.*/\1/p' "$TMP/conv")
check "the trace's bytes are the halo's and the dot products' (halo $halo)" \
    awk -F, -v h="$halo" 'NR == 2 { exit !(h > 0 && $10 == 10 * (16 * h + 2 * 2 * 552)) }' "$TMP/conv.csv"

# Checkpoint on 2 processes, restart on 3 from the one at iteration 80: every process joins with
# NULL pointers and takes the grid's size and CG's scalars from the checkpoint's app data.
"$LAUNCH" -np 2 "$H" "${ARGS[@]}" --xmpi-si=20 "--xmpi-checkpoint=$TMP/ck" --xmpi-checkpoint-every=40 \
    --xmpi-checkpoint-keep=10 >"$TMP/ck.out" 2>&1
echo $? >"$TMP/ck.out.rc"
same "checkpointed every 40 iterations on 2" "$REF" "$TMP/ck.out"
"$LAUNCH" -np 3 "$H" "${ARGS[@]}" --xmpi-si=20 "--xmpi-restart=$TMP/ck/ckpt-000000000080" >"$TMP/rs.out" 2>&1
echo $? >"$TMP/rs.out.rc"
same "restarted on 3 from iteration 80" "$REF" "$TMP/rs.out"

require_spawn "malleable cg3d (-d)"
# malleable NAME EVENTS ARGS...: cg3d -d on 2 processes under --xmpi-rms=schedule:EVENTS (or
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
# grid and CG's scalars from the job then. A longer run leaves the spawn time to end before the removal;
# whether it did depends on the machine's pace, so only the bits are asserted and the sizes said.
ARGS=(-x 16 -y 16 -z 16 -t 0 -i 3000)
"$LAUNCH" -np 2 "$HP" "${ARGS[@]}" >"$TMP/plain-long" 2>&1
REF="$TMP/plain-long"
printf '100 spawn 1 local\n2500 remove 1 local\n' >"$TMP/events-async"
malleable "smp, asynchronous spawn" "$TMP/events-async" --xmpi-policy=smp --xmpi-si=100
echo "# smp, asynchronous spawn: sizes $(sizes "$TMP/smp, asynchronous spawn.csv")"
ARGS=(-x 6 -y 5 -z 8 -t 0 -i 160)
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
    if [ $rc = 2 ] && [ "$(grep -c -- "^cg3d: .*$p" "$TMP/bad")" = 1 ] && ! grep -q '^result:' "$TMP/bad"; then
        ok "$d"
    else
        notok "$d (exit $rc)"; sed 's/^/#   /' "$TMP/bad" | head -10
    fi
}
bad "a grid size of 0 refused" "'-x 0'" 2 "$H" -x 0
bad "a non-numeric grid size refused" "'-z abc'" 2 "$H" -z abc
bad "a grid of more points than int row pointers allow refused" "more than" 2 "$H" -x 1000 -y 1000 -z 1000
bad "a stencil of 9 points refused" "'-s 9'" 2 "$H" -s 9
bad "negative iterations refused" "'-i -1'" 2 "$H" -i -1
bad "a negative tolerance refused" "'-t -1'" 2 "$H" -t -1
bad "an unknown long option refused" "'--long'" 2 "$H" --long
bad "--cg3d-shuffle=0 refused" "--cg3d-shuffle=0" 2 "$H" --cg3d-shuffle=0
bad "-b refused by cg3d-plain" "-b needs libxmpi" 2 "$HP" -b
bad "-d refused by cg3d-plain" "-d needs libxmpi.*cg3d-plain cannot" 2 "$HP" -d
bad "--cg3d-shuffle refused by cg3d-plain" "cg3d-plain" 2 "$HP" --cg3d-shuffle=3
