# Recovery from a crash (issue 19, item 4): xmpi-resume relaunches a job that lost a process
# from its latest checkpoint, and the job finishes with the uninterrupted run's answer.
# LIBXMPI_FAULT=after-checkpoint-kill kills the last rank just after a checkpoint is published,
# in a job that did not restart (so the relaunch runs through).
. "$(dirname "$0")/lib.sh"
J="$ROOT/$BUILD/bin/jacobi"
R="$ROOT/tools/xmpi-resume"
export XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-60}
JA=(-n 120 -i 60 -s 7 -d)
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }

"$LAUNCH" -np 2 "$J" "${JA[@]}" >"$TMP/ref" 2>&1
c=$(field checksum "$TMP/ref")
check "the uninterrupted run prints a result" test -n "$c"

LIBXMPI_FAULT=after-checkpoint-kill "$R" -r 2 "$LAUNCH" -np 2 "$J" "${JA[@]}" --xmpi-si=10 \
    "--xmpi-checkpoint=$TMP/c" --xmpi-checkpoint-every=20 >"$TMP/out" 2>&1
rc=$?
check "a process dies after the first checkpoint and the wrapper relaunches once" \
    sh -c "test \$(grep -c 'xmpi-resume: the job failed (exit [0-9]*); relaunch 1 of 2 from $TMP/c/ckpt-000000000020' '$TMP/out') = 1 &&
           ! grep -q 'relaunch 2 of' '$TMP/out'"
check "the relaunched job ends with exit 0 and the uninterrupted run's checksum and residual" \
    sh -c "test $rc = 0 && test '$(field checksum "$TMP/out")' = '$c' &&
           test '$(field residual "$TMP/out")' = '$(field residual "$TMP/ref")'"
check "one result line only (the killed job printed none)" test "$(grep -c '^result:' "$TMP/out")" = 1

# The limits: a configuration error is not retried; a command that always fails is relaunched
# -r times, then the wrapper returns its status.
"$R" -r 2 "$LAUNCH" -np 2 "$J" "${JA[@]}" -u 0 "--xmpi-checkpoint=$TMP/c2" >"$TMP/usage" 2>&1
rc=$?
check "a configuration error (exit 2) is not relaunched" \
    sh -c "test $rc = 2 && grep -q 'configuration error (exit 2); not relaunched' '$TMP/usage'"
"$R" -r 1 sh -c 'exit 3' --xmpi-checkpoint="$TMP/c3" >"$TMP/limit" 2>&1
rc=$?
check "a job that keeps failing is relaunched -r times, then its status is returned" \
    sh -c "test $rc = 3 && test \$(grep -c 'relaunch 1 of 1 from the start' '$TMP/limit') = 1 &&
           grep -q 'relaunch(es) are used up' '$TMP/limit'"
# XMPI_RESUME_RETRIES, as documented, does not reach the job (libxmpi refuses XMPI_ variables
# it does not know).
XMPI_RESUME_RETRIES=1 "$R" "$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-checkpoint=$TMP/c4" >"$TMP/env" 2>&1
rc=$?
check "XMPI_RESUME_RETRIES set: the job runs as without it (exit $rc)" \
    sh -c "test $rc = 0 && test '$(field checksum "$TMP/env")' = '$c'"
"$R" "$LAUNCH" -np 1 "$J" -n 10 >"$TMP/nodir" 2>&1
rc=$?
check "without --xmpi-checkpoint the wrapper refuses to start" \
    sh -c "test $rc = 2 && grep -q 'gives no --xmpi-checkpoint=DIR' '$TMP/nodir'"
check "no process is left" sh -c "! pgrep -f '^$J -n 120' >/dev/null"
