# A spawn that cannot happen never hangs the job: every process gets XMPI_ERR_SPAWN in bounded
# time and the job goes on as it was (issue 14, part 1). Open MPI 4.1 refuses a spawn when the
# job has no free slot or names a host mpirun does not know, and its mpirun then never exits:
# the library checks the slots first (--xmpi-spawn-check=on, the default). Otherwise the
# refusal comes from MPI_Comm_spawn itself, on rank 0 alone, and is shared with the others.
. "$(dirname "$0")/lib.sh"
MPIRUN=${MPIRUN:-mpirun}
require_spawn "refused spawns"
if ! "$MPIRUN" --version 2>&1 | grep -qiE 'open ?(mpi|rte)'; then
    echo "ok - refused spawns # SKIP the slot and host checks are Open MPI's (launcher: $MPIRUN)"
    exit 0
fi
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PMIX_MCA_gds=${PMIX_MCA_gds:-hash}
T="$ROOT/$BUILD/tests/test_spawnfail"
J="$ROOT/$BUILD/bin/jacobi"
H=$(hostname)
# Plain mpirun, no --oversubscribe: Open MPI grants the job as many slots as it starts.
plain() { timeout -k 5 60 "$MPIRUN" -np 2 "$@"; }
tap() { sed "s/^\(not \)\{0,1\}ok - /&$1: /" "$2" | grep -E '^(not )?ok - '; }

# 1. No free slot (XMPI_Spawn): refused before MPI is called.
plain "$T" --xmpi-oversubscribe >"$TMP/slot.out" 2>"$TMP/slot.err"
rc=$?
tap "no free slot" "$TMP/slot.out"
check "no free slot: the job exits 0 in bounded time" test $rc = 0
check "no free slot: 5 checks reported" test "$(grep -c '^ok - ' "$TMP/slot.out")" = 5
check "no free slot: rank 0 says why and how to launch, once per call" \
    test "$(grep -c 'Open MPI grants this job 2 slot(s).*--oversubscribe' "$TMP/slot.err")" = 2
check "no free slot: MPI_Comm_spawn was not called" \
    sh -c "! grep -q 'already filled' '$TMP/slot.err'"

# run_to_done NAME COMMAND...: Open MPI 4.1's mpirun does not exit after MPI_Comm_spawn refused
# a spawn, even once the job's processes have: wait for the program's last line, check that
# every process left, then stop mpirun.
run_to_done() {
    local name=$1; shift
    timeout -k 5 90 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    local pid=$!
    for _ in $(seq 1 600); do
        grep -q '^# done' "$TMP/$name.out" 2>/dev/null && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    for _ in $(seq 1 100); do pgrep -f "^$T" >/dev/null || break; sleep 0.1; done
    check "$name: every process returned and left" \
        sh -c "grep -q '^# done' '$TMP/$name.out' && ! pgrep -f '^$T' >/dev/null"
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
    tap "$name" "$TMP/$name.out"
    check "$name: 5 checks reported" test "$(grep -c '^ok - ' "$TMP/$name.out")" = 5
    check "$name: rank 0 reports MPI's refusal, once per call" \
        test "$(grep -c 'MPI_Comm_spawn failed after 0 of 1 processes; XMPI_COMM_WORLD goes on with 2' "$TMP/$name.err")" = 2
}

# 2. A host outside the allocation: MPI_Comm_spawn refuses, on rank 0 only (the others wait
# in a broadcast of the result, not inside MPI_Comm_spawn), and every process learns it.
printf '%s:local:4:1\nnosuchhost:far:2:1\n' "$H" >"$TMP/res"
run_to_done "unknown host" "$MPIRUN" --oversubscribe -np 2 "$T" far "--xmpi-resources=$TMP/res"

# 3. No free slot with the check off: MPI_Comm_spawn refuses, as above.
run_to_done "spawn check off" "$MPIRUN" -np 2 "$T" --xmpi-oversubscribe --xmpi-spawn-check=off

# 4. A policy's spawn (the resource manager offers a PE) that cannot happen: the job goes on
# with its processes, the result is the static run's, the policy does not try again.
printf '5 spawn 1 local\n10 spawn 1 local\n' >"$TMP/ev"
plain "$J" -n 400 -i 100 >"$TMP/static.out" 2>&1
plain "$J" -n 400 -i 100 -d --xmpi-si=5 "--xmpi-rms=schedule:$TMP/ev" --xmpi-oversubscribe \
    --xmpi-policy=smp >"$TMP/smp.out" 2>"$TMP/smp.err"
rc=$?
sum() { sed -n 's/^result: .*checksum=\([0-9a-f]*\).*/\1/p' "$1"; }
check "policy spawn refused: the job exits 0" test $rc = 0
check "policy spawn refused: the result is bit-identical to the static run's" \
    sh -c "test -n '$(sum "$TMP/static.out")' && test '$(sum "$TMP/static.out")' = '$(sum "$TMP/smp.out")'"
check "policy spawn refused: said once, and that the policy spawns no more" \
    sh -c "test \$(grep -c 'Open MPI grants' '$TMP/smp.err') = 1 && grep -q 'policy=smp spawns no more processes' '$TMP/smp.err'"
