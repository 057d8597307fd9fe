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

# The model learns a spawn's and a removal's warm-up from the first whole interval after each
# and the next one (xmpi_predict_learn_warmup): its note gives the two intervals' computation
# (mean over the ranks of wall time outside MPI) and communication per iteration, which must be
# the trace's, and the factor it learned, first / next. -b off (th1 100): no rebalance between.
printf '# iteration action count class\n40 spawn 1 local\n100 remove 1 local\n' >"$TMP/events-warm"
out="$TMP/warmup"
RETRY_HOOK="rm -f '$out.csv'" launch_retry "$out" -np 1 "$J" -n 300 -i 180 -s 5 -d --xmpi-si=20 \
    --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/events-warm" --xmpi-oversubscribe \
    --xmpi-lb-th1=100 --xmpi-verbose=2 "--xmpi-trace=$out.csv"
check "warm-up run: exits 0" test $? = 0
# per_iter INTERVAL: "comp comm" per iteration of that trace row, as the model takes them.
per_iter() {
    awk -F, -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 == want { n = split($c["t_real_ranks"], t, ";"); split($c["comm_time_ranks"], m, ";")
                     comp = comm = 0; for (i = 1; i <= n; i++) { comp += t[i] - m[i]; comm += m[i] }
                     printf "%.6g %.6g\n", comp / n / $c["iterations"], comm / n / $c["iterations"] }' "$out.csv"
}
for kind in spawn:3 removal:6; do
    what=${kind%%:*}; first=${kind#*:}
    note=$(sed -n "s/.*prediction model: the first interval after the $what computed \([0-9.e+-]*\) s and communicated \([0-9.e+-]*\) s per iteration, the next \([0-9.e+-]*\) and \([0-9.e+-]*\); a $what's first interval now computes \([0-9.e+-]*\) times.*/\1 \2 \3 \4 \5/p" "$out.err")
    want="$(per_iter "$first") $(per_iter $((first + 1)))"
    check "warm-up: the $what's note gives intervals $first and $((first + 1)) as the trace does ($note / $want)" \
        awk -v a="$note" -v b="$want" 'BEGIN { split(a, x, " "); split(b, y, " ")
            if (x[1] == "" || y[2] == "") exit 1
            if (x[4] == "" || y[4] == "") exit 1
            for (i = 1; i <= 4; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-3 * y[i]) exit 1 }
            r = x[1] / x[3]; if (r > exp(1)) r = exp(1); if (r < exp(-1)) r = exp(-1)
            d = x[5] - r; if (d < 0) d = -d; exit !(d <= 2e-3 * r) }'
done
