# Resizing by checkpoint and restart (issue 19, item 3): a malleable Jacobi grows 2 -> 3 and
# shrinks 3 -> 1 (below the processes mpirun started, which dynamic processes cannot do) by
# ending with status 75 and being relaunched by xmpi-resume at the size of its RESIZE record;
# the answer is the plain 2-process run's, bit for bit. The same with --xmpi-resize=auto on an
# MPI that refuses to spawn (LIBXMPI_FAULT=spawn-refuse), and the refusals.
. "$(dirname "$0")/lib.sh"
# Blocking spawns: this test asserts the iterations at which a job grows, and at which it is relaunched;
# async.sh covers asynchronous spawns (--xmpi-spawn-async, on by default).
export XMPI_SPAWN_ASYNC=off
J="$ROOT/$BUILD/bin/jacobi"
JP="$ROOT/$BUILD/bin/jacobi-plain"
R="$ROOT/tools/xmpi-resume"
export XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-60}
JA=(-n 120 -i 100 -s 3 -d --xmpi-si=10 --xmpi-policy=smp --xmpi-oversubscribe)
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
sizes() { awk -F, 'NR > 1 && $3 != last { printf "%s%s", (n++ ? " " : ""), $3; last = $3 }' "$1"; }
printf '# iteration action count class\n20 spawn 1 local\n50 remove 2 local\n' >"$TMP/ev"
# For jobs that cannot be relaunched: the initial processes never leave.
printf '20 spawn 1 local\n50 remove 1 local\n' >"$TMP/ev1"

"$LAUNCH" -np 2 "$JP" -n 120 -i 100 -s 3 >"$TMP/ref" 2>&1
c=$(field checksum "$TMP/ref")
check "the plain 2-process run prints a result" test -n "$c"

# --xmpi-resize=restart under xmpi-resume: 2 -> 3 -> 1.
"$R" "$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev" --xmpi-resize=restart \
    "--xmpi-checkpoint=$TMP/c" --xmpi-checkpoint-every=1000 --xmpi-verbose=1 \
    "--xmpi-trace=$TMP/t.csv" >"$TMP/out" 2>&1
rc=$?
check "restart: the resized run ends with exit 0" test $rc = 0
[ $rc = 0 ] || tail -20 "$TMP/out" | sed 's/^/#   /'
check "restart: the plain run's checksum and residual on 1 process" \
    sh -c "test '$(field checksum "$TMP/out")' = '$c' &&
           test '$(field residual "$TMP/out")' = '$(field residual "$TMP/ref")' &&
           test '$(field ranks "$TMP/out")' = 1 && test '$(field iterations "$TMP/out")' = 100"
check "restart: xmpi-resume relaunched at 3, then at 1 process, from the resize checkpoints" \
    sh -c "grep -q 'relaunch at 3 processes (resize 1) from $TMP/c/ckpt-000000000020' '$TMP/out' &&
           grep -q 'relaunch at 1 processes (resize 2) from $TMP/c/ckpt-000000000050' '$TMP/out' &&
           test \$(grep -c 'ended to be resized' '$TMP/out') = 2"
check "restart: one trace over the three launches: 2, 3, then 1 process, 10 intervals" \
    sh -c "test '$(sizes "$TMP/t.csv")' = '2 3 1' && test \$(tail -n +2 '$TMP/t.csv' | wc -l) = 10"
check "restart: the trace's action column says relaunch at the two resizes" \
    test "$(awk -F, 'NR > 1 && $11 ~ /relaunch/ { printf "%s ", $2 }' "$TMP/t.csv")" = "20 50 "
check "restart: the run's clock goes on over the relaunches (elapsed never goes down)" \
    awk -F, 'NR > 2 && $12 + 0 < last { exit 1 } NR > 1 { last = $12 + 0 }' "$TMP/t.csv"
check "restart: the relaunched jobs said so and took their record (no RESIZE left)" \
    sh -c "test \$(grep -c 'relaunched at' '$TMP/out') = 2 && ! test -e '$TMP/c/RESIZE'"
check "restart: one result line (the jobs that ended to resize printed none)" \
    test "$(grep -c '^result:' "$TMP/out")" = 1

# --xmpi-resize=auto on an MPI that refuses to spawn: the grow goes by checkpoint and restart.
LIBXMPI_FAULT=spawn-refuse "$R" "$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev" \
    "--xmpi-checkpoint=$TMP/a" --xmpi-checkpoint-every=1000 >"$TMP/auto" 2>&1
rc=$?
check "auto: a refused spawn is carried out by checkpoint and restart, and the shrink too" \
    sh -c "test $rc = 0 && grep -q 'MPI refused the spawn of 1: by checkpoint and restart instead' '$TMP/auto' &&
           grep -q 'relaunch at 3 processes' '$TMP/auto' && grep -q 'relaunch at 1 processes' '$TMP/auto'"
check "auto: the plain run's checksum" test "$(field checksum "$TMP/auto")" = "$c"
# --xmpi-resize=auto under xmpi-resume on an MPI that spawns: the grow is a spawn (no
# checkpoint written yet, so the restart way is not priced), and the spawned process takes
# part in every decision; the shrink to 1 goes below mpirun's processes, by restart.
"$R" "$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev" "--xmpi-checkpoint=$TMP/d" \
    --xmpi-checkpoint-every=1000 --xmpi-verbose=1 >"$TMP/dyn" 2>&1
rc=$?
check "auto with a spawning MPI: spawns for the grow, relaunches at 1 for the shrink" \
    sh -c "test $rc = 0 && grep -q 'by dynamic processes (checkpoint and restart not priced)' '$TMP/dyn' &&
           test \$(grep -c 'ended to be resized' '$TMP/dyn') = 1 && grep -q 'relaunch at 1 processes' '$TMP/dyn' &&
           grep -q 'by checkpoint and restart: only processes spawned during the run can leave' '$TMP/dyn'"
check "auto with a spawning MPI: the plain run's checksum on 1 process" \
    sh -c "test '$(field checksum "$TMP/dyn")' = '$c' && test '$(field ranks "$TMP/dyn")' = 1"

# ... and without a relauncher the job keeps its processes, as before.
LIBXMPI_FAULT=spawn-refuse "$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev1" \
    "--xmpi-checkpoint=$TMP/n" --xmpi-checkpoint-every=1000 >"$TMP/norelaunch" 2>&1
rc=$?
check "auto without --xmpi-relaunch: the job keeps 2 processes and finishes right" \
    sh -c "test $rc = 0 && test '$(field checksum "$TMP/norelaunch")' = '$c' &&
           test '$(field ranks "$TMP/norelaunch")' = 2 && ! grep -q 'by checkpoint and restart' '$TMP/norelaunch'"

# Without a relauncher, --xmpi-resize=restart ends the job with 75 and the record says the size.
"$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev" --xmpi-resize=restart \
    "--xmpi-checkpoint=$TMP/m" --xmpi-checkpoint-every=1000 >"$TMP/manual" 2>&1
rc=$?
check "restart without a relauncher: exit 75, and RESIZE asks for 3 processes from ckpt-000000000020" \
    sh -c "test $rc = 75 && grep -qx 'nprocs 3' '$TMP/m/RESIZE' &&
           grep -qx 'checkpoint ckpt-000000000020' '$TMP/m/RESIZE' && ! grep -q '^result:' '$TMP/manual'"
# A damaged record: the relaunch by hand still finishes right, and says it did not take it.
cp "$TMP/m/RESIZE" "$TMP/resize.saved"
sed -i 's/^elapsed .*/elapsed soon/' "$TMP/m/RESIZE"
"$LAUNCH" -np 3 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev1" --xmpi-resize=spawn \
    "--xmpi-checkpoint=$TMP/m" --xmpi-restart=latest >"$TMP/damaged" 2>&1
rc=$?
check "a damaged RESIZE: one message naming its line, and the relaunch finishes right" \
    sh -c "test $rc = 0 && grep -q \"RESIZE:5: field elapsed: 'soon' is not accepted\" '$TMP/damaged' &&
           test '$(field checksum "$TMP/damaged")' = '$c'"
# xmpi-resume refuses to relaunch what it cannot size.
rm -rf "$TMP/m" && mkdir -p "$TMP/m" && sed 's/^nprocs .*/nprocs many/' "$TMP/resize.saved" >"$TMP/m/RESIZE"
"$R" sh -c 'exit 75' "--xmpi-checkpoint=$TMP/m" >"$TMP/badn" 2>&1
rc=$?
check "xmpi-resume: a record without a process count is not relaunched (exit 75)" \
    sh -c "test $rc = 75 && grep -q \"gives no process count ('many')\" '$TMP/badn'"
cp "$TMP/resize.saved" "$TMP/m/RESIZE"
"$R" sh -c 'exit 75' "--xmpi-checkpoint=$TMP/m" >"$TMP/nonp" 2>&1
rc=$?
check "xmpi-resume: a command without -np/-n/--np is not relaunched at a new size (exit 75)" \
    sh -c "test $rc = 75 && grep -q 'has no -np/-n/--np to set' '$TMP/nonp'"

# Bad options: one message, exit 2, before any work.
"$LAUNCH" -np 2 "$J" "${JA[@]}" --xmpi-resize=restart >"$TMP/nockpt" 2>&1
rc=$?
check "--xmpi-resize=restart without --xmpi-checkpoint is refused at MPI_Init" \
    sh -c "test $rc = 2 && grep -q 'option --xmpi-resize=restart: needs --xmpi-checkpoint=DIR' '$TMP/nockpt'"
"$LAUNCH" -np 2 "$J" "${JA[@]}" --xmpi-resize=restart "--xmpi-checkpoint=$TMP/sl" --xmpi-rms=slurm \
    >"$TMP/slurm" 2>&1
rc=$?
check "--xmpi-resize=restart with --xmpi-rms=slurm is refused at MPI_Init, nothing written" \
    sh -c "test $rc = 2 && grep -q 'option --xmpi-resize=restart: not with --xmpi-rms=slurm' '$TMP/slurm' &&
           ! test -e '$TMP/sl/RESIZE'"
"$LAUNCH" -np 1 "$J" -n 10 --xmpi-resize=sideways >"$TMP/badmode" 2>&1
rc=$?
check "--xmpi-resize=sideways is refused, naming what is accepted" \
    sh -c "test $rc != 0 && grep -q \"sideways\" '$TMP/badmode' && grep -q 'auto, spawn or restart' '$TMP/badmode'"
check "no process is left" sh -c "! pgrep -f '^$J -n 120' >/dev/null"
