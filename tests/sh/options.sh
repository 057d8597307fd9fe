# Bad --xmpi- options and XMPI_ variables stop the job before any work with one
# message naming the option; --xmpi-help lists every option and exits 0.
. "$(dirname "$0")/lib.sh"
PROG="$ROOT/$BUILD/tests/test_profile"

# expect_stop DESCRIPTION PATTERN [ENV=VAL...] -- ARGS...: the job must exit non-zero,
# print PATTERN once (from one rank), and run no test (no Check output).
expect_stop() {
    local desc=$1 pattern=$2; shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$LAUNCH" -np 2 "$PROG" "$@" >"$TMP/out" 2>&1
    local rc=$?
    local n
    n=$(grep -c -- "$pattern" "$TMP/out")
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$n" = 1 ] && ! grep -q 'Checks:' "$TMP/out"; then
        ok "$desc"
    else
        notok "$desc (exit $rc, '$pattern' seen $n times)"; sed 's/^/#   /' "$TMP/out" | head -20
    fi
}

expect_stop "si=0 is refused" "option --xmpi-si: '0' is not accepted; expected an integer" -- --xmpi-si=0
expect_stop "emulate-period=999 is refused" "option --xmpi-emulate-period: '999' is not accepted; expected an integer number of microseconds from 1000 to 100000" -- --xmpi-emulate-period=999
expect_stop "emulate-period=100001 is refused" "option --xmpi-emulate-period: '100001'" -- --xmpi-emulate-period=100001
expect_stop "si=abc is refused" "option --xmpi-si: 'abc'" -- --xmpi-si=abc
expect_stop "verbose=7 is refused" "option --xmpi-verbose: '7'" -- --xmpi-verbose=7
expect_stop "empty events refused" "option --xmpi-events" -- --xmpi-events=
expect_stop "unknown option named with the accepted list" \
    "unknown option --xmpi-sii; accepted: --xmpi-si, --xmpi-trace" -- --xmpi-sii=3
expect_stop "bad XMPI_SI refused" "environment variable XMPI_SI: '-4'" XMPI_SI=-4 --
expect_stop "unknown XMPI_ variable refused" "unknown environment variable XMPI_TRACEFILE" \
    XMPI_TRACEFILE=x --
expect_stop "unwritable trace refused" "cannot write '$TMP/no/such/dir/t.csv'" -- \
    "--xmpi-trace=$TMP/no/such/dir/t.csv"
expect_stop "an unknown policy is refused with the accepted list" \
    "option --xmpi-policy: 'fastest' is not accepted; expected static, smp, hpmp or amp" -- \
    --xmpi-policy=fastest
expect_stop "amp without a goal is refused" "option --xmpi-policy=amp needs a goal" \
    -- --xmpi-policy=amp
expect_stop "max-procs below the initial processes is refused" \
    "option --xmpi-max-procs: 1 is below the 2 processes mpirun started" -- --xmpi-max-procs=1
expect_stop "argv checked even when env is fine" "option --xmpi-si: '0'" XMPI_SI=5 -- --xmpi-si=0

# argv wins over the environment when both give a valid value.
XMPI_SI=7 XMPI_VERBOSE=1 "$LAUNCH" -np 2 "$ROOT/$BUILD/tests/test_monitor" --xmpi-si=4 \
    "--xmpi-trace=$TMP/t.csv" >"$TMP/out" 2>&1
check "argv (si=4) wins over XMPI_SI=7" grep -q '^100%: Checks: 3' "$TMP/out"
check "XMPI_VERBOSE=1 from the environment prints one progress line per interval" \
    test "$(grep -c '^xmpi: interval ' "$TMP/out")" = 3

# The command line wins outright: a variable it overrides is not even checked, for every kind
# of option (integer, choice, file name, checked syntax); only the effective value is.
XMPI_SI=0 XMPI_LB=fastest XMPI_TRACE= XMPI_EVENTS=A,,B XMPI_VERBOSE=7 "$LAUNCH" -np 2 \
    "$ROOT/$BUILD/tests/test_monitor" --xmpi-si=4 --xmpi-lb=rows "--xmpi-trace=$TMP/t2.csv" \
    --xmpi-events=PAPI_TOT_CYC --xmpi-verbose=0 >"$TMP/out" 2>&1
rc=$?
check "bad XMPI_SI, XMPI_LB, XMPI_TRACE, XMPI_EVENTS, XMPI_VERBOSE overridden on the command line: the job runs (exit $rc)" \
    sh -c "test $rc = 0 && grep -q '^100%: Checks: 3' '$TMP/out' && ! grep -q 'not accepted' '$TMP/out'"
check "... with the command line's values (si=4: 3 trace rows, verbose=0: no progress line)" \
    sh -c "test \$(wc -l <'$TMP/t2.csv') = 4 && ! grep -q '^xmpi: interval ' '$TMP/out'"
expect_stop "a bad variable the command line does not override is still refused" \
    "environment variable XMPI_VERBOSE: '7' is not accepted" XMPI_SI=0 XMPI_VERBOSE=7 -- --xmpi-si=5
expect_stop "an unknown XMPI_ variable is refused even beside an overridden one" \
    "unknown environment variable XMPI_SII" XMPI_SI=0 XMPI_SII=1 -- --xmpi-si=5

"$LAUNCH" -np 2 "$PROG" --xmpi-help >"$TMP/help" 2>&1
rc=$?
check "--xmpi-help exits 0" test $rc = 0
for o in si trace verbose events help; do
    check "--xmpi-help lists --xmpi-$o" grep -q -- "--xmpi-$o" "$TMP/help"
done
check "--xmpi-help prints once and runs no test" \
    test "$(grep -c 'libxmpi options' "$TMP/help")" = 1 -a "$(grep -c Checks: "$TMP/help")" = 0

# No silent no-op: an option the job's other options make idle is said once, by rank 0, at
# MPI_Init, with what would make it act; the job runs as without it (docs/options.md).
J="$ROOT/$BUILD/bin/jacobi"
printf '# iteration action count class\n5 spawn 1 local\n' >"$TMP/sched"
"$LAUNCH" -np 2 "$J" -n 64 -i 10 -d "--xmpi-rms=schedule:$TMP/sched" --xmpi-goal=20% --xmpi-oversubscribe \
    --xmpi-checkpoint-keep=3 >"$TMP/idle" 2>&1
rc=$?
check "idle options: the job runs (exit $rc) and does not grow under the static policy" \
    sh -c "test $rc = 0 && grep -q 'ranks=2 ' '$TMP/idle'"
check "... --xmpi-rms under static is said once, naming the policies that follow it" \
    test "$(grep -c 'option --xmpi-rms has no effect in this job; it acts with --xmpi-policy=smp, hpmp or amp' "$TMP/idle")" = 1
check "... --xmpi-goal without amp is said once" \
    test "$(grep -c 'option --xmpi-goal has no effect in this job; it acts with --xmpi-policy=amp' "$TMP/idle")" = 1
check "... --xmpi-checkpoint-keep without --xmpi-checkpoint is said once" \
    test "$(grep -c 'option --xmpi-checkpoint-keep has no effect in this job; it acts with --xmpi-checkpoint=DIR' "$TMP/idle")" = 1
"$LAUNCH" -np 2 "$J" -n 64 -i 10 -d --xmpi-policy=amp --xmpi-goal=20% >"$TMP/idle2" 2>&1
check "... and nothing is said where the option acts (--xmpi-goal under amp)" \
    sh -c "! grep -q 'has no effect' '$TMP/idle2'"
