# The Fortran 2008 module xmpi_f08: its constants are the C header's, and its contract
# (tests/fortran/f08_api.f90): registered arrays followed through moves, spawns, removals and
# a restart, every refusal of bad input, MPI calls counted once. One SKIP line when the MPI
# has no Fortran wrapper with mpi_f08 (the build says what is missing).
. "$(dirname "$0")/lib.sh"
B="$ROOT/$BUILD"
T="$B/tests/f08_api"
if [ ! -x "$T" ]; then
    why=$(sed -n 2p "$B/fortran-status" 2>/dev/null)
    echo "ok - Fortran 2008 module xmpi_f08 # SKIP ${why:-not built (run make)}"
    exit 0
fi

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

# ---- the module's arrays through a checkpoint and a restart at another size -----------------
mkdir -p "$TMP/ckpt"
"$LAUNCH" -np 2 "$T" checkpoint "--xmpi-checkpoint=$TMP/ckpt" >"$TMP/ck" 2>&1
tap "$TMP/ck"
"$LAUNCH" -np 3 "$T" restart "--xmpi-checkpoint=$TMP/ckpt" --xmpi-restart=latest >"$TMP/rs" 2>&1
rc=$?
tap "$TMP/rs"
check "f08_api restart on 3 processes from 2's checkpoint: exits 0 with its 2 checks" \
    test $rc = 0 -a "$(tap "$TMP/rs" | grep -c '^ok')" = 2

require_spawn "xmpi_f08: spawning and removing processes"
# ---- the module's arrays through XMPI_Spawn and XMPI_Remove ---------------------------------
launch_retry "$TMP/grow" -np 2 "$T" grow --xmpi-oversubscribe
rc=$?
tap "$TMP/grow"
check "f08_api grow: exits 0 with its 5 checks" test $rc = 0 -a "$(tap "$TMP/grow" | grep -c '^ok')" = 5
left=$(leftovers "$T")
check "f08_api grow: no process left behind${left:+ (pids $left)}" test -z "$left"
