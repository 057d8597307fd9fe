# --xmpi-otf2=DIR: a directory that cannot be the archive's is refused at start-up with one
# message (and the option itself where libxmpi was built without OTF2). A malleable Jacobi
# (SMP, 2 -> 3 -> 4 -> 2, blocking and then asynchronous spawns) writes an archive that
# otf2-print reads without a warning, counted against the run's trace: one location per process
# the job ever had, spawned ones created by rank 0; every location's regions nest; the
# 'computation' regions are the trace's iterations times its processes, row by row; the size
# metric follows nprocs; a spawn, a removal and a checkpoint marker per row that says so. A
# later job replaces the archive.
. "$(dirname "$0")/lib.sh"
J="$ROOT/$BUILD/bin/jacobi"
cd "$TMP" || exit 1

# stops DESC PATTERN ARGS...: the job ends before any work (exit 2) with PATTERN said once.
stops() {
    local desc=$1 pattern=$2; shift 2
    "$LAUNCH" -np 2 "$J" -n 100 -i 20 "$@" >out 2>&1
    local rc=$? n
    n=$(grep -c -- "$pattern" out)
    if [ $rc = 2 ] && [ "$n" = 1 ]; then ok "$desc"
    else notok "$desc (exit $rc, '$pattern' seen $n times)"; sed 's/^/#   /' out | head -6; fi
}

# A libxmpi built with OTF2 calls it (Debian names the library libopen-trace-format2).
if ! nm -D "$ROOT/$BUILD/lib/libxmpi.so" 2>/dev/null | grep -q " OTF2_Archive_Open$"; then
    stops "a build without OTF2 refuses --xmpi-otf2 at start-up" \
        "option --xmpi-otf2: this libxmpi was built without OTF2" --xmpi-otf2=archive
    echo "ok - the OTF2 archive # SKIP libxmpi was built without OTF2 (libotf2-trace-dev)"
    exit 0
fi

printf 'a trace\n' >file.csv
cp file.csv file.orig
stops "a file as the archive's directory is refused and kept" \
    "option --xmpi-otf2: 'file.csv' is not accepted; it exists and is not a directory" \
    --xmpi-otf2=file.csv
check "... byte for byte" cmp -s file.csv file.orig
stops "a directory in a missing one is refused" \
    "option --xmpi-otf2: 'none/archive' is not accepted; its parent directory 'none' does not exist" \
    --xmpi-otf2=none/archive
mkdir busy && printf 'mine\n' >busy/notes.txt
stops "a directory with other files is refused, and they stay" \
    "option --xmpi-otf2: 'busy' is not accepted; it holds 'notes.txt'" --xmpi-otf2=busy
check "... as they were" sh -c "test \"\$(ls -A busy)\" = notes.txt"

if ! command -v otf2-print >/dev/null || ! command -v otf2-marker >/dev/null; then
    echo "ok - the OTF2 archive read back # SKIP no otf2-print or otf2-marker (otf2-tools)"
    exit 0
fi
require_spawn "the OTF2 archive of a malleable job"

printf '# iteration action count class\n20 spawn 1 local\n40 spawn 1 local\n80 remove 2 local\n' >events

# col CSV NAME: a column of the trace.
col() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }

# archive NAME: the checks of one run's archive NAME/ against its trace NAME.csv.
archive() {
    local name=$1 csv=$1.csv
    check "$name: the archive is whole, the locations' parts gone" \
        sh -c "test -s $name/traces.otf2 && test -s $name/traces.def && ! test -e $name/.xmpi-otf2"
    otf2-print -A "$name/traces.otf2" >"$name.print" 2>"$name.print.err"
    check "$name: otf2-print reads it without an error or a warning" \
        sh -c "! grep -qiE 'error|warn' '$name.print.err' '$name.print' && grep -q '^ENTER' '$name.print'"
    otf2-print --silent -Werror "$name/traces.otf2" >/dev/null 2>"$name.silent.err"
    check "$name: otf2-print -Werror validates it" test ! -s "$name.silent.err"
    # Processes the job ever had: the first row's, and each increase of nprocs.
    local ever locs
    ever=$(col "$csv" nprocs | awk 'NR == 1 { n = $1 } NR > 1 && $1 > p { n += $1 - p } { p = $1 } END { print n }')
    locs=$(grep -c '^LOCATION ' "$name.print")
    check "$name: one location per process the job ever had ($locs, the trace: $ever)" \
        test "$locs" = "$ever" -a "$ever" -gt 2
    check "$name: the processes that joined later were created by rank 0" \
        test "$(grep -c '^LOCATION_GROUP .*Creator: "rank 0"' "$name.print")" = $((ever - 2))
    # Every location: as many leaves as entries, each closing the region opened last, at
    # timestamps that never go back.
    local bad
    bad=$(awk '$1 == "ENTER" || $1 == "LEAVE" { l = $2; t = $3; match($0, /<[0-9]+>$/)
              r = substr($0, RSTART + 1, RLENGTH - 2)
              if (t < last[l]) bad++
              last[l] = t
              if ($1 == "ENTER") st[l, ++d[l]] = r
              else { if (d[l] < 1 || st[l, d[l]] != r) bad++; d[l]-- } }
              END { for (l in d) if (d[l]) bad++; print bad + 0 }' "$name.print")
    check "$name: every location's regions nest and its time never goes back ($bad faults)" test "$bad" = 0
    # Each process's monitored iterations are 'computation' regions: over the locations, the
    # trace's iterations times its processes summed over the rows.
    local want got got0
    want=$(paste -d, <(col "$csv" nprocs) <(col "$csv" iterations) | awk -F, '{ s += $1 * $2 } END { print s }')
    got=$(grep -c '^ENTER .*Region: "computation"' "$name.print")
    got0=$(grep -c '^ENTER  *0 .*Region: "computation"' "$name.print")
    check "$name: the computation regions are the trace's process-iterations ($got, the trace: $want)" \
        test "$got" = "$want"
    check "$name: rank 0's are its iterations ($got0)" test "$got0" = "$(col "$csv" iteration | tail -1)"
    check "$name: the profiled MPI calls are regions on every location" \
        test "$(awk '/^ENTER .*Region: "MPI_Allreduce"/ { l[$2] = 1 } END { print length(l) }' "$name.print")" = "$ever"
    check "$name: rank 0's size metric follows the trace's nprocs" \
        test "$(awk '$1 == "METRIC" && $2 == 0 { v = $NF; sub(/\)$/, "", v); if (v != p) printf "%s ", v; p = v }' "$name.print")" = \
             "$(col "$csv" nprocs | awk '$1 != p { printf "%s ", $1 } { p = $1 }')"
    otf2-marker "$name/traces.otf2" >"$name.markers" 2>&1
    local spawns removals
    spawns=$(col "$csv" action | grep -cE '(^|\+)spawn(\+|$)')
    removals=$(col "$csv" action | grep -cE '(^|\+)remove(\+|$)')
    check "$name: a spawn marker per row with a spawn ($spawns)" \
        test "$(grep -c 'Text: "spawn: [0-9]* -> [0-9]* processes' "$name.markers")" = "$spawns"
    check "$name: a removal marker per row with a removal ($removals), saying 4 -> 2" \
        sh -c "test \$(grep -c 'Text: \"removal: ' '$name.markers') = $removals && grep -q 'removal: 4 -> 2 processes' '$name.markers'"
    local ckpts
    ckpts=$(col "$csv" action | grep -cE '(^|\+)checkpoint(\+|$)')
    check "$name: a checkpoint marker per row with a checkpoint ($ckpts)" \
        test "$(grep -c 'Text: "checkpoint' "$name.markers")" = "$ckpts"
}

# Blocking spawns, one process at a time, and checkpoints.
RETRY_HOOK="rm -rf blocking blocking.csv ck" XMPI_SPAWN_ASYNC=off launch_retry blocking.out -np 2 "$J" \
    -n 300 -i 120 -s 5 -d -b --xmpi-lb-th1=0 --xmpi-lb-k=1 --xmpi-si=20 --xmpi-policy=smp \
    --xmpi-rms=schedule:events --xmpi-oversubscribe --xmpi-checkpoint=ck --xmpi-checkpoint-every=40 \
    --xmpi-trace=blocking.csv --xmpi-otf2=blocking
check "blocking: jacobi exits 0 with the archive" test $? = 0
check "blocking: ... and it checkpointed" grep -q checkpoint blocking.csv
archive blocking

# Asynchronous spawns (the default): the processes join at a later interval end. A spawn takes
# 0.3-0.8 s here: the events leave the job time to finish each one before the next, as in
# async.sh.
printf '20 spawn 1 local\n200 spawn 1 local\n400 remove 2 local\n' >events-async
RETRY_HOOK="rm -rf async async.csv" launch_retry async.out -np 2 "$J" -n 1000 -i 3000 -d \
    --xmpi-si=20 --xmpi-policy=smp --xmpi-rms=schedule:events-async --xmpi-oversubscribe \
    --xmpi-trace=async.csv --xmpi-otf2=async
check "async: jacobi exits 0 with the archive" test $? = 0
archive async

# A later job into the same directory replaces the archive.
"$LAUNCH" -np 1 "$J" -n 100 -i 20 --xmpi-otf2=blocking >again.out 2>&1
check "a later job's archive replaces the earlier one (exit $?)" \
    sh -c "test \$(otf2-print -G blocking/traces.otf2 | grep -c '^LOCATION ') = 1 &&
           test \$(ls blocking/traces | wc -l) = 2 && ! test -e blocking/.xmpi-otf2"

left=$(leftovers "$J")
check "no process left behind${left:+ (pids $left)}" test -z "$left"
