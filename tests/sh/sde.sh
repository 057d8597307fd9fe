# PAPI for real on a machine without hardware counters, through software-defined events
# (docs/papi-sde.md): build/tests/test_sde counts its own work through the monitor's PAPI path
# (counts, records, the balancer, the fall back when an event stops reading) and reads libxmpi's
# events with PAPI_start; here the messages and the trace are checked, PAPI's own tools list and
# read libxmpi's events, and the library's PAPI code compiles without PAPI.
. "$(dirname "$0")/lib.sh"
T="$ROOT/$BUILD/tests/test_sde"
LIB="$ROOT/$BUILD/lib/libxmpi.so"
DOC="$ROOT/docs/papi-sde.md"
EVENTS=sde:::xmpitest::WORK,sde:::xmpitest::ROWS,sde:::libxmpi::MPI_BYTES
LB=(--xmpi-si=5 --xmpi-lb=time --xmpi-lb-k=1)

# passes OUT: the test program's own TAP lines, passed on.
passes() { grep -E '^(not )?ok ' "$1"; }

"$LAUNCH" -np 2 "$T" count "--xmpi-events=$EVENTS" "${LB[@]}" "--xmpi-trace=$TMP/count.csv" \
    >"$TMP/count" 2>"$TMP/count.err"
rc=$?
passes "$TMP/count"
if grep -q '# SKIP' "$TMP/count"; then exit 0; fi
check "the counting run exits 0 (exit $rc)" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$TMP/count.err" | head -20
check "rank 0 names the work source once" \
    test "$(grep -c "^xmpi: work source: papi:sde:::xmpitest::WORK+sde:::xmpitest::ROWS+sde:::libxmpi::MPI_BYTES\$" "$TMP/count.err")" = 1
check "... and says once that PAPI stopped counting, with PAPI's reason" \
    test "$(grep -c '^xmpi: PAPI stopped counting (PAPI_read: .*); work source: declared$' "$TMP/count.err")" = 1
# The trace: each interval's work_sum is what the program counted (12 intervals through PAPI,
# then 2 of declared work), and its work_source says which.
awk -F, -v out="$TMP/expect" 'NR == FNR { if ($1 == "expect") e[$3] = $5; next }
     FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
     { src = $(h["work_source"]); want = $1 <= 12 ? "papi:sde:::xmpitest::WORK+sde:::xmpitest::ROWS+sde:::libxmpi::MPI_BYTES" : "declared"
       if (src != want || $(h["work_sum"]) + 0 != e[$1] + 0) { print "interval " $1 ": " src " " $(h["work_sum"]) ", expected " want " " e[$1] > out; bad = 1 }
       n++ }
     END { if (n != 14) { print n " rows, expected 14" > out; bad = 1 } exit bad }' \
    FS=' ' "$TMP/count" FS=, "$TMP/count.csv"
rc=$?
check "the trace's work_sum and work_source per interval are the program's own count (PAPI, then declared)" test $rc = 0
[ $rc = 0 ] && rm -f "$TMP/expect"
[ -f "$TMP/expect" ] && sed 's/^/#   /' "$TMP/expect" | head
check "the trace records a rebalance on PAPI-measured work" \
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $(h["action"]) ~ /rebalance/ && $1 <= 12 { f = 1 } END { exit !f }' "$TMP/count.csv"

# An event no library registered: one clear line, declared work, the job goes on.
"$LAUNCH" -np 2 "$T" unknown --xmpi-events=sde:::xmpitest::NOSUCH "${LB[@]}" >"$TMP/unk" 2>"$TMP/unk.err"
rc=$?
passes "$TMP/unk"
check "an unregistered sde event: exit 0 (exit $rc)" test $rc = 0
check "... one line on rank 0 that names it, and the fall back" \
    test "$(grep -c '^xmpi: work source: declared by the program with XMPI_Monitor_add_work (PAPI cannot count sde:::xmpitest::NOSUCH: no library in this process has registered that software-defined event)$' "$TMP/unk.err")" = 1 -a "$(grep -c . "$TMP/unk.err")" = 1
[ "$(grep -c . "$TMP/unk.err")" = 1 ] || sed 's/^/#   /' "$TMP/unk.err" | head

# A spawned process takes its parents' work source, and loads PAPI only when that is PAPI's:
# counted (an event the program registers), then declared (an event nobody registers).
for ev in sde:::xmpitest::WORK sde:::xmpitest::NOSUCH; do
    if [ "${LIBXMPI_TEST_SPAWN:-yes}" = no ]; then
        echo "ok - spawn under --xmpi-events=$ev # SKIP this MPI library cannot spawn processes"
        continue
    fi
    launch_retry "$TMP/spawn" -np 2 "$T" spawn "--xmpi-events=$ev" --xmpi-si=50 --xmpi-oversubscribe
    rc=$?
    passes "$TMP/spawn"
    check "spawn under --xmpi-events=$ev: exit 0 and 3 checks passed (exit $rc)" \
        test $rc = 0 -a "$(grep -c '^ok ' "$TMP/spawn")" = 3
    [ $rc = 0 ] || sed 's/^/#   /' "$TMP/spawn.err" | head -20
done

# libxmpi's own events, read by the program with PAPI_start, on 3 ranks.
"$LAUNCH" -np 3 "$T" lib "${LB[@]}" >"$TMP/lib" 2>"$TMP/lib.err"
rc=$?
passes "$TMP/lib"
check "libxmpi's events read through PAPI: exit 0 (exit $rc)" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$TMP/lib.err" | head -20

# Without PAPI: the modules that call PAPI compile and reference no PAPI symbol.
bad=""
for f in hwcount sde sde_hook monitor; do
    ${MPICC:-mpicc} -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$ROOT/include" \
        -c "$ROOT/libxmpi/$f.c" -o "$TMP/$f.o" 2>>"$TMP/nopapi.log" || bad="$bad $f(compile)"
    [ -f "$TMP/$f.o" ] && nm -u "$TMP/$f.o" | grep -qiE ' (PAPI|papi)_' && bad="$bad $f(PAPI symbol)"
done
check "without PAPI, hwcount.c, sde.c, sde_hook.c and monitor.c compile and call no PAPI function${bad:+:$bad}" test -z "$bad"

# PAPI's own tools, which know nothing of libxmpi: papi_native_avail lists exactly the events
# docs/papi-sde.md documents (MPI_<OP>_* expanded over its list of operations).
if ! command -v papi_native_avail >/dev/null || ! command -v papi_command_line >/dev/null; then
    echo "ok - PAPI's command-line tools # SKIP papi-tools is not installed"
    exit 0
fi
papi_native_avail -sde "$LIB" 2>&1 | sed -n 's/^| sde:::libxmpi::\([A-Z_]*\) .*/\1/p' | sort >"$TMP/listed"
{
    sed -n 's/^| `\([A-Z_]*\)` |.*/\1/p' "$DOC"
    for op in $(sed -n 's/^`<OP>`: //p' "$DOC"); do
        for k in CALLS BYTES SECONDS; do echo "MPI_${op}_$k"; done
    done
} | sort >"$TMP/documented"
check "papi_native_avail -sde lists the $(wc -l <"$TMP/listed") events docs/papi-sde.md documents" \
    sh -c "test -s '$TMP/listed' && cmp -s '$TMP/listed' '$TMP/documented'"
diff "$TMP/listed" "$TMP/documented" | head | sed 's/^/#   /'
# papi_command_line reads them in its own process (no MPI job: every total is 0); a name libxmpi
# does not export reads -1, PAPI's mark of an unregistered event.
LD_PRELOAD="$LIB" papi_command_line sde:::libxmpi::ITERATIONS sde:::libxmpi::MPI_BYTES \
    sde:::libxmpi::NOSUCH >"$TMP/pcl" 2>&1
check "papi_command_line reads sde:::libxmpi::ITERATIONS and MPI_BYTES as 0, an unknown name as -1" \
    sh -c "grep -Eq 'sde:::libxmpi::ITERATIONS :[[:space:]]+0[[:space:]]*\$' '$TMP/pcl' && grep -Eq 'sde:::libxmpi::MPI_BYTES :[[:space:]]+0[[:space:]]*\$' '$TMP/pcl' && grep -Eq 'sde:::libxmpi::NOSUCH :[[:space:]]+-1[[:space:]]*\$' '$TMP/pcl'"
