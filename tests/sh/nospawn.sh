# Malleability on an MPI library that cannot spawn (issue 19): Debian 12's own MPICH 4.0.2 (device
# ch4:ucx) refuses every MPI_Comm_spawn. The library and a malleable Jacobi are built with it
# (into BUILD-nospawn), and the job grows 2 -> 3 and shrinks 3 -> 1 under xmpi-resume by
# checkpoint and restart, with --xmpi-resize=auto: the answer is the plain 2-process run's under
# the same MPI, bit for bit. With --xmpi-resize=spawn the job cannot grow and keeps its
# processes. SKIP where Debian's mpich package is missing (scripts/install-deps.sh installs it)
# or where it can spawn (then relaunch.sh's refused-spawn hook covers the same path).
# shared: Debian's own MPICH, built into its own directory whatever the MPI under test
. "$(dirname "$0")/lib.sh"
# Blocking spawns: this test asserts the iterations at which the job is relaunched (the checkpoints they name);
# async.sh covers asynchronous spawns (--xmpi-spawn-async, on by default).
export XMPI_SPAWN_ASYNC=off
NB="$BUILD-nospawn"
case $NB in /*) ;; *) NB="$ROOT/$NB" ;; esac
export MPIRUN=mpirun.mpich XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-60}
if ! command -v mpicc.mpich >/dev/null || ! command -v mpirun.mpich >/dev/null; then
    echo "ok - malleability by checkpoint and restart on Debian's MPICH # SKIP no mpicc.mpich/mpirun.mpich (Debian's mpich and libmpich-dev; scripts/install-deps.sh installs them)"
    exit 0
fi
make -s -C "$ROOT" MPICC=mpicc.mpich MPIRUN=mpirun.mpich BUILD="$NB" \
    "$NB/bin/jacobi" "$NB/bin/jacobi-plain" >"$TMP/build.log" 2>&1
rc=$?
check "the library and Jacobi build with Debian's MPICH (mpicc.mpich) into $NB" test $rc = 0
[ $rc = 0 ] || { tail -20 "$TMP/build.log" | sed 's/^/#   /'; exit 1; }
mv="$(dirname "$(command -v mpicc.mpich)")/mpichversion"
version=$("$mv" 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')
device=$("$mv" 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
echo "# MPICH $version, device $device"
if [ "$device" != ch4:ucx ]; then
    echo "ok - malleability by checkpoint and restart on Debian's MPICH # SKIP its device is '$device', which may spawn; relaunch.sh covers a refused spawn with LIBXMPI_FAULT=spawn-refuse"
    exit 0
fi

J="$NB/bin/jacobi"
R="$ROOT/tools/xmpi-resume"
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
sizes() { awk -F, 'NR > 1 && $3 != last { printf "%s%s", (n++ ? " " : ""), $3; last = $3 }' "$1"; }
JA=(-n 120 -i 100 -s 3 -d --xmpi-si=10 --xmpi-policy=smp --xmpi-oversubscribe)
printf '# iteration action count class\n20 spawn 1 local\n50 remove 2 local\n' >"$TMP/ev"

"$LAUNCH" -np 2 "$NB/bin/jacobi-plain" -n 120 -i 100 -s 3 >"$TMP/ref" 2>&1
c=$(field checksum "$TMP/ref")
check "the plain 2-process run under MPICH prints a result" test -n "$c"

"$R" "$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev" "--xmpi-checkpoint=$TMP/c" \
    --xmpi-checkpoint-every=1000 --xmpi-verbose=1 "--xmpi-trace=$TMP/t.csv" >"$TMP/out" 2>&1
rc=$?
check "auto: the job ends with exit 0" test $rc = 0
[ $rc = 0 ] || tail -20 "$TMP/out" | sed 's/^/#   /'
check "auto: MPI's refusal is said as this MPI's (ch4:ucx cannot spawn), then C/R instead" \
    sh -c "grep -q 'this MPI library cannot spawn processes at all: MPICH .* ch4:ucx' '$TMP/out' &&
           grep -q 'MPI refused the spawn of 1: by checkpoint and restart instead' '$TMP/out'"
check "auto: xmpi-resume relaunched at 3, then at 1 process" \
    sh -c "grep -q 'relaunch at 3 processes (resize 1) from $TMP/c/ckpt-000000000020' '$TMP/out' &&
           grep -q 'relaunch at 1 processes (resize 2) from $TMP/c/ckpt-000000000050' '$TMP/out'"
check "auto: one trace over the three launches: 2, 3, then 1 process" \
    test "$(sizes "$TMP/t.csv")" = "2 3 1"
check "auto: the plain run's checksum and residual, on 1 process after 100 iterations" \
    sh -c "test '$(field checksum "$TMP/out")' = '$c' &&
           test '$(field residual "$TMP/out")' = '$(field residual "$TMP/ref")' &&
           test '$(field ranks "$TMP/out")' = 1 && test '$(field iterations "$TMP/out")' = 100"

# --xmpi-resize=spawn: no way to grow; the job keeps its 2 processes (the shrink to 1 would go
# below mpirun's processes, which only a relaunch can do) and finishes right.
printf '20 spawn 1 local\n' >"$TMP/ev1"
"$R" "$LAUNCH" -np 2 "$J" "${JA[@]}" "--xmpi-rms=schedule:$TMP/ev1" "--xmpi-checkpoint=$TMP/s" \
    --xmpi-checkpoint-every=1000 --xmpi-resize=spawn >"$TMP/spawn" 2>&1
rc=$?
check "spawn only: the refused grow leaves the job on 2 processes with the plain run's answer" \
    sh -c "test $rc = 0 && test '$(field checksum "$TMP/spawn")' = '$c' &&
           test '$(field ranks "$TMP/spawn")' = 2 && ! grep -q 'ended to be resized' '$TMP/spawn'"
