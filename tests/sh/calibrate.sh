# Calibration end to end: xmpi-calibrate writes a file the library accepts, a job run with
# --xmpi-calibration says it used it, and malformed or missing files and bad options are refused.
. "$(dirname "$0")/lib.sh"
CAL="$ROOT/$BUILD/bin/xmpi-calibrate"
J="$ROOT/$BUILD/bin/jacobi"

# stops DESCRIPTION PATTERN OUT RC: exit status 2, PATTERN printed once, and no result line.
stops() {
    local desc=$1 pattern=$2 out=$3 rc=$4 n
    n=$(grep -c -- "$pattern" "$out")
    if [ "$rc" = 2 ] && [ "$n" = 1 ] && ! grep -qE '^(result|wrote)' "$out"; then
        ok "$desc"
    else
        notok "$desc (exit $rc, '$pattern' seen $n times)"; sed 's/^/#   /' "$out" | head -20
    fi
}
# key NAME FILE: the value of a key line.
key() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# Small sizes keep it short; the figures are not judged, only that they are figures.
"$LAUNCH" -np 2 "$CAL" -m 65536 -r 3 -o "$TMP/cal.txt" >"$TMP/out" 2>&1
rc=$?
check "xmpi-calibrate exits 0" test $rc = 0
check "xmpi-calibrate prints the fit and its residual" grep -q '^fit t = alpha + n \* beta.*residual rms' "$TMP/out"
check "xmpi-calibrate prints the summary table" \
    test "$(grep -cE '^(alpha|beta|gamma|spawn_single|spawn_group|remove) ' "$TMP/out")" = 6
check "calibration file: alpha > 0 and beta > 0" \
    awk -v a="$(key alpha "$TMP/cal.txt")" -v b="$(key beta "$TMP/cal.txt")" \
    'BEGIN { exit !(a != "" && b != "" && a + 0 > 0 && b + 0 > 0) }'
check "calibration file: gamma > 0" awk -v g="$(key gamma "$TMP/cal.txt")" 'BEGIN { exit !(g + 0 > 0) }'
# copy_contention: every process filling fresh memory at once against one alone, per other
# process; the summary shows both measurements it came from.
check "calibration file: copy_contention measured (a number from 0 to 100) and shown" \
    awk -v g="$(key copy_contention "$TMP/cal.txt")" -v n="$(grep -c '^copy_contention .*2 processes at once' "$TMP/out")" \
    'BEGIN { exit !(g != "" && g + 0 >= 0 && g + 0 <= 100 && n == 1) }'
# touch: rank 1's first read of a fresh buffer an MPI_Recv filled; the machine decides the
# figure (about 1e-9 s/byte under the VMs' shadow paging, next to 0 elsewhere).
check "calibration file: touch measured (a number of seconds per byte from 0 to 1e-3) and shown" \
    awk -v t="$(key touch "$TMP/cal.txt")" -v n="$(grep -c '^touch .*first read of a fresh 16 MiB buffer an MPI_Recv filled' "$TMP/out")" \
    'BEGIN { exit !(t != "" && t + 0 >= 0 && t + 0 <= 1e-3 && n == 1) }'
check "without a spawn source the spawn costs are the defaults (the removal's job size unknown)" \
    test "$(key spawn_single "$TMP/cal.txt")" = 0.32 -a "$(key remove "$TMP/cal.txt")" = 0.01 \
        -a "$(key remove_procs "$TMP/cal.txt")" = 0

# The library reads it (the same parser) and says so.
"$LAUNCH" -np 2 "$J" -n 120 -i 5 "--xmpi-calibration=$TMP/cal.txt" --xmpi-verbose >"$TMP/j" 2>&1
rc=$?
check "jacobi runs with the written file" test $rc = 0 -a -n "$(grep '^result:' "$TMP/j")"
check "--xmpi-verbose names the file used" \
    test "$(grep -c "^xmpi: calibration: $TMP/cal.txt\$" "$TMP/j")" = 1
"$LAUNCH" -np 2 "$J" -n 120 -i 5 --xmpi-verbose >"$TMP/j" 2>&1
check "without the option --xmpi-verbose says the defaults apply" \
    grep -q "^xmpi: calibration: defaults (measured on the project's machine)" "$TMP/j"
XMPI_CALIBRATION="$TMP/cal.txt" "$LAUNCH" -np 1 "$J" -n 60 -i 2 --xmpi-verbose >"$TMP/j" 2>&1
check "XMPI_CALIBRATION in the environment is read" grep -q "^xmpi: calibration: $TMP/cal.txt" "$TMP/j"
printf 'alpha 1e-6\nspawn single 1 0.25\n' >"$TMP/part.txt"
"$LAUNCH" -np 1 "$J" -n 60 -i 2 "--xmpi-calibration=$TMP/part.txt" --xmpi-verbose >"$TMP/j" 2>&1
check "a partial file: the note lists the keys left at their defaults" \
    grep -q "^xmpi: calibration: $TMP/part.txt (defaults for beta, gamma, spawn_group, remove, alpha_spawned, beta_spawned, copy, spawn_join, spawn_lag, remove_procs, copy_contention, touch)" "$TMP/j"

# XMPI_Get_option("calibration"): the path, or "" without the option.
cat >"$TMP/getopt.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <xmpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char v[4096] = "unset";
    int rc = XMPI_Get_option("calibration", v, sizeof v);
    printf("rc=%d calibration=[%s]\n", rc, v);
    MPI_Finalize();
    return 0;
}
EOF
if ${MPICC:-mpicc} -std=c11 -I"$ROOT/include" -o "$TMP/getopt" "$TMP/getopt.c" -L"$ROOT/$BUILD/lib" \
       -lxmpi -Wl,-rpath,"$ROOT/$BUILD/lib" 2>"$TMP/cc.err"; then
    "$LAUNCH" -np 1 "$TMP/getopt" "--xmpi-calibration=$TMP/cal.txt" >"$TMP/g1" 2>&1
    "$LAUNCH" -np 1 "$TMP/getopt" >"$TMP/g2" 2>&1
    check "XMPI_Get_option(\"calibration\") returns the path" grep -qx "rc=0 calibration=\[$TMP/cal.txt\]" "$TMP/g1"
    check "XMPI_Get_option(\"calibration\") returns \"\" without it" grep -qx 'rc=0 calibration=\[\]' "$TMP/g2"
else
    notok "the XMPI_Get_option probe builds"; sed 's/^/#   /' "$TMP/cc.err" | head
fi

# A malformed file stops the job at MPI_Init with the parser's FILE:LINE message.
printf '# good so far\nalpha 1e-6\nbeta fast\n' >"$TMP/bad.txt"
"$LAUNCH" -np 2 "$J" -n 120 -i 5 "--xmpi-calibration=$TMP/bad.txt" >"$TMP/j" 2>&1
stops "a malformed file stops jacobi, naming file and line" \
    "xmpi: option --xmpi-calibration: $TMP/bad.txt:3: field beta: 'fast'" "$TMP/j" $?
printf 'alpha 1e-6\nalpha 2e-6\n' >"$TMP/twice.txt"
"$LAUNCH" -np 2 "$J" -n 120 -i 5 "--xmpi-calibration=$TMP/twice.txt" >"$TMP/j" 2>&1
stops "a key given twice stops jacobi, naming both lines" \
    "$TMP/twice.txt:2: key alpha given again; first given on line 1" "$TMP/j" $?
"$LAUNCH" -np 2 "$J" -n 120 -i 5 "--xmpi-calibration=$TMP/none.txt" >"$TMP/j" 2>&1
stops "a missing file is refused" "option --xmpi-calibration: $TMP/none.txt: cannot open" "$TMP/j" $?
"$LAUNCH" -np 2 "$J" -n 120 -i 5 "--xmpi-calibration=" >"$TMP/j" 2>&1
stops "an empty file name is refused" "option --xmpi-calibration: '' is not accepted" "$TMP/j" $?

# --spawn-file: xmpi-spawnbench's lines give the spawn and remove costs.
cat >"$TMP/sb.txt" <<'EOF'
# xmpi calibration v1: KIND MODE K SECONDS_PER_PROCESS (written by xmpi-spawnbench)
spawn single 1 0.300000
remove single 1 0.012000
raw single 1 0.250000
spawn group 2 0.150000
remove group 2 0.008000
EOF
"$LAUNCH" -np 2 "$CAL" -m 1024 -r 2 --spawn-file "$TMP/sb.txt" -o "$TMP/cal2.txt" >"$TMP/out" 2>&1
rc=$?
check "--spawn-file: exits 0" test $rc = 0
check "--spawn-file: spawn and remove costs come from the file" \
    test "$(key spawn_single "$TMP/cal2.txt")/$(key spawn_group "$TMP/cal2.txt")/$(key remove "$TMP/cal2.txt")" = 0.3/0.15/0.01

# --spawn: measured where this MPI can spawn; elsewhere a message and the defaults.
SPAWN_TIMEOUT=40 launch_retry "$TMP/sp" -np 2 "$CAL" -m 1024 -r 2 --spawn=2 -o "$TMP/cal3.txt" \
    --xmpi-oversubscribe
rc=$?
check "--spawn: exits 0" test $rc = 0
if [ "${LIBXMPI_TEST_SPAWN:-yes}" = yes ]; then
    check "--spawn: spawn_single and remove measured (> 0)" \
        awk -v s="$(key spawn_single "$TMP/cal3.txt")" -v r="$(key remove "$TMP/cal3.txt")" \
        -v src="$(grep -c 'XMPI_Spawn of 1 process, median of 2' "$TMP/sp")" \
        'BEGIN { exit !(s + 0 > 0 && r + 0 > 0 && src == 1) }'
    check "--spawn: remove_procs is the job's size before the removal (2 started + 1 spawned)" \
        test "$(key remove_procs "$TMP/cal3.txt")" = 3
else
    check "--spawn: this MPI cannot spawn: said so and kept the defaults" \
        grep -q 'spawn and remove costs keep their defaults' "$TMP/sp.err"
fi

# Bad options: exit 2 and one message naming the option, before any measurement. (Open MPI's
# mpirun takes 1-2 s to end a job whose processes exit non-zero, so only a few cases run here.)
bad() { # bad DESCRIPTION PATTERN ARGS...
    local desc=$1 pattern=$2; shift 2
    "$LAUNCH" -np 2 "$CAL" "$@" >"$TMP/b" 2>&1
    stops "$desc" "$pattern" "$TMP/b" $?
}
bad "-r 0 is refused" "xmpi-calibrate: option -r: '0' is not accepted" -r 0 -o "$TMP/x.txt"
bad "an unknown option is refused" "xmpi-calibrate: unknown option '--fast'" --fast
bad "an unwritable -o is refused" "option -o: cannot write '$TMP/no/dir/c.txt'" -o "$TMP/no/dir/c.txt"
bad "a malformed --spawn-file is refused with its line" \
    "option --spawn-file: $TMP/bad.txt:3: field beta" --spawn-file "$TMP/bad.txt" -o "$TMP/x.txt"
check "a refused run writes nothing" test ! -e "$TMP/x.txt"
"$LAUNCH" -np 2 "$CAL" -h >"$TMP/b" 2>&1
rc=$?
check "-h prints the usage once and exits 0" test $rc = 0 -a "$(grep -c '^usage: ' "$TMP/b")" = 1

# --spawn also measures the link to a spawned process (alpha_spawned, beta_spawned).
if [ "${LIBXMPI_TEST_SPAWN:-yes}" = yes ]; then
    "$LAUNCH" -np 2 "$CAL" -m 65536 -r 3 --spawn=1 --xmpi-oversubscribe -o "$TMP/link.txt" >"$TMP/link" 2>&1
    check "--spawn: the spawned link is measured" grep -q '^alpha_spawned .*ping-pong fit, rank 0 and a spawned process' "$TMP/link"
    check "--spawn: the file has alpha_spawned > 0 and beta_spawned > 0" \
        awk -v a="$(key alpha_spawned "$TMP/link.txt")" -v b="$(key beta_spawned "$TMP/link.txt")" \
        'BEGIN { exit !(a != "" && b != "" && a + 0 > 0 && b + 0 > 0) }'
else
    echo "ok - the spawned link # SKIP this MPI cannot spawn processes"
fi
