#!/usr/bin/env bash
# The program's data for joining processes (XMPI_Set_app_data): to a process XMPI_Spawn
# starts, and through a checkpoint to every process of a restarted job at another size.
. "$(dirname "$0")/lib.sh"
T="$ROOT/$BUILD/tests/test_appdata"

if [ "${LIBXMPI_TEST_SPAWN:-yes}" = no ]; then
    ok "app data to a spawned process # SKIP this MPI library cannot spawn processes"
else
    launch_retry "$TMP/spawn" -np 2 "$T" spawn --xmpi-oversubscribe
    rc=$?
    cat "$TMP/spawn"
    check "the spawn scenario ends (exit $rc)" test $rc = 0
fi
"$LAUNCH" -np 2 "$T" write "--xmpi-checkpoint=$TMP/ck" >"$TMP/write" 2>&1
rc=$?
cat "$TMP/write"
check "a checkpoint with app data is written (exit $rc)" test $rc = 0
check "... the manifest names the data file with its size and CRC" \
    grep -Eq '^app 22 [0-9a-f]{8} app-data$' "$TMP/ck/c/manifest"
"$LAUNCH" -np 3 "$T" read "--xmpi-restart=$TMP/ck/c" >"$TMP/read" 2>&1
rc=$?
cat "$TMP/read"
check "the restart on 3 processes ends (exit $rc)" test $rc = 0
printf 'x' | dd of="$TMP/ck/c/app-data" bs=1 seek=3 conv=notrunc 2>/dev/null
"$LAUNCH" -np 2 "$T" read "--xmpi-restart=$TMP/ck/c" >"$TMP/bad" 2>&1
rc=$?
check "a damaged data file stops the restart (exit $rc) with one message naming it" \
    sh -c "test $rc != 0 && test \$(grep -c 'app-data is missing, short or damaged' '$TMP/bad') = 1"
