# Dynamic processes end to end: grow 2 -> 3 -> 5 and shrink 5 -> 3 -> 2 in single and group
# spawn modes (test_world prints one TAP line per agreed check), removed processes finish
# MPI_Finalize and exit, and bad resource configuration stops the job at start-up.
. "$(dirname "$0")/lib.sh"
require_spawn "dynamic processes"
T="$ROOT/$BUILD/tests/test_world"
H=$(hostname)
printf '# two classes on this host: 2 fast PEs, 3 slow ones\n%s:fast:2:1\n%s:slow:3:1:0.5\n' "$H" "$H" >"$TMP/res"

for mode in single group; do
    RETRY_HOOK="rm -rf '$TMP/$mode'; mkdir -p '$TMP/$mode'"
    launch_retry "$TMP/$mode.out" -np 2 "$T" "$TMP/$mode" "--xmpi-resources=$TMP/res" "--xmpi-spawn=$mode"
    rc=$?
    RETRY_HOOK=
    sed "s/^\(not \)\{0,1\}ok - /&$mode spawn: /" "$TMP/$mode.out" | grep -E '^(not )?ok - '
    check "$mode spawn: the job exits 0" test $rc = 0
    check "$mode spawn: 28 checks reported" test "$(grep -c "^ok - " "$TMP/$mode.out")" = 28
    check "$mode spawn: the 3 removed processes returned from MPI_Finalize" \
        test "$(ls "$TMP/$mode" | grep -c '^removed\.')" = 3
    check "$mode spawn: a spawn refused inside a monitored iteration says why, once" \
        test "$(grep -c 'XMPI_Spawn: called inside a monitored iteration' "$TMP/$mode.out.err")" = 1
done

# Start-up configuration errors stop the job before any work, naming the file and line.
printf '%s:fast:2:1\n%s:slow:two:1\n' "$H" "$H" >"$TMP/bad.res"
"$LAUNCH" -np 2 "$T" "$TMP" "--xmpi-resources=$TMP/bad.res" >"$TMP/bad.out" 2>&1
rc=$?
check "a malformed resource file stops the job" test $rc -ne 0 -a $rc -ne 124
check "... naming file, line and field" grep -q "bad.res:2: field PEs" "$TMP/bad.out"
check "... before any work" test "$(grep -c '^ok - ' "$TMP/bad.out")" = 0

"$LAUNCH" -np 2 "$T" "$TMP" "--xmpi-resources=$TMP/res" --xmpi-initial=fast:1,medium:1 \
    >"$TMP/init.out" 2>&1
rc=$?
check "an --xmpi-initial class not in the pool stops the job" \
    sh -c "test $rc -ne 0 -a $rc -ne 124 && grep -q 'medium' '$TMP/init.out'"
"$LAUNCH" -np 2 "$T" "$TMP" "--xmpi-resources=$TMP/res" --xmpi-initial=fast:3 >"$TMP/init2.out" 2>&1
rc=$?
check "--xmpi-initial counts must add up to the processes started" \
    sh -c "test $rc -ne 0 -a $rc -ne 124 && grep -q 'initial' '$TMP/init2.out'"
