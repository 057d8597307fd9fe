# Load balancing end to end: Jacobi with -b on two emulated classes (one process at 0.3 of a
# core) moves rows to the fast process and still gives the serial answer bit for bit;
# the policies that need data the program does not have are refused on every process.
. "$(dirname "$0")/lib.sh"
# Blocking spawns: this test asserts what the interval right after a spawn measures and predicts;
# async.sh covers asynchronous spawns (--xmpi-spawn-async, on by default).
export XMPI_SPAWN_ASYNC=off
J="$ROOT/$BUILD/bin/jacobi"
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
H=$(hostname)
printf '%s:fast:1:1:1\n%s:slow:1:1:0.3\n' "$H" "$H" >"$TMP/res"
CLASSES=("--xmpi-resources=$TMP/res" --xmpi-initial=fast:1,slow:1)

# Both ways of emulating the slow class: dilation (the default; no cgroup needed) and a CPU
# quota. Intervals of 100 iterations span many 10 ms quota periods, so the slow class's speed
# is measured rather than sampled.
"$LAUNCH" -np 1 "$J" -n 1200 -i 500 >"$TMP/serial" 2>&1
for mode in dilate quota; do
    "$LAUNCH" -np 2 "$J" -n 1200 -i 500 -b --xmpi-si=100 "${CLASSES[@]}" --xmpi-emulate=$mode \
        "--xmpi-trace=$TMP/lb.csv" >"$TMP/lb" 2>&1
    rc=$?
    if grep -q "emulated class speeds are not applied" "$TMP/lb"; then
        echo "ok - load balancing on emulated classes ($mode) # SKIP no writable cgroup cpu controller here"
        continue
    fi
    check "jacobi -b on a fast and a slow class ($mode) exits 0" test $rc = 0
    rows=$(field rows "$TMP/lb")
    if [ $mode = dilate ]; then
        check "the trace records a rebalance ($mode)" grep -Eq ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/lb.csv"
        check "rows moved to the fast process ($mode, rows=$rows)" \
            awk -v r="$rows" 'BEGIN { split(r, c, ","); exit !(c[1] > c[2] && c[1] + c[2] == 1200) }'
    else
        # A quota throttles the slow process wherever its quota runs out, inside or outside
        # its monitored iterations: in one make check its intervals measured 0.047 s against
        # the fast process's 0.167 s (throttled between iterations), and no row moved. Only
        # that the rows are all there is asserted; docs/architecture.md says why dilation is
        # the default.
        check "the rows are all there ($mode, rows=$rows)" \
            awk -v r="$rows" 'BEGIN { split(r, c, ","); exit !(c[1] + c[2] == 1200) }'
    fi
    check "the answer is the serial one, bit for bit ($mode)" \
        test -n "$(field checksum "$TMP/serial")" -a "$(field checksum "$TMP/serial")" = "$(field checksum "$TMP/lb")"
    # What the balancer saw, when it did not move rows: per interval, each rank's wall and CPU
    # time (the CPU time scaled by the emulated speed) and the action.
    grep -Eq ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/lb.csv" ||
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
                 { print "# interval " $1 ": t_real " $h["t_real_ranks"] ", t_cpu " $h["t_cpu_ranks"] ", " $h["action"] }' "$TMP/lb.csv"
    grep -E "^xmpi:" "$TMP/lb" | sed 's/^/# /'
done

# Policies whose data is missing: every process gets the error, rank 0 says why, exit 1.
"$LAUNCH" -np 2 "$J" -n 600 -i 120 -b --xmpi-si=10 --xmpi-lb=nnz --xmpi-lb-th1=0 --xmpi-lb-k=1 "${CLASSES[@]}" >"$TMP/nnz" 2>&1
rc=$?
check "--xmpi-lb=nnz without a sparse matrix is refused (exit 1)" test $rc = 1
[ $rc = 1 ] || sed 's/^/# /' "$TMP/nnz" | head -20
check "... naming what is missing" grep -q "xmpi-lb=nnz needs a registered distributed sparse matrix" "$TMP/nnz"
"$LAUNCH" -np 2 "$J" -n 600 -i 120 -b --xmpi-si=10 --xmpi-lb=weight --xmpi-lb-th1=0 --xmpi-lb-k=1 "${CLASSES[@]}" >"$TMP/w" 2>&1
rc=$?
check "--xmpi-lb=weight without a weight array is refused (exit 1)" test $rc = 1
check "... naming what is missing" grep -q "xmpi-lb=weight needs a weight array" "$TMP/w"
# ... and refused at the first evaluation call, not at the first imbalanced interval: on a
# balanced job (--xmpi-lb-th1=100 never rebalances) the run stops at once, with exit 1, one
# line naming the option, what is missing and what is accepted, and no interval of work done
# (the trace's only row is the partial one MPI_Finalize writes, at iteration 1).
for call in "" -d; do
    name=XMPI_Eval_lbalance; [ -n "$call" ] && name=XMPI_Eval_reconfig
    "$LAUNCH" -np 2 "$J" -n 600 -i 400 -b $call --xmpi-si=10 --xmpi-lb=nnz --xmpi-lb-th1=100 \
        "--xmpi-trace=$TMP/first.csv" >"$TMP/nnz" 2>&1
    rc=$?
    check "--xmpi-lb=nnz on a balanced job is refused at $name's first call (exit $rc)" \
        sh -c "test $rc = 1 && test \$(grep -c \"^xmpi: $name: option --xmpi-lb: 'nnz' is not accepted; --xmpi-lb=nnz needs a registered distributed sparse matrix and no process has one; expected a CSR or CSC matrix registered with XMPI_Register_sparse(..., XMPI_DISTRIBUTED) before the first evaluation call, or --xmpi-lb=rows\$\" '$TMP/nnz') = 1"
    [ $rc = 1 ] || sed 's/^/# /' "$TMP/nnz" | head -20
    check "... before any interval of work ($name)" \
        awk -F, 'NR > 1 && $2 > 1 { bad = 1 } END { exit bad }' "$TMP/first.csv"
    "$LAUNCH" -np 2 "$J" -n 600 -i 400 -b $call --xmpi-si=10 --xmpi-lb=weight --xmpi-lb-th1=100 \
        "--xmpi-trace=$TMP/first.csv" >"$TMP/w" 2>&1
    rc=$?
    check "--xmpi-lb=weight on a balanced job is refused at $name's first call (exit $rc)" \
        sh -c "test $rc = 1 && test \$(grep -c \"^xmpi: $name: option --xmpi-lb: 'weight' is not accepted; --xmpi-lb=weight needs a weight array and rank 0 holds 300 rows but passed weight NULL; expected one weight per row of its block in the evaluation call's weight argument on every process that holds rows, or --xmpi-lb=rows\$\" '$TMP/w') = 1"
    [ $rc = 1 ] || sed 's/^/# /' "$TMP/w" | head -20
    check "... before any interval of work ($name)" \
        awk -F, 'NR > 1 && $2 > 1 { bad = 1 } END { exit bad }' "$TMP/first.csv"
done
"$LAUNCH" -np 2 "$J" -n 100 -i 5 --xmpi-lb=fastest >"$TMP/bad" 2>&1
rc=$?
check "an unknown --xmpi-lb policy stops the job before any work" \
    sh -c "test $rc = 2 && grep -q 'time, rows, nnz or weight' '$TMP/bad'"
"$ROOT/$BUILD/bin/jacobi-plain" -b >"$TMP/plain" 2>&1
rc=$?
check "jacobi-plain -b is refused (exit 2)" sh -c "test $rc = 2 && grep -q 'needs libxmpi' '$TMP/plain'"

# --xmpi-lb=time on rows of uneven cost (jacobi -u 4: the first quarter costs four times the
# others), with nothing but times (-w) and with the work declared: the answer is the serial
# run's, bit for bit, whatever the moves, on 2 and 3 ranks.
"$LAUNCH" -np 1 "$J" -n 600 -i 120 -u 4 >"$TMP/serial" 2>&1
for np in 2 3; do
    for w in -w ""; do
        "$LAUNCH" -np $np "$J" -n 600 -i 120 -u 4 $w -b --xmpi-si=10 --xmpi-lb=time \
            --xmpi-lb-th1=5 >"$TMP/time" 2>&1
        rc=$?
        want=$(field checksum "$TMP/serial")
        got=$(field checksum "$TMP/time")
        check "--xmpi-lb=time ${w:-(work declared)} on $np ranks: bit-identical to the serial run (exit $rc)" \
            test $rc = 0 -a -n "$want" -a "$want" = "$got"
    done
done

# A policy's grow under --xmpi-lb=time: the new process's share comes from the same cost map
# as the balancer's moves (the blocks the note prints), and the answer stays the serial one,
# bit for bit. Which rank gets fewer rows depends on measured times (the costly first quarter
# against the others' noise on a loaded machine: 217,99,284 was seen under MPICH), so this
# test checks only that the cost map's blocks tile the rows; the map's effect on a balance is
# what make bench-dlb's (f) measures.
if [ "${LIBXMPI_TEST_SPAWN:-yes}" = no ]; then
    ok "--xmpi-lb=time grow: rows by the cost map # SKIP this MPI library cannot spawn processes"
else
    printf '# iteration action count class\n100 spawn 1 local\n' >"$TMP/grow.events"
    "$LAUNCH" -np 1 "$J" -n 600 -i 200 -u 4 >"$TMP/serial200" 2>&1
    "$LAUNCH" -np 2 "$J" -n 600 -i 200 -u 4 -w -d --xmpi-si=20 --xmpi-lb=time --xmpi-policy=smp \
        "--xmpi-rms=schedule:$TMP/grow.events" --xmpi-oversubscribe --xmpi-verbose=1 \
        >"$TMP/grow" 2>&1
    rc=$?
    check "--xmpi-lb=time grow 2 -> 3: the serial run's answer (exit $rc)" \
        test $rc = 0 -a -n "$(field checksum "$TMP/grow")" -a \
        "$(field checksum "$TMP/serial200")" = "$(field checksum "$TMP/grow")"
    spread=$(sed -n 's/.*rows after the spawn by the cost of each row (--xmpi-lb=time): //p' "$TMP/grow")
    check "... the new blocks come from the cost map and tile the rows ($spread)" \
        sh -c "echo '$spread' | awk -F, 'NF == 3 && \$1 + \$2 + \$3 == 600 && \$1 >= 0 && \$2 >= 0 && \$3 >= 0 { ok = 1 } END { exit !ok }'"
    # No work declared (-w): the model's computation term comes from the times at rank 0's
    # speed (the balancer's cost units); --xmpi-lb=rows has no work to predict from.
    pred=$(sed -n 's/.*spawn to 3 processes at iteration [0-9]*: the next [0-9]* iterations should take \([0-9.e+-]*\) s computing.*/\1/p' "$TMP/grow")
    check "... the model predicts the computation after the spawn without declared work ($pred s)" \
        awk -v t="$pred" 'BEGIN { exit !(t + 0 > 0) }'
    "$LAUNCH" -np 2 "$J" -n 600 -i 200 -u 4 -w -d --xmpi-si=20 --xmpi-lb=rows --xmpi-policy=smp \
        "--xmpi-rms=schedule:$TMP/grow.events" --xmpi-oversubscribe --xmpi-verbose=1 \
        >"$TMP/grow-rows" 2>&1
    check "... where --xmpi-lb=rows says it cannot (no work measured)" \
        grep -q "cannot predict the spawn (no power or work measured yet)" "$TMP/grow-rows"
fi
