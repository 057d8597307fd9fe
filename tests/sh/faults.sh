# Fault injection (issue 14): a spawned process killed or stopped during its join or during a
# data movement ends the job in bounded time with a message, never a hang. Killed: the
# launcher sees the process die and ends the job. Stopped: the others' waits are bounded by
# --xmpi-wait-timeout and they exit with status 4, naming what they waited for.
# LIBXMPI_FAULT=POINT-kill|POINT-stop is the library's test hook (docs/failures.md).
. "$(dirname "$0")/lib.sh"
# Blocking spawns: this test asserts the faults of a spawn that joins at the interval end that decided it;
# async.sh covers asynchronous spawns (--xmpi-spawn-async, on by default).
export XMPI_SPAWN_ASYNC=off
require_spawn "fault injection"
J="$ROOT/$BUILD/bin/jacobi"
printf '3 spawn 1 local\n' >"$TMP/ev"
args=(-np 2 "$J" -n 400 -i 400 -d --xmpi-si=5 "--xmpi-rms=schedule:$TMP/ev" --xmpi-oversubscribe
      --xmpi-policy=smp --xmpi-wait-timeout=5)
left() { pgrep -f "^$J -n 400 -i 400 -d" >/dev/null; }

# The same job without a fault grows and finishes with the static run's result.
XMPIRUN_TIMEOUT=60 "$LAUNCH" "${args[@]}" >"$TMP/clean.out" 2>&1
rc=$?
XMPIRUN_TIMEOUT=60 "$LAUNCH" -np 2 "$J" -n 400 -i 400 >"$TMP/static.out" 2>&1
sum() { sed -n 's/^result: .*checksum=\([0-9a-f]*\).*/\1/p' "$1"; }
check "no fault: the job grows to 3 processes and exits 0" \
    sh -c "test $rc = 0 && grep -q '^result: .*ranks=3' '$TMP/clean.out'"
check "no fault: bit-identical to the static run" \
    sh -c "test -n '$(sum "$TMP/static.out")' && test '$(sum "$TMP/static.out")' = '$(sum "$TMP/clean.out")'"

for fault in join-kill join-stop move-kill move-stop; do
    start=$(date +%s)
    LIBXMPI_FAULT=$fault XMPIRUN_TIMEOUT=60 "$LAUNCH" "${args[@]}" >"$TMP/$fault.out" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    for _ in $(seq 1 50); do left || break; sleep 0.1; done
    # Not by the time limit (124); the messages below tell a fault's end from a hang killed.
    check "$fault: the job fails (exit $rc, after ${took} s), not by the test's time limit" \
        sh -c "test $rc -ne 0 -a $rc -ne 124"
    check "$fault: no result is printed" sh -c "! grep -q '^result:' '$TMP/$fault.out'"
    case $fault in
    *-kill)
        # Open MPI's mpirun, or MPICH's Hydra ("BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES").
        check "$fault: the launcher says a process died" \
            grep -qE 'exited on signal 9|signal 9 \(Killed\)|unexpectedly disconnected|non-zero exit|BAD TERMINATION' \
            "$TMP/$fault.out" ;;
    join-stop)
        check "$fault: the processes say what they waited for" \
            grep -q 'XMPI_Spawn (starting and joining 1 new process(es)) did not finish within --xmpi-wait-timeout=5 s' \
            "$TMP/$fault.out" ;;
    move-stop)
        check "$fault: the processes say what they waited for" \
            grep -q '(moving the registered data) did not finish within --xmpi-wait-timeout=5 s' \
            "$TMP/$fault.out" ;;
    esac
    check "$fault: no process is left" sh -c "! pgrep -f '^$J -n 400 -i 400 -d' >/dev/null"
done
