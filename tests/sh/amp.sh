# --xmpi-policy=amp: the goal and the constraint are checked at MPI_Init (missing goal, bad
# goal, a cost constraint over a pool that costs nothing); XMPI_Eval_reconfig without maxit is
# refused; a run on a slow class with a faster one free decides at every interval end, says
# so in the trace, may grow onto the fast class, and gives the static run's answer bit for bit.
. "$(dirname "$0")/lib.sh"
# Blocking spawns: this test asserts which intervals are decided on and which are warm-ups after a spawn;
# async.sh covers asynchronous spawns (--xmpi-spawn-async, on by default).
export XMPI_SPAWN_ASYNC=off
J="$ROOT/$BUILD/bin/jacobi"
H=$(hostname)
printf '%s:fast:2:4\n%s:slow:4:1:0.15\n' "$H" "$H" >"$TMP/res"
printf '%s:fast:2:0\n%s:slow:4:0:0.15\n' "$H" "$H" >"$TMP/free"
POOL=("--xmpi-resources=$TMP/res" --xmpi-initial=slow:2 --xmpi-oversubscribe)
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
col() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }

# stops DESC PATTERN ARGS...: the job ends before any work (exit 2) with PATTERN said once.
stops() {
    local desc=$1 pattern=$2; shift 2
    "$LAUNCH" -np 2 "$J" -n 100 -i 10 -d "$@" >"$TMP/out" 2>&1
    local rc=$?
    local n
    n=$(grep -c -- "$pattern" "$TMP/out")
    if [ $rc = 2 ] && [ "$n" = 1 ]; then ok "$desc"
    else notok "$desc (exit $rc, '$pattern' seen $n times)"; sed 's/^/#   /' "$TMP/out" | head -10; fi
}
stops "amp without a goal stops the job at MPI_Init" "needs a goal: --xmpi-goal=SECONDS" \
    --xmpi-policy=amp "${POOL[@]}"
stops "a goal of 0 is refused" "option --xmpi-goal: '0' is not accepted" \
    --xmpi-policy=amp --xmpi-goal=0 "${POOL[@]}"
stops "a goal of 100% is refused" "0 < PCT < 100" --xmpi-policy=amp --xmpi-goal=100% "${POOL[@]}"
stops "the cost constraint over a pool that costs nothing is refused" "every PE of the pool costs 0" \
    --xmpi-policy=amp --xmpi-goal=30% --xmpi-constraint=cost "--xmpi-resources=$TMP/free" \
    --xmpi-initial=slow:2 --xmpi-oversubscribe
stops "an unknown constraint is refused" "efficiency or cost" \
    --xmpi-policy=amp --xmpi-goal=30% --xmpi-constraint=speed "${POOL[@]}"
stops "a work profile that is not a trace is refused, naming the file and line" \
    "option --xmpi-work-profile: $TMP/res:1: no column 'iterations'" \
    "--xmpi-work-profile=$TMP/res" "${POOL[@]}"
stops "a work profile that cannot be read is refused" \
    "option --xmpi-work-profile: cannot read '$TMP/none.csv'" \
    "--xmpi-work-profile=$TMP/none.csv" "${POOL[@]}"

# XMPI_Eval_reconfig without maxit: refused on every process, said once, nothing moved.
cat >"$TMP/nomax.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <xmpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, count, displ, n = 100, bad = 0;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    XMPI_Get_wsize(rank, size, n, &count, &displ);
    int c0 = count, d0 = displ;
    for (int it = 0; it < 4; it++) {
        XMPI_Monitor_si_init();
        XMPI_Monitor_add_work(1.0 * count);
        MPI_Barrier(XMPI_COMM_WORLD);
        int rc = XMPI_Eval_reconfig(rank, size, it, 0, &count, &displ, NULL, NULL, NULL);
        if (rc == XMPI_ERR_ARG) bad++;
    }
    printf("rank %d refused %d unchanged %d\n", rank, bad, count == c0 && displ == d0);
    MPI_Finalize();
    return 0;
}
C
if ${MPICC:-mpicc} -std=c11 -I"$ROOT/include" -o "$TMP/nomax" "$TMP/nomax.c" -L"$ROOT/$BUILD/lib" \
       -lxmpi -Wl,-rpath,"$ROOT/$BUILD/lib" 2>"$TMP/cc.err"; then
    "$LAUNCH" -np 2 "$TMP/nomax" --xmpi-si=2 --xmpi-policy=amp --xmpi-goal=10 >"$TMP/nm" 2>&1
    check "amp: XMPI_Eval_reconfig with maxit 0 returns XMPI_ERR_ARG at each interval end, nothing moved" \
        test "$(grep -c 'refused 2 unchanged 1' "$TMP/nm")" = 2
    check "... and says why once" test "$(grep -c 'amp needs maxit' "$TMP/nm")" = 1
else
    notok "the maxit test program compiles"; sed 's/^/#   /' "$TMP/cc.err" | head
fi

require_spawn "amp end to end"
"$LAUNCH" -np 2 "$J" -n 1200 -i 400 -d --xmpi-si=40 "${POOL[@]}" "--xmpi-trace=$TMP/static.csv" \
    >"$TMP/static" 2>&1
RETRY_HOOK="rm -f '$TMP/amp.csv'" launch_retry "$TMP/amp.out" -np 2 "$J" -n 1200 -i 400 -d \
    --xmpi-si=40 --xmpi-policy=amp --xmpi-goal=40% --xmpi-constraint=cost "${POOL[@]}" \
    --xmpi-verbose "--xmpi-trace=$TMP/amp.csv" "--xmpi-work-profile=$TMP/static.csv"
check "amp: jacobi exits 0" test $? = 0
check "amp: the static run's trace is taken as the work profile" \
    test "$(grep -c "work profile: 10 intervals from $TMP/static.csv" "$TMP/amp.out.err")" = 1
check "amp: the answer is the static run's, bit for bit" \
    test -n "$(field checksum "$TMP/static")" -a "$(field checksum "$TMP/static")" = "$(field checksum "$TMP/amp.out")"
check "amp: the goal is fixed once and said" test "$(grep -c 'amp: goal .* s from the start (40% sooner than the static estimate, .* s, for the iterations from .* s on), constraint cost' "$TMP/amp.out.err")" = 1
rows=$(col "$TMP/amp.csv" policy | grep -c '^amp$')
check "amp: every interval end but the last is decided ($rows rows)" test "$rows" -ge 8
# A PCT% goal is fixed at the first balanced interval (three at most): the intervals before
# it wait and name no goal, how many depends on the machine's pace.
waiting=$(grep -c 'waiting for a balanced interval' "$TMP/amp.csv")
check "amp: at most 3 intervals wait for a balanced one ($waiting)" test "$waiting" -le 3
check "amp: the trace names the goal at every other decision" \
    test "$(col "$TMP/amp.csv" event | grep -c '^goal [0-9.]* s$')" = "$((rows - waiting))"
unexplained=$(paste -d'|' <(col "$TMP/amp.csv" policy) <(col "$TMP/amp.csv" why) | grep -c '^amp|$')
check "amp: every decision is explained" test "$unexplained" = 0
odd=$(col "$TMP/amp.csv" decision | grep -v '^$' | grep -Evc '^(keep|spawn [0-9]+|remove [0-9]+)$')
check "amp: decisions are keep, spawn N or remove N" test "$odd" = 0
check "amp: an unreachable goal is said once, not at every interval" \
    test "$(grep -c 'cannot be met' "$TMP/amp.out.err")" -le 1
check "amp: it never adds the slow class, slower and dearer per unit of work here" \
    test "$(col "$TMP/amp.csv" procs_by_class | grep -Ec 'slow=([3-9])')" = 0
# The interval after a spawn warms the new processes up (TCP connections, caches): AMP decides
# nothing on it, and says so.
set -- $(paste -d'|' <(col "$TMP/amp.csv" action) <(col "$TMP/amp.csv" why) |
         awk -F'|' 'prev ~ /spawn/ { n++; if ($2 !~ /warm-up/) bad++ } { prev = $1 } END { print n + 0, bad + 0 }')
check "amp: each interval after a spawn is a warm-up, nothing decided ($1 spawns, $2 decided on)" \
    test "$2" = 0
# A goal in seconds needs no estimate, but the first decision still waits for a balanced
# interval (three at most): the model prices the next interval from the last. The run starts on one
# slow and one fast process with rows split evenly, so that its first interval is far from
# balanced; the first row decided on is within the balancer's threshold (10%) of compute
# imbalance, or comes after 3 waits.
goal_s=$(col "$TMP/static.csv" elapsed | tail -n 1 | awk '{ printf "%.3f", $1 * 0.8 }')
RETRY_HOOK="rm -f '$TMP/sec.csv'" launch_retry "$TMP/sec.out" -np 2 "$J" -n 1200 -i 400 -d \
    --xmpi-si=40 --xmpi-policy=amp "--xmpi-goal=$goal_s" "--xmpi-resources=$TMP/res" \
    --xmpi-initial=slow:1,fast:1 --xmpi-oversubscribe "--xmpi-trace=$TMP/sec.csv"
check "amp, goal in seconds ($goal_s s): jacobi exits 0" test $? = 0
set -- $(paste -d'|' <(col "$TMP/sec.csv" why) <(col "$TMP/sec.csv" t_real_ranks) \
             <(col "$TMP/sec.csv" comm_time_ranks) | awk -F'|' '
    $1 ~ /^waiting for a balanced interval before deciding/ { w++; next }
    $1 ~ /^waiting/ { odd++; next }
    { n = split($2, t, ";"); split($3, c, ";"); lo = hi = t[1] - c[1]
      for (i = 2; i <= n; i++) { x = t[i] - c[i]; if (x < lo) lo = x; if (x > hi) hi = x }
      printf "%d %.4f %d\n", w + 0, (hi > 0 ? (hi - lo) / hi : 0), odd + 0; exit }')
check "amp, goal in seconds: decides first on an interval within 10% of compute imbalance, or after 3 waits ($1 waits, imbalance $2)" \
    awk -v w="${1:-9}" -v imb="${2:-1}" 'BEGIN { exit !(w == 3 || (w < 3 && imb <= 0.10)) }'
check "amp, goal in seconds: the waits say they wait before deciding, not estimating" test "${3:-1}" = 0
grown=$(col "$TMP/amp.csv" procs_by_class | grep -c 'fast=')
echo "# amp grew onto the fast class in $grown of $rows intervals; sizes: $(col "$TMP/amp.csv" nprocs | tr '\n' ' ')"
