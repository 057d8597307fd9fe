#!/usr/bin/env bash
# Contract tests (issue 36): the programs of tests/contract, written from include/xmpi.h alone,
# run on 1-3 processes under scripts/xmpirun's timeout. Each program prints its own TAP lines,
# each quoting the header sentence it tests (tests/sh/promises.sh checks the quotes); this script
# adds one "not ok" for a run that exits non-zero or does not reach its end line. Nothing here is
# judged on measured time. The dynamic-process runs come last and are skipped where this MPI
# cannot spawn.
#
# The checkpoint matrix: for every monitoring style (iter_begin/end, si_init), evaluation call
# (XMPI_Eval_lbalance, XMPI_Eval_reconfig, none) and process count (1, 2, 3): a run of 10
# iterations; the same run with XMPI_Checkpoint after iterations 4 and 6 and after the loop;
# restarts from 4, from 6 and from the last (by LATEST) at other process counts, each of which
# must resume at that iteration and end with the uninterrupted run's data bit for bit.
. "$(dirname "$0")/lib.sh"
C="$ROOT/$BUILD/tests/contract"
export XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-60}
export TMPDIR="$TMP"   # the programs' capture files go with it, also from a run that died
runs=0

for p in contract_errors contract_register contract_redistribute contract_monitor contract_options \
         contract_balance contract_checkpoint contract_spawn contract_halo contract_appdata; do
    [ -x "$C/$p" ] || { notok "$p is built in $C (make tests)"; exit 0; }
done

# report NAME OUT RC WHAT: the program's lines, and one failure when the run did not end well.
report() {
    local name=$1 out=$2 rc=$3 what=$4
    grep -E '^(not )?ok |^#' "$out"
    if [ "$rc" -ne 0 ] || ! grep -q "^# $name .*: end, " "$out"; then
        notok "$what: the run ends with exit 0 and its end line (exit $rc)"
        grep -v '^# captured' "$out.err" | tail -8 | sed 's/^/#   /'
    fi
}

# run NP PROGRAM ARGS...: one run, in $TMP.
run() {
    local np=$1 name=$2; shift 2
    runs=$((runs + 1))
    local out="$TMP/run$runs.out"
    (cd "$TMP" && "$LAUNCH" -np "$np" "$C/$name" "$@") >"$out" 2>"$out.err"
    report "$name" "$out" $? "$name -np $np $*"
}

# run_spawn NP PROGRAM ARGS...: a run that spawns: a shorter limit, retried once on a timeout
# (the known Open MPI 4.1 + PMIx spawn hang, tests/sh/lib.sh), the program found by PATH.
run_spawn() {
    local np=$1 name=$2; shift 2
    runs=$((runs + 1))
    local out="$TMP/run$runs.out"
    (cd "$TMP" && PATH="$C:$PATH" launch_retry "$out" -np "$np" "$C/$name" "$@")
    report "$name" "$out" $? "$name -np $np $*"
}

# ---- Return codes, registration, partitions and moves -------------------------------------
for np in 1 2 3; do
    run $np contract_errors
    run $np contract_register
    run $np contract_redistribute
    run $np contract_halo
    run $np contract_appdata mode=basic
done
run 2 contract_errors notexec --xmpi-oversubscribe
LIBXMPI_FAULT=spawn-refuse run 2 contract_errors spawnfail --xmpi-oversubscribe
printf '2 spawn 1 local\n' >"$TMP/rms-schedule"
run 1 contract_errors rms "--xmpi-rms=schedule:$TMP/rms-schedule"
run 2 contract_errors rms "--xmpi-rms=schedule:$TMP/rms-schedule" --xmpi-oversubscribe
run 2 contract_redistribute nomem
run 3 contract_redistribute nomem

# The library's exported symbols: the header's names, the MPI_ wrappers, the Fortran module's
# helpers (the xmpi_f08_ names include/xmpi_f08.f90 binds to, every one of them exported), and
# PAPI's hook only where the library links libsde.
# promise: "The library exports only what this header declares, the MPI_ wrappers, the xmpi_f08_ helpers the Fortran module (include/xmpi_f08.f90) binds to and, when built with PAPI's libsde, papi_sde_hook_list_events (the hook PAPI looks up in the program)."
if command -v nm >/dev/null && command -v readelf >/dev/null; then
    so="$ROOT/$BUILD/lib/libxmpi.so"
    nm -D --defined-only "$so" | awk 'NF == 3 {print $3}' | sort -u >"$TMP/exported"
    grep -o 'bind(C, name="xmpi_f08_[A-Za-z0-9_]*")' "$ROOT/include/xmpi_f08.f90" |
        sed 's/.*name="\(.*\)")/\1/' | sort -u >"$TMP/f08-binds"
    extra=$(grep -v '^MPI_' "$TMP/exported" | while read -r sym; do
            grep -qE "(^|[^A-Za-z0-9_])$sym([^A-Za-z0-9_]|$)" "$ROOT/include/xmpi.h" && continue
            grep -qx "$sym" "$TMP/f08-binds" || printf '%s ' "$sym"
        done)
    check "libxmpi.so exports only names include/xmpi.h declares, MPI_ wrappers and the xmpi_f08_ names the Fortran module binds to (also: ${extra:-nothing})" \
        test -z "$extra"
    missing=$(comm -23 "$TMP/f08-binds" "$TMP/exported" | tr '\n' ' ')
    check "every xmpi_f08_ name the Fortran module binds to is exported (missing: ${missing:-none}; $(wc -l <"$TMP/f08-binds") bound)" \
        test -z "$missing" -a -s "$TMP/f08-binds"
    sde=$(readelf -d "$so" | grep -c 'NEEDED.*libsde')
    hook=$(grep -cx papi_sde_hook_list_events "$TMP/exported")
    check "papi_sde_hook_list_events is exported exactly when libxmpi.so links libsde (hook $hook, libsde $sde)" \
        test "$hook" = "$sde"
else
    ok "libxmpi.so's exported symbols # SKIP no nm or readelf"
fi

# ---- Monitoring and the trace's intervals ----------------------------------------------------
run 1 contract_monitor events=default style=ib n=10 --xmpi-si=3 --xmpi-trace=m1.csv
run 2 contract_monitor events=default style=si n=10 --xmpi-si=4 --xmpi-trace=m2.csv
run 3 contract_monitor events=default style=si n=6 --xmpi-si=3 --xmpi-trace=m3.csv
run 3 contract_monitor events=default style=ib n=4 --xmpi-si=1 --xmpi-trace=m4.csv
run 2 contract_monitor events=bogus style=ib n=6 --xmpi-si=3 --xmpi-trace=m5.csv
run 1 contract_monitor events=two style=ib n=7 --xmpi-si=2 --xmpi-trace=m6.csv
run 2 contract_monitor events=nowork style=ib n=5 --xmpi-si=2 --xmpi-trace=m8.csv
run 2 contract_monitor events=refused style=si n=6 --xmpi-si=1 --xmpi-trace=m9.csv
run 1 contract_monitor events=refused style=si n=5 --xmpi-si=1 --xmpi-trace=m10.csv
run 2 contract_monitor events=envlist style=ib n=5 --xmpi-si=2 --xmpi-events=PAPI_TOT_CYC \
    --xmpi-trace=m7.csv

# ---- XMPI_Get_option: defaults, the command line, the environment ------------------------------
run 1 contract_options si=100 spawn=single trace= checkpoint= restart=
run 2 contract_options si=7 spawn=group "trace=$TMP/o.csv" --xmpi-si=7 --xmpi-spawn=group \
    "--xmpi-trace=$TMP/o.csv"
XMPI_SI=9 run 2 contract_options si=9
XMPI_SI=9 run 1 contract_options si=7 --xmpi-si=7

# ---- Load balancing and static reconfiguration -------------------------------------------------
printf '%s:fast:1:1:1\n%s:slow:2:1:0.3\n' "$(hostname)" "$(hostname)" >"$TMP/classes.res"
for np in 1 2 3; do
    cls=(--xmpi-resources="$TMP/classes.res" --xmpi-initial=fast:1$([ $np -gt 1 ] && echo ,slow:$((np - 1))))
    run $np contract_balance call=lb lb=rows --xmpi-lb=rows --xmpi-si=1 "${cls[@]}"
    run $np contract_balance call=rc lb=time --xmpi-si=1 "${cls[@]}"
    run $np contract_balance call=lb lb=weight --xmpi-lb=weight --xmpi-si=1 "${cls[@]}"
    run $np contract_balance call=rc lb=nnz --xmpi-lb=nnz --xmpi-si=1
    run $np contract_balance call=lb lb=rows --xmpi-si=5000
    run $np contract_balance call=rc lb=rows --xmpi-si=5000
done
run 2 contract_balance call=lb lb=weight --xmpi-lb=weight --xmpi-si=5000
run 3 contract_balance call=rc lb=weight --xmpi-lb=weight --xmpi-si=5000

# ---- Checkpoint and restart ----------------------------------------------------------------
for np in 1 2 3; do
    run $np contract_checkpoint mode=errors "--xmpi-checkpoint=$TMP/errors$np"
done
for style in ib si; do
    for eval in lb rc none; do
        for np in 1 2 3; do
            d="$TMP/ck-$style-$eval-$np"
            a=(style=$style eval=$eval n=10 --xmpi-si=3)
            run $np contract_checkpoint "${a[@]}" "out=$d.u" "--xmpi-trace=$d.u.csv"
            run $np contract_checkpoint "${a[@]}" ckpt=4,6 final=final "ref=$d.u" \
                "--xmpi-trace=$d.c.csv" "--xmpi-checkpoint=$d"
            run $((np % 3 + 1)) contract_checkpoint "${a[@]}" expect=4 "ref=$d.u" \
                "--xmpi-trace=$d.r4.csv" "--xmpi-restart=$d/k4"
            run $(((np + 1) % 3 + 1)) contract_checkpoint "${a[@]}" expect=6 "ref=$d.u" \
                "--xmpi-restart=$d/k6"
            run $np contract_checkpoint "${a[@]}" expect=10 "ref=$d.u" "--xmpi-restart=$d"
        done
    done
done
# an XMPI_Monitor_iter_end after the call that ended the iteration counts nothing
d="$TMP/ck-tailend"
run 2 contract_checkpoint style=si eval=lb tailend=1 n=10 --xmpi-si=3 "out=$d.u" \
    "ref=$TMP/ck-si-lb-2.u" "--xmpi-trace=$d.u.csv"
run 2 contract_checkpoint style=si eval=lb tailend=1 n=10 --xmpi-si=3 ckpt=4 "ref=$d.u" \
    "--xmpi-checkpoint=$d"
run 3 contract_checkpoint style=si eval=lb tailend=1 n=10 --xmpi-si=3 expect=4 "ref=$d.u" \
    "--xmpi-restart=$d/k4"
# a crash while a checkpoint is written (the test hook of docs/checkpoint.md kills every process
# of the job's second checkpoint, k4 here, the first being the automatic one at iteration 3):
# LATEST still names the one before, and a restart from it resumes at 3
d="$TMP/ck-crash"
LIBXMPI_FAULT=checkpoint-kill "$LAUNCH" -np 2 "$C/contract_checkpoint" style=si eval=lb n=10 \
    ckpt=4,6 --xmpi-si=3 "--xmpi-checkpoint=$d" >"$d.out" 2>&1
rc=$?
check "the job killed while writing its second checkpoint did not end well (exit $rc)" test $rc -ne 0
run 3 contract_checkpoint style=si eval=lb n=10 expect=3 crash=1 "ref=$TMP/ck-si-lb-2.u" \
    "--xmpi-restart=$d"
# refused restarts: a damaged file, a missing file, other structures
src="$TMP/ck-si-lb-2/k4"
cp -r "$src" "$TMP/damaged" && cp -r "$src" "$TMP/missing"
f=$(find "$TMP/damaged" -type f ! -name manifest | sort | head -1)
printf 'CONTRACT' | dd of="$f" bs=1 seek=0 conv=notrunc 2>/dev/null
rm -f "$(find "$TMP/missing" -type f ! -name manifest | sort | head -1)"
run 2 contract_checkpoint style=si eval=lb refuse=1 "--xmpi-restart=$TMP/damaged"
run 1 contract_checkpoint style=si eval=lb refuse=1 "--xmpi-restart=$TMP/missing"
run 3 contract_checkpoint style=si eval=lb refuse=1 rows=12 "--xmpi-restart=$src"
# the program's data in checkpoints: automatic ones (ckpt-6) and XMPI_Checkpoint's
d="$TMP/ck-appdata"
run 2 contract_appdata mode=write --xmpi-si=3 "--xmpi-checkpoint=$d"
ck6=$(ls -d "$d"/ckpt-* 2>/dev/null | awk -F- '$NF + 0 == 6' | head -1)
run 3 contract_appdata mode=read "--xmpi-restart=${ck6:-$d/ckpt-6}"
run 1 contract_appdata mode=read "--xmpi-restart=$d/final"
# a checkpoint that is not there at all: the job ends inside MPI_Init, before the program's first
# check
# promise: "a checkpoint could not be written, or the one to restart from has a missing or damaged file or does not match the registered structures (a checkpoint that is not there at all stops the job at MPI_Init)"
(cd "$TMP" && "$LAUNCH" -np 2 "$C/contract_checkpoint" style=si eval=lb \
    "--xmpi-restart=$TMP/no-such-checkpoint") >"$TMP/nockpt.out" 2>&1
rc=$?
check "a restart from a checkpoint that does not exist stops the job at MPI_Init (exit $rc, $(grep -cE '^(not )?ok ' "$TMP/nockpt.out") checks ran)" \
    sh -c "test $rc -ne 0 && ! grep -qE '^(not )?ok ' '$TMP/nockpt.out'"

# ---- Dynamic processes (last: skipped where this MPI cannot spawn) ---------------------------
require_spawn "contract tests of dynamic processes"
for np in 1 2; do
    run_spawn $np contract_spawn --xmpi-oversubscribe --xmpi-si=3 "--xmpi-trace=$TMP/spawn$np.csv"
    run_spawn $np contract_halo mode=spawn --xmpi-oversubscribe
    run_spawn $np contract_appdata mode=spawn --xmpi-oversubscribe
done
# the program's data handed to the process a policy starts: waited for, and asynchronous
printf '2 spawn 1 local\n' >"$TMP/appdata-offer"
pol=(mode=policy --xmpi-si=2 --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/appdata-offer" --xmpi-oversubscribe)
run_spawn 2 contract_appdata "${pol[@]}" --xmpi-spawn-async=off
run_spawn 2 contract_appdata "${pol[@]}"
# a policy's spawn and removal (XMPI_Eval_reconfig, smp), the spawn waited for: the new process
# resumes at the others' next iteration, the removed one leaves, and the data is the
# uninterrupted run's. Then once with the asynchronous spawn (the default), whose join may come
# after the run's end on a fast machine: the verdicts hold either way.
printf '4 spawn 1 local\n7 remove 1 local\n' >"$TMP/events"
pol=(--xmpi-si=2 --xmpi-policy=smp "--xmpi-rms=schedule:$TMP/events" --xmpi-oversubscribe)
for style in ib si; do
    for np in 1 2; do
        run_spawn $np contract_checkpoint style=$style eval=rc n=10 grew=1 \
            "ref=$TMP/ck-$style-rc-$np.u" "${pol[@]}" --xmpi-spawn-async=off
    done
done
run_spawn 2 contract_checkpoint style=si eval=rc n=10 "ref=$TMP/ck-si-rc-2.u" "${pol[@]}"
# the offer not taken: the cap, or a spawn that fails
run 2 contract_checkpoint style=si eval=rc n=10 nospawn=cap "ref=$TMP/ck-si-rc-2.u" "${pol[@]}" \
    --xmpi-max-procs=2
LIBXMPI_FAULT=spawn-refuse run 2 contract_checkpoint style=ib eval=rc n=10 nospawn=fail \
    "ref=$TMP/ck-ib-rc-2.u" "${pol[@]}" --xmpi-spawn-async=off --xmpi-resize=spawn

# Every run started in $TMP, and so did the processes they spawned (by path or by bare name).
left=""
for _ in 1 2 3 4 5; do
    left=""
    for pid in $(pgrep -f '(^|/)contract_[a-z]+( |$)'); do
        case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in "$TMP"*) left="$left $pid" ;; esac
    done
    [ -z "$left" ] && break
    sleep 0.2
done
check "no contract program is left running${left:+:$left}" test -z "$left"
