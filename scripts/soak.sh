#!/usr/bin/env bash
# `make soak` (not part of make check; a few minutes on 2 cores): XMPI_Spawn/XMPI_Remove
# grow/shrink cycles of build/tests/soak (tests/mpi/soak.c) must run without a hang and without
# leaking file descriptors or memory.
#   1. SOAK_CYCLES (50) cycles in --xmpi-spawn=single mode and in group mode: the job must exit
#      0 and rank 0's count of open fds after the warm-up must equal the count at the end (the
#      program checks and prints both). A job that prints nothing for SOAK_STALL seconds is a
#      hang: the script prints where its processes are (gdb) and stops it.
#   2. The same number of cycles decided by --xmpi-policy=smp (soak --policy), with
#      asynchronous spawns, in both modes: the same verdicts, and every spawn must have joined
#      asynchronously.
#   3. SOAK_VG_CYCLES (10) cycles with the two initial ranks under valgrind memcheck: every
#      "definitely lost" record (and every other memcheck error) whose allocation/error stack
#      reaches libxmpi code (libxmpi/, models/, policies/, or the test itself) before any Open
#      MPI/PMIx frame is a failure.
# Ends with `soak: PASS` or `soak: FAIL (reasons)`, exit status 0 or 1. Logs: BUILD/soak-logs/.
# usage: [MPIRUN=mpirun] [SOAK_CYCLES=50] [SOAK_VG_CYCLES=10] [SOAK_STALL=60] scripts/soak.sh BUILD
set -u
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "soak: no build directory '${1:-build}'"; exit 1; }
SOAK=$BUILD/tests/soak
LAUNCH=$ROOT/scripts/xmpirun
CYCLES=${SOAK_CYCLES:-50}
VG_CYCLES=${SOAK_VG_CYCLES:-10}
STALL=${SOAK_STALL:-60}
# The whole-job limit only backs up the stall detector below.
export XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-600}
LOGS=$BUILD/soak-logs
fails=()

[ -x "$SOAK" ] || { echo "soak: $SOAK is missing (make tests)"; echo "soak: FAIL (not built)"; exit 1; }
rm -rf "$LOGS"
mkdir -p "$LOGS"

# The processes of a job: everything below its launcher (timeout -> mpirun -> ranks, and the
# spawned processes, which Open MPI also starts as children of mpirun on a single host).
descendants() {
    local p
    for p in $(pgrep -P "$1" 2>/dev/null); do
        echo "$p"
        descendants "$p"
    done
}

# One line per process of a hung job saying where it waits, full stacks into $1.stacks.
# Valgrind'ed ranks show only valgrind's own frames.
where_stuck() {
    local log=$1 pids=$2 p
    command -v gdb >/dev/null || { echo "    (install gdb to see where the processes wait)"; return; }
    for p in $pids; do
        local cmd
        cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
        case $cmd in *tests/soak*) ;; *) continue ;; esac
        case $cmd in valgrind*|*memcheck*|*mpirun*|timeout*) continue ;; esac
        local bt
        bt=$(timeout 30 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null)
        { echo "=== $p: $cmd"; echo "$bt"; } >>"$log.stacks"
        # The main thread's interesting frames, innermost first.
        local chain
        chain=$(echo "$bt" | awk '/^Thread 1 /{m=1; next} /^Thread /{m=0} m' |
                grep -oE ' in [A-Za-z_][A-Za-z0-9_]* ' | awk '{print $2}' |
                grep -E '^(PMIx_|PMPI_|MPI_|XMPI_|ompi_dpm|ompi_comm_|spawn_round|xmpi_|main$)' |
                head -6 | tr '\n' ' ')
        echo "    pid $p ($cmd): ${chain:-?}"
    done
}

# run_job NAME STALL_SECONDS LAUNCHER-ARGS...: runs one MPI job through scripts/xmpirun with
# output in $LOGS/NAME.log; sets job_rc (124 when stopped as hung) and job_hang (a reason or "").
run_job() {
    local name=$1 stall=$2; shift 2
    local log=$LOGS/$name.log
    job_hang=
    "$LAUNCH" "$@" >"$log" 2>&1 &
    local pid=$! last_size=-1 last_change=$SECONDS seen=""
    while kill -0 "$pid" 2>/dev/null; do
        sleep 2
        seen="$seen $(descendants "$pid")"
        local size
        size=$(stat -c %s "$log" 2>/dev/null || echo 0)
        if [ "$size" != "$last_size" ]; then
            last_size=$size
            last_change=$SECONDS
        elif [ $((SECONDS - last_change)) -ge "$stall" ]; then
            local procs
            procs=$(descendants "$pid")
            echo "  $name: no output for ${stall}s: hung; the job's processes wait in:"
            where_stuck "$log" "$procs"
            # A new process stuck in PMIx_Init (inside PMPI_Init, before libxmpi runs) while its
            # spawners wait in PMIx_Lookup is the Open MPI 4.1 + external PMIx 4 spawn hang
            # (openpmix issue 2735). Seen here (Debian 12: Open MPI 4.1.4, PMIx 4.2.2, with
            # PMIX_MCA_gds=hash) about once per 20-40 cycles in single mode and more rarely in
            # group mode; a plain MPI program doing the same spawn/merge/Comm_create cycles
            # without libxmpi hangs the same way. It still fails the soak: a hang is a hang.
            if grep -q 'in PMIx_Init' "$log.stacks" 2>/dev/null; then
                job_hang="a spawned process hangs in PMIx_Init, inside PMPI_Init below libxmpi (Open MPI 4.1 + PMIx 4 spawn bug)"
            else
                job_hang="hang (stacks: $log.stacks)"
            fi
            kill -TERM "$pid" 2>/dev/null   # timeout passes it on to mpirun, which ends the ranks
            local i
            for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
            # shellcheck disable=SC2086
            kill -KILL $procs "$pid" 2>/dev/null
            break
        fi
    done
    wait "$pid"
    job_rc=$?
    [ -n "$job_hang" ] && job_rc=124
    [ $job_rc -eq 124 ] && [ -z "$job_hang" ] && job_hang="timed out after ${XMPIRUN_TIMEOUT}s"
    # No process of the job may outlive it (ended here by pid, never by name).
    sleep 1
    local left="" p
    for p in $(echo "$seen" | tr ' ' '\n' | sort -un); do
        case $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") in *tests/soak*) left="$left $p" ;; esac
    done
    if [ -n "$left" ]; then
        echo "  $name: processes left behind:$left (killed)"
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null
        fails+=("$name left processes behind")
    fi
}

# check_run NAME: the verdict on one soak job from its exit status and its "soak:" lines.
check_run() {
    local name=$1 log=$LOGS/$1.log
    grep '^soak: ' "$log" | sed 's/^/  /'
    if [ -n "$job_hang" ]; then
        local cycle
        cycle=$(grep -o -- '--joined [0-9]*' "$log.stacks" 2>/dev/null | awk '{print $2}' | sort -n | tail -1)
        echo "  $name: HANG${cycle:+ in cycle $cycle} after $(grep -cE '^xmpi: (spawned|removed)' "$log") spawn/remove calls; log: $log"
        fails+=("$name: $job_hang")
        return
    fi
    if ! grep -q '^soak: summary:' "$log"; then
        echo "  $name: no summary (exit $job_rc); last lines of $log:"
        tail -5 "$log" | sed 's/^/    /'
        fails+=("$name exited $job_rc without a summary")
        return
    fi
    grep -q '^soak: summary:.*(same)' "$log" || fails+=("$name: rank 0 leaks file descriptors")
    [ "$job_rc" -eq 0 ] || fails+=("$name exited $job_rc")
}

echo "== soak: $CYCLES grow/shrink cycles (grow by 1 and 2 alternately) on 2 initial ranks"
for mode in single group; do
    echo "== --xmpi-spawn=$mode: $LAUNCH -np 2 $SOAK $CYCLES --xmpi-spawn=$mode"
    run_job "$mode" "$STALL" -np 2 "$SOAK" "$CYCLES" "--xmpi-spawn=$mode" --xmpi-verbose=2
    check_run "$mode"
done

# ---- the cycles of a policy, with asynchronous spawns ----------------------------------
# The same cycles decided by --xmpi-policy=smp from a schedule (grow by 1 and 2 alternately,
# then give them back), spawned asynchronously (the default): a policy's spawn runs on rank
# 0's helper thread while the job iterates, and the processes join at a later interval end.
# The events are due 10 iterations apart; a policy waits for its spawn to join, so they are
# taken in turn however long each spawn takes.
SCHED=$LOGS/policy-schedule.txt
for c in $(seq 1 "$CYCLES"); do
    k=$((c % 2 ? 1 : 2))
    printf '%d spawn %d local\n%d remove %d local\n' $((20 * c - 10)) "$k" $((20 * c)) "$k"
done >"$SCHED"
echo "== soak: $CYCLES cycles of --xmpi-policy=smp with asynchronous spawns"
for mode in single group; do
    echo "== --xmpi-spawn=$mode: $LAUNCH -np 2 $SOAK $CYCLES --policy --xmpi-policy=smp --xmpi-rms=schedule:$SCHED --xmpi-spawn=$mode"
    run_job "policy-$mode" "$STALL" -np 2 "$SOAK" "$CYCLES" --policy --xmpi-policy=smp \
        "--xmpi-rms=schedule:$SCHED" --xmpi-si=5 "--xmpi-spawn=$mode" --xmpi-verbose=1
    check_run "policy-$mode"
    n=$(grep -c 'asynchronous spawn of [12]: [12] started in' "$LOGS/policy-$mode.log")
    echo "  policy-$mode: $n spawns joined asynchronously"
    [ "$n" = "$CYCLES" ] || fails+=("policy-$mode: $n of $CYCLES spawns joined asynchronously")
done

# ---- memory under valgrind ------------------------------------------------------------
# Valgrind sees the two initial ranks only: the spawned processes are started by Open MPI's
# MPI_Comm_spawn from the program's own path, not through valgrind.
#
# Open MPI 4.1, PMIx, hwloc's and libevent's own allocations leak a few hundred records at
# exit (MPI_Init's component registry, orte_finalize, and a few blocks per MPI_Comm_spawn in
# ompi_dpm_connect_accept): not ours, and many of them have libxmpi frames further down the
# stack only because libxmpi is the one calling MPI_Init and MPI_Comm_spawn. Suppressions
# cannot tell those apart from our leaks (Debian's Open MPI has no symbols for its components,
# most frames are "???"), so the records are filtered by their stacks instead: walking from the
# allocation (or the error) outwards, past allocators, libc and other non-MPI libraries such as
# hwloc, a record is ours when it reaches a frame in libxmpi/, models/, policies/ or
# tests/mpi/soak.c before any frame of Open MPI, PMIx or libevent (libmpi, libopen-pal,
# libopen-rte, libpmix, mca_*.so, libevent, unknown "???" frames). Memory a libxmpi call asks
# MPI for (a communicator, a group) and never frees is not seen this way; Open MPI frees those
# handles in MPI_Finalize, and the soak's RSS growth is the probe for them.
VG_SUPP=()
[ -f /usr/share/openmpi/openmpi-valgrind.supp ] && VG_SUPP+=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
[ -f "$ROOT/tests/soak.supp" ] && VG_SUPP+=("--suppressions=$ROOT/tests/soak.supp")

classify_vg() {   # classify_vg LOGFILE...: prints "OURS"/"FOREIGN" records as blocks
    awk -v root="$ROOT/" '
    function flush(   ours, i, f) {
        if (!nf) return
        ours = 0
        for (i = 1; i <= nf; i++) {
            f = fr[i]
            if (f ~ /\((libxmpi|models|policies)\/[^ ()]+\.c:[0-9]+\)/ || f ~ /\(tests\/mpi\/soak\.c:[0-9]+\)/) { ours = 1; break }
            if (f ~ /: \?\?\? *$/ || f ~ /: \?\?\? \(in / || f ~ /\(in [^)]*(libmpi|libopen-pal|libopen-rte|libpmix|\/mca_|libevent)/ ||
                f ~ /: (PMPI_|MPI_|ompi_|opal_|orte_|pmix_|PMIx_|mca_)/) break
        }
        printf "%s %s\t%s\n", (ours ? "OURS" : "FOREIGN"), kind, FILENAME
        for (i = 0; i <= nf; i++) printf "      %s\n", (i ? fr[i] : head)
        nf = 0
    }
    { sub(/^==[0-9]+== /, "") }
    /are definitely lost in loss record/ { flush(); head = $0; kind = "leak"; inrec = 1; nf = 0; next }
    /^(Invalid (read|write|free)|Mismatched free|Conditional jump|Use of uninitialised|Syscall param|Source and destination overlap|Argument .* fishy)/ {
        flush(); head = $0; kind = "error"; inrec = 1; nf = 0; next }
    inrec && /^   (at|by) 0x/ { fr[++nf] = $0; next }
    inrec { flush(); inrec = 0 }
    END { flush() }' "$@"
}

echo "== memory: $VG_CYCLES cycles with the 2 initial ranks under valgrind (spawned processes run without it)"
VGDIR=$LOGS/valgrind
mkdir -p "$VGDIR"
run_job valgrind $((STALL * 2)) -np 2 valgrind --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --num-callers=50 "--fullpath-after=$ROOT/" "${VG_SUPP[@]}" \
    "--log-file=$VGDIR/vg.%p" "$SOAK" "$VG_CYCLES" --xmpi-verbose=2
check_run valgrind
vglogs=("$VGDIR"/vg.*)
if [ ! -e "${vglogs[0]}" ]; then
    fails+=("valgrind wrote no log")
else
    classify_vg "${vglogs[@]}" >"$VGDIR/records.txt"
    ours_leaks=$(grep -c '^OURS leak' "$VGDIR/records.txt")
    ours_errs=$(grep -c '^OURS error' "$VGDIR/records.txt")
    for f in "${vglogs[@]}"; do
        sum=$(grep -m1 'definitely lost:' "$f" | sed 's/^==[0-9]*== *//')
        foreign=$(grep -c "^FOREIGN leak.*$(basename "$f")\$" "$VGDIR/records.txt")
        errs=$(grep -m1 'ERROR SUMMARY' "$f" | sed 's/^==[0-9]*== *//; s/ (suppressed.*//')
        echo "  $(basename "$f"): ${sum:-no leak summary (did the rank finish?)}; $foreign records inside Open MPI/PMIx (not counted); $errs"
        grep -q 'definitely lost:' "$f" || fails+=("valgrind: no leak summary in $(basename "$f")")
    done
    if [ "$ours_leaks" -gt 0 ] || [ "$ours_errs" -gt 0 ]; then
        echo "  libxmpi: $ours_leaks definitely-lost record(s), $ours_errs other memcheck error(s):"
        awk '/^OURS/{p=1; print "   " $0; next} /^FOREIGN/{p=0} p' "$VGDIR/records.txt" | head -80
        [ "$ours_leaks" -gt 0 ] && fails+=("valgrind: $ours_leaks definitely-lost record(s) in libxmpi")
        [ "$ours_errs" -gt 0 ] && fails+=("valgrind: $ours_errs memcheck error(s) in libxmpi")
    else
        echo "  libxmpi: no definitely-lost record and no memcheck error (all records: $VGDIR/records.txt)"
    fi
fi

if [ ${#fails[@]} -eq 0 ]; then
    echo "soak: PASS"
    exit 0
fi
reasons=$(printf '%s; ' "${fails[@]}")
echo "soak: FAIL (${reasons%; })"
exit 1
