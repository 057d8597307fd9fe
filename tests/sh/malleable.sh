# -d: Jacobi and CG (and the epidemic code's -M) call XMPI_Eval_reconfig, and under
# --xmpi-policy=smp the job follows the embedded resource manager through a scheduled grow
# 2 -> 3 -> 4 and shrink 4 -> 2. Each run exits 0 with the static 2-process run's answer bit for
# bit (the plain MPI build is the reference: no library, no moves), the trace shows each size
# in turn, and the removed processes leave neither a result line nor a process behind.
. "$(dirname "$0")/lib.sh"
# Blocking spawns: this test asserts the iteration at which each change happens; async.sh
# grows the same programs by asynchronous spawns (--xmpi-spawn-async, on by default).
export XMPI_SPAWN_ASYNC=off
require_spawn "malleable jacobi, cg (-d) and epidemic (-M)"
J="$ROOT/$BUILD/bin/jacobi"
JP="$ROOT/$BUILD/bin/jacobi-plain"
C="$ROOT/$BUILD/bin/cg"
CP="$ROOT/$BUILD/bin/cg-plain"

field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }

# Due once the job has done that many iterations; without --xmpi-resources the local host's
# class is 'local', and --xmpi-oversubscribe lets 4 processes onto its 2 PEs.
printf '# iteration action count class\n20 spawn 1 local\n40 spawn 1 local\n80 remove 2 local\n' >"$TMP/events"
EXPECTED_CHANGES='iteration 20: spawned 1 process (now 3)
iteration 40: spawned 1 process (now 4)
iteration 80: removed 2 processes (now 2)'

# sizes TRACE: the nprocs column with repeats folded, e.g. "2 3 4 2".
sizes() { awk -F, 'NR > 1 && $3 != last { printf "%s%s", (n++ ? " " : ""), $3; last = $3 }' "$1"; }

# malleable NAME REF PROG ARGS...: PROG ARGS -d (MFLAG, when set: the epidemic's days are -d) on 2
# processes under the schedule, against the static run whose output is REF.
malleable() {
    local name=$1 ref=$2 prog=$3
    shift 2
    local out="$TMP/$name"
    RETRY_HOOK="rm -f '$out.csv'" launch_retry "$out" -np 2 "$@" "${MFLAG:--d}" --xmpi-si=20 --xmpi-policy=smp \
        "--xmpi-rms=schedule:$TMP/events" --xmpi-oversubscribe "--xmpi-trace=$out.csv"
    local rc=$?
    # mpirun's status includes the removed processes': one that exits non-zero makes it so.
    check "$name: exits 0" test $rc = 0
    [ $rc = 0 ] || sed 's/^/#   /' "$out" "$out.err" | tail -8
    check "$name: the static 2-process run's checksum" \
        test -n "$(field checksum "$ref")" -a "$(field checksum "$ref")" = "$(field checksum "$out")"
    if [ -n "$(field days "$ref")" ]; then
        check "$name: ... after as many days" test "$(field days "$ref")" = "$(field days "$out")"
    else
        check "$name: ... and its residual" \
            test -n "$(field residual "$ref")" -a "$(field residual "$ref")" = "$(field residual "$out")"
        check "$name: ... after as many iterations" test "$(field iterations "$ref")" = "$(field iterations "$out")"
    fi
    check "$name: the trace shows 2, 3, 4, then 2 processes" test "$(sizes "$out.csv")" = "2 3 4 2"
    check "$name: the result line says ranks=2" test "$(field ranks "$out")" = 2
    check "$name: rank 0 reported each change once" \
        test "$(sed -n 's/^[a-z]*: \(iteration [0-9]*: [sr].*\)/\1/p' "$out")" = "$EXPECTED_CHANGES"
    check "$name: one result line (removed processes print none)" test "$(grep -c '^result:' "$out")" = 1
    local left
    left=$(leftovers "$prog")
    check "$name: no process left behind${left:+ (pids $left)}" test -z "$left"
}

"$LAUNCH" -np 2 "$JP" -n 300 -i 120 -s 5 >"$TMP/jacobi.ref" 2>&1
malleable "jacobi -d" "$TMP/jacobi.ref" "$J" -n 300 -i 120 -s 5
# XMPI_Eval_reconfig spreads the rows by measured power, so the final blocks need not be even.
check "jacobi -d: rows= shows two final blocks of all 300 rows" \
    test "$(field rows "$TMP/jacobi -d" | awk -F, 'NF == 2 { print $1 + $2 }')" = 300
# -b with thresholds that make it move rows: the job grows from and shrinks to uneven blocks;
# the residual is summed in row order, so it does not depend on them.
malleable "jacobi -d -b" "$TMP/jacobi.ref" "$J" -n 300 -i 120 -s 5 -b --xmpi-lb-th1=0 --xmpi-lb-k=1
echo "# jacobi -d -b: $(grep -Ec ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/jacobi -d -b.csv") interval(s) after a rebalance"

# CG carries r'r from one iteration to the next: the new processes must continue with its bits.
# -t 0 runs all 120 iterations, so that every change happens before the end.
"$LAUNCH" -np 2 "$CP" -g poisson3d:12 -t 0 -i 120 >"$TMP/cg.ref" 2>&1
malleable "cg -d" "$TMP/cg.ref" "$C" -g poisson3d:12 -t 0 -i 120
"$LAUNCH" -np 2 "$CP" -g uneven:3000 -t 0 -i 120 >"$TMP/cgu.ref" 2>&1
malleable "cg -d -b" "$TMP/cgu.ref" "$C" -g uneven:3000 -t 0 -i 120 -b --xmpi-lb=nnz --xmpi-lb-th1=0 --xmpi-lb-k=1
echo "# cg -d -b: $(grep -Ec ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/cg -d -b.csv") interval(s) after a rebalance"

# The epidemic's -M (its -d is the days): the day's states are replicated, each person's days
# sick and contacts distributed; rank 0 keeps the history. With -L, rows move by their work.
EP="$ROOT/$BUILD/bin/epidemic"
"$LAUNCH" -np 2 "$ROOT/$BUILD/bin/epidemic-plain" -n 20000 -d 120 >"$TMP/epi.ref" 2>&1
MFLAG=-M malleable "epidemic -M" "$TMP/epi.ref" "$EP" -n 20000 -d 120
MFLAG=-M malleable "epidemic -M -L" "$TMP/epi.ref" "$EP" -n 20000 -d 120 -L --xmpi-lb=weight --xmpi-lb-th1=0 --xmpi-lb-k=1
echo "# epidemic -M -L: $(grep -Ec ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/epidemic -M -L.csv") interval(s) after a rebalance"
