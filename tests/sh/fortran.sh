# The Fortran 2008 module xmpi_f08: its constants are the C header's; its contract
# (tests/fortran/f08_api.f90: registered arrays followed through moves, spawns, removals and a
# restart, every refusal of bad input, MPI calls counted once); docs/api.md's Fortran first
# program, which prints the README's C one's line; and the Fortran Jacobi
# (examples/jacobi_f08.f90), which prints the C Jacobi's result line bit for bit on the same
# input, static, balanced (-b) and malleable (-d under smp and hpmp). One SKIP line when the
# MPI has no Fortran wrapper with mpi_f08 (the build says what is missing).
. "$(dirname "$0")/lib.sh"
B="$ROOT/$BUILD"
T="$B/tests/f08_api"
JF="$B/bin/jacobi-f08"
J="$B/bin/jacobi"
JP="$B/bin/jacobi-plain"
if [ ! -x "$T" ] || [ ! -x "$JF" ]; then
    why=$(sed -n 2p "$B/fortran-status" 2>/dev/null)
    [ "$why" = yes ] && why="not built in $BUILD (run make)"
    echo "ok - Fortran 2008 module xmpi_f08 # SKIP ${why:-not built (run make)}"
    exit 0
fi

# field NAME FILE: a key=value from the result line.
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
# same_bits FILE: the result line without the times, which alone may differ between runs.
same_bits() { sed -n 's/^result: //p' "$1" | sed 's/ time=[^ ]*//; s/ iter_time=[^ ]*//'; }
# tap OUT: the program's own TAP lines, passed on.
tap() { grep -E '^(not )?ok - ' "$1"; }

# ---- constants ------------------------------------------------------------------------------
cat >"$TMP/constants.c" <<'EOF'
#include <stdio.h>
#include <xmpi.h>
#define P(name) printf("%s %d\n", #name, (int)(name))
int main(void)
{
    P(XMPI_SUCCESS); P(XMPI_ERR_ARG); P(XMPI_ERR_STATE); P(XMPI_ERR_NOMEM); P(XMPI_ERR_MPI);
    P(XMPI_ERR_PAPI); P(XMPI_ERR_NOT_FOUND); P(XMPI_ERR_CLASS); P(XMPI_ERR_RESOURCES);
    P(XMPI_ERR_SPAWN); P(XMPI_ERR_RMS); P(XMPI_ERR_CHECKPOINT); P(XMPI_ERR_LAST);
    P(XMPI_RUNNING); P(XMPI_NEWLY_SPAWNED); P(XMPI_REMOVED);
    P(XMPI_SYSTEM_NONE); P(XMPI_SYSTEM_SPAWN); P(XMPI_SYSTEM_SHRINK);
    P(XMPI_DISTRIBUTED); P(XMPI_REPLICATED); P(XMPI_VERSION_MAJOR); P(XMPI_VERSION_MINOR);
    printf("XMPI_VERSION_STRING %s\n", XMPI_VERSION_STRING);
    return 0;
}
EOF
${MPICC:-mpicc} -I"$ROOT/include" "$TMP/constants.c" -o "$TMP/constants" 2>"$TMP/constants.err" &&
    "$TMP/constants" >"$TMP/constants.c.out"
"$LAUNCH" -np 1 "$T" constants >"$TMP/constants.f.out" 2>&1
out=$(diff "$TMP/constants.c.out" "$TMP/constants.f.out" | head -5)
check "xmpi_f08's constants are xmpi.h's (error codes, states, schemes, version)${out:+: $out}" \
    test -s "$TMP/constants.c.out" -a -z "$out"

# ---- the module's contract ------------------------------------------------------------------
"$LAUNCH" -np 2 "$T" api --xmpi-si=4 "--xmpi-trace=$TMP/api.csv" >"$TMP/api" 2>"$TMP/api.err"
rc=$?
tap "$TMP/api"
check "f08_api: exits 0 with all 41 checks reported" test $rc = 0 -a "$(tap "$TMP/api" | wc -l)" = 41
# Each refusal says why in one line, on rank 0 only.
missing=""
while IFS= read -r line; do
    [ "$(grep -cxF "xmpi: $line" "$TMP/api.err")" = 1 ] || missing+=" [$line]"
done <<'EOF'
XMPI_Register_dense: the dense matrix is 1-D; it must be 2-D
XMPI_Register_vector: the vector is 2-D; it must be 1-D
XMPI_Register_dense: the dense matrix's rows (first extent) hold 12 elements; they must hold size = 11
XMPI_Register_sparse: the row pointers ia are real64; they must be XMPI_Array_int32
XMPI_Register_sparse: the column indices ja are real64; they must be XMPI_Array_int32
XMPI_Register_vector: the datatype does not match an array of int32
XMPI_Register_vector: a derived datatype of 12 bytes for an array of real64 (8 bytes)
XMPI_Register_vector: the datatype is MPI_DATATYPE_NULL
XMPI_Register_vector: size 12 differs from the registered arrays' 11
XMPI_Register_vector: the scheme is neither XMPI_DISTRIBUTED nor XMPI_REPLICATED
XMPI_Register_vector: the vector has no buffer: XMPI_Alloc it first (0 elements for no rows)
XMPI_Register_vector: the vector's view was pointed elsewhere or allocated: buffers come from XMPI_Alloc
XMPI_Register_vector: the vector is registered already
XMPI_Free: the array is registered; XMPI_Unregister it first
XMPI_Unregister: a sparse matrix is unregistered by its row pointers ia
EOF
check "f08_api: each refusal printed its one-line reason once (rank 0)${missing:+; missing or repeated:$missing}" \
    test -z "$missing"
# Per process and iteration the program's MPI calls carry 116 bytes: 2 processes x 4 iterations
# per interval. Counted once whichever way the MPI's Fortran binding goes (through the C MPI_
# functions or not).
check "the trace counts the Fortran MPI calls' bytes once: 928 per interval of 4 iterations" \
    test "$(awk -F, 'NR > 1 { print $10 }' "$TMP/api.csv" | tr '\n' ' ')" = "928 928 "

"$LAUNCH" -np 2 "$T" abort >"$TMP/abort" 2>&1
rc=$?
check "a refusal without ierror ends the job (exit $rc), saying why, as MPI's default error handler" \
    sh -c "test $rc != 0 -a $rc != 124 && grep -q 'XMPI_Register_dense failed: invalid argument.*(pass ierror to handle it)' '$TMP/abort' && ! grep -q 'still running' '$TMP/abort'"

# ---- docs/api.md's Fortran twin of the README's first program ---------------------------------
awk '/^```fortran$/ && !done { on = 1; next } on && /^```$/ { on = 0; done = 1 } on' "$ROOT/docs/api.md" >"$TMP/first.f90"
FC=$(sed -n 1p "$B/fortran-status")
APP="$TMP/xmpi-ext-first-f08"
(cd "$TMP" && $FC -Wall -Werror first.f90 -o "$APP" -I"$B/include" -L"$B/lib" -lxmpi_f08 -lxmpi \
    -Wl,-rpath,"$B/lib") >"$TMP/first.cc" 2>&1
check "docs/api.md's Fortran first program compiles with -Wall -Werror" test -x "$APP"
"$LAUNCH" -np 2 "$APP" --xmpi-si=50 "--xmpi-trace=$TMP/first.csv" >"$TMP/first.out" 2>&1
check "... runs on 2 processes and prints the C program's line (sum 2000000.000 on 2 processes)" \
    grep -qx 'sum 2000000.000 on 2 processes' "$TMP/first.out"
check "... with libxmpi's trace, one row per interval (10)" test "$(wc -l <"$TMP/first.csv" 2>/dev/null)" = 11

# ---- the Fortran Jacobi against the C one ---------------------------------------------------
check "examples/jacobi_f08.f90 uses xmpi_f08 and no other MPI module" \
    sh -c "grep -qiE '^ *use +xmpi_f08' '$ROOT/examples/jacobi_f08.f90' && ! grep -qiE '^ *use +mpi(_f08)? *(,|$)' '$ROOT/examples/jacobi_f08.f90'"
"$LAUNCH" -np 2 "$JP" -n 240 -i 60 -s 7 >"$TMP/c2" 2>&1
for np in 1 2 3; do
    "$LAUNCH" -np $np "$JF" -n 240 -i 60 -s 7 >"$TMP/f$np" 2>"$TMP/f$np.err"
done
"$LAUNCH" -np 3 "$JP" -n 240 -i 60 -s 7 >"$TMP/c3" 2>&1
check "C Jacobi printed a result line" test -n "$(same_bits "$TMP/c2")"
check "Fortran Jacobi on 2 processes: the C result line bit for bit (times aside)" \
    test "$(same_bits "$TMP/f2")" = "$(same_bits "$TMP/c2")"
check "... on 3 processes, against C's on 3" test "$(same_bits "$TMP/f3")" = "$(same_bits "$TMP/c3")"
check "... on 1 process: the same checksum and residual" \
    test "$(field checksum "$TMP/f1")" = "$(field checksum "$TMP/c2")" -a "$(field residual "$TMP/f1")" = "$(field residual "$TMP/c2")"
"$LAUNCH" -np 2 "$JP" -n 240 -i 500 -s 7 -t 1e-13 >"$TMP/ct" 2>&1
"$LAUNCH" -np 2 "$JF" -n 240 -i 500 -s 7 -t 1e-13 >"$TMP/ft" 2>&1
check "-t 1e-13: stops after the same iteration ($(field iterations "$TMP/ct")) with the same bits" \
    test -n "$(field iterations "$TMP/ct")" -a "$(same_bits "$TMP/ft")" = "$(same_bits "$TMP/ct")"
"$LAUNCH" -np 2 "$J" -n 240 -i 60 -s 7 -p 1,0.4 >"$TMP/cp" 2>&1
"$LAUNCH" -np 2 "$JF" -n 240 -i 60 -s 7 -p 1,0.4 >"$TMP/fp" 2>&1
check "-p 1,0.4: the C blocks (rows=$(field rows "$TMP/cp")) and bits" \
    test "$(field rows "$TMP/cp")" = 171,69 -a "$(same_bits "$TMP/fp")" = "$(same_bits "$TMP/cp")"
# -b with rank 2 on an emulated class at 0.3 of a core (an imbalance no noise hides, so that
# the balancer moves rows): blocks follow the measured times, the bits do not.
printf '%s:fast:2:1:1\n%s:slow:1:1:0.3\n' "$(hostname)" "$(hostname)" >"$TMP/classes"
"$LAUNCH" -np 3 "$JF" -n 240 -i 60 -s 7 -b --xmpi-lb-th1=0 --xmpi-si=10 \
    "--xmpi-resources=$TMP/classes" --xmpi-initial=fast:2,slow:1 \
    "--xmpi-trace=$TMP/fb.csv" >"$TMP/fb" 2>&1
check "-b on 3 processes: the C checksum and residual" \
    test "$(field checksum "$TMP/fb")" = "$(field checksum "$TMP/c3")" -a "$(field residual "$TMP/fb")" = "$(field residual "$TMP/c3")"
check "-b: the balancer moved rows (a rebalance in the trace)" grep -qE ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/fb.csv"
check "-b: the trace has the profiled bytes of the Fortran MPI calls" \
    awk -F, 'NR > 1 && $10 > 0 { n++ } END { exit !(n == 6) }' "$TMP/fb.csv"
# Bad input: non-zero exit, one message, no result (as the C program).
bad() { # bad DESCRIPTION PATTERN ARGS...
    local d=$1 p=$2; shift 2
    "$LAUNCH" -np 2 "$JF" "$@" >"$TMP/bad" 2>&1
    local rc=$?
    if [ $rc = 2 ] && [ "$(grep -c -- "$p" "$TMP/bad")" = 1 ] && ! grep -q '^result:' "$TMP/bad"; then
        ok "$d"
    else
        notok "$d (exit $rc)"; sed 's/^/#   /' "$TMP/bad" | head -5
    fi
}
bad "jacobi-f08 -n 0 refused: exit 2, one message" "bad order '-n 0'" -n 0
bad "jacobi-f08 -s -1 refused" "bad seed '-s -1'" -s -1
bad "jacobi-f08 -p with one weight for 2 ranks refused" "one per rank" -p 1
bad "jacobi-f08 --long refused" "long options are not accepted" --long

# ---- the module's arrays through a checkpoint and a restart at another size -----------------
mkdir -p "$TMP/ckpt"
"$LAUNCH" -np 2 "$T" checkpoint "--xmpi-checkpoint=$TMP/ckpt" >"$TMP/ck" 2>&1
tap "$TMP/ck"
"$LAUNCH" -np 3 "$T" restart "--xmpi-checkpoint=$TMP/ckpt" --xmpi-restart=latest >"$TMP/rs" 2>&1
rc=$?
tap "$TMP/rs"
check "f08_api restart on 3 processes from 2's checkpoint: exits 0 with its 2 checks" \
    test $rc = 0 -a "$(tap "$TMP/rs" | grep -c '^ok')" = 2

# ---- malleable: grow and shrink, as tests/sh/malleable.sh drives the C Jacobi ----------------
require_spawn "xmpi_f08: spawning and removing processes"
# Blocking spawns: the iteration of each change is asserted.
export XMPI_SPAWN_ASYNC=off
sizes() { awk -F, 'NR > 1 && $3 != last { printf "%s%s", (n++ ? " " : ""), $3; last = $3 }' "$1"; }
"$LAUNCH" -np 2 "$JP" -n 300 -i 120 -s 5 >"$TMP/ref" 2>&1
printf '# iteration action count class\n20 spawn 1 local\n40 spawn 1 local\n80 remove 2 local\n' >"$TMP/events"
EXPECTED='iteration 20: spawned 1 process (now 3)
iteration 40: spawned 1 process (now 4)
iteration 80: removed 2 processes (now 2)'
malleable() { # malleable NAME POLICY EVENTS ARGS...
    local name=$1 policy=$2 events=$3 out="$TMP/$1"; shift 3
    RETRY_HOOK="rm -f '$out.csv'" launch_retry "$out" -np 2 "$JF" -n 300 -i 120 -s 5 -d "$@" --xmpi-si=20 \
        "--xmpi-policy=$policy" "--xmpi-rms=schedule:$events" --xmpi-oversubscribe "--xmpi-trace=$out.csv"
    local rc=$?
    check "$name: exits 0" test $rc = 0
    [ $rc = 0 ] || sed 's/^/#   /' "$out" "$out.err" | tail -8
    check "$name: the static C run's checksum, residual and iterations" \
        test -n "$(field checksum "$TMP/ref")" -a "$(field checksum "$out")" = "$(field checksum "$TMP/ref")" \
        -a "$(field residual "$out")" = "$(field residual "$TMP/ref")" -a "$(field iterations "$out")" = 120
    check "$name: one result line (removed processes print none)" test "$(grep -c '^result:' "$out")" = 1
    local left
    left=$(leftovers "$JF")
    check "$name: no process left behind${left:+ (pids $left)}" test -z "$left"
}
malleable "jacobi-f08 -d smp" smp "$TMP/events"
check "jacobi-f08 -d smp: the trace shows 2, 3, 4, then 2 processes" test "$(sizes "$TMP/jacobi-f08 -d smp.csv")" = "2 3 4 2"
check "jacobi-f08 -d smp: rank 0 reported each change once" \
    test "$(sed -n 's/^jacobi-f08: \(iteration [0-9]*: [sr].*\)/\1/p' "$TMP/jacobi-f08 -d smp")" = "$EXPECTED"
malleable "jacobi-f08 -d -b smp" smp "$TMP/events" -b --xmpi-lb-th1=0 --xmpi-lb-k=1
check "jacobi-f08 -d -b smp: 2, 3, 4, then 2 processes" test "$(sizes "$TMP/jacobi-f08 -d -b smp.csv")" = "2 3 4 2"
# HPMP takes the part of an offer its model says finishes soonest (possibly none): the bits stay.
printf '20 spawn 2 local\n' >"$TMP/events-hpmp"
malleable "jacobi-f08 -d hpmp" hpmp "$TMP/events-hpmp" --xmpi-verbose=1
check "jacobi-f08 -d hpmp: the policy weighed the offer" \
    grep -q 'hpmp: predicted seconds to the end' "$TMP/jacobi-f08 -d hpmp.err"

# ---- the module's arrays through XMPI_Spawn and XMPI_Remove ---------------------------------
launch_retry "$TMP/grow" -np 2 "$T" grow --xmpi-oversubscribe
rc=$?
tap "$TMP/grow"
check "f08_api grow: exits 0 with its 5 checks" test $rc = 0 -a "$(tap "$TMP/grow" | grep -c '^ok')" = 5
left=$(leftovers "$T")
check "f08_api grow: no process left behind${left:+ (pids $left)}" test -z "$left"
