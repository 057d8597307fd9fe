# --xmpi-spawn-async (on by default): a policy's spawn runs on rank 0's helper thread while the
# job computes, and the new processes join at a later interval end. Jacobi and CG -d and the
# epidemic code -M grow 2 -> 3 -> 4 and shrink to 2 under --xmpi-policy=smp, in both spawn
# modes, with the plain-MPI run's answer bit for bit; the trace shows the spawn under way
# ("spawning") before the join. Then the edges: a spawn still under way at MPI_Finalize (its
# processes leave without running the program), a spawn MPI refuses on the helper thread (the
# job goes on as it was), and an MPI library without MPI_THREAD_MULTIPLE (spawns block, one
# note). A single spawn's lag is measured once and taken by the model. No process may be left
# behind.
. "$(dirname "$0")/lib.sh"
require_spawn "asynchronous spawns"
J="$ROOT/$BUILD/bin/jacobi"
JP="$ROOT/$BUILD/bin/jacobi-plain"
C="$ROOT/$BUILD/bin/cg"
CP="$ROOT/$BUILD/bin/cg-plain"
E="$ROOT/$BUILD/bin/epidemic"
EP="$ROOT/$BUILD/bin/epidemic-plain"

field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
# sizes TRACE: the nprocs column with repeats folded, e.g. "2 3 4 2".
sizes() { awk -F, 'NR > 1 && $3 != last { printf "%s%s", (n++ ? " " : ""), $3; last = $3 }' "$1"; }
# column TRACE NAME: the values of one trace column, by its header name.
column() { awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } k { print $k }' "$1"; }

# A spawn takes 0.3-0.8 s here: the events leave the job time to finish each one before the
# next (a policy waits for the spawn it decided, and a later event waits with it).
printf '20 spawn 1 local\n200 spawn 1 local\n400 remove 2 local\n' >"$TMP/events"

# grow NAME REF PROG ARGS...: PROG ARGS on 2 processes under the schedule, asynchronous spawns
# (the default), against the plain run REF.
grow() {
    local name=$1 ref=$2 prog=$3
    shift 3
    local out="$TMP/$name"
    RETRY_HOOK="rm -f '$out.csv'" launch_retry "$out" -np 2 "$prog" "$@" --xmpi-si=20 \
        --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/events" --xmpi-oversubscribe \
        --xmpi-verbose=1 "--xmpi-trace=$out.csv"
    local rc=$?
    check "$name: exits 0" test $rc = 0
    [ $rc = 0 ] || sed 's/^/#   /' "$out" "$out.err" | tail -8
    check "$name: the plain run's checksum" \
        test -n "$(field checksum "$ref")" -a "$(field checksum "$ref")" = "$(field checksum "$out")"
    check "$name: the trace shows 2, 3, 4, then 2 processes" test "$(sizes "$out.csv")" = "2 3 4 2"
    # The interval that started each spawn still ran on the old processes; the join came later.
    check "$name: two spawns were started asynchronously" \
        test "$(column "$out.csv" action | grep -c spawning)" = 2
    check "$name: ... and joined at a later interval end" \
        test "$(grep -c 'asynchronous spawn of 1: 1 started in .* s beside the computation (.*); joined in' "$out.err")" = 2
    check "$name: one result line" test "$(grep -c '^result:' "$out")" = 1
    local left
    left=$(leftovers "$prog")
    check "$name: no process left behind${left:+ (pids $left)}" test -z "$left"
}

"$LAUNCH" -np 2 "$JP" -n 1000 -i 3000 >"$TMP/jacobi.ref" 2>&1
grow "jacobi -d single" "$TMP/jacobi.ref" "$J" -n 1000 -i 3000 -d
grow "jacobi -d group" "$TMP/jacobi.ref" "$J" -n 1000 -i 3000 -d --xmpi-spawn=group
"$LAUNCH" -np 2 "$CP" -g poisson3d:24 -t 0 -i 6000 >"$TMP/cg.ref" 2>&1
grow "cg -d" "$TMP/cg.ref" "$C" -g poisson3d:24 -t 0 -i 6000 -d
"$LAUNCH" -np 2 "$EP" -n 200000 -d 1200 >"$TMP/epi.ref" 2>&1
grow "epidemic -M" "$TMP/epi.ref" "$E" -n 200000 -d 1200 -M

# A spawn's lag: with one spawn and nothing after it, rank 0 measures what the spawn cost the
# iterations beyond its join (the intervals it ran beside, the warm-up) once the interval
# after the warm-up is in, and the model takes it: one note whose parts add up to its total.
printf '20 spawn 1 local\n' >"$TMP/one"
RETRY_HOOK="rm -f '$TMP/lag.csv'" launch_retry "$TMP/lag" -np 2 "$J" -n 1000 -i 3000 -d \
    --xmpi-si=20 --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/one" --xmpi-oversubscribe \
    --xmpi-verbose=2 "--xmpi-trace=$TMP/lag.csv"
check "lag: exits 0, grown to 3" test $? = 0 -a "$(sizes "$TMP/lag.csv")" = "2 3"
lag=$(sed -n "s/.*prediction model: the last spawn cost the iterations \(-*[0-9.e+-]*\) s beyond itself (\(-*[0-9.e+-]*\) s beside it, \(-*[0-9.e+-]*\) s warming up); a spawn's lag is now \([0-9.e+-]*\) s$/\1 \2 \3 \4/p" "$TMP/lag.err")
check "lag: measured once${lag:+ ($lag)}" test "$(echo "$lag" | grep -c .)" = 1
check "lag: beside + warming up = the total, and the model's lag is that total (0 if below)" \
    awk -v l="$lag" 'function abs(x) { return x < 0 ? -x : x }
        BEGIN { split(l, v, " "); t = v[1] + 0; want = t > 0 ? t : 0; tol = 2e-3 * (abs(t) > 1 ? abs(t) : 1)
                exit !(abs(v[2] + v[3] - t) <= tol && abs(v[4] - want) <= tol) }'

# A spawn still under way when the job ends: the job is not held up, its processes leave.
printf '5 spawn 1 local\n' >"$TMP/late"
out="$TMP/late.out"
launch_retry "$out" -np 2 "$J" -n 300 -i 40 -d --xmpi-si=5 --xmpi-policy=smp \
    "--xmpi-rms=schedule:$TMP/late" --xmpi-oversubscribe --xmpi-verbose=1
rc=$?
"$LAUNCH" -np 2 "$JP" -n 300 -i 40 >"$TMP/late.ref" 2>&1
check "spawn under way at MPI_Finalize: exits 0" test $rc = 0
check "spawn under way at MPI_Finalize: the plain run's checksum on 2 processes" \
    test "$(field checksum "$TMP/late.ref")" = "$(field checksum "$out")" -a "$(field ranks "$out")" = 2
check "spawn under way at MPI_Finalize: rank 0 says the process left without joining" \
    grep -q 'asynchronous spawn of 1 process(es) had not joined at MPI_Finalize: 1 started and left' "$out.err"
check "spawn under way at MPI_Finalize: one result line" test "$(grep -c '^result:' "$out")" = 1
left=$(leftovers "$J")
check "spawn under way at MPI_Finalize: no process left behind${left:+ (pids $left)}" test -z "$left"

# MPI refuses the spawn on the helper thread (the test hook plays an MPI that cannot spawn):
# the job goes on with its 2 processes and its answer, and the policy spawns no more.
out="$TMP/refused.out"
LIBXMPI_FAULT=spawn-refuse launch_retry "$out" -np 2 "$J" -n 1000 -i 3000 -d --xmpi-si=20 \
    --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/events" --xmpi-oversubscribe --xmpi-resize=spawn \
    "--xmpi-trace=$out.csv"
rc=$?
check "refused asynchronous spawn: exits 0" test $rc = 0
check "refused asynchronous spawn: the plain run's checksum on 2 processes" \
    test "$(field checksum "$TMP/jacobi.ref")" = "$(field checksum "$out")" -a "$(field ranks "$out")" = 2
check "refused asynchronous spawn: rank 0 says MPI_Comm_spawn failed and policies spawn no more" \
    sh -c "grep -q 'MPI_Comm_spawn failed after 0 of 1' '$out.err' && grep -q 'spawns no more processes' '$out.err'"
check "refused asynchronous spawn: the trace never shows more than 2 processes" \
    test "$(sizes "$out.csv")" = 2

# No MPI_THREAD_MULTIPLE (the test hook lowers what MPI provided): one note, blocking spawns
# at the very interval ends that decided them, the same answer.
out="$TMP/nothreads.out"
LIBXMPI_FAULT=no-thread-multiple RETRY_HOOK="rm -f '$out.csv'" launch_retry "$out" -np 2 "$J" \
    -n 1000 -i 3000 -d --xmpi-si=20 --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/events" \
    --xmpi-oversubscribe "--xmpi-trace=$out.csv"
rc=$?
check "without MPI_THREAD_MULTIPLE: exits 0" test $rc = 0
check "without MPI_THREAD_MULTIPLE: one note naming the option and the thread level" \
    test "$(grep -c 'option --xmpi-spawn-async=on: the MPI library does not provide MPI_THREAD_MULTIPLE' "$out.err")" = 1
check "without MPI_THREAD_MULTIPLE: the plain run's checksum" \
    test "$(field checksum "$TMP/jacobi.ref")" = "$(field checksum "$out")"
check "without MPI_THREAD_MULTIPLE: blocking spawns at iterations 20 and 200" \
    test "$(sed -n 's/^jacobi: \(iteration [0-9]*: spawned\).*/\1/p' "$out" | tr '\n' ' ')" = "iteration 20: spawned iteration 200: spawned "
check "without MPI_THREAD_MULTIPLE: nothing was spawned asynchronously" \
    test "$(column "$out.csv" action | grep -c spawning)" = 0
# A short run whose asynchronous spawn never joins, with a removal due after it: the job ends
# at its own pace, and rank 0 says once that the spawn did not join and what the schedule asked
# that was not carried out (the resource manager's events wait for the join).
printf '# iteration action count class\n10 spawn 1 local\n15 remove 1 local\n' >"$TMP/short.events"
out=$TMP/short
"$LAUNCH" -np 2 "$J" -n 64 -i 20 -d --xmpi-si=5 --xmpi-policy=smp \
    "--xmpi-rms=schedule:$TMP/short.events" --xmpi-oversubscribe >"$out" 2>"$out.err"
rc=$?
check "a spawn that never joins: the job ends (exit $rc) on its 2 processes" \
    sh -c "test $rc = 0 && grep -q 'ranks=2 ' '$out'"
check "... said once: the spawn had not joined" \
    test "$(grep -c 'the asynchronous spawn of 1 process(es) had not joined when the job ended' "$out.err")" = 1
check "... said once: the removal due after it was not carried out, and why" \
    test "$(grep -c 'option --xmpi-rms: the job ended before it carried out the removal of 1 local due at iteration 15 (line 3) (the resource manager.s events wait for the asynchronous spawn.s join)' "$out.err")" = 1
left=$(leftovers "$J")
check "no process left behind${left:+ (pids $left)}" test -z "$left"
